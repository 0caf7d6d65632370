//! The experiments, one file per paper figure or table.

mod hpcc_fig9;
mod rcc_fig15;
mod rcc_fig6;
mod rcc_fig7;
mod rcc_fig9;
mod rcc_table2;

use super::Experiment;

/// Every experiment in list order.
pub static ALL: &[&dyn Experiment] = &[
    &hpcc_fig9::HpccFig9,
    &rcc_fig6::RccFig6,
    &rcc_fig7::RccFig7,
    &rcc_fig9::RccFig9,
    &rcc_table2::RccTable2,
    &rcc_fig15::RccFig15,
];
