//! The registry of congestion controls: one line per algorithm in `cc/mod.rs`
//! makes the configured choice ([`CcKind`](super::CcKind)), the per-flow state with
//! its static dispatch ([`Cc`](super::Cc)), the names `cc.algorithm` accepts
//! ([`ALGORITHMS`](super::ALGORITHMS)) and the `[cc]` section with one parameter
//! table per algorithm ([`CcSection`](super::CcSection)), as quinn-proto's
//! congestion controllers each have one factory. What varies per algorithm (its
//! names, how its parameters are checked, how a flow's controller is made, what it
//! asks of the network) is its [`Algorithm`] impl, in its own file.

use super::ns3::pint::PintCodec;
use super::receiver::ReceiverKind;
use super::{CongestionControl, EcnDefaults, FlowCtx};
use crate::packet::IntCounter;

/// A parameter error: the field (relative to the algorithm's table) and what
/// would be valid.
pub(crate) type ParamError = (String, String);

/// One registered algorithm, implemented by what [`CcKind`](super::CcKind) keeps
/// for it: its validated parameters (and, where several names share a table,
/// which of them). The network hooks default to an algorithm that needs neither
/// INT nor ECN marking.
pub(crate) trait Algorithm: Sized {
    /// The per-flow controller.
    type Flow: CongestionControl;
    /// Its `[cc.<table>]` parameter table; `()` without one.
    type Table;
    /// The names `cc.algorithm` accepts for it.
    const NAMES: &'static [&'static str];
    /// How messages name all its names at once, if not by listing them.
    const NAMES_AS_ONE: Option<&'static str> = None;
    /// The algorithm `name` (one of [`NAMES`](Self::NAMES)) with the table's parameters,
    /// checked.
    fn resolve(name: &str, table: &Self::Table) -> Result<Self, ParamError>;
    fn name(&self) -> &'static str {
        Self::NAMES[0]
    }
    /// Creates the controller for one new flow.
    fn new_flow(&self, ctx: &FlowCtx) -> Self::Flow;

    /// Whether switches must stamp INT records for it.
    fn needs_int(&self) -> bool {
        false
    }
    /// Whether it differences each hop's INT record with the previous ACK's
    /// record of the same hop (HPCC Eq. (2)), which holds only while every
    /// packet of a flow crosses the same ports: such an algorithm refuses
    /// every `switch.load_balancing` but `"ecmp"` (spraying and adaptive
    /// routing move packets, flowlet switching moves flowlets).
    /// Why, if it does (the refusal's reason).
    fn needs_one_path(&self) -> Option<&'static str> {
        None
    }
    /// The PINT field switches fill for it instead of INT records (HPCC-PINT).
    fn pint(&self) -> Option<PintCodec> {
        None
    }
    /// The port counter switches put in its INT records.
    fn int_counter(&self) -> IntCounter {
        IntCounter::Tx
    }
    /// Whether it reacts to ECN marks (so switches mark by default).
    fn uses_ecn(&self) -> bool {
        false
    }
    /// Whether it sends data at several priorities (Homa), so switches serve
    /// data classes in strict priority when the scenario does not say.
    fn uses_priorities(&self) -> bool {
        false
    }
    /// Whether the NIC's retransmission timeout is on when the scenario does
    /// not set `nic.rto`.
    fn default_rto(&self) -> bool {
        true
    }
    /// The ECN marking it is evaluated with, when the scenario does not say.
    fn ecn_defaults(&self) -> EcnDefaults {
        EcnDefaults::DCQCN
    }
    /// Whether a rate change re-spaces the next packet, when the scenario does not say.
    fn repace_on_rate_change(&self) -> Option<bool> {
        None
    }
    /// A fixed INT area it puts on data packets instead of the profile's.
    fn int_bytes(&self) -> Option<u32> {
        None
    }
    /// Its receiver-side controller, if it has one.
    fn receiver(&self) -> Option<ReceiverKind> {
        None
    }
    /// The lowest rate it may pace at, which the property tests check; `None`:
    /// it always paces at line rate.
    #[cfg(test)]
    fn min_rate(&self) -> Option<crate::units::Rate> {
        None
    }
}

/// `table`, if its `validate` passes: what an algorithm whose parameters are
/// its whole table resolves to.
pub(crate) fn checked<T: Clone>(
    table: &T,
    validate: impl Fn(&T) -> Result<(), ParamError>,
) -> Result<T, ParamError> {
    validate(table).map(|()| table.clone())
}

/// The member of a family that `name` names: `all` lists them in the order of
/// the family's `names`, and `name` is one of those.
pub(crate) fn member<T: Copy>(names: &[&str], all: &[T], name: &str) -> T {
    let i = names.iter().position(|n| *n == name);
    all[i.expect("the registry resolves only a name of the family")]
}

/// `match` over every variant of a registry enum, binding each variant's value.
macro_rules! each {
    ($e:ident [$($v:ident)*] $self:expr, $x:ident => $body:expr) => {
        match $self {
            $($e::$v($x) => $body,)*
        }
    };
}
pub(super) use each;

/// The parameter table an algorithm line reads: `()` without one.
macro_rules! table {
    ($section:expr) => {
        &()
    };
    ($section:expr, $table:ident) => {
        &$section.$table
    };
}
pub(super) use table;

/// The name of the parameter table an algorithm line reads, if it has one.
macro_rules! table_name {
    () => {
        None
    };
    ($table:ident) => {
        Some(stringify!($table))
    };
}
pub(super) use table_name;

/// `a`, `a and b`, `a, b and c`.
pub(super) fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The name lists `parts` one after another (`N` names in all), at compile time.
pub(super) const fn concat<const N: usize>(parts: &[&[&'static str]]) -> [&'static str; N] {
    let mut out = [""; N];
    let (mut i, mut p) = (0, 0);
    while p < parts.len() {
        let mut j = 0;
        while j < parts[p].len() {
            out[i] = parts[p][j];
            i += 1;
            j += 1;
        }
        p += 1;
    }
    assert!(i == N, "N is the number of names");
    out
}

/// Generates the registry from its tables (in the order `[cc]` lists its keys) and
/// algorithms (in the order `cc.algorithm` lists its names): each algorithm line
/// is `Variant(Kind => Flow) from table`, `Kind: Algorithm<Flow = Flow, Table = ..>`.
macro_rules! congestion_controls {
    (
        tables {
            $($(#[$tm:meta])* $table:ident: $tty:ty,)*
        }
        algorithms {
            $($(#[$vm:meta])* $v:ident($kind:ty => $flow:ty) $(from $from:ident)?,)*
        }
    ) => {
        /// The configured algorithm, shared by all flows of a run.
        #[derive(Clone, Debug, PartialEq)]
        pub enum CcKind {
            $($(#[$vm])* $v($kind),)*
        }

        impl CcKind {
            pub(crate) fn name(&self) -> &'static str {
                registry::each!(CcKind [$($v)*] self, k => k.name())
            }
            /// Whether switches must stamp INT records for this algorithm.
            pub(crate) fn needs_int(&self) -> bool {
                registry::each!(CcKind [$($v)*] self, k => k.needs_int())
            }
            /// Whether the algorithm needs every packet of a flow on one path
            /// (it reads per-hop INT records hop by hop).
            pub(crate) fn needs_one_path(&self) -> Option<&'static str> {
                registry::each!(CcKind [$($v)*] self, k => k.needs_one_path())
            }
            /// The PINT field switches fill for this algorithm instead of INT
            /// records, if they do.
            pub(crate) fn pint(&self) -> Option<PintCodec> {
                registry::each!(CcKind [$($v)*] self, k => k.pint())
            }
            /// The port counter switches put in INT records for this algorithm.
            pub(crate) fn int_counter(&self) -> IntCounter {
                registry::each!(CcKind [$($v)*] self, k => k.int_counter())
            }
            /// Whether the algorithm reacts to ECN marks (so switches should mark by default).
            pub(crate) fn uses_ecn(&self) -> bool {
                registry::each!(CcKind [$($v)*] self, k => k.uses_ecn())
            }
            /// Whether the algorithm sends data at several priorities (switches
            /// then default to strict priority among data classes).
            pub(crate) fn uses_priorities(&self) -> bool {
                registry::each!(CcKind [$($v)*] self, k => k.uses_priorities())
            }
            /// Whether the NIC's retransmission timeout is on when the scenario
            /// does not set `nic.rto`.
            pub(crate) fn default_rto(&self) -> bool {
                registry::each!(CcKind [$($v)*] self, k => k.default_rto())
            }
            /// Whether a rate change re-spaces the next packet from the last one, when
            /// the scenario does not say (`model.repace_on_rate_change`).
            pub(crate) fn repace_on_rate_change(&self) -> Option<bool> {
                registry::each!(CcKind [$($v)*] self, k => k.repace_on_rate_change())
            }
            /// A fixed INT area this algorithm puts on data packets instead of the
            /// profile's, when the scenario does not say.
            pub(crate) fn int_bytes(&self) -> Option<u32> {
                registry::each!(CcKind [$($v)*] self, k => k.int_bytes())
            }
            /// The ECN marking this algorithm is evaluated with (the `switch.ecn` defaults).
            pub(crate) fn ecn_defaults(&self) -> EcnDefaults {
                registry::each!(CcKind [$($v)*] self, k => k.ecn_defaults())
            }
            /// The receiver-side controller, if the algorithm has one.
            pub(crate) fn receiver(&self) -> Option<ReceiverKind> {
                registry::each!(CcKind [$($v)*] self, k => k.receiver())
            }
            /// Creates the controller for one new flow.
            pub(crate) fn new_flow(&self, ctx: &FlowCtx) -> Cc {
                match self {
                    $(CcKind::$v(k) => Cc::$v(k.new_flow(ctx)),)*
                }
            }
            #[cfg(test)]
            fn min_rate(&self) -> Option<Rate> {
                registry::each!(CcKind [$($v)*] self, k => k.min_rate())
            }
        }

        /// The names `cc.algorithm` accepts.
        pub(crate) const ALGORITHMS: &[&str] = &registry::concat::<
            { 0 $(+ <$kind as Algorithm>::NAMES.len())* },
        >(&[$(<$kind as Algorithm>::NAMES),*]);

        /// Per-flow controller state; static dispatch over the algorithms.
        #[derive(Clone, Debug)]
        pub enum Cc {
            $($(#[$vm])* $v($flow),)*
        }

        impl CongestionControl for Cc {
            #[inline(always)]
            fn on_ack(&mut self, ack: &AckInfo<'_>) {
                registry::each!(Cc [$($v)*] self, c => c.on_ack(ack))
            }
            #[inline]
            fn on_cnp(&mut self, now: SimTime) {
                registry::each!(Cc [$($v)*] self, c => c.on_cnp(now))
            }
            #[inline(always)]
            fn on_send(&mut self, now: SimTime, wire_bytes: u64) {
                registry::each!(Cc [$($v)*] self, c => c.on_send(now, wire_bytes))
            }
            #[inline]
            fn on_timer(&mut self, now: SimTime) {
                registry::each!(Cc [$($v)*] self, c => c.on_timer(now))
            }
            #[inline]
            fn on_timeout(&mut self, now: SimTime) {
                registry::each!(Cc [$($v)*] self, c => c.on_timeout(now))
            }
            #[inline(always)]
            fn next_timer(&self) -> Option<SimTime> {
                registry::each!(Cc [$($v)*] self, c => c.next_timer())
            }
            #[inline(always)]
            fn rate(&self) -> Rate {
                registry::each!(Cc [$($v)*] self, c => c.rate())
            }
            #[inline]
            fn window(&self) -> Option<u64> {
                registry::each!(Cc [$($v)*] self, c => c.window())
            }
            #[inline(always)]
            fn send_limit(&self) -> Option<u64> {
                registry::each!(Cc [$($v)*] self, c => c.send_limit())
            }
            #[inline(always)]
            fn data_class(&self, seq: u64) -> Option<u8> {
                registry::each!(Cc [$($v)*] self, c => c.data_class(seq))
            }
            fn congestion(&self) -> Congestion {
                registry::each!(Cc [$($v)*] self, c => c.congestion())
            }
        }

        /// `cc` section of a scenario: the algorithm's name plus optional
        /// per-algorithm parameter tables (only the chosen one is used).
        #[derive(Clone, Debug, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct CcSection {
            #[serde(default = "default_algorithm")]
            pub algorithm: String,
            $(
                $(#[$tm])*
                #[serde(default)]
                pub $table: $tty,
            )*
        }

        fn default_algorithm() -> String {
            "none".into()
        }

        impl Default for CcSection {
            fn default() -> Self {
                CcSection {
                    algorithm: default_algorithm(),
                    $($table: Default::default(),)*
                }
            }
        }

        /// The `[cc.<table>]` the algorithm `name` reads; `None` if it reads none.
        pub(crate) fn table_of(name: &str) -> Option<&'static str> {
            $(
                if <$kind as Algorithm>::NAMES.contains(&name) {
                    return registry::table_name!($($from)?);
                }
            )*
            None
        }

        /// The algorithms that read `[cc.<table>]`, as messages name them.
        pub(crate) fn readers_of(table: &str) -> String {
            let mut who: Vec<&str> = Vec::new();
            $(
                if registry::table_name!($($from)?) == Some(table) {
                    match <$kind as Algorithm>::NAMES_AS_ONE {
                        Some(all) => who.push(all),
                        None => who.extend(<$kind as Algorithm>::NAMES),
                    }
                }
            )*
            registry::and_list(&who)
        }

        impl CcSection {
            /// Resolves the algorithm name with its table's parameters; the error
            /// names the field and what would be valid.
            pub(crate) fn resolve(&self) -> Result<CcKind, (String, String)> {
                let name = self.algorithm.as_str();
                $(
                    if <$kind as Algorithm>::NAMES.contains(&name) {
                        return <$kind as Algorithm>::resolve(name, registry::table!(self $(, $from)?))
                            .map(CcKind::$v)
                            .map_err(|(field, msg)| {
                                (format!(concat!("cc.", $(stringify!($from), ".",)? "{}"), field), msg)
                            });
                    }
                )*
                Err((
                    "cc.algorithm".into(),
                    format!(
                        "unknown algorithm \"{name}\" (valid: {})",
                        ALGORITHMS.join(", ")
                    ),
                ))
            }
        }
    };
}
pub(super) use congestion_controls;
