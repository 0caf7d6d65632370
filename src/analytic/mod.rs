//! Analytical models from the papers, solved numerically (placeholder doc).

pub mod dcqcn_compare;
pub mod dcqcn_fluid;
pub mod dcqcn_sweep;
pub mod dde;
pub mod hpcc_discrete;
pub mod rcc_fluid;
