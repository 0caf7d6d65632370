//! The experiments, one file per paper figure or table.

mod ai_closed_forms;
mod dcqcn_bench;
mod dcqcn_fig13;
mod dcqcn_fig16;
mod dcqcn_fig17;
mod dcqcn_fig18;
mod dcqcn_fig19;
mod dcqcn_fig20;
mod dcqcn_fig21;
mod dcqcn_fig3;
mod dcqcn_fig4;
mod dcqcn_util;
mod hpcc_fig11;
mod hpcc_fig12;
mod hpcc_fig13;
mod hpcc_fig14;
mod hpcc_fig9;
mod ppfc_common;
mod ppfc_fig10;
mod ppfc_fig16;
mod ppfc_fig18;
mod ppfc_fig3;
mod ppfc_fig6;
mod ppfc_fig9;
mod ppfc_table3;
mod ppfc_topos;
mod rcc_common;
mod rcc_fig15;
mod rcc_fig6;
mod rcc_fig7;
mod rcc_fig9;
mod rcc_table2;

use super::Experiment;

/// Every experiment in list order: HPCC, DCQCN, RCC, P-PFC, each in paper
/// order, then the closed-form checks of collectives (not a paper's).
pub static ALL: &[&dyn Experiment] = &[
    &hpcc_fig9::HpccFig9,
    &hpcc_fig11::HpccFig11,
    &hpcc_fig12::HpccFig12,
    &hpcc_fig13::HpccFig13,
    &hpcc_fig14::HpccFig14,
    &dcqcn_fig3::DcqcnFig3,
    &dcqcn_fig4::DcqcnFig4,
    &dcqcn_fig3::DcqcnFig8,
    &dcqcn_fig4::DcqcnFig9,
    &dcqcn_fig13::DcqcnFig13,
    &dcqcn_fig16::DcqcnFig16,
    &dcqcn_fig17::DcqcnFig17,
    &dcqcn_fig18::DcqcnFig18,
    &dcqcn_fig19::DcqcnFig19,
    &dcqcn_fig20::DcqcnFig20,
    &dcqcn_fig21::DcqcnFig21,
    &rcc_fig6::RccFig6,
    &rcc_fig7::RccFig7,
    &rcc_fig9::RccFig9,
    &rcc_table2::RccTable2,
    &rcc_fig15::RccFig15,
    &ppfc_fig3::PpfcFig3,
    &ppfc_fig6::PpfcFig6,
    &ppfc_table3::PpfcTable3,
    &ppfc_fig9::PpfcFig9,
    &ppfc_fig10::PpfcFig10,
    &ppfc_topos::FIG11,
    &ppfc_topos::FIG12,
    &ppfc_fig16::PpfcFig16,
    &ppfc_fig18::PpfcFig18,
    &ai_closed_forms::AiClosedForms,
];
