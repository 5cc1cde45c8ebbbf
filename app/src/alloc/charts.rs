//! SVG charts of `tenor alloc` (plotters): the size histogram, and reserved and used bytes
//! over the replay per strategy, fragmentation over time of the timed (device) replay.

use std::path::Path;

use anyhow::anyhow;
use plotters::prelude::*;
use tenor_alloc::device_replay::DeviceReplayReport;
use tenor_alloc::replay::ReplayResult;

const MIB: f64 = (1u64 << 20) as f64;

fn err(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow!("chart: {e}")
}

/// Writes a bar chart of allocation counts per log2 size bucket to `path` (atomically).
pub fn size_histogram(path: &Path, hist: &[u64]) -> anyhow::Result<()> {
    let mut svg = String::new();
    draw_size_histogram(&mut svg, hist)?;
    tenor_ports::files::write_atomic(path, svg.as_bytes())?;
    Ok(())
}

fn draw_size_histogram(svg: &mut String, hist: &[u64]) -> anyhow::Result<()> {
    let first = hist.iter().position(|&c| c > 0).unwrap_or(0);
    let last = hist.iter().rposition(|&c| c > 0).unwrap_or(0);
    let top = hist.iter().copied().max().unwrap_or(1).max(1);
    let root = SVGBackend::with_string(svg, (900, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption("Allocation sizes (log2 buckets)", ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((first as u32..last as u32 + 1).into_segmented(), 0u64..top + top / 10 + 1)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("size bucket: 2^k bytes")
        .y_desc("allocations")
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(k) | SegmentValue::Exact(k) => format!("2^{k}"),
            SegmentValue::Last => String::new(),
        })
        .draw()
        .map_err(err)?;
    chart
        // One rectangle per bucket in bucket order: plotters' Histogram sums its data in a
        // HashMap and so writes the bars in a different order on every run.
        .draw_series((first..=last).map(|k| {
            let k = k as u32;
            let mut bar = Rectangle::new(
                [(SegmentValue::Exact(k), 0u64), (SegmentValue::Exact(k + 1), hist[k as usize])],
                BLUE.filled(),
            );
            bar.set_margin(0, 0, 5, 5);
            bar
        }))
        .map_err(err)?;
    root.present().map_err(err)?;
    Ok(())
}

/// Writes reserved bytes over the replay per strategy, with the (shared) used bytes, to `path`
/// (atomically).
pub fn reserved_over_time(path: &Path, results: &[ReplayResult]) -> anyhow::Result<()> {
    let mut svg = String::new();
    draw_reserved_over_time(&mut svg, results)?;
    tenor_ports::files::write_atomic(path, svg.as_bytes())?;
    Ok(())
}

fn draw_reserved_over_time(svg: &mut String, results: &[ReplayResult]) -> anyhow::Result<()> {
    let events = results.iter().map(|r| r.events).max().unwrap_or(1).max(1);
    let top =
        results.iter().flat_map(|r| r.series.iter().map(|s| s.reserved.max(s.used))).max().unwrap_or(1) as f64 / MIB;
    let root = SVGBackend::with_string(svg, (1000, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption("Reserved and used over the replay", ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0usize..events, 0f64..top * 1.05 + 1.0)
        .map_err(err)?;
    chart.configure_mesh().x_desc("trace event").y_desc("MiB").draw().map_err(err)?;
    let palette = [&RED, &BLUE, &GREEN, &MAGENTA, &CYAN, &BLACK];
    for (i, r) in results.iter().enumerate() {
        let color = palette[i % palette.len()];
        chart
            .draw_series(LineSeries::new(r.series.iter().map(|s| (s.event, s.reserved as f64 / MIB)), color))
            .map_err(err)?
            .label(format!("{} reserved", r.kind.name()))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    if let Some(r) = results.first() {
        let grey = RGBColor(120, 120, 120);
        chart
            .draw_series(LineSeries::new(r.series.iter().map(|s| (s.event, s.used as f64 / MIB)), grey.stroke_width(2)))
            .map_err(err)?
            .label("used (requested, live)")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], grey));
    }
    chart.configure_series_labels().border_style(BLACK).background_style(WHITE.mix(0.8)).draw().map_err(err)?;
    root.present().map_err(err)?;
    Ok(())
}

/// Writes fragmentation (`reserved / used` at job boundaries) over time per target of a timed
/// replay to `path` (atomically).
pub fn fragmentation_over_time(path: &Path, reports: &[DeviceReplayReport]) -> anyhow::Result<()> {
    let mut svg = String::new();
    draw_fragmentation(&mut svg, reports)?;
    tenor_ports::files::write_atomic(path, svg.as_bytes())?;
    Ok(())
}

fn used_samples(r: &DeviceReplayReport) -> impl Iterator<Item = (f64, f64)> + '_ {
    r.samples.iter().filter(|s| s.used > 0).map(|s| (s.time_s, s.ratio()))
}

fn draw_fragmentation(svg: &mut String, reports: &[DeviceReplayReport]) -> anyhow::Result<()> {
    let t_max = reports.iter().flat_map(|r| r.samples.iter().map(|s| s.time_s)).fold(0.0, f64::max).max(1e-3);
    let top = reports.iter().flat_map(used_samples).map(|p| p.1).fold(1.0, f64::max).min(64.0);
    let root = SVGBackend::with_string(svg, (1000, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption("Fragmentation (reserved / used) at job boundaries", ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..t_max * 1.02, 0f64..top * 1.05)
        .map_err(err)?;
    chart.configure_mesh().x_desc("seconds").y_desc("reserved / used").draw().map_err(err)?;
    for (i, r) in reports.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(used_samples(r).map(|(t, f)| (t, f.min(top))), color))
            .map_err(err)?
            .label(r.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    chart.configure_series_labels().border_style(BLACK).background_style(WHITE.mix(0.8)).draw().map_err(err)?;
    root.present().map_err(err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_size_histogram_is_the_same_svg_on_every_drawing() {
        let mut hist = [0u64; 40];
        for (k, h) in hist.iter_mut().enumerate().skip(4).take(24) {
            *h = (k as u64 * 37) % 11 + 1;
        }
        let draw = || {
            let mut svg = String::new();
            draw_size_histogram(&mut svg, &hist).expect("draws");
            svg
        };
        let first = draw();
        assert!(first.matches("<rect").count() >= 24, "one bar per bucket");
        for _ in 0..8 {
            assert_eq!(draw(), first, "the SVG changed between two drawings of the same histogram");
        }
    }
}
