//! PFC diagnostics an operator needs (HPCC §1 Case-1, §2.2 Fig. 1a; DCQCN §2.2):
//! pause frames and paused time per port and class, how far pauses propagate,
//! victim flows, PFC storms, and deadlocks.
//!
//! * **Propagation** (HPCC Fig. 1a): a PAUSE is a *root* when the egress the
//!   triggering packet was headed for is not itself paused; otherwise it extends
//!   the pause tree of the pause that holds that egress, one hop further
//!   upstream. PFC frames carry (root id, hop) in fields they do not otherwise
//!   use. Per root we keep the deepest hop its tree reached.
//! * **Victims** (DCQCN §2.2, Fig. 4): when a switch pauses ingress (port, class),
//!   every active flow of that class crossing that ingress whose own egress at the
//!   switch is not congested (holds less than `congested_queue`) is a victim of
//!   that pause. Paths are traced once per flow (ECMP is per flow).
//! * **Storms** (HPCC §1 Case-1): time is cut into windows of `storm_window`; a
//!   (port, class) paused for more than `storm_fraction` of a window is a storm
//!   window.
//! * **Deadlock**: a cycle of paused, non-empty egress queues where each waits
//!   for the next (the next switch's ingress from it holds packets in the next
//!   queue), found when a pause lands, and confirmed if after `deadlock_confirm`
//!   the same queues are still paused, non-empty and have sent nothing.

use crate::ids::{EgressId, FlowId, SwitchIdx};
use crate::port::CLASSES;
use crate::units::{Delta, SimTime};
use serde::Serialize;

/// Diagnostics settings (`[diagnostics]`).
#[derive(Clone, Debug, PartialEq)]
pub struct DiagConfig {
    pub storm_window: Delta,
    pub storm_fraction: f64,
    /// Detect deadlocks and stop the run.
    pub deadlock: bool,
    pub deadlock_confirm: Delta,
    /// An egress queue holding at least this much is congested (victim rule).
    pub congested_queue: u64,
    /// Track victim flows (traces every flow's path once).
    pub victims: bool,
}

impl Default for DiagConfig {
    fn default() -> Self {
        DiagConfig {
            storm_window: Delta::from_ms(1),
            storm_fraction: 0.5,
            deadlock: true,
            deadlock_confirm: Delta::from_ms(1),
            congested_queue: 10_000,
            victims: true,
        }
    }
}

/// Frame counters of one (port, class), at the port that sends or obeys them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub pause_rx: u32,
    pub resume_rx: u32,
    pub expire: u32,
    pub pause_tx: u32,
    pub resume_tx: u32,
    pub predictive_tx: u32,
    pub storm_windows: u32,
}

impl Counters {
    pub fn is_zero(&self) -> bool {
        *self == Counters::default()
    }
}

/// One storm window.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StormWindow {
    pub node: u32,
    pub port: u16,
    pub priority: u8,
    pub window_start_ns: f64,
    pub paused_fraction: f64,
}

/// One queue of a deadlock cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct QueueRef {
    pub node: u32,
    pub port: u16,
    pub priority: u8,
}

/// A cycle found, waiting for confirmation.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// Egress ids of the cycle, in wait order, and their data bytes sent then.
    pub cycle: Vec<(EgressId, u64)>,
    pub class: u8,
    /// Switch whose timer confirms it.
    pub switch: SwitchIdx,
    pub confirm_at: SimTime,
    pub found_at: SimTime,
}

/// A confirmed deadlock.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Deadlock {
    pub time_ns: f64,
    pub found_ns: f64,
    pub cycle: Vec<QueueRef>,
}

#[derive(Clone, Copy, Debug, Default)]
struct StormAcc {
    window: u64,
    paused_ps: u64,
}

/// One egress port's diagnostics, per class: its counters, the (root, hop)
/// of the pause in force, and its storm window being accumulated.
#[derive(Clone, Copy, Debug, Default)]
struct PortDiag {
    counters: [Counters; CLASSES],
    origin: [(u32, u8); CLASSES],
    storm: [StormAcc; CLASSES],
}

/// [`PfcDiag::port_of`] of a port without state.
const NO_PORT: u32 = u32::MAX;

/// What [`PfcDiag::counters`] gives for a port without state.
const ZERO: Counters = Counters {
    pause_rx: 0,
    resume_rx: 0,
    expire: 0,
    pause_tx: 0,
    resume_tx: 0,
    predictive_tx: 0,
    storm_windows: 0,
};

/// Per-run PFC diagnostics state.
pub struct PfcDiag {
    pub cfg: DiagConfig,
    /// Per egress id: its number in `ports`, or [`NO_PORT`] while no PFC
    /// event touched it (4 bytes an egress; most ports of a large fabric
    /// never see a pause).
    port_of: Vec<u32>,
    /// The state of the egress ports that saw a PFC event, in the order
    /// they first did.
    ports: Vec<PortDiag>,
    /// Deepest hop reached per root pause.
    root_depth: Vec<u8>,
    /// Pauses sent per hop (index = hop).
    by_hop: Vec<u64>,
    storms: Vec<(EgressId, u8, u64, u64)>,
    storm_windows: u64,
    /// Per egress id of a switch port (= that port's ingress): flows entering
    /// the switch there, with their egress port. Flows join when they start
    /// ([`PfcDiag::flow_path`]); finished ones are dropped before a list grows.
    pub by_ingress: Vec<Vec<(FlowId, u16)>>,
    /// Per flow id: pauses it suffered as a victim.
    pub victim_pauses: Vec<u32>,
    /// Per flow: its class while it is active (started, not yet complete),
    /// [`INACTIVE`] otherwise; fed by the NICs' start and completion events.
    active_class: Vec<u8>,
    pub candidate: Option<Candidate>,
    pub deadlock: Option<Deadlock>,
}

/// [`PfcDiag`]'s mark of a flow that is not sending.
const INACTIVE: u8 = u8::MAX;

/// Storm windows listed in the JSON file (all are counted).
const MAX_STORMS_LISTED: usize = 1000;

impl PfcDiag {
    pub fn new(cfg: DiagConfig, egresses: usize, flows: usize) -> PfcDiag {
        PfcDiag {
            port_of: vec![NO_PORT; egresses],
            ports: Vec::new(),
            root_depth: Vec::new(),
            by_hop: Vec::new(),
            storms: Vec::new(),
            storm_windows: 0,
            by_ingress: if cfg.victims {
                vec![Vec::new(); egresses]
            } else {
                Vec::new()
            },
            victim_pauses: vec![0; if cfg.victims { flows } else { 0 }],
            active_class: vec![INACTIVE; if cfg.victims { flows } else { 0 }],
            candidate: None,
            deadlock: None,
            cfg,
        }
    }

    pub fn counters(&self, gid: EgressId, class: u8) -> &Counters {
        match self.port_of[gid.idx()] {
            NO_PORT => &ZERO,
            k => &self.ports[k as usize].counters[class as usize],
        }
    }

    /// The egress ports with any counter, in egress id order.
    pub fn counted(&self) -> impl Iterator<Item = EgressId> + '_ {
        (self.port_of.iter().enumerate())
            .filter(|&(_, &k)| k != NO_PORT)
            .map(|(g, _)| EgressId::from_idx(g))
    }

    /// Egress `gid`'s state, made when first needed.
    fn port(&mut self, gid: EgressId) -> &mut PortDiag {
        let k = &mut self.port_of[gid.idx()];
        if *k == NO_PORT {
            *k = self.ports.len() as u32;
            self.ports.push(PortDiag::default());
        }
        &mut self.ports[*k as usize]
    }

    /// Egress `gid`'s (root, hop) of the pause in force on `class`.
    fn origin(&self, gid: EgressId, class: u8) -> (u32, u8) {
        match self.port_of[gid.idx()] {
            NO_PORT => (0, 0),
            k => self.ports[k as usize].origin[class as usize],
        }
    }

    /// A pause leaves switch port `gid` because of egress `cause` (`None`:
    /// nothing downstream paused it). Returns the (root, hop) the frame carries.
    pub fn pause_sent(
        &mut self,
        gid: EgressId,
        class: u8,
        predictive: bool,
        cause: Option<(EgressId, u8)>,
    ) -> (u32, u8) {
        let c = &mut self.port(gid).counters[class as usize];
        if predictive {
            c.predictive_tx += 1;
        } else {
            c.pause_tx += 1;
        }
        let (root, hop) = match cause {
            Some((g, cl)) => {
                let (root, hop) = self.origin(g, cl);
                (root, hop.saturating_add(1))
            }
            None => {
                self.root_depth.push(0);
                ((self.root_depth.len() - 1) as u32, 1)
            }
        };
        let d = &mut self.root_depth[root as usize];
        *d = (*d).max(hop);
        if self.by_hop.len() <= hop as usize {
            self.by_hop.resize(hop as usize + 1, 0);
        }
        self.by_hop[hop as usize] += 1;
        (root, hop)
    }

    /// A timed pause was sent again before it lapsed.
    pub fn refresh_sent(&mut self, gid: EgressId, class: u8) {
        self.port(gid).counters[class as usize].pause_tx += 1;
    }

    pub fn resume_sent(&mut self, gid: EgressId, class: u8) {
        self.port(gid).counters[class as usize].resume_tx += 1;
    }

    /// A PAUSE reached egress `gid`, carrying (root, hop).
    pub fn pause_received(&mut self, gid: EgressId, class: u8, root: u32, hop: u8) {
        let known = (root as usize) < self.root_depth.len();
        let p = self.port(gid);
        p.counters[class as usize].pause_rx += 1;
        if known {
            p.origin[class as usize] = (root, hop);
        }
    }

    /// Egress `gid` stopped being paused (RESUME, or the pause lapsed) after being
    /// paused over [`since`, `now`).
    pub fn resumed(
        &mut self,
        gid: EgressId,
        class: u8,
        since: SimTime,
        now: SimTime,
        expired: bool,
    ) {
        let c = &mut self.port(gid).counters[class as usize];
        if expired {
            c.expire += 1;
        } else {
            c.resume_rx += 1;
        }
        self.paused_interval(gid, class, since, now);
    }

    /// Accounts [`a`, `b`) of pause to the storm windows of (gid, class).
    pub fn paused_interval(&mut self, gid: EgressId, class: u8, a: SimTime, b: SimTime) {
        let w = self.cfg.storm_window.ps();
        if w == 0 || b <= a {
            return;
        }
        let (mut t, end) = (a.ps(), b.ps());
        while t < end {
            let win = t / w;
            let upto = end.min((win + 1) * w);
            let acc = self.port(gid).storm[class as usize];
            if acc.window != win {
                self.flush_window(gid, class);
                self.port(gid).storm[class as usize] = StormAcc {
                    window: win,
                    paused_ps: 0,
                };
            }
            self.port(gid).storm[class as usize].paused_ps += upto - t;
            t = upto;
        }
    }

    fn flush_window(&mut self, gid: EgressId, class: u8) {
        let (w, fraction) = (self.cfg.storm_window.ps(), self.cfg.storm_fraction);
        let p = self.port(gid);
        let acc = p.storm[class as usize];
        p.storm[class as usize].paused_ps = 0;
        if acc.paused_ps as f64 > fraction * w as f64 {
            p.counters[class as usize].storm_windows += 1;
            self.storm_windows += 1;
            if self.storms.len() < MAX_STORMS_LISTED {
                self.storms.push((gid, class, acc.window, acc.paused_ps));
            }
        }
    }

    /// Closes every storm window (end of run), in egress id order.
    pub fn flush_storms(&mut self) {
        let ports: Vec<EgressId> = self.counted().collect();
        for gid in ports {
            for c in 0..CLASSES as u8 {
                if self.port(gid).storm[c as usize].paused_ps > 0 {
                    self.flush_window(gid, c);
                }
            }
        }
    }

    /// A switch paused its ingress `ingress_gid` for `class`: flows crossing it
    /// toward an egress that is not congested are victims. `congested(out)` tells.
    /// Flow `flow` of `class` started sending (victim accounting).
    #[inline]
    pub fn flow_started(&mut self, flow: FlowId, class: u8) {
        if let Some(c) = self.active_class.get_mut(flow.idx()) {
            *c = class;
        }
    }

    /// Flow `flow` completed.
    #[inline]
    pub fn flow_finished(&mut self, flow: FlowId) {
        if let Some(c) = self.active_class.get_mut(flow.idx()) {
            *c = INACTIVE;
        }
    }

    /// Flow `flow`, which has started, enters a switch at ingress `ingress_gid`
    /// and leaves it by port `egress`. A list about to grow first drops the
    /// flows that have finished (they are never victims), so the lists hold
    /// about the active flows, not every flow of the run.
    pub fn flow_path(&mut self, flow: FlowId, ingress_gid: EgressId, egress: u16) {
        let list = &mut self.by_ingress[ingress_gid.idx()];
        if list.len() == list.capacity() {
            let active = &self.active_class;
            list.retain(|&(f, _)| active[f.idx()] != INACTIVE);
        }
        list.push((flow, egress));
    }

    /// A PAUSE of `class` went out of the port whose ingress is `ingress_gid`:
    /// every active flow of that class entering there whose egress queue at
    /// this switch is not congested is a victim.
    pub fn note_victims(
        &mut self,
        ingress_gid: EgressId,
        class: u8,
        congested: impl Fn(u16) -> bool,
    ) {
        if !self.cfg.victims {
            return;
        }
        for &(f, out) in &self.by_ingress[ingress_gid.idx()] {
            if self.active_class[f.idx()] == class && !congested(out) {
                self.victim_pauses[f.idx()] += 1;
            }
        }
    }

    pub fn storm_windows(&self) -> u64 {
        self.storm_windows
    }
    pub fn storm_list(&self) -> &[(EgressId, u8, u64, u64)] {
        &self.storms
    }
    /// Deepest propagation of any pause (hops), 0 without pauses.
    pub fn max_hops(&self) -> u8 {
        self.root_depth.iter().copied().max().unwrap_or(0)
    }
    /// Number of root pauses whose tree reached each depth (index = hops).
    pub fn roots_by_max_hops(&self) -> Vec<u64> {
        let mut h = vec![0u64; self.max_hops() as usize + 1];
        for &d in &self.root_depth {
            h[d as usize] += 1;
        }
        h
    }
    pub fn pauses_by_hop(&self) -> &[u64] {
        &self.by_hop
    }
    pub fn victim_flows(&self) -> usize {
        self.victim_pauses.iter().filter(|&&n| n > 0).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Delta;

    fn diag() -> PfcDiag {
        PfcDiag::new(
            DiagConfig {
                storm_window: Delta::from_us(100),
                storm_fraction: 0.5,
                ..DiagConfig::default()
            },
            4,
            2,
        )
    }

    fn us(x: u64) -> SimTime {
        SimTime::ZERO + Delta::from_us(x)
    }

    #[test]
    fn a_pause_caused_by_a_paused_egress_is_one_hop_further_from_its_root() {
        let mut d = diag();
        // Switch port 0 pauses its upstream (a root); that upstream is egress 1.
        let (root, hop) = d.pause_sent(EgressId(0), 3, false, None);
        assert_eq!(hop, 1);
        d.pause_received(EgressId(1), 3, root, hop);
        // Egress 1's switch then pauses its own upstream (egress 2) because the
        // packets it holds wait for egress 1.
        let (r2, h2) = d.pause_sent(EgressId(3), 3, false, Some((EgressId(1), 3)));
        assert_eq!((r2, h2), (root, 2));
        d.pause_received(EgressId(2), 3, r2, h2);
        assert_eq!(d.max_hops(), 2);
        assert_eq!(d.roots_by_max_hops(), vec![0, 0, 1]);
        assert_eq!(d.pauses_by_hop(), &[0, 1, 1]);
    }

    #[test]
    fn a_class_paused_most_of_a_window_is_a_storm_window() {
        let mut d = diag();
        d.paused_interval(EgressId(1), 3, us(10), us(40)); // 30 % of window 0
        d.paused_interval(EgressId(1), 3, us(120), us(190)); // 70 % of window 1
        d.paused_interval(EgressId(1), 3, us(250), us(560)); // windows 2 (50 %), 3, 4 (100 %), 5 (60 %)
        d.flush_storms();
        let listed: Vec<u64> = d.storm_list().iter().map(|s| s.2).collect();
        assert_eq!(listed, vec![1, 3, 4, 5], "50 % is not more than half");
        assert_eq!(d.storm_windows(), 4);
        assert_eq!(d.counters(EgressId(1), 3).storm_windows, 4);
    }

    #[test]
    fn flows_toward_an_uncongested_egress_are_victims() {
        let mut d = diag();
        d.by_ingress[2] = vec![(FlowId(0), 1), (FlowId(1), 3)];
        // Both flows send in class 3 until flow 1 completes.
        d.flow_started(FlowId(0), 3);
        d.flow_started(FlowId(1), 3);
        // Egress 3 is congested, egress 1 is not: flow 0 is the victim.
        d.note_victims(EgressId(2), 3, |out| out == 3);
        assert_eq!(d.victim_pauses, vec![1, 0]);
        assert_eq!(d.victim_flows(), 1);
        // Another class is not affected.
        d.note_victims(EgressId(2), 4, |out| out == 3);
        assert_eq!(d.victim_pauses, vec![1, 0]);
        // A flow that has completed is no longer a victim.
        d.flow_finished(FlowId(0));
        d.note_victims(EgressId(2), 3, |out| out == 3);
        assert_eq!(d.victim_pauses, vec![1, 0]);
    }
}
