//! The PINT field of HPCC-PINT as the HPCC ns-3 simulator encodes it
//! (comparators.md §1(b) switch steps 5-6, §1(c) "pint bytes", §1(e);
//! simulator: `point-to-point/model/pint.cc`, `network/utils/int-header.cc`).
//!
//! A utilisation `u` travels as a power `p` of the log base `b`: `U = b^p / 512`
//! (512 = `max_concurrent`, so the smallest code, 0, means 1/512). A switch
//! encodes `u` by rounding `ceil(512 u)` to one of the two powers of `b` around
//! it at random, with the probability that makes the rounding unbiased, and
//! raises the packet's field to its code if that is larger: the field carries
//! the largest code over the path. The field is as many bits as the largest
//! code of `u = 512` needs, `ceil(log2(ln(512^2) / ln b))`, in whole bytes:
//! base 1.05 → 8 bits, one byte; base 1.01 → 11 bits, two bytes. A one-byte
//! field keeps the low 8 bits of a code (so a code of 256 or more wraps), and
//! a switch compares its code with the field as stored.
//!
//! The field costs 2 bytes on the wire whatever its width: the simulator counts
//! `sizeof` the field (`IntHeader::GetStaticSize`), comparators.md §1(d).

use std::sync::Arc;

/// `max_concurrent`: a code `p` means `U = b^p / 512`.
const MAX_CONCURRENT: f64 = 512.0;

/// Bytes the PINT field adds to a data packet (and an ACK copies): 2, whatever
/// its width.
pub(crate) const WIRE_BYTES: u32 = 2;

/// The encoding of one log base.
#[derive(Clone, PartialEq)]
pub struct PintCodec {
    base: f64,
    /// `1 / ln(base)`.
    log_factor: f64,
    /// Bits a stored code keeps: 8 with a one-byte field, else 16.
    mask: u16,
    /// `base^k` for every code `k` an encoding can give (those of
    /// `u < 2^32 / 512`, at most 2^16), each `base.powf(k)`: a switch looks up
    /// two per data packet, a sender one per ACK, where calling `powf` took
    /// 5 % of a run; about 10 % faster (docs/performance-log.md, 90b1cc1,
    /// "HPCC-PINT's arithmetic").
    powers: Arc<[f64]>,
}

impl std::fmt::Debug for PintCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PintCodec")
            .field("base", &self.base)
            .field("mask", &self.mask)
            .finish()
    }
}

impl PintCodec {
    /// The codec of log base `base` (> 1, see [`Self::bits_for`]).
    pub(crate) fn new(base: f64) -> PintCodec {
        let bytes = Self::bits_for(base).div_ceil(8);
        let log_factor = 1.0 / base.ln();
        // The largest code: the upper power of ceil(512 u) = 2^32 - 1.
        let top = ((u32::MAX as f64).ln() * log_factor).ceil() as usize + 1;
        PintCodec {
            base,
            log_factor,
            mask: if bytes == 1 { 0xff } else { 0xffff },
            powers: (0..=top.min(u16::MAX as usize))
                .map(|k| base.powf(k as f64))
                .collect(),
        }
    }

    /// `base^k`.
    #[inline]
    fn power(&self, k: u16) -> f64 {
        match self.powers.get(k as usize) {
            Some(&p) => p,
            None => self.base.powf(k as f64),
        }
    }

    /// Bits of the field for log base `base`: enough for the code of `u = 512`.
    pub(crate) fn bits_for(base: f64) -> u32 {
        let max_code = (MAX_CONCURRENT * MAX_CONCURRENT).ln() / base.ln();
        max_code.log2().ceil() as u32
    }

    /// Bytes the field takes: 1 or 2.
    #[cfg(test)]
    pub(crate) fn field_bytes(&self) -> u32 {
        if self.mask == 0xff { 1 } else { 2 }
    }

    /// The code of utilisation `u`, rounded down or up at random: `draw` is
    /// uniform over `0..65536` (the simulator's `rand() % 65536`).
    pub(crate) fn encode(&self, u: f64, draw: u16) -> u16 {
        // ceil(512 u) as an unsigned 32-bit integer, at least 1 (a u of 2^23 or
        // more, which no port reaches, saturates here where C's conversion is
        // undefined).
        let ui = (ceil(u * MAX_CONCURRENT) as u32).max(1) as f64;
        let power = ui.ln() * self.log_factor;
        // power >= 0: the integer conversion is floor.
        let (hi, lo) = (ceil(power) as u16, power as u16);
        let lower = self.power(lo);
        let mut upper = self.power(hi);
        if hi == lo {
            upper *= self.base;
        }
        if (draw as f64) < (ui - lower) / (upper - lower) * 65536.0 {
            hi
        } else {
            lo
        }
    }

    /// The utilisation code `p` stands for: `b^p / 512`.
    #[inline]
    pub(crate) fn decode(&self, p: u16) -> f64 {
        self.power(p) / MAX_CONCURRENT
    }

    /// The field after a switch with code `p` passes over it: raised to `p` if
    /// `p` is larger than what it holds, keeping as many bits as it has.
    #[inline]
    pub(crate) fn raise(&self, field: u16, p: u16) -> u16 {
        if p > field { p & self.mask } else { field }
    }
}

/// `x.ceil()` of `x >= 0` (below 2^63) without a call to libm's `ceil` (the
/// baseline x86-64 target has no rounding instruction).
#[inline]
pub(crate) fn ceil(x: f64) -> f64 {
    let t = x as u64 as f64;
    if t < x { t + 1.0 } else { t }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_field_is_one_byte_at_base_1_05_and_two_at_1_01() {
        // comparators.md §1(c): 1.05 → 8 bits/1 B; 1.01 → 11 bits/2 B.
        assert_eq!(PintCodec::bits_for(1.05), 8);
        assert_eq!(PintCodec::new(1.05).field_bytes(), 1);
        assert_eq!(PintCodec::bits_for(1.01), 11);
        assert_eq!(PintCodec::new(1.01).field_bytes(), 2);
    }

    /// The mean of `512 * decode(encode(u, draw))` over every draw.
    fn mean_over_draws(c: &PintCodec, u: f64) -> f64 {
        let sum: f64 = (0..=u16::MAX)
            .map(|d| c.decode(c.encode(u, d)) * MAX_CONCURRENT)
            .sum();
        sum / 65536.0
    }

    #[test]
    fn randomized_rounding_is_unbiased_for_ceil_512_u() {
        for base in [1.01, 1.05] {
            let c = PintCodec::new(base);
            for u in [0.003, 0.1, 0.5, 0.93, 0.95, 1.0, 1.37, 3.9] {
                let ui = (u * 512.0f64).ceil();
                let mean = mean_over_draws(&c, u);
                // One draw in 65536 of the step between the two powers.
                let step = ui * (base - 1.0);
                assert!(
                    (mean - ui).abs() <= step / 65536.0 + 1e-9,
                    "base {base}, u {u}: mean {mean} vs {ui}"
                );
            }
        }
    }

    #[test]
    fn a_code_is_one_of_the_two_powers_around_ceil_512_u() {
        let c = PintCodec::new(1.01);
        let u = 0.95;
        let ui = (u * 512.0f64).ceil();
        let lo = (ui.ln() / 1.01f64.ln()).floor() as u16;
        let codes: Vec<u16> = (0..=u16::MAX).map(|d| c.encode(u, d)).collect();
        assert!(codes.iter().all(|&p| p == lo || p == lo + 1));
        assert!(codes.contains(&lo) && codes.contains(&(lo + 1)));
        // The lowest draws round up.
        assert_eq!((codes[0], codes[65535]), (lo + 1, lo));
    }

    #[test]
    fn the_smallest_utilisation_encodes_to_zero_and_decodes_to_1_over_512() {
        let c = PintCodec::new(1.01);
        for u in [0.0, 1e-9, 1.0 / 512.0] {
            assert_eq!(c.encode(u, 0), 0, "u {u}");
        }
        assert_eq!(c.decode(0), 1.0 / 512.0);
    }

    #[test]
    fn the_field_keeps_the_largest_code_over_the_path() {
        let c = PintCodec::new(1.01);
        let path = [300u16, 627, 410, 627, 5];
        assert_eq!(path.iter().fold(0, |f, &p| c.raise(f, p)), 627);
        assert_eq!(c.raise(0, 0), 0);
    }

    #[test]
    fn the_table_holds_powf_of_every_code_and_ceil_is_libms() {
        for base in [1.01, 1.05, 1.0002] {
            let c = PintCodec::new(base);
            for k in [0u16, 1, 626, 627, 2229, 2230, u16::MAX] {
                assert_eq!(c.power(k), base.powf(k as f64), "{base}^{k}");
            }
        }
        for x in [
            0.0,
            0.5,
            1.0,
            486.4,
            486.0000001,
            1e15,
            2.0f64.powi(52) + 1.0,
        ] {
            assert_eq!(ceil(x), x.ceil(), "{x}");
        }
    }

    #[test]
    fn a_one_byte_field_wraps_a_code_of_256() {
        // comparators.md §1(e): SetPower truncates to the low 8 bits.
        let c = PintCodec::new(1.05);
        assert_eq!(c.raise(200, 256), 0);
        assert_eq!(c.raise(200, 255), 255);
        assert_eq!(c.raise(0, 300), 44);
    }
}
