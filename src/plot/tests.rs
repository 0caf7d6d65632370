use super::*;

fn line_fig() -> Figure {
    let s1: Vec<(f64, f64)> = (0..200)
        .map(|i| (i as f64, (i as f64 / 20.0).sin() * 10.0 + 20.0))
        .collect();
    let s2: Vec<(f64, f64)> = (0..200)
        .map(|i| (i as f64, 20.0 + i as f64 / 50.0))
        .collect();
    Figure::Line(LineChart {
        title: "Two series".into(),
        x: AxisSpec::linear("time (ms)"),
        y: AxisSpec::linear("rate (Gbps)"),
        series: vec![
            Series::line("model", s1),
            Series::line("simulation", s2).styled(LineStyle::Dashed),
        ],
        ..LineChart::default()
    })
}

fn heatmap_fig() -> Figure {
    let xs: Vec<f64> = (0..9).map(|k| 10f64.powf(k as f64 / 2.0)).collect();
    let ys: Vec<f64> = (0..7).map(|k| 10f64.powf(2.0 + k as f64 / 2.0)).collect();
    let z = ys
        .iter()
        .map(|y| xs.iter().map(|x| (y / x).log10() * 10.0).collect())
        .collect();
    Figure::Heatmap(Heatmap {
        title: "grid".into(),
        x: AxisSpec::log("K_p"),
        y: AxisSpec::log("K_d"),
        xs,
        ys,
        z,
        z_label: "phase margin (deg)".into(),
        z_range: None,
        outlines: vec![Outline {
            name: "region".into(),
            rect: [1.0, 16.0, 1e3, 7e3],
        }],
    })
}

fn all_figures() -> Vec<Figure> {
    vec![
        line_fig(),
        Figure::Cdf(CdfChart {
            title: "CDF".into(),
            x: AxisSpec::log("slowdown"),
            samples: vec![(
                "a".into(),
                (1..500).map(|i| 1.0 + i as f64 / 10.0).collect(),
            )],
            legend: Legend::LowerRight,
        }),
        Figure::Bar(BarChart {
            title: "bars".into(),
            x_label: "size".into(),
            categories: vec!["<10KB".into(), "<100KB".into(), "<1MB".into()],
            y: AxisSpec::linear("p99 slowdown"),
            groups: vec![
                ("dcqcn".into(), vec![3.0, 5.0, 9.0]),
                ("hpcc".into(), vec![1.5, 2.0, 4.0]),
            ],
            legend: Legend::UpperLeft,
        }),
        heatmap_fig(),
    ]
}

#[test]
fn every_chart_kind_renders_to_svg_and_png() {
    for f in all_figures() {
        let svg = f.to_svg().unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("</svg>"));
        let png = f.to_png().unwrap();
        assert_eq!(&png[1..4], b"PNG");
    }
    // Text is drawn: the title and axis labels appear in the SVG.
    let svg = line_fig().to_svg().unwrap();
    assert!(svg.contains("Two series") && svg.contains("time (ms)") && svg.contains("simulation"));
}

#[test]
fn the_same_figure_gives_byte_identical_svg_and_png() {
    for f in all_figures() {
        assert_eq!(f.to_svg().unwrap(), f.to_svg().unwrap());
        assert_eq!(f.to_png().unwrap(), f.to_png().unwrap());
    }
}

#[test]
fn figures_are_written_atomically_as_svg_and_png() {
    let dir = std::env::temp_dir().join(format!("rocesim-plot-{}", std::process::id()));
    let paths = write_figure(&dir, "rates", &line_fig()).unwrap();
    assert_eq!(paths, vec![dir.join("rates.svg"), dir.join("rates.png")]);
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "no temporary left behind: {names:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cdf_points_climb_from_zero_to_one_in_steps() {
    let p = cdf_points(&[3.0, 1.0, 2.0]);
    assert_eq!(
        p,
        vec![
            (1.0, 0.0),
            (1.0, 1.0 / 3.0),
            (2.0, 1.0 / 3.0),
            (2.0, 2.0 / 3.0),
            (3.0, 2.0 / 3.0),
            (3.0, 1.0)
        ]
    );
    let big: Vec<f64> = (0..10_000).map(|i| i as f64).collect();
    let p = cdf_points(&big);
    assert!(p.len() <= 2002 && p.last().unwrap().1 == 1.0);
}

#[test]
fn the_colormap_runs_from_dark_purple_to_yellow() {
    assert_eq!(charts::colormap(0.0), plotters::style::RGBColor(68, 1, 84));
    assert_eq!(
        charts::colormap(1.0),
        plotters::style::RGBColor(253, 231, 37)
    );
    assert_eq!(
        charts::colormap(f64::NAN),
        plotters::style::RGBColor(200, 200, 200)
    );
}

#[test]
#[ignore = "writes example figures to target/plot-examples for a look"]
fn write_examples() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/plot-examples");
    for (i, f) in all_figures().iter().enumerate() {
        write_figure(&dir, &format!("example{i}"), f).unwrap();
    }
}
