//! Collectives (`[[workload.collective]]`, docs/ai-workloads.md): the ring
//! all-reduce's time on an idle non-blocking fabric against its closed form,
//! bus bandwidth near the link's goodput, the bytes each algorithm moves,
//! iterations and compute gaps, several jobs with background traffic, the
//! same bytes on several threads, and bad input.

use super::common::{assert_all_delivered, output_files, run, scratch, star};
use rocesim::output::RunOutputs;
use rocesim::output::collectives::CollectiveRow;

/// A star of `n` hosts (one switch: non-blocking) with a collective table.
fn on_star(n: u32, cc: &str, extra_nic: &str, table: &str) -> String {
    star(
        n,
        &format!(
            "[cc]\nalgorithm = \"{cc}\"\n[nic]\n{extra_nic}\n[[workload.collective]]\n{table}"
        ),
    )
}

fn only_row(out: &RunOutputs) -> &CollectiveRow {
    assert_eq!(out.collectives.len(), 1, "{:?}", out.collectives);
    &out.collectives[0]
}

/// Payload bytes a host link carries per second while it sends its ring
/// share and ACKs what it receives (one ACK of 64 B per data packet of
/// `mtu` payload + 62 B headers), at 100 Gbps.
fn goodput_bps(mtu: f64) -> f64 {
    100e9 * mtu / (mtu + 62.0 + 64.0)
}

/// The issue's B: line rate x payload / wire bytes of a full packet.
fn line_goodput_bps(mtu: f64) -> f64 {
    100e9 * mtu / (mtu + 62.0)
}

#[test]
fn a_ring_all_reduce_on_an_idle_star_takes_its_closed_form() {
    // T = 2(N-1) steps of S/N bytes at the link's goodput B, each followed
    // by the one-way latency of its last packet (two 1 us links and the
    // switch's store-and-forward of one packet), and the last ACK's return.
    for (n, size) in [
        (4u32, 1_000_000u64),
        (8, 4_000_000),
        (16, 16_000_000),
        (8, 64_000_000),
    ] {
        for mtu in [1000u32, 4096] {
            let hosts: Vec<String> = (0..n).map(|h| h.to_string()).collect();
            let text = on_star(
                n,
                "none",
                &format!("mtu = {mtu}"),
                &format!(
                    "op = \"all-reduce\"\nalgorithm = \"ring\"\nsize = {size}\nhosts = [{}]\n",
                    hosts.join(", ")
                ),
            );
            let out = run(&text, &[]);
            assert_all_delivered(&out);
            let r = only_row(&out);
            let wire_s = (mtu as f64 + 62.0) * 8.0 / 100e9;
            let latency = 2e-6 + wire_s;
            let steps = 2.0 * (n as f64 - 1.0);
            let b = goodput_bps(mtu as f64);
            let closed = steps * (size as f64 / n as f64 * 8.0 / b + latency);
            let t = r.duration_ps() as f64 / 1e12;
            let err = (t - closed) / closed;
            assert!(
                err.abs() < 0.02,
                "N = {n}, S = {size}, MTU {mtu}: {t:.6} s vs closed form {closed:.6} s ({:+.2} %)",
                err * 100.0
            );
            // nccl-tests' bus bandwidth: S/T x 2(N-1)/N.
            let busbw = size as f64 * 8.0 / t * steps / n as f64;
            assert!(
                (r.busbw_gbps() * 1e9 - busbw).abs() < 1e3,
                "busbw as nccl-tests"
            );
            if size >= 64_000_000 && mtu == 4096 {
                let ratio = busbw / line_goodput_bps(mtu as f64);
                assert!(ratio >= 0.95, "busbw {:.1} % of B", ratio * 100.0);
            }
        }
    }
}

/// Each host's payload sent, from fct.csv's flows.
fn sent_by_host(out: &RunOutputs, n: u32) -> Vec<u64> {
    let mut v = vec![0u64; n as usize];
    for f in &out.fct {
        v[f.src as usize] += f.size;
    }
    v
}

/// Bytes a host sends, by host.
type PerHost = Box<dyn Fn(u32) -> u64>;

#[test]
fn each_algorithm_moves_the_bytes_its_closed_form_says() {
    let n = 8u32;
    const SIZE: u64 = 8_000_000;
    let size = SIZE;
    let cases: [(&str, &str, PerHost); 7] = [
        ("all-reduce", "ring", Box::new(|_| 2 * 7 * SIZE / 8)),
        (
            "all-reduce",
            "halving-doubling",
            Box::new(|_| 2 * 7 * SIZE / 8),
        ),
        ("all-gather", "ring", Box::new(|_| 7 * SIZE / 8)),
        ("reduce-scatter", "ring", Box::new(|_| 7 * SIZE / 8)),
        ("all-to-all", "direct", Box::new(|_| 7 * SIZE / 8)),
        ("all-to-all", "pairwise", Box::new(|_| 7 * SIZE / 8)),
        // A chain from rank 0: every rank but the last forwards the buffer.
        (
            "broadcast",
            "ring",
            Box::new(|h| if h < 7 { SIZE } else { 0 }),
        ),
    ];
    for (op, alg, want) in cases {
        let text = on_star(
            n,
            "dcqcn",
            "",
            &format!(
                "op = \"{op}\"\nalgorithm = \"{alg}\"\nsize = {size}\nhosts = [\"0-7\"]\nchunk = \"250KB\"\n"
            ),
        );
        let out = run(&text, &[]);
        assert_all_delivered(&out);
        for (h, &got) in sent_by_host(&out, n).iter().enumerate() {
            assert_eq!(got, want(h as u32), "{op} {alg}: host {h}");
        }
        let r = only_row(&out);
        assert!(
            r.busbw_gbyte_s > 0.0 && r.end > r.start,
            "{op} {alg}: {r:?}"
        );
    }
    // The double binary tree: each tree carries half the data up and down;
    // over both trees every rank sends at most 2 x S (an inner rank of both)
    // and the ranks together send 2 x (N-1) x S.
    let text = on_star(
        n,
        "dcqcn",
        "",
        &format!(
            "op = \"all-reduce\"\nalgorithm = \"double-binary-tree\"\nsize = {size}\nhosts = [\"0-7\"]\n"
        ),
    );
    let out = run(&text, &[]);
    assert_all_delivered(&out);
    let sent = sent_by_host(&out, n);
    assert_eq!(sent.iter().sum::<u64>(), 2 * 7 * size);
    assert!(sent.iter().all(|&s| s <= 2 * size), "{sent:?}");
}

#[test]
fn iterations_wait_for_the_compute_gap_and_the_job_time_adds_up() {
    let text = on_star(
        4,
        "none",
        "",
        "op = \"all-reduce\"\nsize = \"4MB\"\nhosts = [0, 1, 2, 3]\niterations = 3\ncompute = \"200us\"\nstart = \"10us\"\nname = \"train\"\n",
    );
    let out = run(&text, &[]);
    assert_all_delivered(&out);
    assert_eq!(out.collectives.len(), 3);
    let rows = &out.collectives;
    assert_eq!(rows[0].start.ps(), 10_000_000, "the job starts at 10 us");
    for w in rows.windows(2) {
        // Every rank is idle through its gap: the next iteration's first
        // send leaves at least 200 us after the earliest rank finished.
        let gap = w[1].start.ps() as i64 - w[0].end.ps() as i64;
        assert!(gap >= 200_000_000 - 10_000_000, "gap {gap} ps");
        // Iterations take the same time on an idle star.
        let (a, b) = (w[0].duration_ps() as f64, w[1].duration_ps() as f64);
        assert!((a - b).abs() / a < 0.01, "{a} vs {b}");
    }
    let job = &out.summary.jobs[0];
    assert_eq!((job.name.as_str(), job.iterations_done), ("train", 3));
    assert_eq!(job.end_ns, rows[2].end.ps() as f64 / 1e3);
    let sum: u64 = rows.iter().map(|r| r.iteration_ps).sum();
    assert_eq!(
        sum as f64 / 1e3,
        job.jct_ns,
        "iteration times add up to the job's time"
    );
}

#[test]
fn chunks_pipeline_a_broadcast_chain() {
    // A chain of 8 hosts moves S = 8 MB. Whole, it is 7 transfers in turn,
    // each S at the data's wire rate (1062 B a 1000 B packet) and one packet's
    // latency L. In m = 32 chunks it pipelines: the root's first chunk, then
    // m + 5 chunk times of the forwarding hosts, whose links also carry the
    // ACKs of what they receive (64 B a packet), and the 7 hops' latency.
    let time = |chunk: &str| {
        let text = on_star(
            8,
            "none",
            "",
            &format!(
                "op = \"broadcast\"\nsize = \"8MB\"\nhosts = [\"0-7\"]\nchunk = \"{chunk}\"\n"
            ),
        );
        let out = run(&text, &[]);
        assert_all_delivered(&out);
        only_row(&out).duration_ps() as f64 / 1e12
    };
    let (s, m, rate) = (8e6, 32.0, 100e9);
    let l = 2e-6 + 1062.0 * 8.0 / rate;
    let whole = 7.0 * (s * 1.062 * 8.0 / rate + l);
    let (c0, c1) = (s / m * 1.062 * 8.0 / rate, s / m * 1.126 * 8.0 / rate);
    let chunked = c0 + (m + 5.0) * c1 + 7.0 * l;
    for (got, want, what) in [
        (time("0B"), whole, "whole"),
        (time("250KB"), chunked, "chunked"),
    ] {
        let err = (got - want) / want;
        assert!(
            err.abs() < 0.02,
            "{what}: {got:.6} s vs {want:.6} s ({:+.2} %)",
            err * 100.0
        );
    }
}

#[test]
fn several_jobs_and_background_traffic_share_a_fat_tree_alike_on_any_thread_count() {
    let text = r#"
name = "jobs"
[topology]
kind = "fat-tree"
k = 4
host_rate = "100Gbps"
fabric_rate = "100Gbps"
delay = "1us"
[cc]
algorithm = "dcqcn"
[[workload.collective]]
name = "a"
op = "all-reduce"
size = "2MB"
placement = "packed"
ranks = 4
iterations = 2
compute = "20us"
[[workload.collective]]
name = "b"
op = "all-to-all"
size = "2MB"
placement = "spread"
ranks = 4
[[workload.collective]]
name = "c"
op = "all-gather"
size = "2MB"
placement = "random"
ranks = 4
chunk = "128KB"
[[workload.poisson]]
cdf = "fb-hadoop"
load = 0.3
duration = "0.2ms"
"#;
    let dir = scratch("collective-jobs");
    let out = run(text, &[]);
    assert_all_delivered(&out);
    let jobs: Vec<(&str, u32)> = (out.summary.jobs.iter())
        .map(|j| (j.name.as_str(), j.iterations_done))
        .collect();
    assert_eq!(jobs, [("a", 2), ("b", 1), ("c", 1)]);
    let sc = dir.join("jobs.toml");
    std::fs::write(&sc, text).unwrap();
    let files: Vec<_> = ["1", "3"]
        .iter()
        .map(|t| {
            let d = dir.join(format!("t{t}"));
            let args = [
                "run",
                sc.to_str().unwrap(),
                "--out",
                d.to_str().unwrap(),
                "-q",
                "--threads",
                t,
            ];
            let o = super::recorders::rocesim(&args);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            output_files(&d)
        })
        .collect();
    assert_eq!(files[0], files[1], "the same bytes on 1 and 3 threads");
    assert!(files[0].iter().any(|(n, _)| n == "collectives.csv"));
    assert!(files[0].iter().any(|(n, _)| n == "steps.csv"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A scenario with a `[[workload.graph]]` table `table`, on a star of `n`.
fn graph_on_star(n: u32, table: &str) -> String {
    on_star(
        n,
        "none",
        "",
        "op = \"all-reduce\"\nsize = \"1MB\"\nhosts = [0, 1]\n",
    )
    .replace(
        "[[workload.collective]]\nop = \"all-reduce\"\nsize = \"1MB\"\nhosts = [0, 1]\n",
        "",
    ) + "\n[[workload.graph]]\n"
        + table
}

#[test]
fn a_graph_file_runs_its_dependencies_in_order() {
    // Rank 0 computes 5 us and sends 1 MB to rank 1, which computes 3 us on
    // it and sends 1 MB back: the job takes both computes, two message
    // arrivals and the last message's ACK back.
    let dir = scratch("graph-file");
    let graph = r#"{"ranks": 2, "nodes": [
        {"id": 1, "rank": 0, "kind": "compute", "time": "5us"},
        {"id": 2, "rank": 0, "kind": "send", "to": 1, "size": 1000000, "deps": [1]},
        {"id": 3, "rank": 0, "kind": "recv", "from": 1, "size": 1000000},
        {"id": 1, "rank": 1, "kind": "recv", "from": 0, "size": 1000000},
        {"id": 2, "rank": 1, "kind": "compute", "time": "3us", "deps": [1]},
        {"id": 3, "rank": 1, "kind": "send", "to": 0, "size": 1000000, "deps": [2]}
    ]}"#;
    std::fs::write(dir.join("g.json"), graph).unwrap();
    let text = graph_on_star(
        2,
        &format!(
            "name = \"pingpong\"\nfile = \"{}\"\n",
            dir.join("g.json").display()
        ),
    );
    let out = run(&text, &[]);
    assert_all_delivered(&out);
    let r = only_row(&out);
    assert_eq!((r.job.as_str(), r.op.as_str()), ("pingpong", "graph"));
    let arrival = 1e6 * 1.062 * 8.0 / 100e9 + 2e-6 + 1062.0 * 8.0 / 100e9;
    let ack_back = 2e-6 + 64.0 * 8.0 / 100e9;
    let want = 5e-6 + arrival + 3e-6 + arrival + ack_back;
    let got = r.duration_ps() as f64 / 1e12;
    assert!((got - want).abs() / want < 0.005, "{got} vs {want}");
    // The second message left when the first had arrived and 3 us passed.
    let second = out.fct.iter().find(|f| f.src == 1).unwrap();
    let left = second.start.ps() as f64 / 1e12;
    assert!((left - (5e-6 + arrival + 3e-6)).abs() < 5e-9, "{left}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_chakra_trace_made_by_astra_sims_tools_runs_end_to_end() {
    // astra-sim's custom ring all-reduce of 1 MiB over 8 NPUs (data/chakra):
    // per rank 14 sends of 128 KiB to the next rank, 14 receives from the
    // previous one and 7 computes of 7 us, one chain of dependencies. Each
    // send waits for the previous node, so the job is 14 sends one after
    // another (each until its last ACK) and the 7 computes.
    let prefix = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/chakra/custom_collectives/custom_ring_allreduce_8npus_1MB/custom_allreduce"
    );
    let text = graph_on_star(8, &format!("name = \"ring\"\nchakra = \"{prefix}\"\n"));
    let out = run(&text, &[]);
    assert_all_delivered(&out);
    for h in 0..8u32 {
        let mine: Vec<_> = out.fct.iter().filter(|f| f.src == h).collect();
        assert_eq!(mine.len(), 14, "host {h}");
        assert!(
            mine.iter()
                .all(|f| f.dst == (h + 1) % 8 && f.size == 131072)
        );
    }
    let job = &out.summary.jobs[0];
    let per_rank = |h: u32| {
        let fct: f64 = out
            .fct
            .iter()
            .filter(|f| f.src == h)
            .map(|f| f.fct.ps() as f64)
            .sum();
        fct / 1e3 + 7.0 * 7000.0
    };
    let longest = (0..8).map(per_rank).fold(0.0, f64::max);
    assert!(
        (job.jct_ns - longest).abs() / longest < 0.01,
        "{} vs {longest}",
        job.jct_ns
    );
    // astra-sim's collective microbenchmark: one all-reduce node of 1 MiB per rank.
    let prefix = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/chakra/all_reduce/4npus_1MB/all_reduce"
    );
    let text = graph_on_star(4, &format!("chakra = \"{prefix}\"\n"));
    let out = run(&text, &[]);
    assert_all_delivered(&out);
    let r = only_row(&out);
    assert_eq!(
        (r.op.as_str(), r.algorithm.as_str(), r.ranks, r.size),
        ("all-reduce", "ring", 4, 1_048_576)
    );
    assert_eq!(sent_by_host(&out, 4), vec![2 * 3 * 1_048_576 / 4; 4]);
}

#[test]
fn bad_collectives_and_graphs_are_one_line_errors() {
    let dir = scratch("graph-bad");
    let bad = |table: &str, want: &str| {
        let text = on_star(8, "none", "", table);
        let e = rocesim::run_str(&text, &[], &Default::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{e}\n(wanted {want:?})");
        assert!(!e.contains('\n'), "one line: {e}");
    };
    bad(
        "op = \"all-reduce\"\nsize = \"1MB\"\nhosts = [\"0-5\"]\nalgorithm = \"halving-doubling\"\n",
        "power-of-two",
    );
    bad(
        "op = \"all-gather\"\nsize = \"1MB\"\nhosts = [0, 1]\nalgorithm = \"pairwise\"\n",
        "all-gather has no \"pairwise\" algorithm (valid: ring)",
    );
    bad(
        "op = \"all-reduce\"\nsize = \"1MB\"\nranks = 9\n",
        "9 ranks cannot be placed: 8 servers are free",
    );
    bad(
        "op = \"all-reduce\"\nsize = \"1MB\"\n",
        "workload.collective[0].ranks: is missing",
    );
    bad(
        "op = \"all-reduce\"\nsize = \"7B\"\nhosts = [\"0-7\"]\n",
        "too small",
    );
    bad(
        "op = \"all-reduce\"\nsize = \"1MB\"\nranks = 4\nplacement = \"rail-aligned\"\n",
        "rail-aligned needs servers with several NICs",
    );
    bad(
        "op = \"all-reduce\"\nsize = \"1MB\"\nhosts = [0, 1]\nchannels = 65\n",
        "valid: 1..64",
    );
    bad(
        "op = \"all-sum\"\nsize = \"1MB\"\nhosts = [0, 1]\n",
        "all-sum",
    );
    let graph = |name: &str, body: &str| {
        let p = dir.join(name);
        std::fs::write(&p, body).unwrap();
        format!("file = \"{}\"\n", p.display())
    };
    let g = |table: String, want: &str| {
        let text = graph_on_star(8, &table);
        let e = rocesim::run_str(&text, &[], &Default::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{e}\n(wanted {want:?})");
        assert!(!e.contains('\n'), "one line: {e}");
    };
    g(
        graph(
            "a.json",
            r#"{"ranks": 2, "nodes": [{"id": 1, "rank": 0, "kind": "send", "to": 1, "size": 10}]}"#,
        ),
        "rank 0 sends 1 messages to rank 1 with tag 0 and rank 1 posts 0 receives",
    );
    g(
        graph(
            "b.json",
            r#"{"ranks": 2, "nodes": [{"id": 1, "rank": 0, "kind": "compute", "time": "1us", "deps": [2]}, {"id": 2, "rank": 0, "kind": "compute", "time": "1us", "deps": [1]}]}"#,
        ),
        "cycle",
    );
    g(
        graph(
            "c.json",
            r#"{"ranks": 2, "nodes": [{"id": 1, "rank": 0, "kind": "compute", "time": "1us", "deps": [7]}]}"#,
        ),
        "rank 0 node 1 waits for node 7, which rank 0 does not have",
    );
    g(
        graph(
            "d.json",
            r#"{"ranks": 2, "nodes": [{"id": 1, "rank": 0, "kind": "teleport"}]}"#,
        ),
        "teleport",
    );
    g(
        graph(
            "e.json",
            r#"{"ranks": 2, "nodes": [{"id": 1, "rank": 0, "kind": "send", "to": 1, "size": 10}, {"id": 1, "rank": 1, "kind": "recv", "from": 0, "size": 11}]}"#,
        ),
        "sends 10 B and its receive, rank 1 node 1, expects 11 B",
    );
    g("name = \"x\"\n".into(), "give file = \"graph.json\"");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn rail_aligned_ranks_run_one_channel_per_rail_and_every_message_stays_on_its_rail() {
    // Two groups of 4 servers with 2 NICs (rails) each: a rail-aligned ring
    // all-reduce over the 8 servers has 2 channels, channel c on every
    // server's NIC c, so each message leaves and lands on the same rail.
    let text = r#"
name = "rails"
[topology]
kind = "rail-optimized"
groups = 2
servers_per_group = 4
rails = 2
spines = 2
host_rate = "100Gbps"
fabric_rate = "200Gbps"
[nic]
receive_on = "same-rail"
[cc]
algorithm = "dcqcn"
[[workload.collective]]
op = "all-reduce"
size = "8MB"
placement = "rail-aligned"
ranks = 8
"#;
    let dir = scratch("collective-rails");
    let d = super::recorders::run_into(&dir, "rails", text, &[]);
    let rows = super::recorders::csv(&d.join("fct.csv"));
    assert_eq!(rows.len(), 2 * 8 * 14, "2 channels x 8 ranks x 14 steps");
    let mut per_rail = [0usize; 2];
    for r in &rows {
        assert_eq!(r["src_nic"], r["dst_nic"], "{r:?}");
        per_rail[r["src_nic"].parse::<usize>().unwrap()] += 1;
    }
    assert_eq!(per_rail, [8 * 14, 8 * 14], "each rail carries one channel");
    std::fs::remove_dir_all(&dir).unwrap();
}
