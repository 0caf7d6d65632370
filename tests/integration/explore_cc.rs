use crate::common::run_with;
use crate::measure::*;
use rocesim::sim::RunOptions;
use rocesim::units::Delta;

fn show(path: &str, sets: &[&str], ports: &[(u32, u16)], step_us: f64, end_us: f64) {
    let text = std::fs::read_to_string(path).unwrap();
    let opts = RunOptions {
        trace_rates: Some(Delta::from_us(10)),
        keep_samples: true,
        ..RunOptions::default()
    };
    let out = run_with(&text, sets, &opts);
    let nflows = out.summary.flows_total as u32;
    let mut t = 0.0;
    while t < end_us {
        let (a, b) = (us(t), us(t + step_us));
        let g: Vec<String> = (0..nflows)
            .map(|f| format!("{:5.1}", goodput(&out, f, a, b) / 1e9))
            .collect();
        let cls: Vec<String> = (0..nflows)
            .map(|f| {
                out.rates
                    .iter()
                    .filter(|r| r.flow == f && r.time >= a && r.time < b)
                    .next_back()
                    .map_or("-".to_string(), |r| {
                        format!("{:?}/{}", r.congestion, r.window.unwrap_or(0))
                    })
            })
            .collect();
        let q: Vec<String> = ports
            .iter()
            .map(|&(n, p)| {
                let v = queue(&out, n, p, a, b);
                format!(
                    "{:7.0}/{:7.0}",
                    mean(&v),
                    v.iter().cloned().fold(0.0, f64::max)
                )
            })
            .collect();
        eprintln!(
            "{t:7.0} {} | {} | {}",
            g.join(" "),
            q.join(" "),
            cls.join(" ")
        );
        t += step_us;
    }
    eprintln!(
        "pfc {} drops {}",
        out.summary.pfc_pause_frames, out.summary.drops
    );
    let first_done = out
        .fct
        .iter()
        .map(|f| f.start + f.fct)
        .min()
        .unwrap_or(us(end_us));
    for &(n, p) in ports {
        let v = queue(&out, n, p, us(100.0), first_done);
        eprintln!(
            "queue {n}:{p} [100us, {first_done}): mean {:.0} std {:.0} p50 {:.0} p99 {:.0} max {:.0}",
            mean(&v),
            std_dev(&v),
            pct(&v, 50.0),
            pct(&v, 99.0),
            v.iter().cloned().fold(0.0, f64::max)
        );
    }
}

#[test]
#[ignore]
fn explore() {
    let path = std::env::var("SC").unwrap();
    let sets_s = std::env::var("SETS").unwrap_or_default();
    let sets: Vec<&str> = sets_s.split_whitespace().collect();
    let ports_s = std::env::var("PORTS").unwrap_or_default();
    let ports: Vec<(u32, u16)> = ports_s
        .split_whitespace()
        .map(|p| {
            let (a, b) = p.split_once(':').unwrap();
            (a.parse().unwrap(), b.parse().unwrap())
        })
        .collect();
    let step: f64 = std::env::var("STEP")
        .map(|s| s.parse().unwrap())
        .unwrap_or(100.0);
    let end: f64 = std::env::var("END")
        .map(|s| s.parse().unwrap())
        .unwrap_or(2500.0);
    show(&path, &sets, &ports, step, end);
}
