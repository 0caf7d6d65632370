//! Figures for reports: line charts with named series, CDFs, (grouped) bar charts
//! and heatmaps, each written as SVG and PNG.
//!
//! A figure is plain data ([`Figure`]); [`write_figure`] renders it twice with
//! plotters (SVG into a string, PNG into an RGB buffer encoded with the `png`
//! crate) and writes both through [`AtomicFile`]: a temporary file in the target
//! directory renamed into place, so a failure never leaves half a figure.
//!
//! No system library is used: text is laid out and rasterized with an embedded
//! DejaVu Sans (assets/fonts, with its license) through plotters' `ab_glyph`
//! backend; the SVG names the `sans-serif` family and leaves drawing to the viewer.
//! The same figure always gives byte-identical SVG and PNG files: ticks, labels
//! and colours are pure functions of the data, and neither encoder adds
//! timestamps (tested below).
//!
//! ```no_run
//! use rocesim::plot::{write_figure, AxisSpec, Figure, LineChart, Series};
//! let fig = Figure::Line(LineChart {
//!     title: "Rates".into(),
//!     x: AxisSpec::linear("time (ms)"),
//!     y: AxisSpec::linear("rate (Gbps)"),
//!     series: vec![Series::line("flow 1", vec![(0.0, 40.0), (10.0, 20.0)])],
//!     ..LineChart::default()
//! });
//! write_figure(std::path::Path::new("out"), "rates", &fig).unwrap();
//! ```

mod axis;
mod charts;

pub use axis::{AxisSpec, Scale, format_number};
pub use charts::{
    BarChart, CdfChart, Heatmap, Legend, LineChart, LineStyle, Outline, Series, cdf_points,
};

use crate::error::Error;
use crate::output::AtomicFile;
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// DejaVu Sans (Bitstream Vera license, see assets/fonts/LICENSE-DejaVu.txt).
static FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Pixel size of every figure.
pub const WIDTH: u32 = 960;
pub const HEIGHT: u32 = 600;

/// Registers the embedded font as `sans-serif` (once per process).
fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if plotters::style::register_font("sans-serif", FontStyle::Normal, FONT).is_err() {
            panic!("the embedded DejaVu Sans font does not parse");
        }
    });
}

/// One figure.
#[derive(Clone, Debug, PartialEq)]
pub enum Figure {
    Line(LineChart),
    Cdf(CdfChart),
    Bar(BarChart),
    Heatmap(Heatmap),
}

impl Figure {
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, plotters::coord::Shift>,
    ) -> Result<(), String> {
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        match self {
            Figure::Line(c) => c.draw(root),
            Figure::Cdf(c) => c.to_line_chart().draw(root),
            Figure::Bar(c) => c.draw(root),
            Figure::Heatmap(c) => c.draw(root),
        }
    }

    /// The figure as SVG text.
    pub fn to_svg(&self) -> Result<String, String> {
        register_font();
        let mut s = String::new();
        {
            let root = SVGBackend::with_string(&mut s, (WIDTH, HEIGHT)).into_drawing_area();
            self.draw(&root)?;
            root.present().map_err(|e| e.to_string())?;
        }
        Ok(s)
    }

    /// The figure as PNG bytes (8-bit RGB).
    pub fn to_png(&self) -> Result<Vec<u8>, String> {
        register_font();
        let mut rgb = vec![0u8; (WIDTH * HEIGHT * 3) as usize];
        {
            let root = BitMapBackend::with_buffer(&mut rgb, (WIDTH, HEIGHT)).into_drawing_area();
            self.draw(&root)?;
            root.present().map_err(|e| e.to_string())?;
        }
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, WIDTH, HEIGHT);
            enc.set_color(png::ColorType::Rgb);
            enc.set_depth(png::BitDepth::Eight);
            let mut w = enc.write_header().map_err(|e| e.to_string())?;
            w.write_image_data(&rgb).map_err(|e| e.to_string())?;
        }
        Ok(out)
    }
}

/// Writes `<stem>.svg` and `<stem>.png` into `dir` (created if missing), each
/// atomically. Returns the two paths.
pub fn write_figure(dir: &Path, stem: &str, fig: &Figure) -> Result<Vec<PathBuf>, Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut written = Vec::new();
    let svg_name = format!("{stem}.svg");
    let svg = fig.to_svg().map_err(|m| drawing_error(dir, &svg_name, m))?;
    AtomicFile::write_all_to(dir, &svg_name, svg.as_bytes())?;
    written.push(dir.join(svg_name));
    let png_name = format!("{stem}.png");
    let png = fig.to_png().map_err(|m| drawing_error(dir, &png_name, m))?;
    AtomicFile::write_all_to(dir, &png_name, &png)?;
    written.push(dir.join(png_name));
    Ok(written)
}

fn drawing_error(dir: &Path, name: &str, msg: String) -> Error {
    Error::io(
        dir.join(name),
        std::io::Error::other(format!("drawing failed: {msg}")),
    )
}

#[cfg(test)]
mod tests;
