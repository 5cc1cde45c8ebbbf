//! The pilot from Python (`tenor.pilot.run`): `tenor_pilot::run`, the harness of `tenor pilot
//! run`, with the GIL released; the report comes back as the JSON of `report.json`.

use pyo3::prelude::*;

use crate::errors::{parameter_error, BackendError, TenorError};

/// Runs the pilot's workloads (suite `quick` or `default`) on `backends` (unavailable ones are
/// reported, not measured) with at most `max_mib` MiB per workload, and returns the report as
/// JSON text (the `report.json` of `tenor pilot run`).
#[pyfunction]
#[pyo3(signature = (backends, suite="quick", max_mib=1024))]
fn pilot_run(py: Python<'_>, backends: Vec<String>, suite: &str, max_mib: u64) -> PyResult<String> {
    let suite = match suite {
        "quick" => tenor_pilot::Suite::Quick,
        "default" => tenor_pilot::Suite::Default,
        other => {
            return Err(parameter_error(py, "suite", format!("suite {other:?}: expected \"quick\" or \"default\"")))
        }
    };
    if max_mib == 0 {
        return Err(parameter_error(py, "max_mib", "max_mib must be at least 1".into()));
    }
    let build = build_info();
    let opts =
        tenor_pilot::Options { backends, suite, max_bytes: max_mib.saturating_mul(1 << 20), devices: None, build };
    let report = py
        .allow_threads(|| tenor_pilot::run(&opts, &tenor_ports::NoProgress))
        .map_err(|e| BackendError::new_err(e.to_string()))?;
    serde_json::to_string(&report).map_err(|e| TenorError::new_err(format!("pilot report: {e}")))
}

/// This build as the reports name it: the package's version (the commit is not known to a
/// wheel).
pub(crate) fn build_info() -> tenor_pilot::BuildInfo {
    tenor_pilot::BuildInfo {
        version: env!("CARGO_PKG_VERSION").into(),
        commit: "unknown".into(),
        dirty: None,
        code: Vec::new(),
    }
}

/// Adds the function to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(pilot_run, m)?)
}
