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
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};
use tenor_app::calibration::{HestonSettings, Pricer};

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
    #[arg(long, default_value = "port", value_parser = pricer)]
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
    let bar = crate::progress::spinner();
    let report = tenor_app::calibration::calibrate_to_folder(&a.settings(), &a.backend, &a.out, &bar)?;
    Ok(crate::print(&report))
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

/// `--pricer`: `port` or `host`.
fn pricer(text: &str) -> Result<Pricer, String> {
    Pricer::parse(text).ok_or_else(|| format!("{text:?}: expected `port` or `host`"))
}
