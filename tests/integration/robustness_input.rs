//! Issue 17's inputs, each fed exactly: a count or time beyond the limits, a short
//! line or list, a number that does not fit. Every one ends in a one-line error
//! naming the file and the field or line, exit code 2, quickly and with nothing
//! allocated for the bogus count, and no output left behind.

use crate::common::scratch;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const HOSTS3: &str = "4 1 3\n3\n0 3 100Gbps 1us 0\n1 3 100Gbps 1us 0\n2 3 100Gbps 1us 0\n";

/// What a command left: exit code, stdout, stderr and how long it took.
struct Ran {
    code: i32,
    out: String,
    err: String,
    took: Duration,
}

/// Runs `rocesim args` in `dir`.
fn rocesim(dir: &Path, args: &[&str]) -> Ran {
    let t = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    let ran = Ran {
        code: o.status.code().unwrap_or(-1),
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
        took: t.elapsed(),
    };
    assert!(!ran.err.contains("panicked"), "{}", ran.err);
    ran
}

/// Writes `files` (name, text) and the scenario `s.toml` into a scratch
/// directory, then runs `validate` and `run` on it: both must fail alike with
/// exit 2 and one line holding every needle, and `run` must leave no output.
fn both_refuse(name: &str, scenario: &str, files: &[(&str, &str)], needles: &[&str]) -> String {
    let dir = scratch(&format!("robust-{name}"));
    for (f, text) in files {
        std::fs::write(dir.join(f), text).unwrap();
    }
    std::fs::write(dir.join("s.toml"), scenario).unwrap();
    let v = rocesim(&dir, &["validate", "s.toml"]);
    let r = rocesim(&dir, &["run", "s.toml", "--out", "out", "-q"]);
    for ran in [&v, &r] {
        assert_eq!(ran.code, 2, "{name}: {}", ran.err);
        assert_one_line(&ran.err, needles);
        assert!(
            ran.took < Duration::from_secs(5),
            "{name} took {:?}",
            ran.took
        );
    }
    assert_eq!(v.err, r.err, "validate and run agree");
    assert!(!dir.join("out").exists(), "{name}: no output directory");
    std::fs::remove_dir_all(&dir).unwrap();
    v.err
}

fn assert_one_line(err: &str, needles: &[&str]) {
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("error: "), "{err}");
    for n in needles {
        assert!(err.contains(n), "{err:?} should mention {n:?}");
    }
}

fn ns3_scenario(flows: bool) -> String {
    let mut s = "[topology]\nkind = \"ns3\"\nfile = \"t.txt\"\n".to_string();
    if flows {
        s.push_str("[workload]\nns3_flow_files = [\"f.txt\"]\n");
    }
    s
}

fn star_with(extra: &str) -> String {
    format!("[topology]\nkind = \"star\"\nhosts = 3\nrate = \"100Gbps\"\ndelay = \"1us\"\n{extra}")
}

#[test]
fn a_topology_file_declaring_four_billion_links_is_refused_before_allocating() {
    both_refuse(
        "links",
        &ns3_scenario(false),
        &[("t.txt", "4 1 4000000000\n3\n0 3 100Gbps 1us 0\n")],
        &[
            "t.txt: line 1",
            "the link count 4000000000 exceeds the limit 4000000",
        ],
    );
}

#[test]
fn a_flow_file_declaring_four_billion_flows_is_refused_before_allocating() {
    both_refuse(
        "flows",
        &ns3_scenario(true),
        &[
            ("t.txt", HOSTS3),
            ("f.txt", "4000000000\n1 0 3 100 5000 0.5\n"),
        ],
        &[
            "f.txt: line 1",
            "the flow count 4000000000 exceeds the limit 20000000",
        ],
    );
}

#[test]
fn a_flow_starting_at_1e300_seconds_is_refused_by_validate_and_run_alike() {
    both_refuse(
        "start",
        &ns3_scenario(true),
        &[
            ("t.txt", HOSTS3),
            ("f.txt", "2\n1 0 3 100 5000 0.5\n2 0 3 100 5000 1e300\n"),
        ],
        &[
            "f.txt: line 3",
            "start time 1e300 s is out of range (valid: 0 to",
        ],
    );
}

#[test]
fn a_periodic_table_with_a_1ps_interval_is_refused_before_generating() {
    let extra = "[[workload.periodic]]\nsrc = 1\ndst = 0\nsize = 1000\ninterval = \"1ps\"\nduration = \"1s\"\n";
    both_refuse(
        "periodic",
        &star_with(extra),
        &[],
        &[
            "s.toml: workload.periodic[0]",
            "1000000000000 flows (limit 20000000)",
        ],
    );
}

#[test]
fn a_topology_file_declaring_four_billion_nodes_is_refused_at_once() {
    both_refuse(
        "nodes",
        &ns3_scenario(false),
        &[("t.txt", "4294967295 1 3\n3\n0 3 100Gbps 1us 0\n")],
        &[
            "t.txt: line 1",
            "the node count 4294967295 exceeds the limit 1000000",
        ],
    );
}

#[test]
fn a_fat_tree_whose_routes_would_take_minutes_is_refused_at_once() {
    // The fuzzer's mutation of scenarios/fattree-k4-fbhdp-30pct.toml (k = 4 to
    // 94): 830,584 hosts and 11,045 switches, within the node and route-table
    // limits, whose routes took minutes and gigabytes to compute.
    let fat_tree = "[topology]\nkind = \"fat-tree\"\nk = 94\nhost_rate = \"100Gbps\"\n\
                    fabric_rate = \"400Gbps\"\ndelay = \"1us\"\n";
    both_refuse(
        "route-steps",
        fat_tree,
        &[],
        &[
            "s.toml: topology",
            "4418 switches with hosts and 830584 switch-to-switch ports",
            "3669520112 steps (limit 1000000000",
        ],
    );
}

#[test]
fn a_leaf_spine_needing_over_50_m_route_entries_is_refused_before_building() {
    // 8,001 switches, 8,000 leaves with a host each: 64,008,000 entries.
    let leaf_spine = "[topology]\nkind = \"leaf-spine\"\nleaves = 8000\nspines = 1\n\
                      hosts_per_leaf = 1\nhost_rate = \"100Gbps\"\ndelay = \"1us\"\n";
    both_refuse(
        "route-entries-generated",
        leaf_spine,
        &[],
        &[
            "s.toml: topology",
            "8001 switches, 8000 of them with hosts",
            "64008000 entries (limit 50000000",
            "use fewer pods, ToRs or leaves",
        ],
    );
}

#[test]
fn an_ns3_topology_needing_over_50_m_route_entries_is_refused_before_routing() {
    // 7,072 switches in a chain, a host on each: 7,072 x 7,072 = 50,013,184
    // (switch, switch with hosts) entries, one over the limit's 50 M.
    let n = 7072;
    let mut t = format!("{} {n} {}\n", 2 * n, 2 * n - 1);
    let ids: Vec<String> = (n..2 * n).map(|i| i.to_string()).collect();
    t.push_str(&ids.join(" "));
    t.push('\n');
    for i in 0..n {
        t.push_str(&format!("{i} {} 100Gbps 1us 0\n", n + i));
    }
    for i in n..2 * n - 1 {
        t.push_str(&format!("{i} {} 100Gbps 1us 0\n", i + 1));
    }
    both_refuse(
        "route-entries",
        &ns3_scenario(false),
        &[("t.txt", &t)],
        &[
            "s.toml: topology",
            "7072 switches, 7072 of them with hosts",
            "50013184 entries (limit 50000000",
        ],
    );
}

#[test]
fn a_short_switch_list_is_named_as_short_at_its_line() {
    both_refuse(
        "switch-list",
        &ns3_scenario(false),
        &[(
            "t.txt",
            "5 2 4\n3\n0 3 100Gbps 1us 0\n1 3 100Gbps 1us 0\n2 4 100Gbps 1us 0\n3 4 100Gbps 1us 0\n",
        )],
        &[
            "t.txt: line 2",
            "the switch list is short: the header declares 2 switches but 1 id(s)",
            "(line 3)",
        ],
    );
}

#[test]
fn a_flow_line_missing_a_column_is_named_itself() {
    both_refuse(
        "column",
        &ns3_scenario(true),
        &[
            ("t.txt", HOSTS3),
            ("f.txt", "2\n1 0 3 100 5000\n2 0 3 100 6000 0.6\n"),
        ],
        &[
            "f.txt: line 2",
            "5 columns",
            "src dst pg dport size start_s",
        ],
    );
}

#[test]
fn a_flow_count_of_two_to_the_64_minus_1_exceeds_the_limit() {
    both_refuse(
        "count64",
        &ns3_scenario(true),
        &[
            ("t.txt", HOSTS3),
            ("f.txt", "18446744073709551615\n1 0 3 100 5000 0.5\n"),
        ],
        &[
            "f.txt: line 1",
            "the flow count 18446744073709551615 exceeds the limit 20000000",
        ],
    );
}

#[test]
fn a_size_beyond_64_bits_names_the_field() {
    both_refuse(
        "size64",
        &star_with("[[workload.flows]]\nsrc = 1\ndst = 0\nsize = 18446744073709551616\n"),
        &[],
        &[
            "s.toml: line 9: workload.flows[0].size",
            "18446744073709551616 does not fit a TOML integer",
        ],
    );
}

#[test]
fn a_fractional_byte_count_is_refused_as_a_string_or_a_number() {
    let flow = "[[workload.flows]]\nsrc = 1\ndst = 0\n";
    both_refuse(
        "size-frac",
        &star_with(&format!("{flow}size = \"1.5\"\n")),
        &[],
        &[
            "s.toml",
            "workload.flows[0].size",
            "not a whole number of bytes",
        ],
    );
    both_refuse(
        "buffer-frac",
        &star_with(&format!("{flow}size = 1000\n[switch]\nbuffer = 1.5\n")),
        &[],
        &["s.toml", "switch.buffer", "not a whole number of bytes"],
    );
}

#[test]
fn a_delay_below_one_picosecond_is_refused() {
    both_refuse(
        "subps",
        &star_with("[[workload.flows]]\nsrc = 1\ndst = 0\nsize = 1000\n")
            .replace("\"1us\"", "\"0.0001ps\""),
        &[],
        &[
            "s.toml: line 5",
            "topology.delay",
            "below the 1 ps resolution",
        ],
    );
}

#[test]
fn an_empty_workload_warns_in_validate_and_says_no_flow_completed_in_run() {
    let dir = scratch("robust-empty");
    std::fs::write(dir.join("s.toml"), star_with("")).unwrap();
    let v = rocesim(&dir, &["validate", "s.toml"]);
    assert_eq!(v.code, 0, "{}", v.err);
    assert_one_line(
        &v.err.replace("warning: ", "error: "),
        &["s.toml", "no flows"],
    );
    let r = rocesim(&dir, &["run", "s.toml", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.err.contains("no flows"), "{}", r.err);
    assert!(r.out.contains("no flow completed"), "{}", r.out);
    assert!(!r.out.contains("0.000 / 0.000"), "{}", r.out);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs `import-ns3 config.txt --out x/s.toml` on `config` next to a good
/// topology; it must fail with exit 2, name config.txt and hold the needles.
fn import_refuses(name: &str, config: &str, needles: &[&str]) {
    let dir = scratch(&format!("robust-import-{name}"));
    std::fs::write(dir.join("t.txt"), HOSTS3).unwrap();
    std::fs::write(dir.join("config.txt"), config).unwrap();
    let r = rocesim(&dir, &["import-ns3", "config.txt", "--out", "s.toml"]);
    assert_eq!(r.code, 2, "{}", r.err);
    let last = r.err.lines().last().unwrap_or("").to_string();
    assert_one_line(&last, needles);
    assert!(!dir.join("s.toml").exists(), "no scenario written");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn import_names_the_config_line_of_a_zero_payload_size() {
    import_refuses(
        "mtu",
        "TOPOLOGY_FILE t.txt\nPACKET_PAYLOAD_SIZE 0\n",
        &[
            "config.txt: line 2: PACKET_PAYLOAD_SIZE",
            "0 is not valid; valid: payload bytes per packet, 64..9000",
        ],
    );
}

#[test]
fn import_refuses_a_key_given_twice_naming_both_lines() {
    import_refuses(
        "dup",
        "TOPOLOGY_FILE t.txt\nCC_MODE 1\nCC_MODE 3\n",
        &[
            "config.txt: line 3: CC_MODE",
            "given again (first on line 2)",
        ],
    );
}

#[test]
fn import_refuses_a_queue_monitor_ending_before_it_starts() {
    import_refuses(
        "qlen",
        "TOPOLOGY_FILE t.txt\nQLEN_MON_FILE q.txt\nQLEN_MON_START 3000000000\nQLEN_MON_END 2000000000\n",
        &[
            "config.txt: line 4: QLEN_MON_END",
            "2000000000 is before QLEN_MON_START 3000000000 (line 3)",
        ],
    );
}

#[test]
fn a_node_with_too_many_ports_is_named_exactly() {
    use rocesim::topology::{Topology, builders};
    use rocesim::units::{Delta, Rate};
    let e = Topology::build(builders::star(
        70_000,
        Rate::from_gbps(100),
        Delta::from_us(1),
    ))
    .unwrap_err();
    assert!(
        e.contains("node 70000 would have more than 65535 ports"),
        "{e}"
    );
    assert!(!e.contains(" or "), "{e}");
}

#[test]
fn an_input_file_that_is_a_device_is_refused_not_read_without_end() {
    both_refuse(
        "device",
        &ns3_scenario(false).replace("t.txt", "/dev/zero"),
        &[],
        &["/dev/zero", "cannot read: is not a regular file"],
    );
}

#[test]
fn staggered_joins_past_the_time_limit_are_refused() {
    both_refuse(
        "staggered",
        &star_with(
            "[[workload.staggered]]\nfan_in = 3\nreceiver = 0\ninterval = \"5000000s\"\nsize = 1000\n",
        )
        .replace("hosts = 3", "hosts = 4"),
        &[],
        &[
            "s.toml: workload.staggered[0].interval",
            "the last of 3 senders would start after the time limit",
        ],
    );
}

#[test]
fn import_refuses_an_ecn_map_announcing_two_to_the_63_pairs() {
    // Found by reading for the fuzzer: 1 + 2 x 2^63 wrapped to 1 and indexed past the end.
    import_refuses(
        "map",
        "TOPOLOGY_FILE t.txt\nKMIN_MAP 1 1 1\nKMAX_MAP 9223372036854775808 1 2\nPMAX_MAP 1 1 1\n",
        &[
            "config.txt: line 3: KMAX_MAP",
            "9223372036854775808 pairs announced, 2 values given",
        ],
    );
}

/// The fuzz targets of examples/fuzz.rs, for the seed corpus.
fn fuzz_target(target: &str, text: &str) -> Result<(), rocesim::error::InputError> {
    use rocesim::scenario::{Source, ns3_import, to_config};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scenarios = root.join("scenarios");
    match target {
        "scenario" => {
            to_config(&Source::text(text, "f.toml", &scenarios, "f"), &[])?;
        }
        "set" => {
            let o: Vec<String> = text.lines().map(str::to_string).collect();
            let base = star_with("[[workload.flows]]\nsrc = 1\ndst = 0\nsize = 1000\n");
            to_config(&Source::text(&base, "f.toml", &scenarios, "f"), &o)?;
        }
        "ns3-config" => {
            let dir = root.join("data/hpcc-ns3/mix");
            let out = dir.join("imported.toml");
            let i = ns3_import::import(&dir.join("config.txt"), text, Some(&out))?;
            to_config(&Source::text(&i.toml, "imported.toml", &dir, "ns3"), &[])?;
        }
        "ns3-topology" => {
            let p = Path::new("t.txt");
            let spec = rocesim::topology::ns3::parse_topology(p, text)?;
            rocesim::topology::Topology::build(spec)
                .map_err(|m| rocesim::error::InputError::in_file(p, "", m))?;
        }
        "ns3-flows" => {
            rocesim::workload::ns3::parse_flows(Path::new("f.txt"), text)?;
        }
        "cdf" => {
            rocesim::workload::cdf::FlowSizeCdf::parse("cdf.txt", text)?;
        }
        "sweep" => {
            let path = scenarios.join("sweeps/fuzz.toml");
            match rocesim::sweep::load_sweep_str(text, &path) {
                Ok(_) => {}
                Err(rocesim::error::Error::Input(e)) => return Err(e),
                Err(e) => panic!("{target}: not an input error: {e}"),
            }
        }
        _ => panic!("tests/fuzz-corpus/{target} has no target"),
    }
    Ok(())
}

#[test]
fn every_fuzz_corpus_file_ends_in_ok_or_a_one_line_input_error() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-corpus");
    let mut n = 0;
    for dir in std::fs::read_dir(&corpus).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let target = dir.file_name().unwrap().to_string_lossy().into_owned();
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            let text = std::fs::read_to_string(&f).unwrap();
            let t = Instant::now();
            if let Err(e) = fuzz_target(&target, &text) {
                let s = e.to_string();
                assert!(!s.is_empty() && !s.contains('\n'), "{}: {s:?}", f.display());
            }
            assert!(t.elapsed() < Duration::from_secs(5), "{}", f.display());
            n += 1;
        }
    }
    assert!(n >= 20, "{n} corpus files");
}
