//! Shared-buffer MMU with ingress and egress accounting and PFC thresholds.
//!
//! The model of a Broadcom-style shared-buffer switch (DCQCN §4; HPCC §5.1):
//!
//! * The buffer `B` is split into a per-port headroom (absorbs what is in flight
//!   after a PAUSE is sent), an optional reserve per (ingress port, class), and the
//!   shared pool.
//! * Each (ingress port, class) is charged for the packets it brought in. Its
//!   shared use is what it holds beyond its reserve. The PFC threshold is dynamic,
//!   `alpha x (free shared pool)` (alpha = 1/8 triggers PFC at ~11 % of the free
//!   buffer, HPCC §5.1), or static.
//! * A packet that would push the (port, class) past the threshold goes to
//!   headroom; when the headroom is full too, it is dropped (and counted) - with
//!   enough headroom this never happens.
//! * Bytes leave headroom first. When to send XOFF/XON is the flow-control
//!   scheme's decision (`switch::flowctl`); the MMU only keeps the accounts.
//! * Without PFC (lossy), packets are admitted while their egress queue stays below
//!   `egress_alpha x (free buffer)` (HPCC §5.3 footnote 6 uses alpha = 1) and the
//!   buffer has room; otherwise dropped.
//!
//! Egress bytes per (port, class) are kept for ECN marking and diagnostics.
//!
//! Counters are kept only for the classes a switch has carried: a class gets
//! its slot (per port, its charges and egress bytes) when its first packet is
//! admitted, so a run that uses one or two of the eight classes keeps 24 or 48
//! bytes a port instead of 192. A class without a slot reads as empty.
//!
//! With `ns3_admission` the arithmetic is the HPCC ns-3 simulator's
//! (hpcc-ns3-model.md §2, switch-mmu.cc): the headroom decision counts only the
//! bytes above the reserve (`ingress + size - reserve > threshold`), a packet is
//! dropped only when both headroom and threshold are exceeded (no whole-buffer
//! check), and the threshold is computed in wrapping 32-bit arithmetic, so it
//! wraps when headroom and reserve exceed the buffer.

mod derive;

pub use derive::{MmuFacts, MmuPlan};

use crate::port::CLASSES;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PfcThreshold {
    /// `alpha x (pool - shared_used)`, with alpha per ingress port.
    Dynamic,
    /// A fixed number of bytes per (ingress port, class).
    Static(u64),
}

#[derive(Clone, Debug)]
pub struct MmuConfig {
    pub buffer: u64,
    /// PFC on: lossless classes, headroom, XOFF/XON.
    pub lossless: bool,
    pub threshold: PfcThreshold,
    /// Dynamic-threshold alpha per port.
    pub alpha: Vec<f64>,
    /// Headroom per port; each (port, class) may use up to this much.
    pub headroom: Vec<u64>,
    /// Bytes reserved per (ingress port, class) before the shared pool is used.
    pub reserve: u64,
    /// Subtract the reserve from the pool once per port (as the ns-3 model does)
    /// rather than once per (port, class).
    pub reserve_once_per_port: bool,
    /// Lossy mode: egress dynamic-threshold alpha.
    pub egress_alpha: f64,
    /// The ns-3 simulator's admission arithmetic (see the module docs).
    pub ns3_admission: bool,
    /// Cap on the shared pool (a switch whose shared buffer is smaller than what
    /// headroom and reserves leave, e.g. P-PFC §5's 4 MB of 9 MB).
    pub shared_cap: Option<u64>,
}

/// The outcome of an admission check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    Shared,
    Headroom,
    Drop,
}

/// What one (ingress port, class) is charged.
#[derive(Clone, Copy, Debug, Default)]
struct Charge {
    /// Bytes charged outside headroom.
    ingress: u64,
    /// Bytes in headroom.
    hdrm: u64,
}

/// `Mmu::slot` of a class that has no counters yet.
const NO_SLOT: u8 = u8::MAX;

#[derive(Clone, Debug)]
pub struct Mmu {
    pub cfg: MmuConfig,
    /// Each class's slot among the classes carried so far (`NO_SLOT`: none).
    slot: [u8; CLASSES],
    /// Classes with a slot: the stride of `charge` and `egress`.
    slots: usize,
    /// Per (ingress port, slot): its charges, side by side so that an
    /// admission or release reads one cache line for them.
    charge: Vec<Charge>,
    /// Per (egress port, slot): bytes queued.
    egress: Vec<u64>,
    /// Bytes of the shared pool in use (beyond reserves).
    shared_used: u64,
    /// Bytes held in total.
    total_used: u64,
    pool: u64,
    /// ns-3: `buffer - total_hdrm - total_rsrv` in wrapping 32-bit arithmetic.
    ns3_pool: u32,
    peak_used: u64,
}

impl Mmu {
    pub fn new(cfg: MmuConfig) -> Mmu {
        let ports = cfg.headroom.len();
        let hdrm_total: u64 = if cfg.lossless {
            cfg.headroom.iter().sum()
        } else {
            0
        };
        let reserve_total = if cfg.reserve_once_per_port {
            cfg.reserve * ports as u64
        } else {
            cfg.reserve * (ports * CLASSES) as u64
        };
        let mut pool = cfg.buffer.saturating_sub(hdrm_total + reserve_total);
        let mut ns3_pool = (cfg.buffer as u32)
            .wrapping_sub(hdrm_total as u32)
            .wrapping_sub(reserve_total as u32);
        if let Some(cap) = cfg.shared_cap {
            pool = pool.min(cap);
            ns3_pool = ns3_pool.min(cap.min(u32::MAX as u64) as u32);
        }
        Mmu {
            cfg,
            slot: [NO_SLOT; CLASSES],
            slots: 0,
            charge: Vec::new(),
            egress: Vec::new(),
            shared_used: 0,
            total_used: 0,
            pool,
            ns3_pool,
            peak_used: 0,
        }
    }

    /// Size of the shared pool.
    pub fn pool(&self) -> u64 {
        self.pool
    }
    /// Bytes the switch holds.
    pub fn used(&self) -> u64 {
        self.total_used
    }
    pub fn peak_used(&self) -> u64 {
        self.peak_used
    }
    pub fn shared_used(&self) -> u64 {
        self.shared_used
    }
    #[inline]
    pub fn egress_bytes(&self, port: u16, class: u8) -> u64 {
        self.ix(port, class).map_or(0, |i| self.egress[i])
    }
    /// Bytes charged to (ingress port, class), headroom included.
    pub fn ingress_bytes(&self, port: u16, class: u8) -> u64 {
        let c = self.charge_of(port, class);
        c.ingress + c.hdrm
    }
    pub fn headroom_bytes(&self, port: u16, class: u8) -> u64 {
        self.charge_of(port, class).hdrm
    }
    /// Bytes of (ingress port, class) in the shared pool (beyond its reserve,
    /// headroom excluded): what the PFC threshold is compared with.
    #[inline]
    pub fn shared_bytes(&self, port: u16, class: u8) -> u64 {
        self.shared_in(self.charge_of(port, class))
    }
    /// Free bytes of the shared pool.
    pub fn shared_free(&self) -> u64 {
        self.pool.saturating_sub(self.shared_used)
    }
    /// Number of ports the MMU accounts for.
    pub fn ports(&self) -> usize {
        self.cfg.headroom.len()
    }

    /// The counters' index of `port`'s slot `s`.
    #[inline]
    fn at(&self, port: u16, s: usize) -> usize {
        port as usize * self.slots + s
    }

    /// The counters' index of (`port`, `class`), if the class has a slot.
    #[inline]
    fn ix(&self, port: u16, class: u8) -> Option<usize> {
        let s = self.slot[class as usize];
        (s != NO_SLOT).then(|| self.at(port, s as usize))
    }

    /// The slot of `class`, given one first if it has none.
    #[inline]
    fn slot_or_add(&mut self, class: u8) -> usize {
        match self.slot[class as usize] {
            NO_SLOT => self.add_slot(class),
            s => s as usize,
        }
    }

    /// Gives `class` a slot on every port: the counters are laid out again
    /// with one more slot a port (at most once per class and switch).
    #[cold]
    fn add_slot(&mut self, class: u8) -> usize {
        let (old, new) = (self.slots, self.slots + 1);
        let ports = self.ports();
        let mut charge = vec![Charge::default(); ports * new];
        let mut egress = vec![0; ports * new];
        for p in 0..ports {
            charge[p * new..p * new + old].copy_from_slice(&self.charge[p * old..(p + 1) * old]);
            egress[p * new..p * new + old].copy_from_slice(&self.egress[p * old..(p + 1) * old]);
        }
        (self.charge, self.egress) = (charge, egress);
        self.slot[class as usize] = old as u8;
        self.slots = new;
        old
    }

    /// The charges of (`port`, `class`): zero for a class without a slot.
    #[inline]
    fn charge_of(&self, port: u16, class: u8) -> Charge {
        self.ix(port, class)
            .map_or(Charge::default(), |i| self.charge[i])
    }

    #[inline]
    fn shared_in(&self, c: Charge) -> u64 {
        c.ingress.saturating_sub(self.cfg.reserve)
    }

    #[inline]
    fn shared_of(&self, i: usize) -> u64 {
        self.shared_in(self.charge[i])
    }

    /// The PFC (XOFF) threshold of an ingress port now.
    #[inline]
    pub fn threshold(&self, port: u16) -> u64 {
        match self.cfg.threshold {
            PfcThreshold::Static(t) => t,
            PfcThreshold::Dynamic if self.cfg.ns3_admission => {
                let free = self.ns3_pool.wrapping_sub(self.shared_used as u32);
                (self.cfg.alpha[port as usize] * free as f64) as u64
            }
            PfcThreshold::Dynamic => {
                let free = self.pool.saturating_sub(self.shared_used);
                (self.cfg.alpha[port as usize] * free as f64) as u64
            }
        }
    }

    /// The XOFF condition of (`inp`, `class`): it holds headroom, or its shared
    /// use has reached the threshold (DCQCN §4).
    #[inline]
    pub fn over_threshold(&self, inp: u16, class: u8) -> bool {
        let c = self.charge_of(inp, class);
        c.hdrm > 0 || self.shared_in(c) >= self.threshold(inp)
    }

    /// The XON condition of (`inp`, `class`): its headroom is empty and its shared
    /// use is `offset` below the threshold (or zero).
    #[inline]
    pub fn below_resume(&self, inp: u16, class: u8, offset: u64) -> bool {
        let c = self.charge_of(inp, class);
        if c.hdrm > 0 {
            return false;
        }
        let shared = self.shared_in(c);
        shared == 0 || shared + offset <= self.threshold(inp)
    }

    /// Decides whether a packet of `size` bytes arriving on (`inp`, `class`) for
    /// egress `out` is admitted, and charges it if so.
    #[inline(always)]
    pub fn admit(&mut self, inp: u16, class: u8, out: u16, size: u64) -> Admit {
        let s = self.slot_or_add(class);
        let (i, o) = (self.at(inp, s), self.at(out, s));
        let verdict = if self.cfg.lossless && self.cfg.ns3_admission {
            let thresh = self.threshold(inp);
            if self.charge[i].hdrm + size > self.cfg.headroom[inp as usize]
                && self.shared_of(i) + size > thresh
            {
                Admit::Drop
            } else if (self.charge[i].ingress + size).saturating_sub(self.cfg.reserve) > thresh {
                Admit::Headroom
            } else {
                Admit::Shared
            }
        } else if self.cfg.lossless {
            let shared = self.shared_of(i);
            let over = shared + size > self.threshold(inp);
            if self.total_used + size > self.cfg.buffer
                || (over && self.charge[i].hdrm + size > self.cfg.headroom[inp as usize])
            {
                Admit::Drop
            } else if over {
                Admit::Headroom
            } else {
                Admit::Shared
            }
        } else {
            let free = self.cfg.buffer.saturating_sub(self.total_used);
            let limit = (self.cfg.egress_alpha * free as f64) as u64;
            if self.total_used + size > self.cfg.buffer || self.egress[o] + size > limit {
                Admit::Drop
            } else {
                Admit::Shared
            }
        };
        match verdict {
            Admit::Drop => return Admit::Drop,
            Admit::Headroom => self.charge[i].hdrm += size,
            Admit::Shared => {
                let before = self.shared_of(i);
                self.charge[i].ingress += size;
                self.shared_used += self.shared_of(i) - before;
            }
        }
        self.egress[o] += size;
        self.total_used += size;
        self.peak_used = self.peak_used.max(self.total_used);
        verdict
    }

    /// Releases a departing packet: headroom first, then the ingress charge.
    #[inline(always)]
    pub fn release(&mut self, inp: u16, class: u8, out: u16, size: u64) {
        let s = self.slot[class as usize];
        assert!(s != NO_SLOT, "MMU released a class it never admitted");
        let (i, o) = (self.at(inp, s as usize), self.at(out, s as usize));
        let from_hdrm = size.min(self.charge[i].hdrm);
        self.charge[i].hdrm -= from_hdrm;
        let rest = size - from_hdrm;
        if rest > 0 {
            let before = self.shared_of(i);
            assert!(
                self.charge[i].ingress >= rest,
                "MMU released more than it charged"
            );
            self.charge[i].ingress -= rest;
            self.shared_used -= before - self.shared_of(i);
        }
        assert!(self.egress[o] >= size, "MMU egress accounting underflow");
        self.egress[o] -= size;
        self.total_used -= size;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mmu(lossless: bool) -> Mmu {
        Mmu::new(MmuConfig {
            buffer: 1_000_000,
            lossless,
            threshold: PfcThreshold::Dynamic,
            alpha: vec![0.125; 4],
            headroom: vec![25_000; 4],
            reserve: 0,
            reserve_once_per_port: false,
            egress_alpha: 1.0,
            ns3_admission: false,
            shared_cap: None,
        })
    }

    #[test]
    fn the_dynamic_threshold_settles_at_one_ninth_of_the_pool() {
        let mut m = mmu(true);
        assert_eq!(m.pool(), 900_000);
        // Fill one ingress queue until XOFF: q >= (pool - q) / 8  <=>  q >= pool / 9.
        let mut q = 0;
        while m.shared_bytes(1, 3) < m.threshold(1) {
            assert_eq!(m.admit(1, 3, 0, 1000), Admit::Shared);
            q += 1000;
        }
        assert_eq!(q, 100_000);
    }

    #[test]
    fn past_the_threshold_packets_go_to_headroom_then_drop() {
        let mut m = mmu(true);
        let cfg = MmuConfig {
            threshold: PfcThreshold::Static(10_000),
            ..m.cfg.clone()
        };
        m = Mmu::new(cfg);
        for _ in 0..10 {
            assert_eq!(m.admit(0, 3, 1, 1000), Admit::Shared);
        }
        for _ in 0..25 {
            assert_eq!(m.admit(0, 3, 1, 1000), Admit::Headroom);
        }
        assert_eq!(m.admit(0, 3, 1, 1000), Admit::Drop);
        assert_eq!(m.ingress_bytes(0, 3), 35_000);
        assert_eq!(m.egress_bytes(1, 3), 35_000);
    }

    #[test]
    fn a_shared_cap_shrinks_the_pool() {
        let cfg = MmuConfig {
            shared_cap: Some(400_000),
            ..mmu(true).cfg
        };
        let m = Mmu::new(cfg);
        assert_eq!(m.pool(), 400_000);
        assert_eq!(m.shared_free(), 400_000);
    }

    #[test]
    fn lossy_mode_drops_beyond_the_egress_threshold() {
        let mut m = mmu(false);
        // alpha = 1: an egress queue may hold up to the free buffer, i.e. half of B.
        let mut held = 0;
        while m.admit(0, 3, 1, 1000) != Admit::Drop {
            held += 1000;
        }
        assert_eq!(held, 500_000);
        assert_eq!(m.headroom_bytes(0, 3), 0, "no headroom when lossy");
    }

    fn ns3_mmu() -> Mmu {
        // Two 100G ports with 1 us links: headroom 3 x 12500 each, 4 KiB reserve
        // subtracted once per port, 1 MiB buffer, alpha 1/8.
        Mmu::new(MmuConfig {
            buffer: 1 << 20,
            lossless: true,
            threshold: PfcThreshold::Dynamic,
            alpha: vec![0.125; 2],
            headroom: vec![37_500; 2],
            reserve: 4096,
            reserve_once_per_port: true,
            egress_alpha: 1.0,
            ns3_admission: true,
            shared_cap: None,
        })
    }

    #[test]
    fn the_ns3_pool_subtracts_headroom_and_one_reserve_per_port() {
        let m = ns3_mmu();
        assert_eq!(m.pool(), (1 << 20) - 75_000 - 2 * 4096);
        assert_eq!(m.threshold(0), m.pool() >> 3);
    }

    #[test]
    fn ns3_admission_counts_only_bytes_above_the_reserve_against_the_threshold() {
        let cfg = MmuConfig {
            threshold: PfcThreshold::Static(500),
            ..ns3_mmu().cfg
        };
        let mut m = Mmu::new(cfg.clone());
        // 3 x 1090 B sit in the reserve; the 4th straddles it: 4360 - 4096 = 264
        // bytes above the reserve <= 500, so ns-3 keeps it out of headroom.
        for _ in 0..4 {
            assert_eq!(m.admit(0, 3, 1, 1090), Admit::Shared);
        }
        assert_eq!(m.shared_used(), 264);
        // The default rule charges the whole packet against the threshold:
        // 0 + 1090 > 500 goes to headroom at once.
        let mut d = Mmu::new(MmuConfig {
            ns3_admission: false,
            reserve_once_per_port: false,
            ..cfg
        });
        assert_eq!(d.admit(0, 3, 1, 1090), Admit::Headroom);
    }

    #[test]
    fn the_ns3_threshold_wraps_when_headroom_exceeds_the_buffer() {
        let mut m = Mmu::new(MmuConfig {
            buffer: 60_000,
            ..ns3_mmu().cfg
        });
        // 60000 - 75000 - 8192 wraps around 2^32: a huge threshold, never XOFF.
        assert!(m.threshold(0) > 400_000_000);
        for _ in 0..100 {
            assert_eq!(m.admit(0, 3, 1, 1090), Admit::Shared);
        }
        assert!(!m.over_threshold(0, 3));
    }

    #[test]
    fn counters_exist_only_for_the_classes_carried() {
        let mut m = mmu(true);
        assert_eq!((m.slots, m.charge.len(), m.egress.len()), (0, 0, 0));
        assert_eq!((m.egress_bytes(1, 3), m.ingress_bytes(0, 3)), (0, 0));
        assert!(!m.over_threshold(0, 3) && m.below_resume(0, 3, 3072));
        m.admit(0, 3, 1, 1000);
        m.admit(2, 3, 1, 500);
        assert_eq!(
            (m.slots, m.charge.len()),
            (1, 4),
            "one slot on each of 4 ports"
        );
        // A second class is laid out beside the first; the first keeps its counts.
        m.admit(1, 0, 3, 64);
        assert_eq!((m.slots, m.egress.len()), (2, 8));
        assert_eq!(
            (
                m.ingress_bytes(0, 3),
                m.ingress_bytes(2, 3),
                m.egress_bytes(1, 3)
            ),
            (1000, 500, 1500)
        );
        assert_eq!((m.ingress_bytes(1, 0), m.egress_bytes(3, 0)), (64, 64));
        assert_eq!((m.egress_bytes(3, 3), m.egress_bytes(1, 0)), (0, 0));
        m.release(0, 3, 1, 1000);
        m.release(1, 0, 3, 64);
        m.release(2, 3, 1, 500);
        assert_eq!((m.used(), m.shared_used(), m.egress_bytes(1, 3)), (0, 0, 0));
    }

    #[test]
    fn release_restores_every_counter() {
        let mut m = mmu(true);
        let admitted = (0..200)
            .filter(|_| m.admit(2, 1, 3, 1500) != Admit::Drop)
            .count();
        assert!(admitted > 60, "{admitted}");
        assert!(m.headroom_bytes(2, 1) > 0);
        for _ in 0..admitted {
            m.release(2, 1, 3, 1500);
        }
        assert_eq!(
            (
                m.used(),
                m.shared_used(),
                m.ingress_bytes(2, 1),
                m.egress_bytes(3, 1)
            ),
            (0, 0, 0, 0)
        );
    }
}
