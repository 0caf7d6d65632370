//! The experiments, one file per paper figure or table.

mod hpcc_fig13;
mod hpcc_fig14;
mod hpcc_fig9;

use super::Experiment;

/// Every experiment in list order.
pub static ALL: &[&dyn Experiment] = &[
    &hpcc_fig9::HpccFig9,
    &hpcc_fig13::HpccFig13,
    &hpcc_fig14::HpccFig14,
];
