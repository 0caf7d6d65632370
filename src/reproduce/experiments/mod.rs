//! The experiments, one file per paper figure or table.

mod hpcc_fig9;
mod rcc_fig6;

use super::Experiment;

/// Every experiment in list order.
pub static ALL: &[&dyn Experiment] = &[&hpcc_fig9::HpccFig9, &rcc_fig6::RccFig6];
