//! Heston calibration from Python (`tenor.calibrate_heston`): `tenor_app::calibration::calibrate`,
//! the code of `tenor calibrate heston`, with the GIL released. The parameters come back as the
//! JSON of `params.json`, the per-quote fit as the columns of `fit.csv` (unrounded).

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use tenor_app::calibration::{calibrate, CalibrationError, HestonSettings, Pricer};

use crate::device::Device;
use crate::errors::{market_error, parameter_error, BackendError, TenorError};

fn calibration_error(py: Python<'_>, e: &CalibrationError) -> PyErr {
    match e {
        CalibrationError::Setting { name, .. } => parameter_error(py, name, e.to_string()),
        CalibrationError::Chain(m) => market_error(py, m),
        CalibrationError::Vols(m) => market_error(py, m),
        CalibrationError::Fit(_) => BackendError::new_err(e.to_string()),
        CalibrationError::NoSpot { .. } | CalibrationError::TooFew { .. } => TenorError::new_err(e.to_string()),
    }
}

/// Calibrates Heston to the Cboe chain at `chain` on `device` with the settings of `tenor
/// calibrate heston` (same names and defaults; `pricer` "port" or "host"). Returns (params.json
/// text, fit columns dict: expiry, type, strike, maturity, forward, discount, market_mid, model,
/// error, market_iv, model_iv, iv_error_bp; None where there is no model vol, notes).
#[pyfunction]
#[pyo3(signature = (device, chain, min_days, max_years, max_sd, per_slice, slices, max_iterations, pricer, nodes))]
#[allow(clippy::too_many_arguments)]
fn calibrate_heston<'py>(
    py: Python<'py>,
    device: PyRef<'py, Device>,
    chain: PathBuf,
    min_days: f64,
    max_years: f64,
    max_sd: f64,
    per_slice: usize,
    slices: usize,
    max_iterations: usize,
    pricer: &str,
    nodes: usize,
) -> PyResult<(String, Bound<'py, PyDict>, Vec<String>)> {
    let pricer = match pricer {
        "port" => Pricer::Port,
        "host" => Pricer::Host,
        other => return Err(parameter_error(py, "pricer", format!("pricer {other:?}: expected \"port\" or \"host\""))),
    };
    let settings =
        HestonSettings { chain, min_days, max_years, max_sd, per_slice, slices, max_iterations, pricer, nodes };
    let compute = device.compute.clone();
    let backend = compute.info().backend.clone();
    let fit = py
        .allow_threads(|| calibrate(&settings, compute.as_ref(), &mut |_, _| {}))
        .map_err(|e| calibration_error(py, &e))?;
    let params = serde_json::to_string(&fit.params_json(&settings, &backend))
        .map_err(|e| TenorError::new_err(format!("params.json: {e}")))?;
    let r = &fit.rows;
    let d = PyDict::new(py);
    d.set_item("expiry", r.iter().map(|x| x.expiry.clone()).collect::<Vec<_>>())?;
    d.set_item("type", r.iter().map(|x| x.option_type).collect::<Vec<_>>())?;
    d.set_item("strike", r.iter().map(|x| x.strike).collect::<Vec<_>>())?;
    d.set_item("maturity", r.iter().map(|x| x.maturity).collect::<Vec<_>>())?;
    d.set_item("forward", r.iter().map(|x| x.forward).collect::<Vec<_>>())?;
    d.set_item("discount", r.iter().map(|x| x.discount).collect::<Vec<_>>())?;
    d.set_item("market_mid", r.iter().map(|x| x.market_mid).collect::<Vec<_>>())?;
    d.set_item("model", r.iter().map(|x| x.model).collect::<Vec<_>>())?;
    d.set_item("error", r.iter().map(|x| x.error).collect::<Vec<_>>())?;
    d.set_item("market_iv", r.iter().map(|x| x.market_iv).collect::<Vec<_>>())?;
    d.set_item("model_iv", r.iter().map(|x| x.model_iv).collect::<Vec<_>>())?;
    d.set_item("iv_error_bp", r.iter().map(|x| x.iv_error_bp).collect::<Vec<_>>())?;
    Ok((params, d, fit.prepared.notes))
}

/// Adds the function to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(calibrate_heston, m)?)
}
