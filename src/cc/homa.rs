//! Homa (Montazeri et al., "Homa: A Receiver-Driven Low-Latency Transport
//! Protocol Using Network Priorities", SIGCOMM'18), as its simulator
//! HomaSimulation runs it (facts with file:line in
//! ../shared/reference/comparators.md §2; the paper text is not available here).
//!
//! - **Sender** ([`HomaSender`], per message = per flow): the first RTTbytes of
//!   a message go at once, unscheduled, at the priority of the message's size
//!   ([`HomaPlan::unsched_prio`]); the rest only as far as the receiver's
//!   GRANTs allow ([`CongestionControl::send_limit`]), at the priority of the
//!   latest grant. No pacing: line rate. When several messages of a host are
//!   ready, the NIC sends the one with the fewest bytes left first (SRBF,
//!   HomaSimulation's `senderScheme`; `nic/tx.rs`).
//! - **Receiver** ([`HomaRx`], one per NIC): SRPT over its inbound messages,
//!   ranked by bytes still to grant (then size, arrival order); the best
//!   message of each of the top `overcommit` senders is granted up to
//!   `received + RTTbytes` (never more than RTTbytes granted and not received),
//!   at a scheduled priority by rank, the lowest scheduled levels first (the
//!   simulator's right-aligned `senders[]`), and the last RTTbytes to grant at
//!   the unscheduled level of what is left when that is higher (its tail
//!   boost). Grants travel in the control class.
//!   Arrivals are counted per packet in a bitmap, so the order in which packets
//!   arrive does not matter (per-packet spraying reorders them).
//! - **Priorities**: `priorities` levels (0 highest) map to switch data classes
//!   1..=7 ([`class_of`]); the lowest `sched` levels are scheduled, the others
//!   unscheduled, cut at equal fractions of the workload's unscheduled bytes
//!   (HomaSimulation's STATIC_CBF_GRADUATED with weight 1; [`unsched_cutoffs`]).
//!
//! Where this differs from the paper and the simulator (docs/models.md, "Homa"):
//! 7 data levels, not 8 (class 0 is the control class, where grants go); the
//! cutoffs come from the run's own messages, keyed by message size; loss
//! recovery is off by default, as in the simulator, and with
//! `resend_interval` it is the paper's receiver timeout and RESEND
//! ([`HomaRx::resend_check`]), answered by going back to the first byte the
//! receiver lacks; completion is the sender's last-byte ACK, as for every
//! other algorithm here.

use super::registry::{Algorithm, ParamError};
use super::{AckInfo, CongestionControl, FlowCtx};
use crate::ids::FlowId;
use crate::topology::NodeId;
use crate::units::{Bytes, Delta, Rate, SimTime};
use serde::{Deserialize, Serialize};

/// Data classes a switch has for priorities (classes 1-7; 0 is control).
pub const MAX_PRIORITIES: u32 = 7;

/// `[cc.homa]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HomaConfig {
    /// Unscheduled bytes per message and the most granted-but-not-received
    /// bytes per message; rounded up to whole packets. Omitted: the flow's
    /// bandwidth-delay product (bottleneck rate x base RTT of its pair).
    /// HomaSimulation: 10000 B at 10 Gbps.
    pub rtt_bytes: Option<Bytes>,
    /// Senders a receiver grants at once (the overcommitment degree).
    /// Omitted: HomaSimulation's value for the scenario's workload
    /// ([`overcommit_for`]), 7 for any other.
    pub overcommit: Option<u32>,
    /// Priority levels used, 2..=7 (switch data classes 1..=7).
    pub priorities: u32,
    /// Levels for scheduled packets (the lowest ones). Omitted:
    /// `min(overcommit, priorities - 1)`.
    pub sched_priorities: Option<u32>,
    /// The receiver's timeout (Homa §3.7, comparators.md §2 "Paper
    /// mechanisms"): an incomplete message with granted bytes not received
    /// that has heard nothing for this long gets a RESEND. Omitted: no loss
    /// recovery, as in HomaSimulation (RCC's comparator).
    pub resend_interval: Option<Delta>,
}

impl Default for HomaConfig {
    fn default() -> Self {
        HomaConfig {
            rtt_bytes: None,
            overcommit: None,
            priorities: MAX_PRIORITIES,
            sched_priorities: None,
            resend_interval: None,
        }
    }
}

impl HomaConfig {
    /// Scheduled levels with `overcommit` senders granted: as given, else one
    /// per granted sender, leaving at least one level unscheduled.
    fn sched_levels(&self, overcommit: u32) -> u32 {
        self.sched_priorities
            .unwrap_or(overcommit.min(self.priorities - 1))
    }

    fn validate(&self) -> Result<(), ParamError> {
        let bad = |f: &str, m: String| Err((f.to_string(), m));
        if self.rtt_bytes.is_some_and(|b| b.0 == 0) {
            return bad("rtt_bytes", "must be > 0, e.g. \"10KB\"".into());
        }
        if self.resend_interval == Some(Delta::ZERO) {
            return bad("resend_interval", "must be > 0, e.g. \"1ms\"".into());
        }
        if self.overcommit == Some(0) {
            return bad("overcommit", "must be >= 1 sender, e.g. 7".into());
        }
        if !(2..=MAX_PRIORITIES).contains(&self.priorities) {
            let m = format!("must be in 2..={MAX_PRIORITIES} (the switch's data classes), e.g. 7");
            return bad("priorities", m);
        }
        if let Some(s) = self.sched_priorities
            && !(1..self.priorities).contains(&s)
        {
            let m = format!(
                "must be in 1..={} (below `priorities`, leaving one unscheduled level)",
                self.priorities - 1
            );
            return bad("sched_priorities", m);
        }
        Ok(())
    }
}

/// Homa's resolved parameters, shared by all flows of a run, with the
/// unscheduled cutoffs of the run's workload (set when the run is built).
#[derive(Clone, Debug, PartialEq)]
pub struct HomaPlan {
    pub cfg: HomaConfig,
    /// Senders granted at once (resolved `overcommit`).
    pub overcommit: u32,
    /// Scheduled levels.
    pub sched: u32,
    /// Ascending message sizes: a message larger than `k` of them gets
    /// unscheduled level `k` (0 = highest). `unsched_levels() - 1` of them;
    /// empty = every message at level 0.
    pub cutoffs: Vec<u64>,
}

impl HomaPlan {
    pub fn unsched_levels(&self) -> u32 {
        self.cfg.priorities - self.sched
    }

    /// A flow's RTTbytes: configured or its pair's BDP, up to whole packets.
    pub fn rtt_bytes(&self, pair_bdp: u64, mtu: u64) -> u64 {
        let r = self.cfg.rtt_bytes.map_or(pair_bdp, |b| b.0);
        r.div_ceil(mtu).max(1) * mtu
    }

    /// The unscheduled level of a `size`-byte message.
    pub fn unsched_prio(&self, size: u64) -> u8 {
        self.cutoffs.iter().filter(|&&c| size > c).count() as u8
    }

    /// The scheduled level of the message ranked `rank` (0 = best) among
    /// `granted` messages being granted: right-aligned, so the lowest levels
    /// are used first (HomaSimulation `getPrioForMesg`); ranks beyond the
    /// scheduled levels share the lowest.
    pub fn sched_prio(&self, rank: usize, granted: usize) -> u8 {
        let p = self.cfg.priorities as usize;
        let base = p - granted.min(self.sched as usize);
        (base + rank).min(p - 1) as u8
    }

    /// Takes the overcommitment (and the scheduled levels that follow from
    /// it) from the workload's size distributions, `cdfs` as the scenario names
    /// them, unless the table sets them: the largest HomaSimulation value among
    /// them ([`overcommit_for`]).
    pub fn fit_workload(&mut self, cdfs: &[&str]) {
        if self.cfg.overcommit.is_some() {
            return;
        }
        self.overcommit = cdfs.iter().map(|c| overcommit_for(c)).max().unwrap_or(7);
        self.sched = self.cfg.sched_levels(self.overcommit);
    }

    /// Sets the cutoffs from the run's messages, `(size, unscheduled bytes)`.
    pub fn set_cutoffs(&mut self, msgs: impl Iterator<Item = (u64, u64)>) {
        self.cutoffs = unsched_cutoffs(self.unsched_levels(), msgs);
    }
}

/// Cutoffs splitting the unscheduled bytes of `msgs` (`(size, unscheduled
/// bytes)`) into `levels` equal shares by message size: cutoff `k` is the
/// smallest size up to which `k / levels` of those bytes lie (STATIC_CBF_GRADUATED,
/// `unschedPrioUsageWeight` = 1, PriorityResolver.cc:125-176, keyed here by
/// message size).
pub fn unsched_cutoffs(levels: u32, msgs: impl Iterator<Item = (u64, u64)>) -> Vec<u64> {
    let mut m: Vec<(u64, u64)> = msgs.collect();
    if levels < 2 || m.is_empty() {
        return Vec::new();
    }
    m.sort_unstable();
    let total: u128 = m.iter().map(|&(_, u)| u as u128).sum();
    let mut cut = Vec::with_capacity(levels as usize - 1);
    let mut acc: u128 = 0;
    let mut it = m.iter().peekable();
    for k in 1..levels as u128 {
        // Smallest size whose cumulative share reaches k / levels.
        while let Some(&&(s, u)) = it.peek() {
            if acc * levels as u128 >= k * total {
                break;
            }
            acc += u as u128;
            it.next();
            if acc * levels as u128 >= k * total {
                cut.push(s);
                break;
            }
        }
        if cut.len() < k as usize {
            cut.push(cut.last().copied().unwrap_or(m[m.len() - 1].0));
        }
    }
    cut
}

/// HomaSimulation's `numSendersToKeepGranted` for the workload of a
/// built-in distribution (comparators.md §2 (c)): KeyValue (W1) 1,
/// GoogleSearchRpc (W2) 3, GoogleAllRpc (W3) 4, WebServer 6, Hadoop (W4),
/// CacheFollower and DCTCP (W5) 7; 7 for any other.
pub fn overcommit_for(cdf: &str) -> u32 {
    match cdf {
        "homa-w1" => 1,
        "homa-w2" => 3,
        "homa-w3" => 4,
        "fb-webserver" => 6,
        _ => 7,
    }
}

/// Homa priority level `prio` (0 highest) as a switch class (1 highest data class).
#[inline]
pub fn class_of(prio: u8) -> u8 {
    prio + 1
}

impl Algorithm for HomaPlan {
    type Flow = HomaSender;
    type Table = HomaConfig;
    const NAMES: &'static [&'static str] = &["homa"];
    fn resolve(_: &str, table: &HomaConfig) -> Result<Self, ParamError> {
        table.validate()?;
        let overcommit = table.overcommit.unwrap_or(7);
        let sched = table.sched_levels(overcommit);
        Ok(HomaPlan {
            cfg: table.clone(),
            overcommit,
            sched,
            cutoffs: Vec::new(),
        })
    }
    fn new_flow(&self, ctx: &FlowCtx) -> HomaSender {
        let unsched = ctx.size.min(self.rtt_bytes(ctx.pair_bdp, ctx.mtu as u64));
        HomaSender {
            line_rate: ctx.line_rate,
            size: ctx.size,
            unsched,
            granted: unsched,
            unsched_class: class_of(self.unsched_prio(ctx.size)),
            sched_class: class_of(self.cfg.priorities as u8 - 1),
        }
    }
    fn uses_priorities(&self) -> bool {
        true
    }
    /// Granted packets of an overcommitted message wait in a low-priority
    /// queue while better-ranked messages take the link, for many ms under
    /// load: a sender timeout would take them for losses. HomaSimulation has no
    /// loss recovery; here the fabric is assumed lossless unless `nic.rto` or
    /// `cc.homa.resend_interval` is set.
    fn default_rto(&self) -> bool {
        false
    }
}

/// Homa's sender side of one message.
#[derive(Clone, Debug)]
pub struct HomaSender {
    line_rate: Rate,
    size: u64,
    /// Bytes sent without a grant (RTTbytes or the whole message).
    unsched: u64,
    /// The message may be sent up to this offset.
    granted: u64,
    unsched_class: u8,
    /// The class of the latest grant.
    sched_class: u8,
}

impl CongestionControl for HomaSender {
    fn on_ack(&mut self, ack: &AckInfo<'_>) {
        if let Some((offset, prio)) = ack.grant {
            self.granted = self.granted.max(offset.min(self.size));
            self.sched_class = class_of(prio);
        }
    }
    fn rate(&self) -> Rate {
        self.line_rate
    }
    fn send_limit(&self) -> Option<u64> {
        Some(self.granted)
    }
    fn data_class(&self, seq: u64) -> Option<u8> {
        Some(if seq < self.unsched {
            self.unsched_class
        } else {
            self.sched_class
        })
    }
}

/// A grant the receiver sends: flow `fid` may send up to `offset` at `prio`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grant {
    pub fid: FlowId,
    pub offset: u64,
    pub prio: u8,
}

/// One inbound message at a receiver.
#[derive(Clone, Debug)]
struct InMsg {
    fid: FlowId,
    sender: NodeId,
    size: u64,
    rtt_bytes: u64,
    received: u64,
    granted: u64,
    /// Order of first arrival (SRPT's tie-break: older first).
    order: u64,
    /// When a new packet of it last arrived, or it last got a RESEND.
    last: SimTime,
    /// Packets received, by `seq / mtu`.
    got: Vec<u64>,
}

/// Homa's receiver: the inbound messages of one NIC.
#[derive(Clone, Debug, Default)]
pub struct HomaRx {
    msgs: Vec<InMsg>,
    arrivals: u64,
}

/// One data packet as Homa's receiver sees it.
#[derive(Clone, Copy, Debug)]
pub struct HomaArrival {
    pub fid: FlowId,
    pub sender: NodeId,
    pub size: u64,
    pub seq: u64,
    pub payload: u64,
    pub mtu: u64,
    /// The message's RTTbytes ([`HomaPlan::rtt_bytes`]).
    pub rtt_bytes: u64,
    pub now: SimTime,
}

/// What one data packet was to the receiver ([`HomaRx::on_data`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// A packet it already had.
    Duplicate,
    /// A new packet of a message it knew, or one that completed its message.
    Counted,
    /// The first packet of a message that is not yet complete.
    Opened,
}

/// What the receiver's timeout found ([`HomaRx::resend_check`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resend {
    /// The message is complete (or unknown): no more checks.
    Done,
    /// Check again at this time; `now` says whether to send a RESEND now.
    Next { at: SimTime, now: bool },
}

impl HomaRx {
    /// Counts a packet (a duplicate counts once; a message is known from its
    /// first packet to arrive, whichever it is) and forgets a complete
    /// message.
    pub fn on_data(&mut self, a: &HomaArrival) -> Arrival {
        let (i, opened) = match self.msgs.iter().position(|m| m.fid == a.fid) {
            Some(i) => (i, false),
            None => {
                self.arrivals += 1;
                let unsched = a.size.min(a.rtt_bytes);
                self.msgs.push(InMsg {
                    fid: a.fid,
                    sender: a.sender,
                    size: a.size,
                    rtt_bytes: a.rtt_bytes,
                    received: 0,
                    granted: unsched,
                    order: self.arrivals,
                    last: a.now,
                    got: vec![0; a.size.div_ceil(a.mtu).div_ceil(64) as usize],
                });
                (self.msgs.len() - 1, true)
            }
        };
        let m = &mut self.msgs[i];
        let k = (a.seq / a.mtu) as usize;
        let (w, bit) = (k / 64, 1u64 << (k % 64));
        if m.got[w] & bit != 0 {
            return Arrival::Duplicate;
        }
        m.got[w] |= bit;
        m.received += a.payload;
        m.last = a.now;
        if m.received >= m.size {
            self.msgs.swap_remove(i);
            return Arrival::Counted;
        }
        if opened {
            Arrival::Opened
        } else {
            Arrival::Counted
        }
    }

    /// The grants due now: SRPT over the messages with bytes left to grant,
    /// one message per sender, the top `overcommit` senders, each granted up
    /// to `received + rtt_bytes` when that adds a packet or ends the message.
    pub fn grants(&mut self, plan: &HomaPlan, mtu: u64, out: &mut Vec<Grant>) {
        let mut cand: Vec<usize> = (0..self.msgs.len())
            .filter(|&i| self.msgs[i].granted < self.msgs[i].size)
            .collect();
        cand.sort_by_key(|&i| {
            let m = &self.msgs[i];
            (m.size - m.granted, m.size, m.order)
        });
        let mut chosen: Vec<usize> = Vec::with_capacity(plan.overcommit as usize);
        for i in cand {
            if chosen.len() == plan.overcommit as usize {
                break;
            }
            if chosen
                .iter()
                .all(|&j| self.msgs[j].sender != self.msgs[i].sender)
            {
                chosen.push(i);
            }
        }
        let n = chosen.len();
        for (rank, &i) in chosen.iter().enumerate() {
            let m = &mut self.msgs[i];
            let target = m.size.min(m.received + m.rtt_bytes);
            if target >= m.granted + mtu || (target == m.size && target > m.granted) {
                // The last RTTbytes to grant go at the unscheduled level of
                // what is left, if higher (HomaSimulation `boostTailBytesPrio`
                // = rttBytes, `getSchedPktPrio`).
                let left = m.size - m.granted;
                let mut prio = plan.sched_prio(rank, n);
                if left < m.rtt_bytes {
                    prio = prio.min(plan.unsched_prio(left));
                }
                m.granted = target;
                out.push(Grant {
                    fid: m.fid,
                    offset: target,
                    prio,
                });
            }
        }
    }

    /// The receiver's timeout for message `fid` at `now` (Homa §3.7): a message
    /// that owes granted (or unscheduled) bytes and has heard nothing for
    /// `interval` gets a RESEND, then another after each further `interval` of
    /// silence. A message that owes nothing is waiting for the receiver's own
    /// grants (SRPT), not for the network: no RESEND. The paper's BUSY (a
    /// sender busy with better messages answers so) is implicit: the sender
    /// goes back only over bytes it has sent, so a RESEND for bytes not yet
    /// sent changes nothing.
    pub fn resend_check(&mut self, fid: FlowId, now: SimTime, interval: Delta) -> Resend {
        let Some(m) = self.msgs.iter_mut().find(|m| m.fid == fid) else {
            return Resend::Done;
        };
        let quiet = now.since(m.last) >= interval;
        if quiet && m.granted > m.received {
            m.last = now;
            return Resend::Next {
                at: now + interval,
                now: true,
            };
        }
        Resend::Next {
            at: if quiet {
                now + interval
            } else {
                m.last + interval
            },
            now: false,
        }
    }

    /// Inbound messages not yet complete.
    pub fn active(&self) -> usize {
        self.msgs.len()
    }

    /// Granted and not yet received bytes of each inbound message (for tests).
    pub fn outstanding(&self) -> impl Iterator<Item = (FlowId, u64)> + '_ {
        self.msgs
            .iter()
            .map(|m| (m.fid, m.granted.saturating_sub(m.received)))
    }
}

#[cfg(test)]
#[path = "homa_tests.rs"]
mod tests;
