//! SVG charts of the pilot report (plotters): throughput against size per backend (one chart
//! per workload, log-log), scaling against streams, and the port overhead.

use std::collections::BTreeMap;
use std::path::Path;

use plotters::prelude::*;

use super::Report;

const COLORS: [RGBColor; 6] = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];

fn line_chart(
    path: &Path,
    title: &str,
    xlabel: &str,
    ylabel: &str,
    series: &BTreeMap<String, Vec<(f64, f64)>>,
    log_x: bool,
) -> anyhow::Result<()> {
    let pts: Vec<(f64, f64)> = series.values().flatten().copied().filter(|(x, y)| *x > 0.0 && *y > 0.0).collect();
    if pts.is_empty() {
        return Ok(());
    }
    tenor_ports::files::write_through(path, |tmp| draw_line_chart(tmp, title, xlabel, ylabel, series, log_x, &pts))
}

#[allow(clippy::too_many_arguments)]
fn draw_line_chart(
    path: &Path,
    title: &str,
    xlabel: &str,
    ylabel: &str,
    series: &BTreeMap<String, Vec<(f64, f64)>>,
    log_x: bool,
    pts: &[(f64, f64)],
) -> anyhow::Result<()> {
    let (xmin, xmax) = pts.iter().fold((f64::MAX, f64::MIN), |(a, b), (x, _)| (a.min(*x), b.max(*x)));
    let (ymin, ymax) = pts.iter().fold((f64::MAX, f64::MIN), |(a, b), (_, y)| (a.min(*y), b.max(*y)));
    let root = SVGBackend::new(path, (800, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut builder = ChartBuilder::on(&root);
    builder.caption(title, ("sans-serif", 22)).margin(15).x_label_area_size(40).y_label_area_size(80);
    let ylog = (ymin * 0.8..ymax * 1.25).log_scale();
    macro_rules! draw {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart.configure_mesh().x_desc(xlabel).y_desc(ylabel).draw().map_err(|e| anyhow::anyhow!("{e}"))?;
            for (i, (name, s)) in series.iter().enumerate() {
                let c = COLORS[i % COLORS.len()];
                chart
                    .draw_series(LineSeries::new(s.iter().copied(), c.stroke_width(2)))
                    .map_err(|e| anyhow::anyhow!("{e}"))?
                    .label(name.clone())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
                chart
                    .draw_series(s.iter().map(|p| Circle::new(*p, 3, c.filled())))
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()
                .map_err(|e| anyhow::anyhow!("{e}"))?;
        }};
    }
    if log_x {
        draw!(builder
            .build_cartesian_2d((xmin * 0.8..xmax * 1.25).log_scale(), ylog)
            .map_err(|e| anyhow::anyhow!("{e}"))?);
    } else {
        draw!(builder.build_cartesian_2d(xmin - 0.5..xmax + 0.5, ylog).map_err(|e| anyhow::anyhow!("{e}"))?);
    }
    root.present().map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(())
}

/// Writes every chart into `dir` and returns their file names.
///
/// # Errors
/// Drawing or I/O errors.
pub fn write_all(r: &Report, dir: &Path) -> anyhow::Result<Vec<String>> {
    let mut files = Vec::new();
    let mut by_workload: BTreeMap<String, BTreeMap<String, Vec<(f64, f64)>>> = BTreeMap::new();
    for t in &r.throughput {
        by_workload
            .entry(format!("{} ({})", t.workload, t.unit))
            .or_default()
            .entry(t.backend.clone())
            .or_default()
            .push((t.size as f64, t.rate));
    }
    for (i, (w, series)) in by_workload.iter().enumerate() {
        let name = format!("throughput_{i}.svg");
        line_chart(&dir.join(&name), &format!("Throughput: {w}"), "size", "rate", series, true)?;
        files.push(name);
    }
    // One scaling chart per unit: paths/s and path-steps/s differ by the step count and must
    // not share an axis.
    let mut scaling: BTreeMap<String, BTreeMap<String, Vec<(f64, f64)>>> = BTreeMap::new();
    for s in &r.scaling {
        scaling
            .entry(s.unit.clone())
            .or_default()
            .entry(format!("{} {}", s.backend, s.workload))
            .or_default()
            .push((s.streams as f64, s.rate));
    }
    for (i, (unit, series)) in scaling.iter().enumerate() {
        let name = format!("scaling_{i}.svg");
        line_chart(&dir.join(&name), &format!("Scaling over streams ({unit})"), "streams", unit, series, false)?;
        files.push(name);
    }
    let mut overhead: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for o in &r.overhead {
        overhead.entry(format!("{} port", o.backend)).or_default().push((o.paths as f64, o.port.median_s));
        overhead.entry(format!("{} direct", o.backend)).or_default().push((o.paths as f64, o.direct.median_s));
    }
    if !overhead.is_empty() {
        line_chart(
            &dir.join("swap_overhead.svg"),
            "Port overhead: launch time through dyn Compute vs direct",
            "paths",
            "seconds",
            &overhead,
            true,
        )?;
        files.push("swap_overhead.svg".into());
    }
    Ok(files)
}
