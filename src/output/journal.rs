//! A node's shard of the recorders and the PFC diagnostics: what the NICs and
//! switches of one partition record while they handle events, kept with the key
//! of the event that recorded it and applied later, in key order, to the run's
//! one [`Recorder`] and [`PfcDiag`] ([`Journal::apply`]).
//!
//! Why a journal rather than writing at once: with the nodes split over
//! threads (docs/parallel.md), each partition runs its own events, but files
//! such as fct.csv and pfc.csv, and the PFC diagnostics (pause propagation
//! trees, victim flows), depend on the order of records across all nodes.
//! Every event has the same key `(time, lead, event)` however the nodes are
//! split ([`crate::engine::Key`]), so merging the partitions' journals by key
//! gives exactly the sequence a single thread makes: the outputs are
//! byte-identical for any number of threads.
//!
//! What a record needs from other nodes is read when it is applied, not when
//! it is made. A PAUSE frame therefore carries a token, not its propagation
//! root: the root and hop are assigned when the PAUSE is applied
//! ([`PauseRoots`]), in the order a single thread would have assigned them.

use super::hist::{CountHist, QueueHists};
use super::pfc_diag::PfcDiag;
use super::{FctRecord, FlowCounters, PfcKind, Recorder};
use crate::engine::Key;
use crate::ids::{EgressId, FlowId, SwitchIdx};
use crate::port::QueueClock;
use crate::topology::NodeId;
use crate::units::SimTime;
use std::collections::HashMap;
use std::sync::Arc;

/// What the recorders want to hear from the nodes (set when they are
/// configured); the journal keeps nothing else.
///
/// The queue-length and delay histograms are kept here, not journaled: a
/// port's histogram changes only with its own queue (one partition), and delay
/// counts add up in any order. The recorder takes them at the end
/// ([`Recorder::absorb`]).
#[derive(Clone, Debug, Default)]
pub struct Wants {
    /// The queue-length histograms of this partition's ports.
    pub queue_hist: Option<QueueHists>,
    /// Per flow: whether its packets' one-way delays are recorded; the counts.
    pub latency: Option<(Arc<[bool]>, CountHist)>,
    /// Only packets delivered in `[from, to)` count (`output.latency.window`).
    pub latency_window: Option<(SimTime, SimTime)>,
    /// Per flow: whether its rates are recorded.
    pub rates: Option<Arc<[bool]>>,
    /// PFC victim accounting is on.
    pub victims: bool,
    /// Switches report new pauses to the deadlock search.
    pub deadlock: bool,
}

/// A pause frame's identity in the propagation diagnostics: the sending
/// switch's node id and its count of pauses sent. [`PauseToken::NONE`]: a
/// refresh of a pause already in force (no new root, no new victims).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct PauseToken(pub u64);

impl PauseToken {
    pub const NONE: PauseToken = PauseToken(u64::MAX);

    pub fn new(node: NodeId, count: u32) -> PauseToken {
        PauseToken((node.0 as u64) << 32 | count as u64)
    }
}

/// A PAUSE leaving switch port `gid`: `cause` is the egress whose pause
/// upstream of it led to it (propagation diagnostics).
#[derive(Clone, Copy, Debug)]
pub struct PauseSent {
    pub gid: EgressId,
    pub class: u8,
    pub predictive: bool,
    pub cause: Option<(EgressId, u8)>,
    pub token: PauseToken,
}

/// One record.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum Note {
    FlowRate {
        fid: FlowId,
        c: FlowCounters,
    },
    FlowDone(Box<FctRecord>),
    Pfc {
        node: NodeId,
        port: u16,
        class: u8,
        kind: PfcKind,
    },
    PauseSent {
        gid: EgressId,
        class: u8,
        predictive: bool,
        cause: Option<(EgressId, u8)>,
        token: PauseToken,
        /// Per port of the switch: whether its queue of `class` was congested
        /// (victim rule), when victims are tracked.
        congested: Option<Box<[bool]>>,
    },
    RefreshSent {
        gid: EgressId,
        class: u8,
    },
    ResumeSent {
        gid: EgressId,
        class: u8,
    },
    PauseReceived {
        gid: EgressId,
        class: u8,
        token: PauseToken,
    },
    Resumed {
        gid: EgressId,
        class: u8,
        since: SimTime,
        expired: bool,
    },
    FlowStarted {
        flow: FlowId,
        class: u8,
    },
    FlowFinished {
        flow: FlowId,
    },
    /// Flow `flow` started: its path joins the victim lists. `hops` is
    /// its (switch ingress, egress port) at each switch when the partition
    /// traced it on its own thread at the end of a window
    /// ([`Journal::trace_paths`]); otherwise the dispatcher traces it.
    FlowPath {
        flow: FlowId,
        hops: Option<Box<[(EgressId, u16)]>>,
    },
    /// A program's task, started at `start`, was done (collectives.csv).
    TaskDone {
        task: u32,
        start: SimTime,
    },
    /// A switch paused one of its egress queues (deadlock search).
    Paused {
        switch: SwitchIdx,
        port: u16,
        class: u8,
    },
}

/// The notes of one partition, each with the key of the event that made it.
#[derive(Default)]
pub struct Journal {
    key: Key,
    notes: Vec<(Key, Note)>,
    pub(super) wants: Wants,
}

impl Journal {
    pub fn new(wants: Wants) -> Journal {
        Journal {
            key: (0, 0),
            notes: Vec::new(),
            wants,
        }
    }

    /// The event now being handled (its notes carry its key).
    #[inline]
    pub fn set_key(&mut self, key: Key) {
        self.key = key;
    }

    /// The key of the event being handled.
    #[inline]
    pub fn key(&self) -> Key {
        self.key
    }

    #[inline]
    fn put(&mut self, n: Note) {
        self.notes.push((self.key, n));
    }

    pub fn is_empty(&self) -> bool {
        self.notes.is_empty()
    }

    /// Takes the histogram shards (queue lengths, delays) at the end of the run.
    pub fn take_hists(&mut self) -> (Option<QueueHists>, Option<CountHist>) {
        let w = &mut self.wants;
        let delays = w.latency.as_mut().map(|(_, h)| std::mem::take(h));
        (w.queue_hist.take(), delays)
    }

    /// Takes the notes made so far, oldest first.
    pub fn drain(&mut self) -> std::vec::Drain<'_, (Key, Note)> {
        self.notes.drain(..)
    }

    /// Traces the paths of the flows started since the last call (`trace`:
    /// a flow's (switch ingress, egress port) at each switch), so that the
    /// dispatcher, which applies the notes one at a time, only files them.
    pub fn trace_paths(&mut self, mut trace: impl FnMut(FlowId) -> Box<[(EgressId, u16)]>) {
        for (_, n) in &mut self.notes {
            if let Note::FlowPath { flow, hops } = n
                && hops.is_none()
            {
                *hops = Some(trace(*flow));
            }
        }
    }

    /// The notes made so far (unit tests).
    pub fn notes(&self) -> impl Iterator<Item = &Note> {
        self.notes.iter().map(|(_, n)| n)
    }

    /// The flows completed so far, in completion order (unit tests).
    #[cfg(test)]
    pub(crate) fn fct_records(&self) -> Vec<FctRecord> {
        self.notes()
            .filter_map(|n| match n {
                Note::FlowDone(r) => Some((**r).clone()),
                _ => None,
            })
            .collect()
    }

    // --- The recorders' side (Recorder methods of the same names; the queue
    // histogram is fed here from each port's clock, and the recorder only
    // closes it at the end: `Recorder::queue_close`). ---

    /// The queue of egress `gid` (histogram clock `clock`) is about to change
    /// from `old` bytes at `now`.
    #[inline]
    pub fn queue_change(&mut self, gid: EgressId, clock: &mut QueueClock, now: SimTime, old: u64) {
        if let Some(h) = self.wants.queue_hist.as_mut() {
            h.change(gid, clock, now, old);
        }
    }

    /// Hands over the time egress `gid`'s clock still holds (the end of the run).
    pub fn queue_settle(&mut self, gid: EgressId, clock: &mut QueueClock) {
        if let Some(h) = self.wants.queue_hist.as_mut() {
            h.settle(gid, clock);
        }
    }

    /// A data packet of flow `fid`, sent at `sent_at`, reached its receiver now.
    #[inline]
    pub fn packet_delivered(&mut self, fid: FlowId, sent_at: SimTime, now: SimTime) {
        if let Some((sel, h)) = self.wants.latency.as_mut()
            && sel[fid.idx()]
            && self
                .wants
                .latency_window
                .is_none_or(|(from, to)| from <= now && now < to)
        {
            h.add(now.ps().saturating_sub(sent_at.ps()));
        }
    }

    /// Whether flow `fid`'s rates are recorded.
    #[inline]
    pub fn flow_rate_on(&self, fid: FlowId) -> bool {
        self.wants.rates.as_ref().is_some_and(|m| m[fid.idx()])
    }

    pub fn flow_rate(&mut self, _now: SimTime, fid: FlowId, c: FlowCounters) {
        self.put(Note::FlowRate { fid, c });
    }

    pub fn flow_done(&mut self, r: FctRecord) {
        self.put(Note::FlowDone(Box::new(r)));
    }

    pub fn pfc_event(&mut self, _now: SimTime, node: NodeId, port: u16, class: u8, kind: PfcKind) {
        self.put(Note::Pfc {
            node,
            port,
            class,
            kind,
        });
    }

    // --- The PFC diagnostics' side (PfcDiag methods of the same names). ---

    /// A PAUSE (not a refresh) leaves a switch port. `congested(port)` tells
    /// whether the switch's queue of the pause's class at `port` is congested,
    /// for the `n_ports` ports of the switch (victim rule).
    pub fn pause_sent(&mut self, f: PauseSent, n_ports: usize, congested: impl Fn(u16) -> bool) {
        let congested = self
            .wants
            .victims
            .then(|| (0..n_ports as u16).map(&congested).collect());
        self.put(Note::PauseSent {
            gid: f.gid,
            class: f.class,
            predictive: f.predictive,
            cause: f.cause,
            token: f.token,
            congested,
        });
    }

    /// A timed pause was sent again before it lapsed.
    pub fn refresh_sent(&mut self, gid: EgressId, class: u8) {
        self.put(Note::RefreshSent { gid, class });
    }

    pub fn resume_sent(&mut self, gid: EgressId, class: u8) {
        self.put(Note::ResumeSent { gid, class });
    }

    /// A PAUSE carrying `token` reached egress `gid`.
    pub fn pause_received(&mut self, gid: EgressId, class: u8, token: PauseToken) {
        self.put(Note::PauseReceived { gid, class, token });
    }

    /// Egress `gid` stopped being paused (RESUME, or the pause lapsed) after
    /// being paused since `since`.
    pub fn resumed(&mut self, gid: EgressId, class: u8, since: SimTime, expired: bool) {
        self.put(Note::Resumed {
            gid,
            class,
            since,
            expired,
        });
    }

    #[inline]
    pub fn flow_started(&mut self, flow: FlowId, class: u8) {
        if self.wants.victims {
            self.put(Note::FlowStarted { flow, class });
        }
    }

    #[inline]
    pub fn flow_finished(&mut self, flow: FlowId) {
        if self.wants.victims {
            self.put(Note::FlowFinished { flow });
        }
    }

    /// Flow `flow` started (its path joins the victim lists).
    pub fn flow_path(&mut self, flow: FlowId) {
        if self.wants.victims {
            self.put(Note::FlowPath { flow, hops: None });
        }
    }

    /// A program's task `task`, started at `start`, is done now.
    pub fn task_done(&mut self, task: u32, start: SimTime) {
        self.put(Note::TaskDone { task, start });
    }

    /// Switch `switch` newly paused its egress (`port`, `class`).
    pub fn paused(&mut self, switch: SwitchIdx, port: u16, class: u8) {
        if self.wants.deadlock {
            self.put(Note::Paused {
                switch,
                port,
                class,
            });
        }
    }
}

/// The (root, hop) of each PAUSE in flight, by token, between its sending and
/// its receipt being applied.
#[derive(Default)]
pub struct PauseRoots(HashMap<PauseToken, (u32, u8)>);

/// What applying a note asks of the dispatcher (the notes that read other
/// nodes when applied).
pub enum Applied {
    Done,
    /// Trace flow `flow`'s path for the victim lists.
    FlowPath(FlowId),
    /// Look for a deadlock from this paused queue.
    Paused(SwitchIdx, u16, u8),
}

impl Journal {
    /// Applies one note made at `time` to the recorder and the diagnostics.
    pub fn apply(
        note: Note,
        time: SimTime,
        rec: &mut Recorder,
        diag: &mut PfcDiag,
        roots: &mut PauseRoots,
    ) -> Applied {
        match note {
            Note::FlowRate { fid, c } => rec.flow_rate(time, fid, c),
            Note::FlowDone(r) => rec.flow_done(*r),
            Note::Pfc {
                node,
                port,
                class,
                kind,
            } => rec.pfc_event(time, node, port, class, kind),
            Note::PauseSent {
                gid,
                class,
                predictive,
                cause,
                token,
                congested,
            } => {
                let rh = diag.pause_sent(gid, class, predictive, cause);
                roots.0.insert(token, rh);
                if let Some(c) = congested {
                    diag.note_victims(gid, class, |out| c[out as usize]);
                }
            }
            Note::RefreshSent { gid, class } => diag.refresh_sent(gid, class),
            Note::ResumeSent { gid, class } => diag.resume_sent(gid, class),
            Note::PauseReceived { gid, class, token } => {
                // A refresh carries no root (u32::MAX: ignored).
                let (root, hop) = roots.0.remove(&token).unwrap_or((u32::MAX, 0));
                diag.pause_received(gid, class, root, hop);
            }
            Note::Resumed {
                gid,
                class,
                since,
                expired,
            } => diag.resumed(gid, class, since, time, expired),
            Note::FlowStarted { flow, class } => diag.flow_started(flow, class),
            Note::FlowFinished { flow } => diag.flow_finished(flow),
            Note::FlowPath { flow, hops: None } => return Applied::FlowPath(flow),
            Note::FlowPath {
                flow,
                hops: Some(hops),
            } => {
                for &(ingress, egress) in &hops[..] {
                    diag.flow_path(flow, ingress, egress);
                }
            }
            Note::TaskDone { task, start } => rec.task_done(time, task, start),
            Note::Paused {
                switch,
                port,
                class,
            } => return Applied::Paused(switch, port, class),
        }
        Applied::Done
    }
}
