//! Analytical models from the papers, solved numerically (placeholder doc).

pub mod dcqcn_fluid;
pub mod dde;
pub mod rcc_fluid;
pub mod hpcc_discrete;
