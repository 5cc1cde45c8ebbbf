//! The STAC-A2 basket job from Python (`tenor.basket`): `tenor_app::basket::read_job` and
//! `run_jobs`, the code of `tenor basket`, on the device the caller opened, with the GIL
//! released. The rows come back as the columns of `greeks.csv` (unrounded).

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use tenor_app::basket::{read_job, run_jobs, JobError, Overrides};
use tenor_ports::NoProgress;
use tenor_pricing::basket::BasketError;

use crate::device::Device;
use crate::errors::{input_error, parameter_error, BackendError};

fn job_error(py: Python<'_>, e: &JobError) -> PyErr {
    let message = e.to_string();
    match e {
        JobError::Read { path, .. }
        | JobError::Utf8 { path }
        | JobError::NotRegular { path }
        | JobError::TooLarge { path } => {
            let file = Some(path.display().to_string());
            input_error(py, message, (file, None, None, e.to_string()), Vec::new())
        }
        JobError::Job { path, error } => {
            let file = Some(path.display().to_string());
            let at = match &**error {
                BasketError::Syntax { line, .. } => (file, Some(*line as u64), None, message.clone()),
                BasketError::Invalid { key, .. } | BasketError::WorkLimit { key, .. } => {
                    (file, None, Some(key.clone()), message.clone())
                }
                BasketError::Compute(_) => (file, None, None, message.clone()),
            };
            input_error(py, message, at.clone(), vec![at])
        }
        JobError::Override { setting, .. } => parameter_error(py, setting, message),
    }
}

/// Prices the basket job at `job` on `device` with the overrides of `tenor basket` (`paths`,
/// `steps`, `seed`; the file's `[simulation]` values where `None`). Returns the columns of
/// `greeks.csv` (greek, asset, other: names or None; value; stderr: None where none is
/// estimated), the job's SHA-256, its priced scenarios and the job's seconds.
#[pyfunction]
#[pyo3(signature = (device, job, paths, steps, seed, greeks))]
fn basket<'py>(
    py: Python<'py>,
    device: PyRef<'py, Device>,
    job: PathBuf,
    paths: Option<u64>,
    steps: Option<u32>,
    seed: Option<u64>,
    greeks: bool,
) -> PyResult<(Bound<'py, PyDict>, String, u64, f64)> {
    let (spec, sha) = read_job(&job, &Overrides { paths, steps, seed }).map_err(|e| job_error(py, &e))?;
    let compute = device.compute.clone();
    let runs = py
        .allow_threads(|| run_jobs(compute.as_ref(), &spec, greeks, 1, &NoProgress))
        .map_err(|e| BackendError::new_err(tenor_app::error_chain(&e)))?;
    let rows = &runs.outcome.rows;
    let name = |i: Option<usize>| i.and_then(|i| spec.assets.get(i)).map(|a| a.name.clone());
    let d = PyDict::new(py);
    d.set_item("greek", rows.iter().map(|r| r.greek).collect::<Vec<_>>())?;
    d.set_item("asset", rows.iter().map(|r| name(r.asset)).collect::<Vec<_>>())?;
    d.set_item("other", rows.iter().map(|r| name(r.other)).collect::<Vec<_>>())?;
    d.set_item("value", rows.iter().map(|r| r.value).collect::<Vec<_>>())?;
    d.set_item("stderr", rows.iter().map(|r| r.stderr).collect::<Vec<_>>())?;
    Ok((d, sha, runs.outcome.valuations, runs.seconds[0]))
}

/// Adds the function to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(basket, m)?)
}
