//! The chart kinds and how each is drawn on a plotters drawing area.

use super::axis::{Axis, AxisSpec, Scale};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

type Area<DB> = DrawingArea<DB, Shift>;
type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<Axis, Axis>>;

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

const FONT: &str = "sans-serif";

/// Series colours (the "tab10" palette), used in order.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

pub(super) fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// How a series is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LineStyle {
    #[default]
    Solid,
    Dashed,
    /// Markers only.
    Points,
}

/// Where the legend goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Legend {
    #[default]
    UpperRight,
    UpperLeft,
    LowerRight,
    LowerLeft,
    None,
}

/// A named sequence of points.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub style: LineStyle,
    /// Palette index; `None` = the series' position.
    pub color: Option<usize>,
}

impl Series {
    pub fn line(name: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series {
            name: name.into(),
            points,
            style: LineStyle::Solid,
            color: None,
        }
    }
    pub fn styled(mut self, style: LineStyle) -> Series {
        self.style = style;
        self
    }
    pub fn colored(mut self, palette_index: usize) -> Series {
        self.color = Some(palette_index);
        self
    }
}

/// Lines (or markers) against shared x and y axes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LineChart {
    pub title: String,
    pub x: AxisSpec,
    pub y: AxisSpec,
    pub series: Vec<Series>,
    pub legend: Legend,
}

/// Empirical CDFs of several samples.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CdfChart {
    pub title: String,
    pub x: AxisSpec,
    /// (name, sample values).
    pub samples: Vec<(String, Vec<f64>)>,
    pub legend: Legend,
}

/// Bars per category, one per group (a single group is a plain bar chart).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BarChart {
    pub title: String,
    pub x_label: String,
    pub categories: Vec<String>,
    pub y: AxisSpec,
    /// (group name, one value per category).
    pub groups: Vec<(String, Vec<f64>)>,
    pub legend: Legend,
}

/// A rectangle drawn over a heatmap, e.g. a recommended parameter region.
#[derive(Clone, Debug, PartialEq)]
pub struct Outline {
    pub name: String,
    /// x0, x1, y0, y1 in data units.
    pub rect: [f64; 4],
}

/// Values on a grid of cell centres, coloured by value, with a colour bar.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Heatmap {
    pub title: String,
    pub x: AxisSpec,
    pub y: AxisSpec,
    /// Cell centres, increasing.
    pub xs: Vec<f64>,
    pub ys: Vec<f64>,
    /// `z[iy][ix]`; NaN cells are drawn grey.
    pub z: Vec<Vec<f64>>,
    pub z_label: String,
    /// Colour range; `None` = the data's range.
    pub z_range: Option<(f64, f64)>,
    pub outlines: Vec<Outline>,
}

/// The step points of an empirical CDF (at most ~2000 points; large samples are
/// represented by evenly spaced ranks).
pub fn cdf_points(values: &[f64]) -> Vec<(f64, f64)> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return Vec::new();
    }
    let ranks: Vec<usize> = if n <= 1000 {
        (0..n).collect()
    } else {
        (0..=1000).map(|k| (k * (n - 1)) / 1000).collect()
    };
    let mut pts = Vec::with_capacity(2 * ranks.len());
    let mut prev = 0.0;
    for r in ranks {
        pts.push((v[r], prev));
        prev = (r + 1) as f64 / n as f64;
        pts.push((v[r], prev));
    }
    pts
}

fn build<'a, DB: DrawingBackend + 'a>(
    area: &'a Area<DB>,
    title: &str,
    x: Axis,
    y: Axis,
) -> Result<Chart<'a, DB>, String> {
    ChartBuilder::on(area)
        .caption(title, (FONT, 22))
        .margin(16)
        .x_label_area_size(52)
        .y_label_area_size(76)
        .build_cartesian_2d(x, y)
        .map_err(err)
}

fn mesh<'a, DB: DrawingBackend + 'a>(
    c: &mut Chart<'a, DB>,
    x: &str,
    y: &str,
) -> Result<(), String> {
    c.configure_mesh()
        .x_desc(x)
        .y_desc(y)
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 16))
        .bold_line_style(BLACK.mix(0.12))
        .light_line_style(TRANSPARENT)
        .x_labels(10)
        .y_labels(8)
        .draw()
        .map_err(err)
}

fn legend<'a, DB: DrawingBackend + 'a>(c: &mut Chart<'a, DB>, at: Legend) -> Result<(), String> {
    let pos = match at {
        Legend::None => return Ok(()),
        Legend::UpperRight => SeriesLabelPosition::UpperRight,
        Legend::UpperLeft => SeriesLabelPosition::UpperLeft,
        Legend::LowerRight => SeriesLabelPosition::LowerRight,
        Legend::LowerLeft => SeriesLabelPosition::LowerLeft,
    };
    c.configure_series_labels()
        .position(pos)
        .label_font((FONT, 14))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(err)
}

/// Splits points into drawable runs: finite, and positive on log axes.
fn runs(points: &[(f64, f64)], xlog: bool, ylog: bool) -> Vec<Vec<(f64, f64)>> {
    let ok = |&(x, y): &(f64, f64)| {
        x.is_finite() && y.is_finite() && (!xlog || x > 0.0) && (!ylog || y > 0.0)
    };
    let mut out = vec![Vec::new()];
    for p in points {
        if ok(p) {
            out.last_mut().expect("non-empty").push(*p);
        } else if !out.last().expect("non-empty").is_empty() {
            out.push(Vec::new());
        }
    }
    out.retain(|r| !r.is_empty());
    out
}

impl LineChart {
    pub(super) fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> Result<(), String> {
        let x = self.x.fit(
            self.series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.0)),
        );
        let y = self.y.fit(
            self.series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.1)),
        );
        let (xlog, ylog) = (self.x.scale == Scale::Log, self.y.scale == Scale::Log);
        let mut c = build(root, &self.title, x, y)?;
        mesh(&mut c, &self.x.label, &self.y.label)?;
        for (i, s) in self.series.iter().enumerate() {
            let col = color(s.color.unwrap_or(i));
            let style = col.stroke_width(2);
            for (k, run) in runs(&s.points, xlog, ylog).into_iter().enumerate() {
                let anno = match s.style {
                    LineStyle::Solid => c.draw_series(LineSeries::new(run, style)),
                    LineStyle::Dashed => c.draw_series(DashedLineSeries::new(run, 8, 5, style)),
                    LineStyle::Points => c.draw_series(
                        run.into_iter()
                            .map(|p| Circle::new(p, 3, col.filled()))
                            .collect::<Vec<_>>(),
                    ),
                }
                .map_err(err)?;
                if k == 0 && !s.name.is_empty() {
                    anno.label(s.name.as_str()).legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 22, y)], col.stroke_width(3))
                    });
                }
            }
        }
        legend(&mut c, self.legend)
    }
}

impl CdfChart {
    pub(super) fn to_line_chart(&self) -> LineChart {
        LineChart {
            title: self.title.clone(),
            x: self.x.clone(),
            y: AxisSpec::linear("fraction ≤ x").with_range(0.0, 1.0),
            series: self
                .samples
                .iter()
                .map(|(n, v)| Series::line(n.clone(), cdf_points(v)))
                .collect(),
            legend: self.legend,
        }
    }
}

impl BarChart {
    pub(super) fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> Result<(), String> {
        let x = Axis::categorical(self.categories.clone());
        let log = self.y.scale == Scale::Log;
        let zero = std::iter::once(if log { f64::NAN } else { 0.0 });
        let y = self.y.fit(
            self.groups
                .iter()
                .flat_map(|g| g.1.iter().copied())
                .chain(zero),
        );
        let base = if log {
            y.lo()
        } else {
            0f64.clamp(y.lo(), y.hi())
        };
        let mut c = build(root, &self.title, x, y)?;
        mesh(&mut c, &self.x_label, &self.y.label)?;
        let groups = self.groups.len().max(1) as f64;
        let w = 0.8 / groups;
        for (g, (name, values)) in self.groups.iter().enumerate() {
            let col = color(g);
            let bars: Vec<_> = values
                .iter()
                .enumerate()
                .filter(|(_, v)| v.is_finite() && (!log || **v > 0.0))
                .map(|(i, &v)| {
                    let x0 = i as f64 + 0.1 + g as f64 * w;
                    Rectangle::new([(x0, base), (x0 + w, v)], col.filled())
                })
                .collect();
            let anno = c.draw_series(bars).map_err(err)?;
            if self.groups.len() > 1 || !name.is_empty() {
                anno.label(name.as_str()).legend(move |(x, y)| {
                    Rectangle::new([(x, y - 6), (x + 14, y + 6)], col.filled())
                });
            }
        }
        legend(&mut c, self.legend)
    }
}

/// Viridis, sampled at nine points and interpolated linearly.
const VIRIDIS: [(u8, u8, u8); 9] = [
    (68, 1, 84),
    (71, 44, 122),
    (59, 81, 139),
    (44, 113, 142),
    (33, 144, 141),
    (39, 173, 129),
    (92, 200, 99),
    (170, 220, 50),
    (253, 231, 37),
];

pub(super) fn colormap(u: f64) -> RGBColor {
    if !u.is_finite() {
        return RGBColor(200, 200, 200);
    }
    let s = u.clamp(0.0, 1.0) * (VIRIDIS.len() - 1) as f64;
    let i = (s.floor() as usize).min(VIRIDIS.len() - 2);
    let f = s - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    let mix = |p: u8, q: u8| (p as f64 + f * (q as f64 - p as f64)).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Cell edges around increasing centres (geometric midpoints on log axes).
fn edges(c: &[f64], log: bool) -> Vec<f64> {
    let t = |v: f64| if log { v.log10() } else { v };
    let inv = |v: f64| if log { 10f64.powf(v) } else { v };
    let v: Vec<f64> = c.iter().map(|&x| t(x)).collect();
    let n = v.len();
    if n == 0 {
        return Vec::new();
    }
    if n == 1 {
        return vec![inv(v[0] - 0.5), inv(v[0] + 0.5)];
    }
    let mut e = Vec::with_capacity(n + 1);
    e.push(inv(v[0] - (v[1] - v[0]) / 2.0));
    for k in 0..n - 1 {
        e.push(inv((v[k] + v[k + 1]) / 2.0));
    }
    e.push(inv(v[n - 1] + (v[n - 1] - v[n - 2]) / 2.0));
    e
}

impl Heatmap {
    fn z_bounds(&self) -> (f64, f64) {
        if let Some(r) = self.z_range {
            return r;
        }
        let vals = self.z.iter().flatten().copied().filter(|v| v.is_finite());
        let (lo, hi) = vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
        if lo > hi {
            (0.0, 1.0)
        } else if lo == hi {
            (lo - 0.5, hi + 0.5)
        } else {
            (lo, hi)
        }
    }

    pub(super) fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> Result<(), String> {
        let (w, _) = root.dim_in_pixel();
        let (main, bar) = root.split_horizontally(w.saturating_sub(150));
        let (xlog, ylog) = (self.x.scale == Scale::Log, self.y.scale == Scale::Log);
        let (xe, ye) = (edges(&self.xs, xlog), edges(&self.ys, ylog));
        if xe.is_empty() || ye.is_empty() {
            return Err("a heatmap needs at least one cell".into());
        }
        // The cells fill the plot exactly unless a range is given.
        let axis = |spec: &AxisSpec, e: &[f64], log: bool| match spec.range {
            Some((lo, hi)) => Axis::new(lo, hi, log),
            None => Axis::new(e[0], e[e.len() - 1], log),
        };
        let (x, y) = (axis(&self.x, &xe, xlog), axis(&self.y, &ye, ylog));
        let mut c = build(&main, &self.title, x, y)?;
        let (zlo, zhi) = self.z_bounds();
        let mut cells = Vec::new();
        for (iy, row) in self.z.iter().enumerate() {
            for (ix, &v) in row.iter().enumerate() {
                let col = colormap((v - zlo) / (zhi - zlo));
                cells.push(Rectangle::new(
                    [(xe[ix], ye[iy]), (xe[ix + 1], ye[iy + 1])],
                    col.filled(),
                ));
            }
        }
        c.draw_series(cells).map_err(err)?;
        mesh(&mut c, &self.x.label, &self.y.label)?;
        for (i, o) in self.outlines.iter().enumerate() {
            let [x0, x1, y0, y1] = o.rect;
            let col = if i == 0 { WHITE } else { RGBColor(230, 60, 60) };
            c.draw_series(std::iter::once(Rectangle::new(
                [(x0, y0), (x1, y1)],
                col.stroke_width(2),
            )))
            .map_err(err)?
            .label(o.name.as_str())
            .legend(move |(x, y)| {
                Rectangle::new([(x, y - 6), (x + 14, y + 6)], col.stroke_width(2))
            });
        }
        if !self.outlines.is_empty() {
            legend(&mut c, Legend::UpperLeft)?;
        }
        self.draw_colorbar(&bar, zlo, zhi)
    }

    /// A vertical colour bar with ticks, drawn in pixels on its own area.
    fn draw_colorbar<DB: DrawingBackend>(
        &self,
        area: &Area<DB>,
        zlo: f64,
        zhi: f64,
    ) -> Result<(), String> {
        let (_, h) = area.dim_in_pixel();
        let (top, bottom, left, right) = (70i32, h as i32 - 68, 8i32, 30i32);
        let n = (bottom - top).max(1);
        for k in 0..n {
            let u = 1.0 - (k as f64 + 0.5) / n as f64;
            area.draw(&Rectangle::new(
                [(left, top + k), (right, top + k + 1)],
                colormap(u).filled(),
            ))
            .map_err(err)?;
        }
        area.draw(&Rectangle::new(
            [(left, top), (right, bottom)],
            BLACK.mix(0.5),
        ))
        .map_err(err)?;
        let axis = Axis::new(zlo, zhi, false);
        for t in axis.ticks(8) {
            let y = bottom - ((t - zlo) / (zhi - zlo) * n as f64).round() as i32;
            area.draw(&PathElement::new(vec![(right, y), (right + 4, y)], BLACK))
                .map_err(err)?;
            let style =
                TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
            area.draw(&Text::new(super::format_number(t), (right + 7, y), style))
                .map_err(err)?;
        }
        let style = TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Left, VPos::Bottom));
        area.draw(&Text::new(self.z_label.clone(), (2, top - 10), style))
            .map_err(err)?;
        Ok(())
    }
}
