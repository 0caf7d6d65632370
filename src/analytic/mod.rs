//! Analytical models from the papers, solved numerically, independent of the
//! packet simulator except for the final comparison. The papers chose their
//! parameters with these models; `rocesim model <name>` puts them next to the
//! simulator (docs/analytic-models.md).
//!
//! * [`dcqcn_fluid`]: the DCQCN fluid model (DCQCN §5.1, Eq. 5-11) as
//!   delay-differential equations, and its fixed point (Eq. 10);
//!   [`dcqcn_sweep`] the parameter sweeps of Fig. 11 and 12; [`dcqcn_compare`]
//!   the model against the packet simulator (§6.1, Fig. 10).
//! * [`rcc_fluid`]: the RCC fluid model (RCC §IV-A, Eq. 6-9), its open-loop
//!   transfer function (Eq. 17-18), phase margin and loop bandwidth over
//!   `(K_p, K_d)` (Fig. 4, 5); [`rcc_compare`] the model against the packet
//!   simulator running `rcc` on in-network congestion.
//! * [`hpcc_discrete`]: HPCC's synchronous rate recursion on an incidence matrix
//!   (Appendix A.2, Eq. 5-6 and its Lemma) and the additive-increase equilibrium
//!   (A.3).
//! * [`dde`]: the fixed-step RK4 integrator with a history buffer they share.
//! * [`report`]: CSV tables, figures and summary lines for the CLI.
//!
//! Each model's parameters are a `XxxParams: Default` struct beside it (serde,
//! `deny_unknown_fields`, human units), whose defaults name their source.

pub mod dcqcn_compare;
pub mod dcqcn_fluid;
pub mod dcqcn_sweep;
pub mod dde;
pub mod hpcc_discrete;
pub mod rcc_compare;
pub mod rcc_fluid;
pub mod report;

use crate::error::InputError;
use crate::scenario::apply_override;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Applies `--set key=value` overrides to `base` through its serde form, so the
/// names and units are those of the parameter struct.
pub fn with_overrides<T: Serialize + DeserializeOwned>(
    base: &T,
    sets: &[String],
) -> Result<T, InputError> {
    let mut table = toml::Table::try_from(base).expect("parameters serialize to a table");
    for s in sets {
        apply_override(&mut table, s)?;
    }
    let text = toml::to_string(&table).expect("a table serializes");
    let de = toml::Deserializer::new(&text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let msg = e.inner().message().trim().to_string();
        InputError::new("--set", e.path().to_string(), msg)
    })
}
