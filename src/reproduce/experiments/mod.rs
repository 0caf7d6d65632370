//! The experiments, one file per paper figure or table.

mod dcqcn_fig13;
mod dcqcn_fig16;
mod dcqcn_fig19;
mod dcqcn_fig20;
mod dcqcn_fig21;
mod dcqcn_fig3;
mod dcqcn_fig4;
mod dcqcn_util;
mod hpcc_fig9;

use super::Experiment;

/// Every experiment in list order.
pub static ALL: &[&dyn Experiment] = &[
    &hpcc_fig9::HpccFig9,
    &dcqcn_fig3::DcqcnFig3,
    &dcqcn_fig4::DcqcnFig4,
    &dcqcn_fig3::DcqcnFig8,
    &dcqcn_fig4::DcqcnFig9,
    &dcqcn_fig13::DcqcnFig13,
    &dcqcn_fig16::DcqcnFig16,
    &dcqcn_fig19::DcqcnFig19,
    &dcqcn_fig20::DcqcnFig20,
    &dcqcn_fig21::DcqcnFig21,
];
