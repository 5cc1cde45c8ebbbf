//! The files of one backtest run: `trades.csv`, `equity.csv`, `metrics.json` and the equity and
//! drawdown chart `equity.svg`, written as one set.

use std::path::Path;

use anyhow::{anyhow, Context as _};
use plotters::prelude::*;
use tenor_backtest::RunResult;

/// The files of one run, written into `--out` as one set ([`tenor_ports::files::OutputDir`]).
pub const RUN_OUTPUTS: [&str; 4] = ["trades.csv", "equity.csv", "metrics.json", "equity.svg"];

/// Writes trades.csv, equity.csv, metrics.json and equity.svg into the staged set and commits
/// it (the folder then holds exactly this run's files); returns whether the chart was written.
pub fn write_outputs(r: &RunResult, mut set: tenor_ports::files::OutputDir) -> anyhow::Result<bool> {
    set.write_with("trades.csv", |out| {
        let mut w = csv::Writer::from_writer(out);
        w.write_record(["time", "symbol", "quantity", "price", "commission", "order"])?;
        for f in &r.fills {
            w.write_record([
                iso(f.time),
                f.symbol.clone(),
                f.quantity.to_string(),
                format!("{:.6}", f.price),
                format!("{:.2}", f.commission),
                f.order.to_string(),
            ])?;
        }
        w.flush()
    })?;
    set.write_with("equity.csv", |out| {
        let mut w = csv::Writer::from_writer(out);
        w.write_record(["time", "equity"])?;
        for (t, e) in &r.equity {
            w.write_record([iso(*t), format!("{e:.2}")])?;
        }
        w.flush()
    })?;
    let metrics = serde_json::to_string_pretty(&r.metrics)?;
    set.write_with("metrics.json", |out| out.write_all(metrics.as_bytes()))?;
    let charted = chart(r, &set.staged_path("equity.svg")?)
        .with_context(|| format!("writing {}", set.final_path("equity.svg").display()))?;
    if charted {
        set.mark_written("equity.svg");
    }
    set.commit()?;
    Ok(charted)
}

/// ISO 8601 UTC time of a bar stamp (`2012-08-09T23:59:59Z`; daily bars end at 23:59:59 UTC).
pub fn iso(t: i64) -> String {
    chrono::DateTime::from_timestamp(t, 0)
        .map_or_else(|| t.to_string(), |d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

/// An axis range `lo..hi` padded by 2 %, or `None` when it is not finite.
fn padded(lo: f64, hi: f64) -> Option<std::ops::Range<f64>> {
    let pad = ((hi - lo) * 0.02).max(hi.abs().max(lo.abs()) * 0.01).max(1e-9);
    let r = (lo - pad)..(hi + pad);
    (r.start.is_finite() && r.end.is_finite() && r.start < r.end).then_some(r)
}

/// Draws the equity and drawdown chart; returns whether it was written (it is not when fewer
/// than two equity points are finite, or the range is not finite: never an infinite axis).
fn chart(r: &RunResult, path: &Path) -> anyhow::Result<bool> {
    let e = |x: DrawingAreaErrorKind<std::io::Error>| anyhow!("drawing {}: {x}", path.display());
    let pts: Vec<(f64, f64)> = r
        .equity
        .iter()
        .map(|(t, v)| (*t as f64 / 86_400.0 / 365.25 + 1970.0, *v))
        .filter(|(_, v)| v.is_finite())
        .collect();
    if pts.len() < 2 {
        return Ok(false);
    }
    let mut peak = f64::MIN;
    let dd: Vec<(f64, f64)> = pts
        .iter()
        .map(|(x, v)| {
            peak = peak.max(*v);
            let d = if peak > 0.0 { -100.0 * (1.0 - v / peak) } else { 0.0 };
            (*x, if d.is_finite() { d } else { 0.0 })
        })
        .collect();
    let (x0, x1) = (pts[0].0, pts[pts.len() - 1].0);
    let (lo, hi) = pts.iter().fold((f64::MAX, f64::MIN), |(a, b), (_, v)| (a.min(*v), b.max(*v)));
    let dmin = dd.iter().fold(0.0f64, |m, (_, d)| m.min(*d));
    let (Some(y), Some(dy)) = (padded(lo, hi), padded(dmin - 0.1, 0.0)) else { return Ok(false) };
    if x0 >= x1 || !(x0.is_finite() && x1.is_finite()) {
        return Ok(false);
    }
    let root = SVGBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(e)?;
    let (top, bottom) = root.split_vertically(400);
    let mut c = ChartBuilder::on(&top)
        .caption(format!("{}: equity", r.strategy), ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(80)
        .build_cartesian_2d(x0..x1, y)
        .map_err(e)?;
    c.configure_mesh().y_desc("equity").draw().map_err(e)?;
    c.draw_series(LineSeries::new(pts.iter().copied(), BLUE.stroke_width(2))).map_err(e)?;
    let mut c = ChartBuilder::on(&bottom)
        .caption("drawdown (%)", ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(80)
        .build_cartesian_2d(x0..x1, dy)
        .map_err(e)?;
    c.configure_mesh().x_desc("year").draw().map_err(e)?;
    c.draw_series(AreaSeries::new(dd.iter().copied(), 0.0, RED.mix(0.3)).border_style(RED)).map_err(e)?;
    root.present().map_err(e)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(equity: Vec<(i64, f64)>) -> RunResult {
        RunResult { strategy: "t".into(), equity, fills: vec![], dividends: 0.0, metrics: Default::default() }
    }

    #[test]
    fn the_chart_skips_non_finite_values_and_ranges_instead_of_hanging() {
        let dir = std::env::temp_dir().join(format!("tenor-chart-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp");
        let path = dir.join("c.svg");
        // Only one finite point: no chart.
        let r = result(vec![(0, 1e6), (86_400, f64::INFINITY), (172_800, f64::NAN)]);
        assert!(!chart(&r, &path).expect("no error"));
        // Finite values whose padded range overflows: no chart.
        let r = result(vec![(0, -f64::MAX), (86_400, f64::MAX)]);
        assert!(!chart(&r, &path).expect("no error"));
        assert!(!path.exists());
        // Non-finite points among finite ones are left out; a flat curve still gets an axis.
        let r = result(vec![(0, 100.0), (86_400, f64::NAN), (172_800, 100.0)]);
        assert!(chart(&r, &path).expect("drawn"));
        assert!(path.exists());
        assert_eq!(padded(100.0, 100.0), Some(99.0..101.0));
        assert_eq!(padded(0.0, f64::INFINITY), None);
    }
}
