//! HPCC-PINT at a switch egress port, as the HPCC ns-3 simulator computes it
//! (comparators.md §1(a)-(b) "Switch"; simulator:
//! `point-to-point/model/switch-node.cc` `SwitchNotifyDequeue`, `log2apprx`).
//!
//! Each egress port keeps the size and departure time of the packet it last
//! sent (any packet: data, ACK, PFC) and an EWMA of its utilisation `u`. When
//! it sends a data packet, with `T` the network's largest base RTT (ns-3's
//! `maxRtt`), `B` its rate in bytes/s, `dt = min(now - last, T)` (ns) and `q`
//! its backlog after this packet left (all classes):
//!
//! `u' = dt q 1e9 / (B T^2) + last_size 1e9 / (B T) + (T - dt) u / T`,
//!
//! i.e. `u` moved towards `q / (B T) + last_size / (B dt)` with weight `dt / T`.
//! It then encodes `u'` ([`PintCodec::encode`], one random draw) and raises the
//! packet's PINT field to that code if larger: the field carries the largest
//! over the path.
//!
//! The arithmetic is the simulator's fixed point, not the exact form: `q` is
//! counted in whole 256-byte units and `u` in units of 1/8192, and each term is
//! `2^(sum of logarithms)`, where the logarithms of the variables (`dt`, `q`,
//! `last_size`, `T - dt`, `8192 u`) are `log2` truncated to multiples of
//! 2^-15, of the value kept to its 16 top bits (rounded up with the probability
//! of the dropped bits, one more draw, only for values of 2^16 and above),
//! while those of `1e9`, `B` and `T` are not truncated. A term is dropped when
//! its variable is 0 (`q < 256`, no packet sent yet, `dt = T` or `u = 0`).
//!
//! The simulator draws from C's unseeded `rand()`; the switch draws from its
//! own seeded generator, so the codes agree with the simulator's in
//! distribution, not draw for draw.

use crate::cc::ns3::pint::PintCodec;
use crate::packet::Packet;
use crate::units::{Delta, Rate, SimTime};
use rand::Rng;

/// `log2apprx`'s resolution: logarithms are in units of 2^-15.
const SCALE: f64 = (1 << 15) as f64;
/// Significant bits `log2apprx` keeps of its argument.
const KEEP_BITS: u32 = 16;

/// What every port of a run's switches shares.
#[derive(Clone, Debug)]
pub struct PintPlan {
    pub codec: PintCodec,
    /// T, ns.
    t_ns: u64,
    /// `log2(T) x 2^15`.
    log_t: f64,
}

impl PintPlan {
    /// The plan of a run encoding with `codec` whose largest base RTT is `t`.
    pub fn new(codec: PintCodec, t: Delta) -> PintPlan {
        let t_ns = t.as_ns().max(1);
        PintPlan {
            codec,
            t_ns,
            log_t: (t_ns as f64).log2() * SCALE,
        }
    }
}

/// One egress port's PINT state.
#[derive(Clone, Copy, Debug)]
pub struct PintPort {
    /// Wire bytes of the last packet sent; 0 before the first.
    last_size: u32,
    /// When it started, ns.
    last_ns: u64,
    /// The utilisation EWMA.
    u: f64,
    /// `(log2(1e9) - log2(B)) x 2^15`, B the port's rate in bytes/s.
    log_1e9_over_b: f64,
}

impl PintPort {
    pub fn new(rate: Rate) -> PintPort {
        let b = (rate.bps() / 8).max(1) as f64;
        PintPort {
            last_size: 0,
            last_ns: 0,
            u: 0.0,
            log_1e9_over_b: (1e9f64.log2() - b.log2()) * SCALE,
        }
    }

    /// The utilisation EWMA after a data packet leaves at `now_ns` with `qlen`
    /// bytes left behind (the module's equation, in its fixed point).
    fn next_u(&self, plan: &PintPlan, now_ns: u64, qlen: u64, rng: &mut impl Rng) -> f64 {
        let t = plan.t_ns;
        let dt = if self.last_size == 0 {
            t
        } else {
            now_ns.saturating_sub(self.last_ns).min(t)
        };
        let mut u = 0.0;
        let q = qlen >> 8;
        if q > 0 && dt > 0 {
            let log = log2_fixed(dt, rng) + log2_fixed(q, rng);
            u += exp2_fixed(log + self.log_1e9_over_b - 2.0 * plan.log_t) * 256.0;
        }
        if self.last_size > 0 {
            let log = log2_fixed(self.last_size as u64, rng);
            u += exp2_fixed(log + self.log_1e9_over_b - plan.log_t);
        }
        if t > dt && self.u > 0.0 {
            let u_8192 = (self.u * 8192.0).round() as u64;
            if u_8192 > 0 {
                let log = log2_fixed(t - dt, rng) + log2_fixed(u_8192, rng);
                u += exp2_fixed(log - plan.log_t) / 8192.0;
            }
        }
        u
    }

    /// The port sends `pkt` at `now` with `qlen` bytes left behind: a data
    /// packet gets the port's code if it is the path's largest so far.
    #[inline]
    pub fn on_dequeue(
        &mut self,
        plan: &PintPlan,
        now: SimTime,
        pkt: &mut Packet,
        is_data: bool,
        qlen: u64,
        rng: &mut impl Rng,
    ) {
        let now_ns = now.as_ns();
        if is_data {
            let u = self.next_u(plan, now_ns, qlen, rng);
            let p = plan.codec.encode(u, rng.random());
            pkt.pint = plan.codec.raise(pkt.pint, p);
            self.u = u;
        }
        self.last_size = pkt.wire;
        self.last_ns = now_ns;
    }
}

/// `log2(x) x 2^15`, truncated, of `x > 0` kept to its 16 top bits, the
/// dropped bits rounding it up at random (the simulator's `log2apprx`).
fn log2_fixed(x: u64, rng: &mut impl Rng) -> f64 {
    let msb = u64::BITS - x.leading_zeros();
    let mut kept = x;
    if msb > KEEP_BITS {
        let drop = msb - KEEP_BITS;
        let mask = (1u64 << drop) - 1;
        kept = x >> drop << drop;
        if x & mask > rng.random::<u64>() & mask {
            kept += 1 << drop;
        }
    }
    // log2(kept) >= 0: the integer conversion truncates (libm's `trunc` is a
    // call on the baseline target).
    ((kept as f64).log2() * SCALE) as u64 as f64
}

/// `2^(log / 2^15)`.
#[inline]
fn exp2_fixed(log: f64) -> f64 {
    (log / SCALE).exp2()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    const T_NS: u64 = 12_240;

    fn ns(t: u64) -> SimTime {
        SimTime(t * 1000)
    }

    fn plan() -> PintPlan {
        PintPlan::new(PintCodec::new(1.01), Delta::from_ns(T_NS))
    }

    fn rng() -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(3)
    }

    /// An idle 100 Gbps port.
    fn port() -> PintPort {
        PintPort::new(Rate::from_gbps(100))
    }

    fn packet(kind: PacketKind, wire: u32) -> Packet {
        let mut p = Packet::new(kind);
        p.wire = wire;
        p
    }

    /// The exact EWMA (the simulator's `#if 0` form) on its fixed point's inputs.
    fn exact(dt: u64, qlen: u64, last: u32, u_old: f64) -> f64 {
        let (t, b) = (T_NS as f64, 100e9 / 8.0);
        let q = (qlen >> 8 << 8) as f64;
        let u_old = (u_old * 8192.0).round() / 8192.0;
        dt as f64 * q * 1e9 / (b * t * t)
            + last as f64 * 1e9 / (b * t)
            + (t - dt as f64) * u_old / t
    }

    #[test]
    fn the_fixed_point_ewma_is_the_exact_one_within_its_log_resolution() {
        let plan = plan();
        let mut r = rng();
        for (dt, qlen, last, u_old) in [
            (87, 0, 1050, 0.0),
            (87, 255, 1050, 0.9),
            (87, 256, 1050, 0.9),
            (4, 80_000, 60, 1.3),
            (3000, 150_000, 1050, 0.42),
            (T_NS, 400_000, 1050, 2.0),
        ] {
            let port = PintPort {
                last_size: last,
                last_ns: 1_000_000,
                u: u_old,
                ..port()
            };
            let got = port.next_u(&plan, 1_000_000 + dt, qlen, &mut r);
            let want = exact(dt, qlen, last, u_old);
            // Each term's logarithms are truncated by less than 2^-15 each.
            let tol = want * (2.0f64.powf(2.0 / SCALE) - 1.0);
            assert!(
                got <= want + 1e-12 && got >= want - tol,
                "dt {dt} q {qlen}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn an_idle_port_sending_back_to_back_full_packets_reads_about_one() {
        // 1050 B at 100G every 83 ns (ns-3's truncated serialization): the
        // EWMA converges to 1050 / (B x 83 ns) = 1.012, give or take what the
        // fixed point loses per step, amplified (T - dt) / dt times: u rounded
        // to 1/8192 (half a unit) and two logarithms truncated by up to 2^-15
        // each in the EWMA term.
        let plan = plan();
        let mut r = rng();
        let mut port = port();
        let mut pkt = packet(PacketKind::Data, 1050);
        for i in 0..2000 {
            port.on_dequeue(&plan, ns(83 * i), &mut pkt, true, 0, &mut r);
        }
        let want = 1050.0 / (12.5 * 83.0);
        let per_step = 1.0 / 16384.0 + want * 2.0 * std::f64::consts::LN_2 / SCALE;
        let band = (T_NS - 83) as f64 / 83.0 * per_step;
        assert!((port.u - want).abs() <= band, "{} vs {want}", port.u);
    }

    #[test]
    fn the_first_packet_counts_only_the_queue() {
        let plan = plan();
        let mut port = port();
        let mut pkt = packet(PacketKind::Data, 1050);
        // dt = T: the queue term is q / (B T); no byte or EWMA term yet.
        let q = T_NS * 25 / 4; // half a BDP: B = 12.5 bytes/ns
        port.on_dequeue(&plan, ns(5), &mut pkt, true, q, &mut rng());
        assert!((port.u - 0.5).abs() < 2e-3, "{}", port.u);
    }

    #[test]
    fn every_packet_sets_the_last_size_and_time_but_only_data_moves_u_and_the_field() {
        let plan = plan();
        let mut r = rng();
        let mut port = port();
        let mut ack = packet(PacketKind::Ack, 60);
        port.on_dequeue(&plan, ns(100), &mut ack, false, 500_000, &mut r);
        assert_eq!(
            (port.last_size, port.last_ns, port.u, ack.pint),
            (60, 100, 0.0, 0)
        );
        let mut data = packet(PacketKind::Data, 1050);
        port.on_dequeue(&plan, ns(104), &mut data, true, 0, &mut r);
        // 60 B in 4 ns, weighted 4 / T.
        let want = 60.0 / 12.5 / T_NS as f64;
        assert!((port.u - want).abs() < want * 1e-3, "{} vs {want}", port.u);
        assert_eq!((port.last_size, port.last_ns), (1050, 104));
    }

    #[test]
    fn a_packet_leaves_with_the_largest_code_of_its_path() {
        let plan = plan();
        let mut r = rng();
        let mut pkt = packet(PacketKind::Data, 1050);
        let mut codes = Vec::new();
        for q in [0, 600_000, 100_000] {
            let mut port = port();
            port.on_dequeue(&plan, ns(5), &mut pkt, true, q, &mut r);
            codes.push(plan.codec.encode(port.u, 0));
        }
        assert!(pkt.pint + 1 >= codes[1] && pkt.pint <= codes[1]);
        assert!(codes[1] > codes[2] && codes[2] > codes[0]);
    }

    #[test]
    fn log2_fixed_truncates_and_rounds_wide_values_at_random() {
        let mut r = rng();
        assert_eq!(log2_fixed(1, &mut r), 0.0);
        assert_eq!(log2_fixed(1024, &mut r), 10.0 * SCALE);
        assert_eq!(log2_fixed(3, &mut r), (3f64.log2() * SCALE).trunc());
        // 2^16 + 1 keeps 16 bits: 2^16 or 2^16 + 2, half and half.
        let x = (1 << 16) + 1;
        let (lo, hi) = ((65536f64).log2() * SCALE, (65538f64.log2() * SCALE).trunc());
        let ups = (0..10_000)
            .map(|_| log2_fixed(x, &mut r))
            .inspect(|&l| assert!(l == lo || l == hi))
            .filter(|&l| l == hi)
            .count();
        assert!((4_500..5_500).contains(&ups), "{ups}");
    }
}
