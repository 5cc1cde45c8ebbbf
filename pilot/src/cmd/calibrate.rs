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
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use plotters::prelude::*;
use tenor_market::iv::{chain_vols, QuoteVol};
use tenor_market::parity::parity_forwards;
use tenor_market::quotes::Chain;
use tenor_pricing::heston::{
    calibrate_heston_host, calibrate_heston_observed, CalibrationConfig, HestonOption, HestonParams, Quote, Stop,
};
use tenor_pricing::types::OptionType;

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
    #[arg(long, default_value = "cpu")]
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

/// Where `tenor calibrate heston` prices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Pricer {
    /// Batched launches of the `heston_price` kernel on the chosen backend.
    Port,
    /// The adaptive host pricer, in parallel with rayon.
    Host,
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

/// A selected quote with what the report needs.
struct Selected {
    quote: Quote,
    expiry: String,
    forward: f64,
    discount: f64,
    market_vol: f64,
}

fn load(path: &Path) -> Result<Chain> {
    let chain =
        if path.is_dir() { tenor_market::cboe::load_cboe_dir(path) } else { tenor_market::cboe::load_cboe(path) };
    // The market-data errors name the file, line and column themselves.
    Ok(chain?)
}

fn evenly<T: Clone>(v: &[T], n: usize) -> Vec<T> {
    if v.len() <= n || n < 2 {
        return v.iter().take(n.max(1)).cloned().collect();
    }
    let mut idx: Vec<usize> = (0..n).map(|i| i * (v.len() - 1) / (n - 1)).collect();
    idx.dedup();
    idx.into_iter().map(|i| v[i].clone()).collect()
}

/// Black vega `D F n(d1) sqrt(T)` per unit of volatility.
fn vega(forward: f64, strike: f64, discount: f64, vol: f64, t: f64) -> f64 {
    let sd = vol * t.sqrt();
    let d1 = (forward / strike).ln() / sd + 0.5 * sd;
    discount * forward * (-0.5 * d1 * d1).exp() / (2.0 * std::f64::consts::PI).sqrt() * t.sqrt()
}

fn select(chain: &Chain, vols: &[QuoteVol], spot: f64, a: &HestonArgs) -> Vec<Selected> {
    let mut by_slice: BTreeMap<(u64, String), Vec<Selected>> = BTreeMap::new();
    for qv in vols {
        let Ok(vol) = qv.vol else { continue };
        let q = &chain.quotes[qv.index];
        let (t, f, d) = (qv.maturity, qv.forward, qv.discount);
        if !(t * 365.0 >= a.min_days && t <= a.max_years && f.is_finite() && d > 0.0) {
            continue;
        }
        let otm = match q.option_type {
            OptionType::Put => q.strike < f,
            OptionType::Call => q.strike >= f,
        };
        let x = (q.strike / f).ln();
        if !otm || x.abs() > a.max_sd * vol * t.sqrt() || qv.mid < 0.05 {
            continue;
        }
        let rate = -d.ln() / t;
        let contract = HestonOption {
            option: q.option_type,
            spot,
            strike: q.strike,
            maturity: t,
            rate,
            dividend: rate - (f / spot).ln() / t,
        };
        let weight = 1.0 / vega(f, q.strike, d, vol, t).max(1e-6 * spot);
        let expiry = format!("{} {}", q.expiry, q.settlement.as_str());
        by_slice.entry((t.to_bits(), expiry.clone())).or_default().push(Selected {
            quote: Quote { contract, price: qv.mid, weight },
            expiry,
            forward: f,
            discount: d,
            market_vol: vol,
        });
    }
    let keys: Vec<(u64, String)> = by_slice.keys().cloned().collect();
    let mut out = Vec::new();
    for key in evenly(&keys, a.slices) {
        let Some(mut v) = by_slice.remove(&key) else { continue };
        v.sort_by(|p, q| p.quote.contract.strike.total_cmp(&q.quote.contract.strike));
        let idx: Vec<usize> = evenly(&(0..v.len()).collect::<Vec<_>>(), a.per_slice);
        let mut v: Vec<Option<Selected>> = v.into_iter().map(Some).collect();
        out.extend(idx.into_iter().filter_map(|i| v[i].take()));
    }
    out
}

/// The quotes a calibration fits and its settings.
pub(crate) struct Prepared {
    selected: Vec<Selected>,
    /// The selected quotes.
    pub quotes: Vec<Quote>,
    /// Levenberg-Marquardt settings (start at the median selected variance).
    pub cfg: CalibrationConfig,
    spot: f64,
}

/// Loads `a.chain`, computes forwards and implied vols on `dev` and selects the quotes (the
/// steps before the fit; `tenor certify` runs them too).
///
/// # Errors
/// Loading or implied-vol errors; fewer than 5 qualifying quotes.
pub(crate) fn prepare(a: &HestonArgs, dev: &dyn tenor_core::Compute) -> Result<Prepared> {
    let chain = load(&a.chain)?;
    let spot = chain.spot.with_context(|| format!("{}: the chain gives no spot", a.chain.display()))?;
    let (forwards, skipped) = parity_forwards(&chain);
    for e in &skipped {
        eprintln!("note: {e}");
    }
    let vols = chain_vols(dev, &chain, &forwards).context("implied volatilities")?;
    let selected = select(&chain, &vols, spot, a);
    if selected.len() < 5 {
        bail!(
            "only {} quotes qualify for calibration (need at least 5); widen --max-sd or the maturities",
            selected.len()
        );
    }
    let quotes: Vec<Quote> = selected.iter().map(|s| s.quote).collect();
    let mut atm: Vec<f64> = selected.iter().map(|s| s.market_vol * s.market_vol).collect();
    atm.sort_by(f64::total_cmp);
    let var = atm[atm.len() / 2];
    let cfg = CalibrationConfig {
        initial: HestonParams { v0: var, kappa: 1.5, theta: var, sigma: 0.8, rho: -0.7 },
        max_iterations: a.max_iterations,
        tolerance: 1e-10,
        nodes: a.nodes,
    };
    Ok(Prepared { selected, quotes, cfg, spot })
}

fn heston(a: &HestonArgs) -> Result<ExitCode> {
    let outputs = ["params.json", "fit.csv", "fit.svg"].map(|f| a.out.join(f));
    let outputs: Vec<(&str, &Path)> = outputs.iter().map(|p| ("--out", p.as_path())).collect();
    super::paths::refuse_overwrite(&[("<CHAIN>", &a.chain)], &outputs)?;
    let dev = tenor_backends::open(&a.backend).with_context(|| format!("opening backend {}", a.backend))?;
    let Prepared { selected, quotes, cfg, spot } = prepare(a, dev.as_ref())?;
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_message(format!("calibrating Heston to {} quotes", quotes.len()));
    let start = Instant::now();
    let res = match a.pricer {
        Pricer::Port => calibrate_heston_observed(dev.as_ref(), &quotes, &cfg, &mut |it, rmse| {
            bar.set_message(format!("iteration {it}: weighted RMSE {:.2} vol bp", rmse * 1e4));
            bar.tick();
        }),
        Pricer::Host => calibrate_heston_host(&quotes, &cfg),
    }
    .context("Heston calibration")?;
    let on = match a.pricer {
        Pricer::Port => a.backend.clone(),
        Pricer::Host => "the host (rayon)".to_owned(),
    };
    let wall = start.elapsed().as_secs_f64();
    bar.finish_and_clear();

    let mut set = tenor_core::files::OutputDir::create(&a.out, &["params.json", "fit.csv", "fit.svg"])?;
    let p = res.params;
    let params = serde_json::json!({
        "model": "heston",
        "chain": a.chain.display().to_string(),
        "spot": spot,
        "v0": p.v0, "kappa": p.kappa, "theta": p.theta, "sigma": p.sigma, "rho": p.rho,
        "feller_2kappa_theta_minus_sigma2": 2.0 * p.kappa * p.theta - p.sigma * p.sigma,
        "quotes": quotes.len(),
        "iterations": res.iterations,
        "pricings": res.pricings,
        "launches": res.batches,
        "pricer": match a.pricer {
            Pricer::Port => "port",
            Pricer::Host => "host",
        },
        "backend": match a.pricer {
            Pricer::Port => serde_json::json!(a.backend),
            Pricer::Host => serde_json::Value::Null,
        },
        "stop": res.stop.as_str(),
        "quadrature_nodes": match a.pricer {
            Pricer::Port => serde_json::json!(cfg.nodes),
            Pricer::Host => serde_json::Value::Null,
        },
        "weighted_rmse_vol": res.rmse,
        "wall_seconds": wall,
    });
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
    for (s, fit) in selected.iter().zip(&res.fits) {
        let c = &s.quote.contract;
        let is_call = c.option == OptionType::Call;
        let model_iv =
            tenor_kernels::black::implied_vol(fit.model / s.discount, s.forward, c.strike, c.maturity, is_call).ok();
        let iv_err = model_iv.map(|m| (m - s.market_vol) * 1e4);
        if let Some(e) = iv_err {
            sq += e * e;
            n += 1;
            worst = worst.max(e.abs());
        }
        let x = (c.strike / s.forward).ln();
        series.entry(s.expiry.clone()).or_default().push((x, s.market_vol, model_iv.unwrap_or(f64::NAN)));
        let opt = |v: Option<f64>| v.map_or_else(|| "NaN".to_owned(), |v| format!("{v:.6}"));
        w.write_record([
            s.expiry.clone(),
            if is_call { "call".into() } else { "put".into() },
            format!("{}", c.strike),
            format!("{:.6}", c.maturity),
            format!("{:.4}", s.forward),
            format!("{:.8}", s.discount),
            format!("{:.4}", fit.quote.price),
            format!("{:.4}", fit.model),
            format!("{:.4}", fit.error),
            format!("{:.6}", s.market_vol),
            opt(model_iv),
            opt(iv_err),
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
