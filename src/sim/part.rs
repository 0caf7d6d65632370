//! A partition: a group of nodes with everything they touch while handling
//! events — an event queue, the rings of the links into them, a packet pool,
//! stats, a journal of what they record, flow progress — and the routing of
//! each event to the node it is for. A sequential run has one partition; a
//! parallel run has one per thread (docs/parallel.md), each run by
//! [`Part::run_until`] on its own core between synchronisation points.
//!
//! Packets sent on a link whose receiving node is in another partition go to
//! an outbox ([`crate::node::Remote`]); the dispatcher hands them over
//! ([`Part::take_inbox`]) before the receiver could need them.

use super::Shared;
use crate::engine::{EventQueue, Key, prefetch};
use crate::ids::{FlowId, HostIdx, SwitchIdx};
use crate::nic::Nic;
use crate::node::{Ctx, Event, Links, Packed, Progress, Remote, Transit};
use crate::output::journal::Journal;
use crate::packet::{MAX_INT_HOPS, PacketPool};
use crate::stats::Stats;
use crate::switch::flowctl::{FlowControl, Frame};
use crate::switch::{Switch, SwitchEnv};
use crate::units::SimTime;

/// The port a hand-over link lands on (NICs have port 0 only): the packet
/// came from a sibling NIC of the server ([`crate::nic::Nic::hand_over`]).
pub(crate) const HANDOVER_PORT: u16 = u16::MAX;

/// What a node id is, and its index in its partition's list of its kind.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Slot {
    Host(u32),
    Switch(u32),
}

/// A run's partitions, boxed: a hand-over between threads
/// (src/sim/parallel/crew.rs) moves a pointer, not the 1.4 KB struct.
#[allow(clippy::vec_box)]
pub(crate) type Parts = Vec<Box<Part>>;

pub(crate) struct Part {
    pub id: u16,
    pub q: EventQueue<Packed>,
    pub links: Links,
    pub pool: PacketPool,
    pub stats: Stats,
    pub journal: Journal,
    pub progress: Progress,
    /// This partition's NICs and switches (in node id order).
    pub nics: Vec<Nic>,
    pub switches: Vec<Switch>,
    /// Packets for other partitions, by destination partition.
    pub outbox: Vec<Vec<Transit>>,
    /// Packets from other partitions, by source partition.
    pub inbox: Vec<Vec<Transit>>,
    /// The partitions whose outboxes are not empty, found when the window's
    /// outboxes are sealed: only these are posted to the receivers.
    pub sent_to: Vec<u16>,
    fc_frames: Vec<Frame>,
    /// Packets sent to other partitions (the bench's crossing share).
    pub crossed: u64,
    /// The key of the earliest pending event after the last window, found by
    /// the partition's own thread (peeking may sort a calendar bucket: work
    /// the dispatcher's thread should not do for every partition).
    pub head: Option<Key>,
}

/// Builds the [`Ctx`] of one event in `$part` and the node environments, and
/// evaluates `$body` with them.
macro_rules! with_ctx {
    ($part:expr, $sh:expr, $now:expr, |$ctx:ident, $nics:ident, $sw:ident, $nenv:ident, $senv:ident| $body:expr) => {{
        #[allow(unused_variables)]
        let Part {
            id,
            q,
            links,
            pool,
            stats,
            journal,
            progress,
            nics: $nics,
            switches: $sw,
            outbox,
            ..
        } = $part;
        #[allow(unused_mut)]
        let mut $ctx = Ctx::new(
            $now,
            q,
            links,
            pool,
            stats,
            journal,
            progress,
            Remote {
                link_part: &$sh.link_part,
                me: *id,
                outbox,
            },
        );
        #[allow(unused_variables)]
        let $nenv = $sh.nic_env();
        #[allow(unused_variables)]
        let $senv = SwitchEnv {
            cfg: &$sh.sw_cfg,
            routes: &$sh.cfg.topo.routes,
        };
        $body
    }};
}

impl Part {
    pub fn new(id: u16, parts: usize, n_links: usize, journal: Journal) -> Part {
        Part {
            id,
            q: EventQueue::new(),
            links: Links::new(n_links),
            pool: PacketPool::new(),
            stats: Stats::default(),
            journal,
            progress: Progress::default(),
            nics: Vec::new(),
            switches: Vec::new(),
            outbox: vec![Vec::new(); parts],
            inbox: vec![Vec::new(); parts],
            sent_to: Vec::new(),
            fc_frames: Vec::new(),
            crossed: 0,
            head: None,
        }
    }

    /// Takes the packets other partitions sent here into the links' rings.
    pub fn take_inbox(&mut self) {
        for from in 0..self.inbox.len() {
            for t in self.inbox[from].drain(..) {
                self.links.accept(&t, &mut self.pool, &mut self.q);
            }
        }
    }

    /// Handles every pending event whose key is below `bound`, in key order
    /// (one window of a parallel run).
    pub fn run_until(&mut self, sh: &Shared, bound: Key) -> u64 {
        self.take_inbox();
        let mut n = 0;
        while let Some((key, ev)) = self.q.pop_keyed(bound) {
            self.warm(sh);
            self.journal.set_key(key);
            self.dispatch(sh, SimTime(key.0), ev);
            n += 1;
        }
        self.head = self.q.head_key();
        if sh.note_paths {
            // On this partition's thread, not in the dispatcher's serial merge.
            self.journal.trace_paths(|fid| sh.flow_hops(fid));
        }
        n
    }

    /// Handles the next event if its key is below `bound`; returns it.
    #[inline]
    pub fn step(&mut self, sh: &Shared, bound: Key) -> Option<Event> {
        let (key, ev) = self.q.pop_keyed(bound)?;
        let ev = ev.unpack();
        self.journal.set_key(key);
        self.dispatch_event(sh, SimTime(key.0), ev);
        Some(ev)
    }

    #[inline]
    fn dispatch(&mut self, sh: &Shared, now: SimTime, ev: Packed) {
        self.dispatch_event(sh, now, ev.unpack());
    }

    /// Cache hints for the next two events, issued before handling the current
    /// one so that its handling hides the loads: the ring slot of the event
    /// after next if it is an arrival, and for the next one the landing
    /// packet's header (its slot warmed one event earlier) or the port state
    /// of its transmission. A landing packet and its ring slot were written a
    /// link delay (thousands of events) earlier and are otherwise cache misses
    /// (docs/performance-log.md, 4e71fed, "cache hints and layout").
    #[inline(always)]
    pub fn warm(&self, sh: &Shared) {
        if let Some(link) = self.q.upcoming(1).and_then(Packed::arrival_link) {
            self.links.warm_front(link);
        }
        let Some(next) = self.q.upcoming(0) else {
            return;
        };
        if let Some(link) = next.arrival_link() {
            let id = self.links.front(link);
            if let Some(pkt) = self.pool.try_get(id) {
                prefetch(pkt);
                // An ACK reaching its sender: HPCC reads every INT record.
                if sh.sw_cfg.int_on
                    && let (Slot::Host(_), _) = sh.link_end(link)
                {
                    let int = self.pool.int(id);
                    prefetch(&int[0]);
                    prefetch(&int[2]);
                    prefetch(&int[MAX_INT_HOPS - 1]);
                }
            }
        } else if let Some(egress) = next.tx_done_egress()
            && let (Slot::Switch(l), port) = sh.egress_end(egress)
        {
            prefetch(&self.switches[l as usize].ports[port as usize]);
        }
    }

    /// Routes one event to the node of this partition it is for.
    ///
    /// This and the functions a packet's events run (the NIC's and switch's
    /// handlers, the link hand-off, the queue's `schedule`, the MMU, PFC and
    /// congestion-control hooks, routing) are `#[inline(always)]`, so that an
    /// event is one function, as the profile-guided build makes it: left to
    /// LLVM (thin LTO, four codegen units) a dozen of them stayed calls, and
    /// forcing them cut the HPCC incast's instructions by 18 % and its time by
    /// about as much (docs/performance-log.md, 4f6506e, "the event's handlers
    /// inlined into the loop"). The NIC's `start_tx` and the calendar's general slot
    /// change stay calls: inlining them measured slower or the same (the slot
    /// change's lone-entry case is inlined, `Calendar::peek`).
    #[inline(always)]
    pub(super) fn dispatch_event(&mut self, sh: &Shared, now: SimTime, ev: Event) {
        match ev {
            Event::Arrive { link } => {
                let (id, next) = self.links.land(link);
                if let Some((at, lead)) = next {
                    self.q
                        .schedule_lead(at, lead, Event::Arrive { link }.pack());
                }
                let (slot, port) = sh.link_end(link);
                match slot {
                    Slot::Host(l) => with_ctx!(self, sh, now, |ctx, nics, sw, nenv, senv| {
                        if port == HANDOVER_PORT {
                            nics[l as usize].on_handed_over(&mut ctx, nenv, id)
                        } else {
                            nics[l as usize].on_packet(&mut ctx, nenv, id)
                        }
                    }),
                    Slot::Switch(l) => with_ctx!(self, sh, now, |ctx, nics, sw, nenv, senv| {
                        let s = &mut sw[l as usize];
                        if let Some((port, class)) = s.on_packet(&mut ctx, senv, port, id) {
                            ctx.rec.paused(s.idx, port, class);
                        }
                    }),
                }
            }
            Event::TxDone { egress } => {
                let (slot, port) = sh.egress_end(egress);
                match slot {
                    Slot::Host(l) => with_ctx!(self, sh, now, |ctx, nics, sw, nenv, senv| {
                        nics[l as usize].on_tx_done(&mut ctx, nenv)
                    }),
                    Slot::Switch(l) => with_ctx!(self, sh, now, |ctx, nics, sw, nenv, senv| {
                        sw[l as usize].on_tx_done(&mut ctx, senv, port)
                    }),
                }
            }
            Event::PauseExpiry { egress } => {
                let (slot, port) = sh.egress_end(egress);
                match slot {
                    Slot::Host(l) => with_ctx!(self, sh, now, |ctx, nics, sw, nenv, senv| {
                        nics[l as usize].on_pause_expiry(&mut ctx, nenv)
                    }),
                    Slot::Switch(l) => with_ctx!(self, sh, now, |ctx, nics, sw, nenv, senv| {
                        sw[l as usize].on_pause_expiry(&mut ctx, senv, port)
                    }),
                }
            }
            Event::QpTimer { flow } => {
                let l = sh.host_local(sh.cfg.flows[flow.idx()].src);
                with_ctx!(self, sh, now, |ctx, nics, sw, nenv, senv| {
                    nics[l].on_qp_timer(&mut ctx, nenv, flow)
                })
            }
            Event::CnpTimer { flow } => {
                let l = sh.host_local(sh.cfg.flows[flow.idx()].dst);
                with_ctx!(self, sh, now, |ctx, nics, sw, nenv, senv| {
                    nics[l].on_cnp_timer(&mut ctx, nenv, flow)
                })
            }
            Event::FlowStart { host } => self.flow_start(sh, now, host),
            Event::SwitchTimer { switch } => self.switch_timer(sh, now, switch),
        }
    }

    /// A NIC's start timer; the flows that start join the PFC victim lists.
    fn flow_start(&mut self, sh: &Shared, now: SimTime, host: HostIdx) {
        let l = sh.host_local(sh.cfg.topo.hosts[host.idx()]);
        let before = self.nics[l].started().len();
        with_ctx!(self, sh, now, |ctx, nics, sw, nenv, senv| {
            nics[l].on_flow_start(&mut ctx, nenv)
        });
        if sh.note_paths {
            for k in before..self.nics[l].started().len() {
                let fid: FlowId = self.nics[l].started()[k];
                self.journal.flow_path(fid);
            }
        }
    }

    /// A switch's flow-control timer: its ticks, then its next deadline.
    fn switch_timer(&mut self, sh: &Shared, now: SimTime, si: SwitchIdx) {
        let l = sh.switch_local(sh.cfg.topo.switches[si.idx()]);
        let mut frames = std::mem::take(&mut self.fc_frames);
        with_ctx!(self, sh, now, |ctx, nics, sw, nenv, senv| {
            let s = &mut sw[l];
            s.on_timer(&mut ctx, senv, &mut frames);
            if let Some(want) = s.fc.next_tick() {
                s.arm_timer(&mut ctx, want.max(now));
            }
        });
        self.fc_frames = frames;
    }

    /// Closes a window's outboxes, on the partition's own thread: counts
    /// their packets as crossed and returns the earliest key among them (the
    /// earliest arrival they may schedule in the partitions they go to), and
    /// lists the partitions they go to.
    pub fn seal_outbox(&mut self) -> Option<Key> {
        self.sent_to.clear();
        let mut min = None;
        for (to, out) in self.outbox.iter().enumerate() {
            if out.is_empty() {
                continue;
            }
            self.sent_to.push(to as u16);
            self.crossed += out.len() as u64;
            min = min.into_iter().chain(out.iter().map(Transit::key)).min();
        }
        min
    }
}

/// The next grid point strictly after `t` (grid spacing `w` ps).
pub(crate) fn next_grid(t: u64, w: u64) -> u64 {
    (t / w + 1) * w
}
