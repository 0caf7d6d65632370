//! Recorders report physical facts: a saturated bottleneck is busy all the time,
//! a port's queue histogram covers exactly the run, a flow's throughput series
//! integrates to its size, every data packet of a recorded flow has a latency.

use crate::common::scratch;
use std::path::Path;
use std::process::Command;

pub fn rocesim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// Runs `text` into `dir/name` and returns the run directory.
pub fn run_into(dir: &Path, name: &str, text: &str, extra: &[&str]) -> std::path::PathBuf {
    let sc = dir.join(format!("{name}.toml"));
    std::fs::write(&sc, text).unwrap();
    let out = dir.join(name);
    let mut args = vec![
        "run",
        sc.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ];
    args.extend_from_slice(extra);
    let o = rocesim(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

/// Rows of a CSV file as maps from column name to text.
pub fn csv(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(String::from))
                .collect()
        })
        .collect()
}

pub fn f(row: &std::collections::HashMap<String, String>, k: &str) -> f64 {
    row[k]
        .parse()
        .unwrap_or_else(|_| panic!("{k} = {:?}", row[k]))
}

pub fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

/// Star: hosts 0-4, switch 5 (port p faces host p). Hosts 1 and 2 send 2 MB each
/// to host 0 without congestion control, host 3 sends 20 small flows to host 4.
pub const INCAST: &str = r#"
name = "recorders"
[topology]
kind = "star"
hosts = 5
rate = "100Gbps"
delay = "1us"
[switch]
buffer = "2MB"
[cc]
algorithm = "none"
[[workload.flows]]
src = 1
dst = 0
size = "2MB"
[[workload.flows]]
src = 2
dst = 0
size = "2MB"
[[workload.poisson]]
cdf = "fb-hadoop"
load = 0.2
duration = "200us"
hosts = [3, 4]
[output]
queue_interval = "0s"
link_utilization = "10us"
flow_rates = { flows = [0, 1], interval = "5us" }
latency = { flows = "all" }
"#;

#[test]
fn a_saturated_bottleneck_is_busy_all_the_time_and_idle_links_are_not() {
    let dir = scratch("rec-util");
    let run = run_into(&dir, "r", INCAST, &[]);
    let rows = csv(&run.join("link_util.csv"));
    // The port toward host 0 while both 2 MB flows send (they need > 320 us together).
    let to_rx: Vec<f64> = rows
        .iter()
        .filter(|r| r["node"] == "5" && r["port"] == "0")
        .filter(|r| (20_000.0..300_000.0).contains(&f(r, "time_ns")))
        .map(|r| f(r, "utilization"))
        .collect();
    assert!(to_rx.len() >= 27, "{} samples", to_rx.len());
    for u in &to_rx {
        assert!((0.999..=1.000001).contains(u), "bottleneck utilization {u}");
    }
    // The ports toward the senders carry only ACKs and PFC frames.
    for r in rows.iter().filter(|r| r["node"] == "5" && r["port"] == "1") {
        assert!(f(r, "utilization") < 0.05, "{r:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn queue_histograms_cover_the_run_and_hold_the_largest_queue() {
    let dir = scratch("rec-qhist");
    let run = run_into(&dir, "r", INCAST, &[]);
    let s = summary(&run);
    let end_ns = s["sim_seconds"].as_f64().unwrap() * 1e9;
    let rows = csv(&run.join("queue_hist.csv"));
    let mut mass = std::collections::BTreeMap::<(String, String), f64>::new();
    let mut top = 0.0f64;
    for r in &rows {
        *mass
            .entry((r["node"].clone(), r["port"].clone()))
            .or_default() += f(r, "time_ns");
        top = top.max(f(r, "hi_bytes"));
    }
    assert_eq!(mass.len(), 5, "every switch port has a histogram");
    for (port, m) in &mass {
        // The window starts at the first flow (t = 0); times are printed in ns to 3 decimals.
        assert!(
            (m - end_ns).abs() < 0.01,
            "port {port:?}: {m} ns vs run {end_ns} ns"
        );
    }
    let max_q = s["max_queue_bytes"].as_f64().unwrap();
    assert!(max_q > 100_000.0, "the incast builds a queue: {max_q}");
    assert!(
        rows.iter().any(|r| f(r, "lo_bytes") <= max_q
            && max_q < f(r, "hi_bytes")
            && f(r, "time_ns") > 0.0),
        "some port spent time in the bin of the largest queue {max_q}"
    );
    assert!(
        top <= max_q * 1.125 + 1.0,
        "no bin beyond the largest queue"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn flow_throughput_series_integrate_to_the_bytes_delivered() {
    let dir = scratch("rec-rates");
    let run = run_into(&dir, "r", INCAST, &[]);
    let rows = csv(&run.join("flow_rates.csv"));
    let fct = csv(&run.join("fct.csv"));
    for id in ["0", "1"] {
        let size = fct
            .iter()
            .find(|r| r["flow_id"] == id)
            .map(|r| f(r, "size_bytes"))
            .unwrap();
        let series: Vec<_> = rows.iter().filter(|r| r["flow_id"] == id).collect();
        assert!(series.len() > 50, "flow {id}: {} rows", series.len());
        // Gbps x ns = bits.
        let delivered: f64 = series
            .iter()
            .map(|r| f(r, "delivered_gbps") * f(r, "interval_ns") / 8.0)
            .sum();
        assert!(
            (delivered - size).abs() / size < 1e-5,
            "flow {id}: {delivered} of {size} bytes"
        );
        let sent: f64 = series
            .iter()
            .map(|r| f(r, "sent_gbps") * f(r, "interval_ns") / 8.0)
            .sum();
        assert!(
            (sent - size).abs() / size < 1e-5,
            "no retransmission: sent {sent}"
        );
        assert_eq!(f(series.last().unwrap(), "delivered_bytes"), size);
        // Two flows share the 100 Gbps bottleneck: about 50 Gbps each in mid-run.
        let mid: Vec<f64> = series
            .iter()
            .filter(|r| (50_000.0..250_000.0).contains(&f(r, "time_ns")))
            .map(|r| f(r, "delivered_gbps"))
            .collect();
        let mean = mid.iter().sum::<f64>() / mid.len() as f64;
        assert!((40.0..60.0).contains(&mean), "flow {id}: {mean} Gbps");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_data_packet_of_a_recorded_flow_has_a_one_way_delay() {
    let dir = scratch("rec-latency");
    let run = run_into(&dir, "r", INCAST, &[]);
    let fct = csv(&run.join("fct.csv"));
    let s = summary(&run);
    assert_eq!(s["retransmitted_bytes"].as_u64(), Some(0));
    // 1000-byte payloads (the default MTU).
    let packets: f64 = fct
        .iter()
        .map(|r| (f(r, "size_bytes") / 1000.0).ceil().max(1.0))
        .sum();
    let hist = csv(&run.join("latency_hist.csv"));
    let counted: f64 = hist.iter().map(|r| f(r, "packets")).sum();
    assert_eq!(counted, packets);
    // Two 1 us links and two serializations: nothing arrives sooner than 2 us.
    assert!(hist.iter().all(|r| f(r, "hi_ns") > 2000.0), "{:?}", hist[0]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn two_adjacent_latency_windows_split_the_packets_between_them() {
    // A packet counts in the window its delivery falls in: [0, 150 us) and
    // [150 us, 1 s) together hold every packet once, and each holds some.
    let dir = scratch("rec-latency-window");
    let count = |name: &str, window: &str| -> f64 {
        let set = format!("output.latency={{ flows = \"all\", window = {window} }}");
        let run = run_into(&dir, name, INCAST, &["--set", &set]);
        let hist = csv(&run.join("latency_hist.csv"));
        hist.iter().map(|r| f(r, "packets")).sum()
    };
    let early = count("early", r#"["0us", "150us"]"#);
    let late = count("late", r#"["150us", "1s"]"#);
    let whole = csv(&run_into(&dir, "whole", INCAST, &[]).join("latency_hist.csv"))
        .iter()
        .map(|r| f(r, "packets"))
        .sum::<f64>();
    assert!(early > 0.0 && late > 0.0, "{early} + {late}");
    assert_eq!(early + late, whole);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `output.format = "parquet"` writes the five streamed tables as Parquet
/// files holding the CSV files' rows, value for value (times, rates, counts
/// and PFC events), leaves no CSV of them, and `rocesim report` reads them.
#[test]
fn parquet_tables_hold_the_csv_rows_and_the_report_reads_them() {
    use rocesim::output::table::read_csv_text;
    let dir = scratch("rec-parquet");
    let on = [
        "--set",
        "output.queue_interval=\"2us\"",
        "--set",
        "output.link_utilization=\"5us\"",
        "--set",
        "output.flow_rates={ flows = \"all\", interval = \"5us\" }",
    ];
    let csv_run = run_into(&dir, "csv", INCAST, &on);
    let mut pq = on.to_vec();
    pq.extend(["--set", "output.format=\"parquet\""]);
    let pq_run = run_into(&dir, "pq", INCAST, &pq);
    for stem in ["fct", "pfc", "queue", "link_util", "flow_rates"] {
        assert!(!pq_run.join(format!("{stem}.csv")).exists(), "{stem}.csv");
        let (_, a) = read_csv_text(&csv_run, stem).unwrap().unwrap();
        let (path, b) = read_csv_text(&pq_run, stem).unwrap().unwrap();
        assert_eq!(path, pq_run.join(format!("{stem}.parquet")));
        assert!(a.lines().count() > 1, "{stem}: the incast writes rows");
        assert_eq!(a.lines().count(), b.lines().count(), "{stem}");
        for (x, y) in a.lines().zip(b.lines()) {
            let (xs, ys): (Vec<&str>, Vec<&str>) = (x.split(',').collect(), y.split(',').collect());
            assert_eq!(xs.len(), ys.len(), "{stem}: {x} / {y}");
            for (u, v) in xs.iter().zip(&ys) {
                let same = u == v
                    || matches!((u.parse::<f64>(), v.parse::<f64>()), (Ok(p), Ok(q)) if p == q);
                assert!(same, "{stem}: {x} / {y}");
            }
        }
    }
    assert_eq!(summary(&csv_run), summary(&pq_run));
    let o = rocesim(&["report", pq_run.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(pq_run.join("report.html").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Unset, `output.format` is Parquet only where the run is sure to write more
/// than 1 GB of CSV tables: queue.csv's 5 ports sampled every ns while a
/// 400 MB flow takes 32 ms at 100 Gbps hold at least 160 M rows of 8 bytes.
#[test]
fn a_run_sure_to_write_more_than_a_gigabyte_of_csv_writes_parquet() {
    use rocesim::output::TableFormat;
    use rocesim::sim::limits::table_format;
    let cfg = |size: &str, format: &str| {
        let text = format!(
            "[topology]\nkind = \"star\"\nhosts = 5\nrate = \"100Gbps\"\ndelay = \"1us\"\n\
             [output]\nqueue_interval = \"1ns\"\n{format}\n\
             [[workload.flows]]\nsrc = 1\ndst = 0\nsize = \"{size}\"\nstart = \"0us\"\n"
        );
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let src = rocesim::scenario::Source::text(&text, "t.toml", &base, "t");
        rocesim::scenario::to_config(&src, &[]).unwrap()
    };
    let (format, note) = table_format(&cfg("400MB", ""));
    assert_eq!(format, TableFormat::Parquet);
    let note = note.expect("a note says why");
    assert!(
        note.contains("1.3GB") && note.contains("output.format = \"csv\""),
        "{note}"
    );
    let keep = table_format(&cfg("400MB", "format = \"csv\""));
    assert_eq!(keep, (TableFormat::Csv, None));
    let small = table_format(&cfg("200MB", ""));
    assert_eq!(small, (TableFormat::Csv, None), "0.64 GB");
}
