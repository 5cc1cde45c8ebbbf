//! A Heston calibration written as a folder of results: `params.json`, `fit.csv` and `fit.svg`
//! (`tenor calibrate heston`).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
use plotters::prelude::*;
use tenor_ports::Progress;
use tenor_pricing::heston::Stop;

use super::{calibrate_devices, HestonSettings, Pricer};
use crate::report::Report;

/// The files of the folder, written as one set.
pub const OUTPUTS: [&str; 3] = ["params.json", "fit.csv", "fit.svg"];

/// Calibrates Heston with `settings` on `backend` (a selector: several devices share the
/// iterations' pricings) and writes `params.json`, `fit.csv` (one row per quote: market and model
/// price and implied vol) and `fit.svg` (market dots and model lines by expiry) into `out` as one
/// set; `progress` gets a message per Levenberg-Marquardt iteration.
///
/// # Errors
/// Loading, implied-vol, calibration or output errors, with the path or quote concerned.
pub fn calibrate_to_folder(
    settings: &HestonSettings,
    backend: &str,
    out: &Path,
    progress: &dyn Progress,
) -> Result<Report> {
    let mut report = Report::default();
    let outputs = OUTPUTS.map(|f| out.join(f));
    let outputs: Vec<(&str, &Path)> = outputs.iter().map(|p| ("out", p.as_path())).collect();
    crate::paths::refuse_overwrite(&[("chain", &settings.chain)], &outputs)?;
    let devices = tenor_registry::open_devices(backend).with_context(|| format!("opening backend {backend}"))?;
    progress.message("calibrating Heston");
    let fit = calibrate_devices(settings, &devices, &mut |it, rmse| {
        progress.message(&format!("iteration {it}: weighted RMSE {:.2} vol bp", rmse * 1e4));
    });
    progress.finish();
    let fit = fit?;
    for note in &fit.prepared.notes {
        report.warn(format!("note: {note}"));
    }
    let on = match settings.pricer {
        Pricer::Port => backend.to_owned(),
        Pricer::Host => "the host (rayon)".to_owned(),
    };
    let (res, quotes, wall) = (&fit.result, &fit.prepared.quotes, fit.wall_seconds);

    let mut set = tenor_ports::files::OutputDir::create(out, &OUTPUTS)?;
    let p = res.params;
    let params = fit.params_json(settings, backend);
    let params_path = out.join("params.json");
    let params_json = serde_json::to_string_pretty(&params)?;
    set.write_with("params.json", |f| f.write_all(params_json.as_bytes()))?;

    let fit_path = out.join("fit.csv");
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "expiry",
        "type",
        "strike",
        "maturity",
        "forward",
        "discount",
        "market_mid",
        "model",
        "error",
        "market_iv",
        "model_iv",
        "iv_error_bp",
    ])?;
    let mut series: BTreeMap<String, Vec<(f64, f64, f64)>> = BTreeMap::new();
    let (mut sq, mut n, mut worst) = (0.0, 0usize, 0.0f64);
    for r in &fit.rows {
        if let Some(e) = r.iv_error_bp {
            sq += e * e;
            n += 1;
            worst = worst.max(e.abs());
        }
        let x = (r.strike / r.forward).ln();
        series.entry(r.expiry.clone()).or_default().push((x, r.market_iv, r.model_iv.unwrap_or(f64::NAN)));
        let opt = |v: Option<f64>| v.map_or_else(|| "NaN".to_owned(), |v| format!("{v:.6}"));
        w.write_record([
            r.expiry.clone(),
            r.option_type.to_owned(),
            format!("{}", r.strike),
            format!("{:.6}", r.maturity),
            format!("{:.4}", r.forward),
            format!("{:.8}", r.discount),
            format!("{:.4}", r.market_mid),
            format!("{:.4}", r.model),
            format!("{:.4}", r.error),
            format!("{:.6}", r.market_iv),
            opt(r.model_iv),
            opt(r.iv_error_bp),
        ])?;
    }
    let fit_csv = w.into_inner().map_err(|e| anyhow::anyhow!("writing {}: {}", fit_path.display(), e.error()))?;
    set.write_with("fit.csv", |f| f.write_all(&fit_csv))?;
    let svg = out.join("fit.svg");
    plot(&set.staged_path("fit.svg")?, &series).with_context(|| format!("writing {}", svg.display()))?;
    set.mark_written("fit.svg");
    set.commit()?;

    report.line(format!(
        "Heston on {} ({} quotes, {} expiries): v0 {:.5} kappa {:.4} theta {:.5} sigma {:.4} rho {:.4}",
        settings.chain.display(),
        quotes.len(),
        series.len(),
        p.v0,
        p.kappa,
        p.theta,
        p.sigma,
        p.rho
    ));
    report.line(format!(
        "implied-vol fit: RMSE {:.1} bp, worst {:.1} bp over {n} quotes; {} iterations, {} pricings in {} launches on {}, {:.2} s",
        (sq / n.max(1) as f64).sqrt(),
        worst,
        res.iterations,
        res.pricings,
        res.batches,
        on,
        wall
    ));
    report.line(format!("wrote {}, {} and {}", params_path.display(), fit_path.display(), svg.display()));
    if res.stop == Stop::IterationLimit {
        report.warn(format!(
            "warning: the fit stopped at {} {} with the error still falling; \
             it may improve with more iterations",
            crate::words::setting("max_iterations"),
            settings.max_iterations
        ));
    }
    Ok(report)
}

/// Market implied vols (dots) and model implied vols (lines) against ln(K/F), one colour per
/// expiry.
fn plot(path: &Path, series: &BTreeMap<String, Vec<(f64, f64, f64)>>) -> Result<()> {
    let pts = series.values().flatten();
    let (mut xlo, mut xhi, mut vhi) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
    for &(x, m, h) in pts {
        xlo = xlo.min(x);
        xhi = xhi.max(x);
        vhi = vhi.max(m).max(if h.is_finite() { h } else { 0.0 });
    }
    if !xlo.is_finite() || xhi <= xlo {
        bail!("nothing to plot");
    }
    let root = SVGBackend::new(path, (1200, 800)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut chart = ChartBuilder::on(&root)
        .caption("Heston calibration: market (dots) and model (lines) implied vols", ("sans-serif", 24))
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(60)
        .build_cartesian_2d(xlo..xhi, 0.0..vhi * 1.05)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    chart
        .configure_mesh()
        .x_desc("log-moneyness ln(K/F)")
        .y_desc("implied volatility")
        .draw()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    for (j, (expiry, pts)) in series.iter().enumerate() {
        let colour = Palette99::pick(j).to_rgba();
        chart
            .draw_series(pts.iter().map(|&(x, m, _)| Circle::new((x, m), 3, colour.filled())))
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        chart
            .draw_series(LineSeries::new(
                pts.iter().filter(|p| p.2.is_finite()).map(|&(x, _, h)| (x, h)),
                colour.stroke_width(2),
            ))
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .label(expiry.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    root.present().map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(())
}
