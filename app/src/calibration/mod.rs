//! Heston calibration to a Cboe SPX chain snapshot: the steps of `tenor calibrate heston`,
//! shared by the command line and the Python package (`tenor.calibrate_heston`).
//!
//! Steps: load the chain (one Cboe quote-data file or a folder of them, `tenor-market`);
//! per-expiry forwards and discount factors from put-call parity on mid quotes; mid implied
//! vols of every quote batched on the chosen backend; selection of out-of-the-money two-sided
//! quotes (puts below the forward, calls above) with maturity in `[min_days, max_years]` and
//! `|ln(K/F)| <= max_sd * vol * sqrt(T)`, thinned to `per_slice` strikes on `slices` expiries
//! spread over the maturity range; Levenberg-Marquardt on vega-weighted price residuals
//! (`(model - mid) / vega`, i.e. implied-vol errors to first order), every iteration's
//! pricings batched in launches of the `heston_price` kernel on the backend ([`Pricer::Port`])
//! or priced by the adaptive host pricer with rayon ([`Pricer::Host`], the reference).
mod outputs;

pub use outputs::{calibrate_to_folder, OUTPUTS};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use tenor_market::iv::{chain_vols, QuoteVol};
use tenor_market::parity::parity_forwards;
use tenor_market::quotes::Chain;
use tenor_market::MarketError;
use tenor_ports::Compute;
use tenor_pricing::heston::{
    calibrate_heston_host, calibrate_heston_observed, CalibrationConfig, CalibrationResult, HestonError, HestonOption,
    HestonParams, Quote,
};
use tenor_pricing::types::OptionType;

/// Where the calibration's iterations price (the `pricer` setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pricer {
    /// Batched launches of the `heston_price` kernel on the chosen backend.
    Port,
    /// The adaptive host pricer, in parallel with rayon.
    Host,
}

impl Pricer {
    /// Every pricer, in the order doors list them.
    pub const ALL: [Pricer; 2] = [Pricer::Port, Pricer::Host];

    /// `port` or `host`, as settings and `params.json` spell it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Pricer::Port => "port",
            Pricer::Host => "host",
        }
    }

    /// The pricer named `name` (`port` or `host`); `None` for anything else.
    #[must_use]
    pub fn parse(name: &str) -> Option<Pricer> {
        Self::ALL.into_iter().find(|p| p.as_str() == name)
    }
}

/// The settings of a Heston calibration (the options of `tenor calibrate heston`; their
/// defaults are [`HestonSettings::new`]'s).
#[derive(Debug, Clone, PartialEq)]
pub struct HestonSettings {
    /// Cboe quote-data CSV file, or a folder of such files from one snapshot.
    pub chain: PathBuf,
    /// Shortest maturity used, in calendar days (default 7).
    pub min_days: f64,
    /// Longest maturity used, in years (default 2).
    pub max_years: f64,
    /// Widest |ln(K/F)| used, in standard deviations (implied vol times sqrt(T)) (default 2).
    pub max_sd: f64,
    /// Quotes kept per expiry, evenly spread over the qualifying strikes (default 10).
    pub per_slice: usize,
    /// Expiries kept, evenly spread over the qualifying maturities (default 12).
    pub slices: usize,
    /// Levenberg-Marquardt iterations at most (default 100).
    pub max_iterations: usize,
    /// Pricer of the iterations (default [`Pricer::Port`]).
    pub pricer: Pricer,
    /// Gauss-Legendre nodes of the `heston_price` kernel, 64 to 8192 (default
    /// [`tenor_pricing::heston::DEFAULT_NODES`]).
    pub nodes: usize,
}

impl HestonSettings {
    /// The command line's defaults for `chain`.
    #[must_use]
    pub fn new(chain: PathBuf) -> Self {
        Self {
            chain,
            min_days: 7.0,
            max_years: 2.0,
            max_sd: 2.0,
            per_slice: 10,
            slices: 12,
            max_iterations: 100,
            pricer: Pricer::Port,
            nodes: tenor_pricing::heston::DEFAULT_NODES,
        }
    }

    /// Checks the settings' ranges (those the command line's parsers enforce).
    ///
    /// # Errors
    /// [`CalibrationError::Setting`] naming the first setting out of range.
    pub fn validate(&self) -> Result<(), CalibrationError> {
        let bad = |name: &'static str, reason: String| Err(CalibrationError::Setting { name, reason });
        if !(self.min_days.is_finite() && self.min_days >= 0.0) {
            return bad("min_days", format!("{}: must be a finite number of at least 0", self.min_days));
        }
        for (name, x) in [("max_years", self.max_years), ("max_sd", self.max_sd)] {
            if !(x.is_finite() && x > 0.0) {
                return bad(name, format!("{x}: must be a finite number greater than 0"));
            }
        }
        for (name, n) in
            [("per_slice", self.per_slice), ("slices", self.slices), ("max_iterations", self.max_iterations)]
        {
            if n < 1 {
                return bad(name, format!("{n}: must be at least 1"));
            }
        }
        if !(64..=8192).contains(&self.nodes) {
            return bad("nodes", format!("{} nodes: must be between 64 and 8192", self.nodes));
        }
        Ok(())
    }
}

/// Why a calibration could not be done.
#[derive(Debug, thiserror::Error)]
pub enum CalibrationError {
    /// A setting out of range.
    #[error("{name} {reason}")]
    Setting {
        /// The setting's name (`min_days`, `max_sd`, `nodes`, ...).
        name: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The chain could not be read (the error names the file, line and column).
    #[error(transparent)]
    Chain(MarketError),
    /// The chain gives no spot.
    #[error("{}: the chain gives no spot", path.display())]
    NoSpot {
        /// The chain's path.
        path: PathBuf,
    },
    /// The implied volatilities failed (on the device).
    #[error("implied volatilities: {0}")]
    Vols(MarketError),
    /// Too few quotes qualify.
    #[error("only {count} quotes qualify for calibration (need at least 5); widen --max-sd or the maturities")]
    TooFew {
        /// Quotes that qualified.
        count: usize,
    },
    /// The Levenberg-Marquardt fit failed.
    #[error("Heston calibration: {0}")]
    Fit(HestonError),
}

/// A selected quote with what the report needs.
#[derive(Debug, Clone)]
pub struct Selected {
    /// The quote as the fit sees it (contract, mid price, weight 1/vega).
    pub quote: Quote,
    /// Expiry and settlement, e.g. `2025-10-17 AM`.
    pub expiry: String,
    /// Parity forward of the expiry.
    pub forward: f64,
    /// Parity discount factor of the expiry.
    pub discount: f64,
    /// Market implied vol of the mid.
    pub market_vol: f64,
}

/// The quotes a calibration fits and its settings.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The selected quotes with their forwards and market vols.
    pub selected: Vec<Selected>,
    /// The selected quotes.
    pub quotes: Vec<Quote>,
    /// Levenberg-Marquardt settings (start at the median selected variance).
    pub cfg: CalibrationConfig,
    /// The chain's spot.
    pub spot: f64,
    /// Expiries without a parity forward (skipped), as messages.
    pub notes: Vec<String>,
}

fn load(path: &Path) -> Result<Chain, MarketError> {
    if path.is_dir() {
        tenor_market::cboe::load_cboe_dir(path)
    } else {
        tenor_market::cboe::load_cboe(path)
    }
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

fn select(chain: &Chain, vols: &[QuoteVol], spot: f64, a: &HestonSettings) -> Vec<Selected> {
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

/// Loads the chain, computes forwards and implied vols on `dev` and selects the quotes (the
/// steps before the fit; `tenor certify` runs them too).
///
/// # Errors
/// [`CalibrationError`]: a bad setting, loading or implied-vol errors, no spot, fewer than 5
/// qualifying quotes.
pub fn prepare(a: &HestonSettings, dev: &dyn Compute) -> Result<Prepared, CalibrationError> {
    a.validate()?;
    let chain = load(&a.chain).map_err(CalibrationError::Chain)?;
    let spot = chain.spot.ok_or_else(|| CalibrationError::NoSpot { path: a.chain.clone() })?;
    let (forwards, skipped) = parity_forwards(&chain);
    let notes = skipped.iter().map(ToString::to_string).collect();
    let vols = chain_vols(dev, &chain, &forwards).map_err(CalibrationError::Vols)?;
    let selected = select(&chain, &vols, spot, a);
    if selected.len() < 5 {
        return Err(CalibrationError::TooFew { count: selected.len() });
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
    Ok(Prepared { selected, quotes, cfg, spot, notes })
}

/// One quote of the fit (a row of `fit.csv`).
#[derive(Debug, Clone, PartialEq)]
pub struct FitRow {
    /// Expiry and settlement, e.g. `2025-10-17 AM`.
    pub expiry: String,
    /// `call` or `put`.
    pub option_type: &'static str,
    /// Strike.
    pub strike: f64,
    /// Maturity in years.
    pub maturity: f64,
    /// Parity forward.
    pub forward: f64,
    /// Parity discount factor.
    pub discount: f64,
    /// Market mid price.
    pub market_mid: f64,
    /// Model price.
    pub model: f64,
    /// Model minus mid.
    pub error: f64,
    /// Market implied vol.
    pub market_iv: f64,
    /// Model implied vol (None when the model price has none).
    pub model_iv: Option<f64>,
    /// Model minus market implied vol, in basis points (None without a model vol).
    pub iv_error_bp: Option<f64>,
}

/// A finished calibration.
#[derive(Debug, Clone)]
pub struct Calibration {
    /// The prepared quotes.
    pub prepared: Prepared,
    /// The fit's outcome.
    pub result: CalibrationResult,
    /// One row per selected quote.
    pub rows: Vec<FitRow>,
    /// Wall time of the fit, in seconds.
    pub wall_seconds: f64,
}

/// Prepares and fits (see the module's documentation); `progress` is called after each
/// iteration of the port pricer with (iteration, weighted RMSE).
///
/// # Errors
/// [`CalibrationError`] from [`prepare`] or the fit.
pub fn calibrate(
    a: &HestonSettings,
    dev: &dyn Compute,
    progress: &mut dyn FnMut(usize, f64),
) -> Result<Calibration, CalibrationError> {
    calibrate_with(a, dev, None, progress)
}

/// [`calibrate`] with the port pricer's work split over every device of `devices` (the chain
/// is prepared on the first); the fit is bitwise that of one device
/// ([`tenor_pricing::heston::calibrate_heston_sharded`]).
///
/// # Errors
/// As [`calibrate`].
pub fn calibrate_devices(
    a: &HestonSettings,
    devices: &tenor_ports::Devices,
    progress: &mut dyn FnMut(usize, f64),
) -> Result<Calibration, CalibrationError> {
    calibrate_with(a, devices.first().as_ref(), (devices.len() > 1).then_some(devices), progress)
}

fn calibrate_with(
    a: &HestonSettings,
    dev: &dyn Compute,
    devices: Option<&tenor_ports::Devices>,
    progress: &mut dyn FnMut(usize, f64),
) -> Result<Calibration, CalibrationError> {
    let prepared = prepare(a, dev)?;
    let start = Instant::now();
    let result = match (a.pricer, devices) {
        (Pricer::Port, Some(devices)) => {
            tenor_pricing::heston::calibrate_heston_sharded(devices, &prepared.quotes, &prepared.cfg, progress)
        }
        (Pricer::Port, None) => calibrate_heston_observed(dev, &prepared.quotes, &prepared.cfg, progress),
        (Pricer::Host, _) => calibrate_heston_host(&prepared.quotes, &prepared.cfg),
    }
    .map_err(CalibrationError::Fit)?;
    let wall_seconds = start.elapsed().as_secs_f64();
    let rows = prepared
        .selected
        .iter()
        .zip(&result.fits)
        .map(|(s, fit)| {
            let c = &s.quote.contract;
            let is_call = c.option == OptionType::Call;
            let model_iv =
                tenor_kernels::black::implied_vol(fit.model / s.discount, s.forward, c.strike, c.maturity, is_call)
                    .ok();
            FitRow {
                expiry: s.expiry.clone(),
                option_type: if is_call { "call" } else { "put" },
                strike: c.strike,
                maturity: c.maturity,
                forward: s.forward,
                discount: s.discount,
                market_mid: fit.quote.price,
                model: fit.model,
                error: fit.error,
                market_iv: s.market_vol,
                model_iv,
                iv_error_bp: model_iv.map(|m| (m - s.market_vol) * 1e4),
            }
        })
        .collect();
    Ok(Calibration { prepared, result, rows, wall_seconds })
}

impl Calibration {
    /// The `params.json` of `tenor calibrate heston` (`backend`: the backend's name).
    #[must_use]
    pub fn params_json(&self, a: &HestonSettings, backend: &str) -> serde_json::Value {
        let p = self.result.params;
        let res = &self.result;
        let port = a.pricer == Pricer::Port;
        serde_json::json!({
            "model": "heston",
            "chain": a.chain.display().to_string(),
            "spot": self.prepared.spot,
            "v0": p.v0, "kappa": p.kappa, "theta": p.theta, "sigma": p.sigma, "rho": p.rho,
            "feller_2kappa_theta_minus_sigma2": 2.0 * p.kappa * p.theta - p.sigma * p.sigma,
            "quotes": self.prepared.quotes.len(),
            "iterations": res.iterations,
            "pricings": res.pricings,
            "launches": res.batches,
            "pricer": a.pricer.as_str(),
            "backend": if port { serde_json::json!(backend) } else { serde_json::Value::Null },
            "stop": res.stop.as_str(),
            "quadrature_nodes": if port { serde_json::json!(self.prepared.cfg.nodes) } else { serde_json::Value::Null },
            "weighted_rmse_vol": res.rmse,
            "wall_seconds": self.wall_seconds,
        })
    }
}
