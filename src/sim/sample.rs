//! The dispatcher's observers (the sampled recorders, `output::observers`):
//! built when the run starts, their first samples scheduled on the
//! dispatcher's queue, and each sample run through the fabric's read-only
//! view ([`super::view::Fabric`]) and scheduled again when the observer asks.

use super::Sim;
use super::checks::Due;
use super::view::Fabric;
use crate::config::RunConfig;
use crate::error::Error;
use crate::output::RunInfo;
use crate::units::{Delta, SimTime};

/// What the recorders need to know about a run of `cfg`.
fn run_info(cfg: &RunConfig, trace_rates: Option<Delta>) -> RunInfo<'_> {
    RunInfo {
        plan: &cfg.output,
        flows: &cfg.flows,
        topo: &cfg.topo,
        source: &cfg.source,
        scenario_text: &cfg.scenario_text,
        trace_rates,
        programs: cfg.programs.as_ref(),
    }
}

impl Sim {
    /// Sets up the recorders `[output]` asks for, on the watched ports (on
    /// an MPI rank other than 0, as rank 0's, writing nothing).
    pub(super) fn configure_recorders(&mut self) -> Result<(), Error> {
        let watched = self
            .watched_ports
            .iter()
            .map(|&(node, port)| crate::output::WatchedPort {
                gid: self.sh.gid(node, port),
                node,
                port,
            })
            .collect();
        let n_egress = self.sh.egress_owner.len();
        let mirror = self.ranks.as_ref().is_some_and(|r| r.rank() != 0);
        let sh = self.sh.clone();
        let info = run_info(&sh.cfg, self.trace_rates);
        self.rec.configure(info, n_egress, watched, mirror)
    }

    /// Schedules each observer's first sample (a run with flows).
    pub(super) fn schedule_observers(&mut self) {
        for (k, o) in self.rec.observers().iter().enumerate() {
            if let Some(at) = o.first() {
                self.gq.schedule_cold(at, Due::Observe(k as u32));
            }
        }
    }

    /// Observer `k`'s sample at `now`, and its next.
    pub(super) fn observe(&mut self, now: SimTime, k: usize) {
        let view = Fabric {
            sh: &self.sh,
            parts: &self.parts,
            ranks: self.ranks.as_deref(),
        };
        if let Some(next) = self.rec.observe(k, now, &view) {
            self.gq.schedule_cold(next, Due::Observe(k as u32));
        }
    }
}
