//! `tenor compare` from Python (`tenor._tenor.compare`): this process's environment compared
//! with a baseline folder written by `tenor certify`, by the library code of the command
//! (`tenor_app::certify::compare`), with the GIL released. `tenor.distributed.certify` runs it
//! on every worker of a cluster.

use std::path::PathBuf;

use pyo3::prelude::*;
use tenor_app::certify::{CompareRequest, Inputs, LatencyMode};

use crate::errors::{parameter_error, TenorError};

/// Reruns the suite of the baseline folder `baseline` on its backend here and compares
/// (docs/certify.md): returns `(promote, report)`, the verdict and the Markdown report `tenor
/// compare` prints. `examples` and `shared` are the suite's input folders (`--examples`,
/// `--shared`); `latency` "check" (a latency regression rejects) or "report" (values decide).
///
/// Raises ParameterError for another `latency`, TenorError when the comparison cannot run (a
/// missing or damaged baseline, another device model, a suite part that fails), naming what
/// and where.
#[pyfunction]
#[pyo3(signature = (baseline, examples, shared, latency="check"))]
fn compare(
    py: Python<'_>,
    baseline: PathBuf,
    examples: PathBuf,
    shared: PathBuf,
    latency: &str,
) -> PyResult<(bool, String)> {
    let latency = match latency {
        "check" => LatencyMode::Check,
        "report" => LatencyMode::Report,
        other => {
            return Err(parameter_error(py, "latency", format!("latency {other:?}: expected \"check\" or \"report\"")))
        }
    };
    let req = CompareRequest { baseline, out: None, latency, inputs: Inputs { examples, shared } };
    let build = crate::pilot::build_info();
    py.allow_threads(|| tenor_app::certify::compare(&req, &build, &tenor_ports::NoProgress))
        .map(|c| (c.promote, c.markdown))
        .map_err(|e| TenorError::new_err(format!("{e:#}")))
}

/// Adds the function to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(compare, m)?)
}
