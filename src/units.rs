//! Units: integer picosecond time, bit rates and byte counts.
//!
//! The simulator computes in integers: [`SimTime`] is an instant and [`Delta`] a
//! duration, both in picoseconds; [`Rate`] is bits per second. Configuration files
//! speak human units (`"100Gbps"`, `"1us"`, `"32MB"`); the parsers here turn them
//! into these types and reject anything without a unit.
//!
//! Byte prefixes: `KB`/`MB`/`GB` are decimal (10^3, 10^6, 10^9), `KiB`/`MiB`/`GiB`
//! binary. Rates accept ns-3's spellings too (`"50Mb/s"`, `"100Gbps"`).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Picoseconds per unit.
pub const PS_PER_NS: u64 = 1_000;
pub const PS_PER_US: u64 = 1_000_000;
pub const PS_PER_MS: u64 = 1_000_000_000;
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// The latest instant a flow may start or a time field may name, in picoseconds:
/// 2^63 ps, about 106 days, so that any time plus any duration stays exact in
/// 64 bits.
pub const MAX_TIME_PS: u64 = u64::MAX / 2;

/// [`MAX_TIME_PS`] in seconds, for messages and for files that give seconds.
pub fn max_time_s() -> f64 {
    MAX_TIME_PS as f64 / PS_PER_S as f64
}

/// An instant of simulated time, in picoseconds since the start of the run.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct SimTime(pub u64);

/// A duration of simulated time, in picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Delta(pub u64);

/// Conversions shared by instants and durations.
macro_rules! picosecond_accessors {
    ($ty:ty) => {
        impl $ty {
            pub fn ps(self) -> u64 {
                self.0
            }
            /// Whole nanoseconds, truncated.
            pub fn as_ns(self) -> u64 {
                self.0 / PS_PER_NS
            }
            pub fn as_ns_f64(self) -> f64 {
                self.0 as f64 / PS_PER_NS as f64
            }
            pub fn as_us_f64(self) -> f64 {
                self.0 as f64 / PS_PER_US as f64
            }
            pub fn as_secs_f64(self) -> f64 {
                self.0 as f64 / PS_PER_S as f64
            }
        }
    };
}

picosecond_accessors!(SimTime);
picosecond_accessors!(Delta);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    /// Time elapsed since `earlier`, zero if `earlier` is later.
    pub fn since(self, earlier: SimTime) -> Delta {
        Delta(self.0.saturating_sub(earlier.0))
    }
}

impl Delta {
    pub const ZERO: Delta = Delta(0);

    pub const fn from_ps(ps: u64) -> Delta {
        Delta(ps)
    }
    pub const fn from_ns(ns: u64) -> Delta {
        Delta(ns * PS_PER_NS)
    }
    pub const fn from_us(us: u64) -> Delta {
        Delta(us * PS_PER_US)
    }
    pub const fn from_ms(ms: u64) -> Delta {
        Delta(ms * PS_PER_MS)
    }
    pub fn from_secs_f64(s: f64) -> Delta {
        Delta(round_u64(s * PS_PER_S as f64))
    }
    pub fn is_zero(self) -> bool {
        self.0 == 0
    }
    pub fn saturating_sub(self, other: Delta) -> Delta {
        Delta(self.0.saturating_sub(other.0))
    }
    pub fn times(self, k: u64) -> Delta {
        Delta(self.0 * k)
    }
}

impl Add<Delta> for SimTime {
    type Output = SimTime;
    fn add(self, d: Delta) -> SimTime {
        SimTime(self.0 + d.0)
    }
}
impl AddAssign<Delta> for SimTime {
    fn add_assign(&mut self, d: Delta) {
        self.0 += d.0;
    }
}
impl Sub<SimTime> for SimTime {
    type Output = Delta;
    fn sub(self, earlier: SimTime) -> Delta {
        debug_assert!(
            earlier <= self,
            "time went backwards: {earlier:?} > {self:?}"
        );
        Delta(self.0 - earlier.0)
    }
}
impl Add for Delta {
    type Output = Delta;
    fn add(self, d: Delta) -> Delta {
        Delta(self.0 + d.0)
    }
}
impl AddAssign for Delta {
    fn add_assign(&mut self, d: Delta) {
        self.0 += d.0;
    }
}
impl Sub for Delta {
    type Output = Delta;
    fn sub(self, d: Delta) -> Delta {
        Delta(self.0 - d.0)
    }
}

/// A bit rate in bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    pub const fn from_bps(bps: u64) -> Rate {
        Rate(bps)
    }
    pub const fn from_mbps(mbps: u64) -> Rate {
        Rate(mbps * 1_000_000)
    }
    pub const fn from_gbps(gbps: u64) -> Rate {
        Rate(gbps * 1_000_000_000)
    }
    pub fn from_bps_f64(bps: f64) -> Rate {
        Rate(round_u64(bps))
    }
    pub fn bps(self) -> u64 {
        self.0
    }
    pub fn bps_f64(self) -> f64 {
        self.0 as f64
    }
    pub fn gbps_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// Time to serialize `bytes` at this rate, rounded up to a whole picosecond.
    #[inline(always)]
    pub fn tx_time(self, bytes: u64) -> Delta {
        assert!(self.0 > 0, "tx_time on a zero rate");
        // Bits times picoseconds fit 64 bits up to 2,305,843 bytes (any
        // packet); a 64-bit division is several times cheaper than a 128-bit one.
        if let Some(num) = bytes.checked_mul(8 * PS_PER_S) {
            return Delta(num.div_ceil(self.0));
        }
        let num = bytes as u128 * 8 * PS_PER_S as u128;
        // Past u64::MAX ps (213 days) a time saturates.
        Delta(u64::try_from(num.div_ceil(self.0 as u128)).unwrap_or(u64::MAX))
    }
    /// Bytes that this rate moves in `d` (truncated).
    pub fn bytes_in(self, d: Delta) -> u64 {
        (self.0 as u128 * d.0 as u128 / (8 * PS_PER_S as u128)) as u64
    }
    /// Rate that moves `bytes` in `d`.
    pub fn from_bytes_per(bytes: u64, d: Delta) -> Rate {
        if d.0 == 0 {
            return Rate(0);
        }
        Rate((bytes as u128 * 8 * PS_PER_S as u128 / d.0 as u128) as u64)
    }
}

/// Parses a duration such as `"1us"`, `"1000ns"`, `"0.001ms"`, `"2.5s"`, `"800ps"`.
pub fn parse_delta(s: &str) -> Result<Delta, String> {
    let (num, unit) = split_number(s)?;
    let scale = match unit {
        "ps" => 1.0,
        "ns" => PS_PER_NS as f64,
        "us" | "µs" => PS_PER_US as f64,
        "ms" => PS_PER_MS as f64,
        "s" => PS_PER_S as f64,
        "" => {
            return Err(format!(
                "\"{s}\" has no unit; write e.g. \"1us\" (units: ps, ns, us, ms, s)"
            ));
        }
        _ => {
            return Err(format!(
                "\"{s}\" has an unknown time unit \"{unit}\" (valid: ps, ns, us, ms, s)"
            ));
        }
    };
    let ps = num * scale;
    if !ps.is_finite() || ps < 0.0 || ps > MAX_TIME_PS as f64 {
        return Err(format!(
            "\"{s}\" is out of range (valid: 0 to {:.0}s; docs/scenario.md, Limits)",
            max_time_s()
        ));
    }
    if ps > 0.0 && ps < 0.5 {
        return Err(format!(
            "\"{s}\" is below the 1 ps resolution of simulated time (valid: 0, or at least \"1ps\")"
        ));
    }
    Ok(Delta((ps.round() as u64).min(MAX_TIME_PS)))
}

/// Parses a bit rate such as `"100Gbps"`, `"50Mb/s"`, `"25000000000bps"`.
pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let (num, unit) = split_number(s)?;
    let scale = match unit {
        "bps" | "b/s" => 1.0,
        "Kbps" | "kbps" | "Kb/s" | "kb/s" => 1e3,
        "Mbps" | "Mb/s" => 1e6,
        "Gbps" | "Gb/s" => 1e9,
        "Tbps" | "Tb/s" => 1e12,
        "" => {
            return Err(format!(
                "\"{s}\" has no unit; write e.g. \"100Gbps\" (units: bps, Kbps, Mbps, Gbps, Tbps)"
            ));
        }
        _ => {
            return Err(format!(
                "\"{s}\" has an unknown rate unit \"{unit}\" (valid: bps, Kbps, Mbps, Gbps, Tbps, or b/s forms)"
            ));
        }
    };
    let bps = num * scale;
    if !bps.is_finite() || !(0.0..=1e16).contains(&bps) {
        return Err(format!("\"{s}\" is out of range"));
    }
    Ok(Rate(bps.round() as u64))
}

/// Parses a byte count such as `"1000"`, `"1000B"`, `"4KB"`, `"32MB"`, `"12MiB"`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let (num, unit) = split_number(s)?;
    let scale = match unit {
        "" | "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => {
            return Err(format!(
                "\"{s}\" has an unknown size unit \"{unit}\" (valid: B, KB, MB, GB, KiB, MiB, GiB)"
            ));
        }
    };
    let b = num * scale;
    if !b.is_finite() || !(0.0..=1e18).contains(&b) {
        return Err(format!("\"{s}\" is out of range (valid: 0 to 1e18 bytes)"));
    }
    // "1.5KB" is 1500 bytes, but "1.5" or "1.0005KB" is not a whole number of
    // bytes (the tolerance only absorbs the float error of the unit scaling).
    if (b - b.round()).abs() > 1e-6 * b.max(1.0) {
        return Err(fractional_bytes(s));
    }
    Ok(b.round() as u64)
}

fn fractional_bytes(s: impl fmt::Display) -> String {
    format!("{s} is not a whole number of bytes (e.g. 1500, \"1.5KB\")")
}

fn split_number(s: &str) -> Result<(f64, &str), String> {
    let t = s.trim();
    let end = t
        .find(|c: char| {
            !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')
        })
        .unwrap_or(t.len());
    // "e" may begin a unit ("ebps" is not one, but guard against eating unit letters):
    let (mut num_part, mut unit) = t.split_at(end);
    while num_part.ends_with(['e', 'E']) {
        num_part = &num_part[..num_part.len() - 1];
        unit = &t[num_part.len()..];
    }
    let num: f64 = num_part
        .parse()
        .map_err(|_| format!("\"{s}\" does not start with a number"))?;
    Ok((num, unit.trim()))
}

impl fmt::Display for Delta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_ps(self.0, f)
    }
}
impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_ps(self.0, f)
    }
}

fn fmt_ps(ps: u64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let (div, unit) = if ps == 0 {
        (1, "s")
    } else if ps.is_multiple_of(PS_PER_S) {
        (PS_PER_S, "s")
    } else if ps.is_multiple_of(PS_PER_MS) {
        (PS_PER_MS, "ms")
    } else if ps.is_multiple_of(PS_PER_US) {
        (PS_PER_US, "us")
    } else if ps.is_multiple_of(PS_PER_NS) {
        (PS_PER_NS, "ns")
    } else {
        (1, "ps")
    };
    write!(f, "{}{}", ps / div, unit)
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        if b != 0 && b.is_multiple_of(1_000_000_000) {
            write!(f, "{}Gbps", b / 1_000_000_000)
        } else if b != 0 && b.is_multiple_of(1_000_000) {
            write!(f, "{}Mbps", b / 1_000_000)
        } else {
            write!(f, "{b}bps")
        }
    }
}

/// Serde for a unit type written as a string with its unit (`"1us"`, `"100Gbps"`).
macro_rules! string_serde {
    ($ty:ty, $parse:path) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                $parse(&s).map_err(serde::de::Error::custom)
            }
        }
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_string())
            }
        }
    };
}

string_serde!(Delta, parse_delta);
string_serde!(Rate, parse_rate);

/// Serde for a [`Delta`] as its picoseconds (the MPI wire encoding, where the
/// configuration's string form would be slow).
pub mod raw_delta {
    use super::Delta;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Delta, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.0)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Delta, D::Error> {
        u64::deserialize(d).map(Delta)
    }
}

/// Serde for a [`Rate`] as its bits per second (the MPI wire encoding).
pub mod raw_rate {
    use super::Rate;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(r: &Rate, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(r.0)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Rate, D::Error> {
        u64::deserialize(d).map(Rate)
    }
}

/// A byte count read from configuration: an integer or a string with a unit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(pub u64);

impl Bytes {
    pub fn get(self) -> u64 {
        self.0
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        if b != 0 && b.is_multiple_of(1_000_000) {
            write!(f, "{}MB", b / 1_000_000)
        } else if b != 0 && b.is_multiple_of(1000) {
            write!(f, "{}KB", b / 1000)
        } else {
            write!(f, "{b}B")
        }
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Bytes;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a byte count such as 1000, \"4KB\" or \"32MB\"")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Bytes, E> {
                u64::try_from(v)
                    .map(Bytes)
                    .map_err(|_| E::custom(format!("{v} is negative; a byte count must be >= 0")))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Bytes, E> {
                parse_bytes(v).map(Bytes).map_err(E::custom)
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Bytes, E> {
                // As a string would be: whole numbers only.
                let in_range = (0.0..=1e18).contains(&v);
                if in_range && v.fract() == 0.0 {
                    Ok(Bytes(v as u64))
                } else if in_range {
                    Err(E::custom(fractional_bytes(v)))
                } else {
                    Err(E::custom(format!(
                        "{v} is out of range (valid: 0 to 1e18 bytes)"
                    )))
                }
            }
        }
        d.deserialize_any(V)
    }
}
impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

/// `x.round() as u64`, to the bit: halves away from zero, negative numbers
/// and NaN to 0, beyond `u64::MAX` to `u64::MAX`. Without SSE4.1, `f64::round`
/// is a library call (1.4 % of the profile-guided build's time on
/// `incast-16to1-hpcc`: HPCC rounds twice an ACK); this is a truncating
/// conversion and one subtraction. Exact:
/// below 2^52 the fraction `x - t` is representable, from 2^52 on `x` is an
/// integer and the fraction is 0 (a test compares the two on every class of
/// `f64`).
#[inline]
pub fn round_u64(x: f64) -> u64 {
    let t = x as u64;
    // Without a branch: which way it goes is as good as random.
    t.saturating_add((x - t as f64 >= 0.5) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn round_u64_is_round_then_cast_on_the_edges() {
        let half_below = 0.5f64.next_down();
        let mut xs = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            2.5,
            half_below,
            1.0 + half_below,
            -0.7,
            4503599627370495.5,     // 2^52 - 0.5
            4503599627370496.0,     // 2^52
            9007199254740993.0,     // 2^53 + 1, rounded to 2^53
            18446744073709549568.0, // the largest f64 below 2^64
            18446744073709551616.0, // 2^64
            1e300,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for k in 0..64 {
            let p = 2f64.powi(k);
            xs.extend([
                p - 0.5,
                p + 0.5,
                p.next_down(),
                p.next_up(),
                p + 0.5f64.next_down(),
            ]);
        }
        for x in xs {
            assert_eq!(round_u64(x), x.round() as u64, "x = {x:e}");
        }
    }

    proptest! {
        #[test]
        fn round_u64_is_round_then_cast_for_any_f64(bits in any::<u64>()) {
            let x = f64::from_bits(bits);
            prop_assert_eq!(round_u64(x), x.round() as u64);
        }

        #[test]
        fn round_u64_is_round_then_cast_near_halves(k in 0u64..(1 << 53), d in -4i64..=4) {
            // Halves and their neighbours, where rounding turns.
            let x = (k as f64 + 0.5) + d as f64 * f64::EPSILON * k as f64;
            prop_assert_eq!(round_u64(x), x.round() as u64);
        }
    }

    #[test]
    fn serialization_time_is_the_128_bit_quotient_for_any_size() {
        let rates = [
            1u64,
            7,
            1_000_000_007,
            25_000_000_000,
            100_000_000_000,
            400_000_000_000,
        ];
        let sizes = [
            0u64,
            1,
            64,
            1048,
            9000,
            2_305_843,
            2_305_844,
            1 << 40,
            u64::MAX,
        ];
        for &bps in &rates {
            for &bytes in &sizes {
                let want = (bytes as u128 * 8 * PS_PER_S as u128).div_ceil(bps as u128);
                let want = u64::try_from(want).unwrap_or(u64::MAX);
                assert_eq!(Rate(bps).tx_time(bytes).0, want, "{bytes} B at {bps}");
            }
        }
    }

    #[test]
    fn serialization_time_is_exact_in_picoseconds() {
        assert_eq!(Rate::from_gbps(100).tx_time(1000), Delta::from_ns(80));
        assert_eq!(Rate::from_gbps(40).tx_time(1000), Delta::from_ns(200));
        assert_eq!(Rate::from_gbps(100).tx_time(1090), Delta(87_200));
        // 3 Gbps does not divide evenly: rounded up.
        assert_eq!(Rate::from_gbps(3).tx_time(1), Delta(2667));
    }

    #[test]
    fn durations_parse_with_units_and_reject_bare_numbers() {
        assert_eq!(parse_delta("1us").unwrap(), Delta::from_us(1));
        assert_eq!(parse_delta("0.001ms").unwrap(), Delta::from_us(1));
        assert_eq!(parse_delta("1000ns").unwrap(), Delta::from_us(1));
        assert_eq!(parse_delta("2.5s").unwrap(), Delta(2_500_000_000_000));
        assert!(parse_delta("10").unwrap_err().contains("no unit"));
        assert!(
            parse_delta("10 hours")
                .unwrap_err()
                .contains("unknown time unit")
        );
        assert!(parse_delta("fast").is_err());
    }

    #[test]
    fn rates_accept_ns3_spellings() {
        assert_eq!(parse_rate("100Gbps").unwrap(), Rate::from_gbps(100));
        assert_eq!(parse_rate("50Mb/s").unwrap(), Rate::from_mbps(50));
        assert_eq!(parse_rate("25000000000bps").unwrap(), Rate::from_gbps(25));
        assert!(parse_rate("100").is_err());
    }

    #[test]
    fn byte_sizes_use_decimal_and_binary_prefixes() {
        assert_eq!(parse_bytes("32MB").unwrap(), 32_000_000);
        assert_eq!(parse_bytes("32MiB").unwrap(), 32 * 1024 * 1024);
        assert_eq!(parse_bytes("4KB").unwrap(), 4000);
        assert_eq!(parse_bytes("1000").unwrap(), 1000);
        assert!(parse_bytes("4 apples").is_err());
        assert_eq!(parse_bytes("1.5KB").unwrap(), 1500);
        assert_eq!(parse_bytes("0.1MB").unwrap(), 100_000);
    }

    #[test]
    fn fractional_byte_counts_are_refused_as_string_or_number() {
        let e = parse_bytes("1.5").unwrap_err();
        assert!(e.contains("not a whole number of bytes"), "{e}");
        assert!(parse_bytes("1.0005KB").is_err());
        #[derive(serde::Deserialize)]
        struct T {
            b: Bytes,
        }
        let e = toml::from_str::<T>("b = 1.5").err().unwrap().to_string();
        assert!(e.contains("not a whole number of bytes"), "{e}");
        assert_eq!(toml::from_str::<T>("b = 2.0").unwrap().b, Bytes(2));
    }

    #[test]
    fn durations_below_a_picosecond_are_refused_unless_zero() {
        let e = parse_delta("0.0001ps").unwrap_err();
        assert!(e.contains("1 ps resolution"), "{e}");
        assert_eq!(parse_delta("0ps").unwrap(), Delta::ZERO);
        assert_eq!(parse_delta("0.6ps").unwrap(), Delta(1));
        let e = parse_delta("1e300s").unwrap_err();
        assert!(e.contains("out of range (valid: 0 to"), "{e}");
    }

    #[test]
    fn display_round_trips_through_the_parsers() {
        for d in [
            Delta::from_us(13),
            Delta::from_ns(4188),
            Delta(5),
            Delta::from_ms(10),
        ] {
            assert_eq!(parse_delta(&d.to_string()).unwrap(), d);
        }
        for r in [Rate::from_gbps(100), Rate::from_mbps(40), Rate(12345)] {
            assert_eq!(parse_rate(&r.to_string()).unwrap(), r);
        }
    }

    #[test]
    fn bytes_in_inverts_tx_time() {
        let r = Rate::from_gbps(100);
        assert_eq!(r.bytes_in(Delta::from_us(1)), 12_500);
        assert_eq!(Rate::from_bytes_per(12_500, Delta::from_us(1)), r);
    }
}
