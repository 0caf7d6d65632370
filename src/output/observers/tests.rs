//! The observers driven through a view of made-up numbers: what each sample
//! records and when it asks to sample next, the output limit, the registry.

use super::queues::QueueLengths;
use super::*;
use crate::config::RunConfig;
use crate::ids::{EgressId, FlowId};
use crate::output::{RunInfo, WatchedPort};
use crate::port::Egress;
use crate::profile::Serialization;
use crate::topology::NodeId;

/// A fabric whose switch ports hold `queued[k]` bytes (port `k` of the
/// watched list) and whose flows are `flows`.
struct Fake {
    ports: Vec<(NodeId, u16)>,
    queued: Vec<u64>,
    eg: Egress,
    flows: Vec<(FlowId, FlowState)>,
}

impl FabricView for Fake {
    fn port_values(
        &self,
        ports: &[(NodeId, u16)],
        width: usize,
        fill: &dyn Fn(PortView<'_>, &mut [u64]),
    ) -> Vec<u64> {
        let mut v = vec![0; ports.len() * width];
        for (k, p) in ports.iter().enumerate() {
            let i = self
                .ports
                .iter()
                .position(|q| q == p)
                .expect("a known port");
            let view = PortView {
                queued: self.queued[i],
                eg: &self.eg,
            };
            fill(view, &mut v[k * width..(k + 1) * width]);
        }
        v
    }

    fn flow_counters(&self, selected: &dyn Fn(FlowId) -> bool) -> Vec<(FlowId, FlowCounters)> {
        (self.flows.iter())
            .filter(|(f, _)| selected(*f))
            .map(|&(f, s)| {
                let c = FlowCounters {
                    rate: s.rate,
                    window: s.window,
                    sent: s.delivered,
                    delivered: s.delivered,
                };
                (f, c)
            })
            .collect()
    }

    fn flow_states(&self) -> Vec<(FlowId, FlowState)> {
        self.flows.clone()
    }
}

/// The star of the unit tests' kit (switch 3, three ports), `extra` added.
fn star(extra: &str) -> RunConfig {
    crate::testkit::star(extra)
}

fn watched(cfg: &RunConfig) -> Vec<WatchedPort> {
    (cfg.topo.switch_ports().into_iter().enumerate())
        .map(|(i, (node, port))| WatchedPort {
            gid: EgressId::from_idx(i),
            node,
            port,
        })
        .collect()
}

/// What a run of `cfg` without a directory builds its observers from.
fn setup<'a>(cfg: &'a RunConfig, watched: &'a [WatchedPort], trace: Option<Delta>) -> Setup<'a> {
    let run = RunInfo {
        programs: None,
        plan: &cfg.output,
        flows: &cfg.flows,
        topo: &cfg.topo,
        source: "<test>",
        scenario_text: "",
        trace_rates: trace,
    };
    Setup {
        run,
        dir: None,
        format: crate::output::TableFormat::Csv,
        mirror: false,
        watched,
        keep_samples: true,
    }
}

fn fake(cfg: &RunConfig, queued: Vec<u64>) -> Fake {
    let (node, port) = cfg.topo.switch_ports()[0];
    let p = &cfg.topo.ports[node.idx()][port as usize];
    Fake {
        ports: cfg.topo.switch_ports(),
        queued,
        eg: Egress::new(EgressId(0), p, Serialization::Exact),
        flows: Vec::new(),
    }
}

#[test]
fn queue_samples_start_with_the_first_flow_and_repeat_every_interval() {
    let cfg = star("[output]\nqueue_interval = \"2us\"\n");
    let w = watched(&cfg);
    let mut q = (QueueLengths::build(&setup(&cfg, &w, None)).unwrap()).expect("always built");
    let start = cfg.flows[0].start;
    assert_eq!(q.first(), Some(start));
    let view = fake(&cfg, vec![0, 1_000, 2_048]);
    let mut ledger = Ledger::new(u64::MAX);
    let next = q.sample(start, &view, &mut ledger);
    assert_eq!(next, Some(start + Delta::from_us(2)));
    let mut out = Finished::default();
    Box::new(q).finish(&mut out).unwrap();
    let bytes: Vec<_> = out.samples.iter().map(|s| (s.port, s.bytes)).collect();
    assert_eq!(bytes, [(0, 0), (1, 1_000), (2, 2_048)]);
}

#[test]
fn queue_sampling_off_never_asks_to_sample() {
    let cfg = star("[output]\nqueue_interval = \"0s\"\n");
    let w = watched(&cfg);
    let q = (QueueLengths::build(&setup(&cfg, &w, None)).unwrap()).expect("always built");
    assert_eq!(q.first(), None);
}

#[test]
fn recorders_of_files_are_not_built_for_a_run_that_writes_none_but_are_for_a_mirror() {
    let cfg = star("[output]\nlink_utilization = \"1us\"\nflow_rates = { flows = \"all\" }\n");
    let w = watched(&cfg);
    let mut setup = setup(&cfg, &w, None);
    // The queue sampler alone: it samples whether or not files are written.
    assert_eq!(build_all(&setup).unwrap().len(), 1);
    setup.mirror = true;
    let all = build_all(&setup).unwrap();
    assert_eq!(all.len(), 3);
    let journaled = all[2]
        .flows_journaled()
        .expect("flow rates hear of completions");
    assert!(journaled.iter().all(|&s| s));
}

#[test]
fn the_rate_trace_keeps_every_active_flow_at_each_sample() {
    let cfg = star("");
    let w = watched(&cfg);
    let all = build_all(&setup(&cfg, &w, Some(Delta::from_us(5)))).unwrap();
    let mut trace = all.into_iter().last().expect("the rate trace");
    let mut view = fake(&cfg, vec![0; 3]);
    let state = FlowState {
        rate: crate::units::Rate::from_gbps(40),
        window: Some(9_000),
        delivered: 1_000,
        congestion: crate::cc::Congestion::Unknown,
    };
    view.flows = vec![(FlowId(1), state), (FlowId(0), state)];
    let t = cfg.flows[0].start;
    assert_eq!(trace.first(), Some(t));
    let next = trace.sample(t, &view, &mut Ledger::new(0));
    assert_eq!(next, Some(t + Delta::from_us(5)));
    let mut out = Finished::default();
    trace.finish(&mut out).unwrap();
    // In the view's (host) order, whatever the output limit.
    let flows: Vec<_> = out.rates.iter().map(|r| r.flow).collect();
    assert_eq!(flows, [1, 0]);
}

#[test]
fn the_ledger_keeps_the_count_of_the_first_row_past_the_limit() {
    let mut l = Ledger::new(100);
    l.set_others(60);
    assert!(l.fits(40));
    assert!(!l.is_over());
    assert!(!l.fits(41));
    assert_eq!(l.over(), Some(101));
    assert!(!l.charge(500));
    assert_eq!(l.over(), Some(101));
}

#[test]
fn every_registered_recorders_files_are_run_files() {
    let files: Vec<_> = crate::output::run_files().collect();
    for r in REGISTERED {
        for f in (r.files)() {
            assert!(files.iter().any(|n| n == f), "{f}");
        }
    }
    // A streamed table's Parquet form too (`output.format`).
    for f in [
        "queue.csv",
        "link_util.csv",
        "flow_rates.csv",
        "qlen.txt",
        "fct.csv",
        "fct.parquet",
        "queue.parquet",
        "pfc.parquet",
        "link_util.parquet",
        "flow_rates.parquet",
    ] {
        assert!(files.iter().any(|n| n == f), "{f}");
    }
}
