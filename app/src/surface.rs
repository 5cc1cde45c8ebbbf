//! An implied-volatility surface of a whole chain: mid implied vols on a backend, per-expiry SVI
//! fits with their no-arbitrage checks ([`fit`], for every door), and the folder `tenor
//! surface` writes ([`surface_to_folder`]): `implied_vols.csv` (every quote: mid implied vol or
//! the reason there is none, the slice's parity forward and discount factor, the SVI vol and
//! the fit error), `svi_params.csv` (per slice: parameters, fit errors, butterfly checks),
//! `calendar.csv` (calendar checks between consecutive slices) and `surface.svg`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use chrono::NaiveDate;
use tenor_market::iv::{chain_vols, QuoteVol};
use tenor_market::parity::ParityForward;
use tenor_market::quotes::Chain;
use tenor_market::surface::{fit_slice, VolSurface};
use tenor_market::MarketError;
use tenor_ports::{Compute, Progress};

use crate::report::Report;

/// The files of the folder, written as one set.
pub const OUTPUTS: [&str; 4] = ["implied_vols.csv", "svi_params.csv", "calendar.csv", "surface.svg"];

/// The implied vols and SVI fits of `chain` on `compute`, one step of `progress` per slice.
/// Slices without a parity forward or a fit are left out and named in
/// [`SurfaceFit::warnings`].
///
/// # Errors
/// The implied-vol batch failed on the backend, or the slices that were fitted do not make a
/// surface ([`VolSurface::new`]; none at all is an error too).
pub fn fit(compute: &dyn Compute, chain: Chain, progress: &dyn Progress) -> Result<SurfaceFit, MarketError> {
    let (forwards, missing) = tenor_market::parity::parity_forwards(&chain);
    let mut warnings: Vec<String> = missing.iter().map(ToString::to_string).collect();
    let started = std::time::Instant::now();
    let vols = chain_vols(compute, &chain, &forwards)?;
    let iv_time = started.elapsed();
    progress.start(forwards.len() as u64);
    let mut slices = Vec::new();
    for (i, f) in forwards.iter().enumerate() {
        progress.message(&format!("{} {}", f.slice.0, f.slice.1.as_str()));
        match fit_slice(&chain, &vols, f) {
            Ok(s) => slices.push(s),
            Err(e) => warnings.push(e.to_string()),
        }
        progress.set(i as u64 + 1);
    }
    progress.finish();
    let fitted = slices.len();
    let surface = if slices.is_empty() { None } else { Some(VolSurface::new(slices)?) };
    Ok(SurfaceFit { chain, forwards, vols, surface, fitted, warnings, iv_time })
}

/// What [`fit`] found.
pub struct SurfaceFit {
    /// The chain.
    pub chain: Chain,
    /// The slices' parity forwards and discount factors.
    pub forwards: Vec<ParityForward>,
    /// Every quote's implied vol, or why there is none.
    pub vols: Vec<QuoteVol>,
    /// The SVI surface of the fitted slices; `None` when no slice could be fitted.
    pub surface: Option<VolSurface>,
    /// Slices fitted.
    pub fitted: usize,
    /// Slices without a forward or a fit, one line each.
    pub warnings: Vec<String>,
    /// Time of the implied-vol batch.
    pub iv_time: std::time::Duration,
}

/// A surface to fit and write ([`surface_to_folder`]).
#[derive(Debug, Clone)]
pub struct SurfaceRequest {
    /// A folder of Cboe quote-data CSVs, one Cboe CSV, or a Yahoo chain CSV.
    pub chain: PathBuf,
    /// Snapshot date for a Yahoo chain; Cboe files carry their own.
    pub as_of: Option<NaiveDate>,
    /// Output folder (created if missing).
    pub out: PathBuf,
    /// Backend of the implied vols.
    pub backend: String,
    /// A US Treasury par-yield CSV: its zero curve of the latest date on or before the snapshot
    /// is given beside each slice's parity rate.
    pub rates: Option<PathBuf>,
    /// Most slices drawn in the plot.
    pub plot_slices: usize,
}

/// Fits the surface of `req` and writes `implied_vols.csv`, `svi_params.csv`, `calendar.csv`
/// and `surface.svg` into its folder as one set; the report is what `tenor surface` prints.
///
/// # Errors
/// An output naming an input, an unreadable chain or rates file, an unavailable backend, no
/// slice fitted, an unwritable output.
pub fn surface_to_folder(req: &SurfaceRequest, progress: &dyn Progress) -> anyhow::Result<Report> {
    let args = req;
    let mut inputs: Vec<(&str, &Path)> = vec![("chain", &args.chain)];
    if let Some(r) = &args.rates {
        inputs.push(("rates", r));
    }
    let outputs: Vec<PathBuf> = OUTPUTS.map(|f| args.out.join(f)).into();
    let outputs: Vec<(&str, &Path)> = outputs.iter().map(|p| ("out", p.as_path())).collect();
    crate::paths::refuse_overwrite(&inputs, &outputs)?;
    let chain = crate::chains::load_chain(&args.chain, args.as_of)?;
    let compute = tenor_registry::open(&args.backend)?;
    // The output set is staged in the folder from the start (an unwritable folder fails before
    // any work) and replaces the earlier set only once every file is written.
    let mut set = tenor_ports::files::OutputDir::create(&args.out, &OUTPUTS)?;
    // What goes to stdout is kept until the files are safe: a reader that stops early
    // (`tenor surface ... | head`) then cannot cost a file.
    let mut printed = Report::default();
    let mut report = String::new();
    let fitted = fit(&*compute, chain, progress)?;
    let SurfaceFit { chain, forwards, vols, surface, warnings, iv_time, .. } = fitted;
    for w in &warnings {
        printed.warn(format!("warning: {w}"));
    }
    let solved = vols.iter().filter(|v| v.vol.is_ok()).count();
    writeln!(
        report,
        "{}: {} quotes, {} slices, {solved} implied vols on {} in {:.1} ms; {} quotes without a vol (reasons in implied_vols.csv)",
        chain.source,
        chain.quotes.len(),
        chain.slices().len(),
        compute.info().backend,
        iv_time.as_secs_f64() * 1e3,
        vols.len() - solved
    )?;

    let Some(surface) = surface else {
        bail!(
            "{}: no expiry slice could be fitted ({} slice(s) with a parity forward out of {}; the warnings above say \
             why); nothing written to {}",
            chain.source,
            forwards.len(),
            chain.slices().len(),
            args.out.display()
        );
    };
    let treasury = match &args.rates {
        None => None,
        Some(path) => {
            let curve = crate::curves::treasury_zero_curve(path, Some(chain.as_of.date()))?;
            writeln!(
                report,
                "Treasury zero curve bootstrapped from the par yields of {} ({})",
                curve.date,
                path.display()
            )?;
            Some(curve.curve)
        }
    };
    let treasury_rate = |t: f64| treasury.as_ref().map(|c| c.zero_rate(t));

    let mut svi_csv = String::new();
    let w = &mut svi_csv;
    writeln!(w, "expiry,settlement,maturity,forward,discount,parity_rate,points,a,b,rho,m,sigma,rmse_vol,max_vol_error,min_g,min_g_at_k,butterfly_free,min_g_wide,min_g_wide_at_k,treasury_zero_rate")?;
    for s in &surface.slices {
        let p = s.fit.params;
        writeln!(
            w,
            "{},{},{:.6},{:.4},{:.8},{:.6},{},{:.8},{:.8},{:.8},{:.8},{:.8},{:.6},{:.6},{:.6},{:.4},{},{:.6},{:.4},{}",
            s.slice.0,
            s.slice.1.as_str(),
            s.maturity,
            s.forward,
            s.discount,
            -s.discount.ln() / s.maturity,
            s.fit.points,
            p.a,
            p.b,
            p.rho,
            p.m,
            p.sigma,
            s.fit.rmse_vol,
            s.fit.max_vol_error,
            s.butterfly.min_g,
            s.butterfly.at,
            s.butterfly.is_free(),
            s.butterfly_wide.min_g,
            s.butterfly_wide.at,
            treasury_rate(s.maturity).map(|r| format!("{r:.6}")).unwrap_or_default()
        )?;
        writeln!(
            report,
            "  {} {} T {:.3}  F {:.2}  parity r {:.3}%{}  {} pts  SVI rmse {:.2} vol pts (max {:.2})  butterfly {}",
            s.slice.0,
            s.slice.1.as_str(),
            s.maturity,
            s.forward,
            100.0 * -s.discount.ln() / s.maturity,
            treasury_rate(s.maturity).map(|r| format!(" (Treasury {:.3}%)", 100.0 * r)).unwrap_or_default(),
            s.fit.points,
            100.0 * s.fit.rmse_vol,
            100.0 * s.fit.max_vol_error,
            if s.butterfly.is_free() { "free" } else { "VIOLATED" }
        )?;
    }
    set.write_with("svi_params.csv", |f| f.write_all(svi_csv.as_bytes()))?;

    let checks = surface.calendar_checks(f64::NEG_INFINITY, f64::INFINITY, 401);
    let mut calendar_csv = String::new();
    let w = &mut calendar_csv;
    writeln!(w, "earlier,later,min_total_variance_gap,at_k,calendar_free")?;
    for c in &checks {
        writeln!(
            w,
            "{} {},{} {},{:.6e},{:.4},{}",
            c.earlier.0,
            c.earlier.1.as_str(),
            c.later.0,
            c.later.1.as_str(),
            c.min_gap,
            c.at,
            c.min_gap >= 0.0
        )?;
    }
    set.write_with("calendar.csv", |f| f.write_all(calendar_csv.as_bytes()))?;
    let crossings = checks.iter().filter(|c| c.min_gap < 0.0).count();
    writeln!(
        report,
        "calendar: {crossings} of {} consecutive slice pairs cross inside their common strike range",
        checks.len()
    )?;

    let mut vols_csv = String::new();
    let w = &mut vols_csv;
    writeln!(
        w,
        "symbol,expiry,settlement,maturity,type,strike,bid,ask,mid,forward,discount,iv_mid,status,svi_vol,fit_error"
    )?;
    for v in &vols {
        let q = &chain.quotes[v.index];
        let slice = surface.slices.iter().find(|s| s.slice == (q.expiry, q.settlement));
        let svi =
            slice.map(|s| (s.fit.params.total_variance((q.strike / s.forward).ln()).max(0.0) / s.maturity).sqrt());
        let (iv, status, err) = match (&v.vol, svi) {
            (Ok(x), Some(m)) => (format!("{x:.10}"), "ok".to_owned(), format!("{:.6}", m - x)),
            (Ok(x), None) => (format!("{x:.10}"), "ok".to_owned(), String::new()),
            (Err(e), _) => (String::new(), e.to_string(), String::new()),
        };
        writeln!(
            w,
            "{},{},{},{:.6},{},{},{},{},{},{:.4},{:.8},{iv},\"{status}\",{},{err}",
            q.symbol,
            q.expiry,
            q.settlement.as_str(),
            v.maturity,
            if q.option_type == tenor_pricing::types::OptionType::Call { "call" } else { "put" },
            q.strike,
            q.bid,
            q.ask,
            v.mid,
            v.forward,
            v.discount,
            svi.map(|s| format!("{s:.6}")).unwrap_or_default()
        )?;
    }
    set.write_with("implied_vols.csv", |f| f.write_all(vols_csv.as_bytes()))?;

    let svg = set.staged_path("surface.svg")?;
    let title = format!(
        "{} implied volatility and SVI fits, {}",
        chain.quotes.first().map_or("", |q| q.root.as_str()),
        chain.as_of.date()
    );
    tenor_market::plot::plot_surface(&svg, &title, &chain, &vols, &forwards, &surface, args.plot_slices)
        .with_context(|| format!("writing {}", set.final_path("surface.svg").display()))?;
    set.mark_written("surface.svg");
    set.commit()?;
    writeln!(report, "wrote {}/{{implied_vols.csv, svi_params.csv, calendar.csv, surface.svg}}", args.out.display())?;
    printed.out = report;
    Ok(printed)
}
