//! `tenor calibrate heston CHAIN`: calibrates the Heston model to a Cboe SPX chain snapshot.
//!
//! Steps: load the chain (one Cboe quote-data file or a folder of them, `tenor-market`);
//! per-expiry forwards and discount factors from put-call parity on mid quotes; mid implied
//! vols of every quote batched on the chosen backend; selection of out-of-the-money two-sided
//! quotes (puts below the forward, calls above) with maturity in `[min-days, max-years]` and
//! `|ln(K/F)| <= max-sd * vol * sqrt(T)`, thinned to `per-slice` strikes on `slices` expiries
//! spread over the maturity range; Levenberg-Marquardt on vega-weighted price residuals
//! (`(model - mid) / vega`, i.e. implied-vol errors to first order), every iteration's
//! pricings (the chain under the five bumped parameter sets, then each trial point) batched
//! in launches of the `heston_price` kernel on the chosen backend (`--pricer host`: the
//! adaptive host pricer with rayon, the reference and timing baseline); outputs
//! `params.json`, `fit.csv` (one row per quote: market and model price and implied vol) and
//! `fit.svg` (market dots and model lines by expiry).
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use plotters::prelude::*;
pub use tenor_pilot::calibration::Pricer;
use tenor_pilot::calibration::{calibrate_devices, HestonSettings};
use tenor_pricing::heston::Stop;

/// Models `tenor calibrate` can fit.
#[derive(Debug, Subcommand)]
pub enum Model {
    /// Heston (1993) stochastic volatility, semi-analytic prices, Levenberg-Marquardt.
    Heston(HestonArgs),
}

/// Arguments of `tenor calibrate heston`.
#[derive(Debug, Args)]
pub struct HestonArgs {
    /// Cboe quote-data CSV file, or a folder of such files from one snapshot.
    pub chain: PathBuf,
    /// Output folder for params.json, fit.csv and fit.svg.
    #[arg(long, default_value = "calibration")]
    pub out: PathBuf,
    /// Backend for the implied volatilities and the calibration's pricings (`tenor backends`
    /// lists them).
    #[arg(long, default_value = "cpu", help = tenor_registry::help())]
    pub backend: String,
    /// Shortest maturity used, in calendar days.
    #[arg(long, default_value_t = 7.0, value_parser = non_negative, allow_negative_numbers = true)]
    pub min_days: f64,
    /// Longest maturity used, in years.
    #[arg(long, default_value_t = 2.0, value_parser = positive, allow_negative_numbers = true)]
    pub max_years: f64,
    /// Widest |ln(K/F)| used, in standard deviations (the quote's implied vol times sqrt(T)).
    #[arg(long, default_value_t = 2.0, value_parser = positive, allow_negative_numbers = true)]
    pub max_sd: f64,
    /// Quotes kept per expiry (evenly spread over the strikes that qualify; at least 1).
    #[arg(long, default_value_t = 10, value_parser = at_least_one)]
    pub per_slice: usize,
    /// Expiries kept (evenly spread over the maturities that qualify; at least 1).
    #[arg(long, default_value_t = 12, value_parser = at_least_one)]
    pub slices: usize,
    /// Levenberg-Marquardt iterations at most (at least 1); a fit that runs out of them is
    /// written with a warning.
    #[arg(long, default_value_t = 100, value_parser = at_least_one)]
    pub max_iterations: usize,
    /// Pricer of the iterations: `port` (the `heston_price` kernel on `--backend`) or `host`
    /// (the adaptive semi-analytic pricer with rayon; the reference and timing baseline).
    #[arg(long, value_enum, default_value_t = Pricer::Port)]
    pub pricer: Pricer,
    /// Gauss-Legendre nodes of the `heston_price` kernel (accuracy table in the documentation
    /// of `tenor_kernels::heston`), 64 to 8192: fewer nodes give meaningless fits, more only
    /// cost time.
    #[arg(long, default_value_t = tenor_pricing::heston::DEFAULT_NODES, value_parser = nodes_in_range)]
    pub nodes: usize,
}

impl HestonArgs {
    /// The library's settings for these arguments.
    #[must_use]
    pub fn settings(&self) -> HestonSettings {
        HestonSettings {
            chain: self.chain.clone(),
            min_days: self.min_days,
            max_years: self.max_years,
            max_sd: self.max_sd,
            per_slice: self.per_slice,
            slices: self.slices,
            max_iterations: self.max_iterations,
            pricer: self.pricer,
            nodes: self.nodes,
        }
    }
}

/// Runs `tenor calibrate MODEL ...`.
///
/// # Errors
/// Loading, implied-vol, calibration or output errors, with the path or quote concerned.
pub fn run(model: Model) -> Result<ExitCode> {
    match model {
        Model::Heston(args) => heston(&args),
    }
}

fn heston(a: &HestonArgs) -> Result<ExitCode> {
    let outputs = ["params.json", "fit.csv", "fit.svg"].map(|f| a.out.join(f));
    let outputs: Vec<(&str, &Path)> = outputs.iter().map(|p| ("--out", p.as_path())).collect();
    super::paths::refuse_overwrite(&[("<CHAIN>", &a.chain)], &outputs)?;
    let devices = tenor_registry::open_devices(&a.backend).with_context(|| format!("opening backend {}", a.backend))?;
    let settings = a.settings();
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_message("calibrating Heston");
    let fit = calibrate_devices(&settings, &devices, &mut |it, rmse| {
        bar.set_message(format!("iteration {it}: weighted RMSE {:.2} vol bp", rmse * 1e4));
        bar.tick();
    });
    bar.finish_and_clear();
    let fit = fit?;
    for note in &fit.prepared.notes {
        eprintln!("note: {note}");
    }
    let on = match a.pricer {
        Pricer::Port => a.backend.clone(),
        Pricer::Host => "the host (rayon)".to_owned(),
    };
    let (res, quotes, wall) = (&fit.result, &fit.prepared.quotes, fit.wall_seconds);

    let mut set = tenor_ports::files::OutputDir::create(&a.out, &["params.json", "fit.csv", "fit.svg"])?;
    let p = res.params;
    let params = fit.params_json(&settings, &a.backend);
    let params_path = a.out.join("params.json");
    let params_json = serde_json::to_string_pretty(&params)?;
    set.write_with("params.json", |f| f.write_all(params_json.as_bytes()))?;

    let fit_path = a.out.join("fit.csv");
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
    let svg = a.out.join("fit.svg");
    plot(&set.staged_path("fit.svg")?, &series).with_context(|| format!("writing {}", svg.display()))?;
    set.mark_written("fit.svg");
    set.commit()?;

    println!(
        "Heston on {} ({} quotes, {} expiries): v0 {:.5} kappa {:.4} theta {:.5} sigma {:.4} rho {:.4}",
        a.chain.display(),
        quotes.len(),
        series.len(),
        p.v0,
        p.kappa,
        p.theta,
        p.sigma,
        p.rho
    );
    println!(
        "implied-vol fit: RMSE {:.1} bp, worst {:.1} bp over {n} quotes; {} iterations, {} pricings in {} launches on {}, {:.2} s",
        (sq / n.max(1) as f64).sqrt(),
        worst,
        res.iterations,
        res.pricings,
        res.batches,
        on,
        wall
    );
    println!("wrote {}, {} and {}", params_path.display(), fit_path.display(), svg.display());
    if res.stop == Stop::IterationLimit {
        eprintln!(
            "warning: the fit stopped at --max-iterations {} with the error still falling; \
             it may improve with more iterations",
            a.max_iterations
        );
    }
    Ok(ExitCode::SUCCESS)
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

/// `--nodes`: 64 to 8192 Gauss-Legendre nodes.
fn nodes_in_range(text: &str) -> Result<usize, String> {
    let n: usize = text.parse().map_err(|e| format!("{text:?} is not a whole number: {e}"))?;
    if (64..=8192).contains(&n) {
        Ok(n)
    } else {
        Err(format!("{n} nodes: must be between 64 and 8192"))
    }
}

/// A finite number greater than 0 (NaN and infinities refused).
fn positive(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        Ok(x) => Err(format!("{x}: must be a finite number greater than 0")),
        Err(e) => Err(format!("{text:?} is not a number: {e}")),
    }
}

/// A finite number of at least 0 (NaN and infinities refused).
fn non_negative(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        Ok(x) => Err(format!("{x}: must be a finite number of at least 0")),
        Err(e) => Err(format!("{text:?} is not a number: {e}")),
    }
}

/// A count of at least 1.
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        Ok(n) => Err(format!("{n}: must be at least 1")),
        Err(e) => Err(format!("{text:?} is not a whole number: {e}")),
    }
}
