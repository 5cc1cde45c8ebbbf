//! Market tools from Python: implied volatilities of a whole chain on a device and the
//! per-expiry SVI fits with their no-arbitrage checks (`tenor surface`), and the Treasury zero
//! curve (`tenor surface --rates`, `tenor book spx`). Chains are read by
//! `tenor_app::chains::load_chain`, the command line's reader.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use tenor_market::surface::VolSurface;

use crate::device::Device;
use crate::errors::{input_error, market_error, parameter_error, Problem};

fn chain_error(py: Python<'_>, e: &tenor_app::chains::ChainError) -> PyErr {
    use tenor_app::chains::ChainError as C;
    match e {
        C::Market(m) => market_error(py, m),
        C::Read(_) => {
            let at: Problem = (None, None, None, e.to_string());
            input_error(py, e.to_string(), at.clone(), vec![at])
        }
        C::NeedsAsOf { path } => {
            let at: Problem = (Some(path.display().to_string()), None, None, e.to_string());
            input_error(py, e.to_string(), at.clone(), vec![at])
        }
    }
}

fn date(py: Python<'_>, name: &str, text: Option<&str>) -> PyResult<Option<chrono::NaiveDate>> {
    text.map(|t| {
        chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d")
            .map_err(|e| parameter_error(py, name, format!("{name} {t:?}: expected YYYY-MM-DD ({e})")))
    })
    .transpose()
}

/// Implied volatilities and SVI fits of the chain at `chain` (a Cboe folder or file, or a Yahoo
/// CSV with `as_of` "YYYY-MM-DD") on `device`. Returns a dict: `quotes` (columns: symbol,
/// expiry, settlement, option_type, strike, bid, ask, mid, maturity, forward, discount,
/// implied_vol (None when there is none), reason, svi_vol), `slices` (columns: expiry,
/// settlement, maturity, forward, discount, a, b, rho, m, sigma, rmse_vol, max_vol_error,
/// butterfly_free, min_g), `warnings` (slices without a forward or a fit), `source`, `spot`.
#[pyfunction]
#[pyo3(signature = (device, chain, as_of=None))]
fn surface<'py>(
    py: Python<'py>,
    device: PyRef<'py, Device>,
    chain: PathBuf,
    as_of: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let as_of = date(py, "as_of", as_of)?;
    let compute = device.compute.clone();
    let chain = py.allow_threads(|| tenor_app::chains::load_chain(&chain, as_of)).map_err(|e| chain_error(py, &e))?;
    let fitted = py
        .allow_threads(|| tenor_app::surface::fit(compute.as_ref(), chain, &tenor_ports::NoProgress))
        .map_err(|e| market_error(py, &e))?;
    let tenor_app::surface::SurfaceFit { chain, vols, surface, warnings, .. } = fitted;
    // No slice fitted: the error of an empty surface, as before.
    let surface = match surface {
        Some(s) => s,
        None => VolSurface::new(Vec::new()).map_err(|e| market_error(py, &e))?,
    };
    let q = PyDict::new(py);
    let quotes = &chain.quotes;
    q.set_item("symbol", quotes.iter().map(|x| x.symbol.clone()).collect::<Vec<_>>())?;
    q.set_item("expiry", quotes.iter().map(|x| x.expiry.to_string()).collect::<Vec<_>>())?;
    q.set_item("settlement", quotes.iter().map(|x| x.settlement.as_str()).collect::<Vec<_>>())?;
    q.set_item(
        "option_type",
        quotes
            .iter()
            .map(|x| if matches!(x.option_type, tenor_pricing::types::OptionType::Call) { "call" } else { "put" })
            .collect::<Vec<_>>(),
    )?;
    q.set_item("strike", quotes.iter().map(|x| x.strike).collect::<Vec<_>>())?;
    q.set_item("bid", quotes.iter().map(|x| x.bid).collect::<Vec<_>>())?;
    q.set_item("ask", quotes.iter().map(|x| x.ask).collect::<Vec<_>>())?;
    q.set_item("mid", vols.iter().map(|v| v.mid).collect::<Vec<_>>())?;
    q.set_item("maturity", vols.iter().map(|v| v.maturity).collect::<Vec<_>>())?;
    q.set_item("forward", vols.iter().map(|v| v.forward).collect::<Vec<_>>())?;
    q.set_item("discount", vols.iter().map(|v| v.discount).collect::<Vec<_>>())?;
    q.set_item("implied_vol", vols.iter().map(|v| v.vol.ok()).collect::<Vec<_>>())?;
    q.set_item(
        "reason",
        vols.iter().map(|v| v.vol.err().map(|r| r.to_string()).unwrap_or_default()).collect::<Vec<_>>(),
    )?;
    q.set_item(
        "svi_vol",
        vols.iter()
            .map(|v| (v.maturity > 0.0).then(|| surface.vol(quotes[v.index].strike, v.maturity).ok()).flatten())
            .collect::<Vec<_>>(),
    )?;
    let s = PyDict::new(py);
    let sl = &surface.slices;
    s.set_item("expiry", sl.iter().map(|x| x.slice.0.to_string()).collect::<Vec<_>>())?;
    s.set_item("settlement", sl.iter().map(|x| x.slice.1.as_str()).collect::<Vec<_>>())?;
    s.set_item("maturity", sl.iter().map(|x| x.maturity).collect::<Vec<_>>())?;
    s.set_item("forward", sl.iter().map(|x| x.forward).collect::<Vec<_>>())?;
    s.set_item("discount", sl.iter().map(|x| x.discount).collect::<Vec<_>>())?;
    s.set_item("a", sl.iter().map(|x| x.fit.params.a).collect::<Vec<_>>())?;
    s.set_item("b", sl.iter().map(|x| x.fit.params.b).collect::<Vec<_>>())?;
    s.set_item("rho", sl.iter().map(|x| x.fit.params.rho).collect::<Vec<_>>())?;
    s.set_item("m", sl.iter().map(|x| x.fit.params.m).collect::<Vec<_>>())?;
    s.set_item("sigma", sl.iter().map(|x| x.fit.params.sigma).collect::<Vec<_>>())?;
    s.set_item("rmse_vol", sl.iter().map(|x| x.fit.rmse_vol).collect::<Vec<_>>())?;
    s.set_item("max_vol_error", sl.iter().map(|x| x.fit.max_vol_error).collect::<Vec<_>>())?;
    s.set_item("butterfly_free", sl.iter().map(|x| x.butterfly.is_free()).collect::<Vec<_>>())?;
    s.set_item("min_g", sl.iter().map(|x| x.butterfly.min_g).collect::<Vec<_>>())?;
    let d = PyDict::new(py);
    d.set_item("quotes", q)?;
    d.set_item("slices", s)?;
    d.set_item("warnings", warnings)?;
    d.set_item("source", &chain.source)?;
    d.set_item("spot", chain.spot)?;
    Ok(d)
}

/// (curve date, maturities, zero rates, discount factors).
type CurvePoints = (String, Vec<f64>, Vec<f64>, Vec<f64>);

/// The zero curve bootstrapped from the US Treasury par yields in `file` of the latest date on
/// or before `date` ("YYYY-MM-DD"; the file's last date when None), log-linear on discount
/// factors. Returns (curve date, maturities in years, continuously compounded zero rates,
/// discount factors) at `maturities` (the file's tenors when None).
#[pyfunction]
#[pyo3(signature = (file, date=None, maturities=None))]
fn treasury_curve(
    py: Python<'_>,
    file: PathBuf,
    date: Option<&str>,
    maturities: Option<Vec<f64>>,
) -> PyResult<CurvePoints> {
    let when = self::date(py, "date", date)?;
    let t = match tenor_app::curves::treasury_zero_curve(&file, when) {
        Ok(t) => t,
        Err(e @ tenor_market::MarketError::Insufficient(_)) => {
            let msg = e.to_string();
            return Err(input_error(py, msg.clone(), (Some(file.display().to_string()), None, None, msg), vec![]));
        }
        Err(e) => return Err(market_error(py, &e)),
    };
    let (curve, row_date) = (t.curve, t.date);
    let ts = maturities.unwrap_or_else(|| t.points.iter().map(|p| p.0).collect());
    if let Some(bad) = ts.iter().find(|t| !(t.is_finite() && **t > 0.0)) {
        return Err(parameter_error(py, "maturities", format!("maturities: {bad} is not a finite number > 0")));
    }
    let zeros = ts.iter().map(|t| curve.zero_rate(*t)).collect();
    let discounts = ts.iter().map(|t| curve.discount(*t)).collect();
    Ok((row_date.to_string(), ts, zeros, discounts))
}

/// Adds the functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(surface, m)?)?;
    m.add_function(wrap_pyfunction!(treasury_curve, m)?)?;
    Ok(())
}
