//! `rocesim reproduce` end to end on a quick experiment: runs, figures and a
//! comparison table with a verdict per paper claim.

use crate::common::scratch;
use rocesim::reproduce::{self, ReproduceOptions};

#[test]
fn hpcc_fig9_quick_writes_figures_and_a_comparison_against_the_paper() {
    let out = scratch("reproduce");
    let exp = reproduce::find("hpcc-fig9").unwrap();
    let opts = ReproduceOptions {
        quick: true,
        out: out.clone(),
        jobs: 2,
        scenarios: reproduce::default_scenarios_dir(),
        progress: false,
        seeds: 2,
    };
    let (a, dir) = reproduce::reproduce(exp, &opts).unwrap();
    assert!(a.rows.len() >= 8, "one row per paper claim");
    for f in &a.figures {
        for ext in ["svg", "png"] {
            assert!(dir.join(format!("{f}.{ext}")).exists(), "{f}.{ext}");
        }
    }
    let md = std::fs::read_to_string(dir.join("comparison.md")).unwrap();
    assert!(md.contains("| metric | paper | rocesim | verdict | how judged; why |"));
    assert!(md.contains("Seeds: 2"), "both seeds judged");
    assert!(
        a.rows.iter().all(|r| r.seeds.len() == 2),
        "every row over both seeds"
    );
    // The second seed ran the same runs with their seeds moved.
    assert!(dir.join("seed+1000/runs/incast-hpcc/fct.csv").exists());
    assert!(md.contains("550 KB"), "the paper's numbers are quoted");
    // The run directories hold each run's own outputs.
    assert!(dir.join("runs/incast-hpcc/fct.csv").exists());
    // HPCC's physical claims hold on their own (the table judges the rest).
    let hpcc_rows: Vec<_> = a
        .rows
        .iter()
        .filter(|r| r.metric.starts_with("HPCC"))
        .collect();
    assert!(
        hpcc_rows
            .iter()
            .all(|r| r.verdict == reproduce::Verdict::Matches),
        "{hpcc_rows:?}"
    );
    std::fs::remove_dir_all(&out).unwrap();
}

fn rocesim(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .args(args)
        .output()
        .expect("binary runs")
}

#[test]
fn check_passes_on_the_recorded_verdicts_and_fails_with_exit_1_when_one_moved() {
    let out = scratch("reproduce-check");
    let file = out.join("verdicts.json");
    let (o, f) = (out.to_str().unwrap(), file.to_str().unwrap());
    let base = [
        "reproduce",
        "hpcc-fig13",
        "--quick",
        "--seeds",
        "1",
        "--jobs",
        "2",
        "--out",
        o,
    ];
    let w = rocesim(&[&base[..], &["--verdicts", f]].concat());
    assert!(w.status.success(), "{}", String::from_utf8_lossy(&w.stderr));
    let c = rocesim(&[&base[..], &["--check", f]].concat());
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    assert!(String::from_utf8_lossy(&c.stdout).contains("verdicts agree"));
    // A recorded verdict that the run no longer gives: the check names it.
    let text = std::fs::read_to_string(&file).unwrap();
    let first = text
        .find("\"verdict\": \"matches\"")
        .expect("a matching row");
    let moved = format!(
        "{}\"verdict\": \"differs\"{}",
        &text[..first],
        &text[first + "\"verdict\": \"matches\"".len()..]
    );
    std::fs::write(&file, moved).unwrap();
    let c = rocesim(&[&base[..], &["--check", f]].concat());
    assert_eq!(c.status.code(), Some(1));
    let err = String::from_utf8_lossy(&c.stderr);
    assert!(err.contains("recorded differs, now matches"), "{err}");
    assert!(err.contains("1 verdict(s) differ"), "{err}");
    // No recorded file: bad input, exit 2.
    let c = rocesim(&[&base[..], &["--check", "/nonexistent/v.json"]].concat());
    assert_eq!(c.status.code(), Some(2));
    std::fs::remove_dir_all(&out).unwrap();
}
