//! Writing a model's results: CSV tables, SVG+PNG figures (through
//! [`crate::plot`]) and a few summary lines for the terminal. `rocesim model`
//! calls these; each function names the files it writes.

pub mod dcqcn;
pub mod hpcc;
pub mod rcc;

use crate::error::Error;
use crate::output::AtomicFile;
use crate::plot::{AxisSpec, Figure, Legend, LineChart, Series};
use std::path::Path;

pub(crate) fn write_csv(dir: &Path, name: &str, text: &str) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    AtomicFile::write_all_to(dir, name, text.as_bytes())
}

pub(crate) fn line(title: &str, x: AxisSpec, y: AxisSpec, series: Vec<Series>) -> Figure {
    Figure::Line(LineChart {
        title: title.into(),
        x,
        y,
        series,
        legend: Legend::UpperRight,
    })
}

pub(crate) fn pts(x: &[f64], y: &[f64], xs: f64, ys: f64) -> Vec<(f64, f64)> {
    x.iter().zip(y).map(|(a, b)| (a * xs, b * ys)).collect()
}
