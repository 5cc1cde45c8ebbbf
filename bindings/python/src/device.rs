//! Backends and book pricing: `backends()`, `open(name)` and `Device.price_csv(...)`.
//!
//! A book is priced by `tenor_app::book::collect::price_parsed`, the function `tenor price` calls,
//! with the GIL released while the device works, so prices are those of the command line bit
//! for bit.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use tenor_ports::Compute;
use tenor_pricing::portfolio::{self, BookConfig, Engine, PortfolioError, PricedRow};

use crate::errors::{input_error, parameter_error, BackendError, Problem};

/// An open compute backend (`tenor.open(name)`). Immutable and shareable between threads.
#[pyclass(frozen, module = "tenor._tenor")]
pub struct Device {
    /// The backend behind the port.
    pub compute: Arc<dyn Compute>,
}

#[pymethods]
impl Device {
    /// The backend's name (`cpu`, `sim`, `cuda`, `sycl`).
    #[getter]
    fn backend(&self) -> String {
        self.compute.info().backend.clone()
    }
    /// The device's name as the backend reports it.
    #[getter]
    fn name(&self) -> String {
        self.compute.info().name.clone()
    }
    /// Whether the device computes in double precision.
    #[getter]
    fn fp64(&self) -> bool {
        self.compute.info().fp64
    }
    fn __repr__(&self) -> String {
        let i = self.compute.info();
        format!("Device(backend={:?}, name={:?})", i.backend, i.name)
    }

    /// Prices a portfolio CSV (docs/portfolio-csv.md): from the file `file`, or from `text`
    /// (CSV text named `file` in messages). Returns `(columns, problems, rows_read)`: the
    /// output columns of `tenor price` (id, price, stderr, delta, gamma, vega, theta, rho,
    /// method, backend; None where not applicable), every problem as (file, line, column,
    /// message) with the command line's messages, and the number of data rows read.
    ///
    /// Raises ParameterError for a bad setting, InputError for a file that cannot be read or
    /// holds no trade row.
    #[pyo3(signature = (file, text=None, paths=100_000, seed=42, engine="auto", steps=64, streams=1, greeks=true))]
    #[allow(clippy::too_many_arguments)]
    fn price_csv<'py>(
        &self,
        py: Python<'py>,
        file: PathBuf,
        text: Option<String>,
        paths: u64,
        seed: u64,
        engine: &str,
        steps: u32,
        streams: usize,
        greeks: bool,
    ) -> PyResult<(Bound<'py, PyDict>, Vec<Problem>, usize)> {
        let engine = match engine {
            "auto" => Engine::Auto,
            "mc" => Engine::Mc,
            other => {
                return Err(parameter_error(py, "engine", format!("engine {other:?}: expected \"auto\" or \"mc\"")))
            }
        };
        let config = BookConfig { engine, paths, seed, steps, streams, greeks };
        if let Err(e) = config.check() {
            return Err(parameter_error(py, e.setting(), e.to_string()));
        }
        let compute = self.compute.clone();
        let file_name = file.clone();
        let book = py
            .allow_threads(move || {
                let parsed = match &text {
                    Some(t) => portfolio::parse_portfolio(t.as_bytes(), &file)?,
                    None => portfolio::read_portfolio(&file)?,
                };
                let book = tenor_app::book::collect::price_parsed(
                    compute.as_ref(),
                    &parsed,
                    &file,
                    &config,
                    &portfolio::BookRun { batch: true },
                    &mut |_| {},
                );
                Ok::<_, PortfolioError>((parsed.rows, book))
            })
            .map_err(|e| portfolio_error(py, &e))?;
        let (rows_read, book) = book;
        let mut problems: Vec<Problem> = book
            .read_errors
            .iter()
            .map(|e| {
                (
                    Some(e.location.file.display().to_string()),
                    Some(e.location.line),
                    e.location.column.clone(),
                    e.to_string(),
                )
            })
            .collect();
        let name = file_name.display().to_string();
        problems
            .extend(book.trade_failures.iter().map(|f| (Some(name.clone()), Some(f.line), None, f.message.clone())));
        Ok((columns(py, &book.rows)?, problems, rows_read))
    }
}

/// The output columns of `tenor price` as Python lists.
fn columns<'py>(py: Python<'py>, rows: &[PricedRow]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("id", rows.iter().map(|r| r.id.clone()).collect::<Vec<_>>())?;
    d.set_item("price", rows.iter().map(|r| r.price).collect::<Vec<_>>())?;
    type Field = fn(&PricedRow) -> Option<f64>;
    let optional: [(&str, Field); 6] = [
        ("stderr", |r| r.stderr),
        ("delta", |r| r.delta),
        ("gamma", |r| r.gamma),
        ("vega", |r| r.vega),
        ("theta", |r| r.theta),
        ("rho", |r| r.rho),
    ];
    for (name, f) in optional {
        d.set_item(name, rows.iter().map(f).collect::<Vec<_>>())?;
    }
    d.set_item("method", rows.iter().map(|r| r.method.clone()).collect::<Vec<_>>())?;
    d.set_item("backend", rows.iter().map(|r| r.backend.clone()).collect::<Vec<_>>())?;
    Ok(d)
}

/// A whole-file portfolio error as an InputError (file named; no line).
fn portfolio_error(py: Python<'_>, e: &PortfolioError) -> PyErr {
    let file = match e {
        PortfolioError::Io { path, .. } | PortfolioError::Empty { path } | PortfolioError::NoRows { path } => {
            Some(path.display().to_string())
        }
        PortfolioError::Write { .. } => None,
    };
    let at: Problem = (file, None, None, e.to_string());
    input_error(py, e.to_string(), at.clone(), vec![at])
}

/// Every backend of the registry's table, as (name, available, device name or the reason it
/// is not, description).
#[pyfunction]
fn backends(py: Python<'_>) -> Vec<(String, bool, String, String)> {
    py.allow_threads(|| {
        tenor_registry::probe_all()
            .into_iter()
            .zip(tenor_registry::BACKENDS)
            .map(|((name, probe), row)| match probe {
                Ok(info) => (name, true, info.name, row.description.to_owned()),
                Err(e) => (name, false, e.to_string(), row.description.to_owned()),
            })
            .collect()
    })
}

/// Opens backend `name` (`cpu`, `sim`, `cuda`, `sycl`, `auto`): the name `tenor price
/// --backend` takes. Raises BackendError with the reason when it cannot run here.
#[pyfunction]
#[pyo3(name = "open")]
fn open_device(py: Python<'_>, name: &str) -> PyResult<Device> {
    let name = name.to_owned();
    py.allow_threads(|| tenor_registry::open(&name))
        .map(|compute| Device { compute })
        .map_err(|e| BackendError::new_err(format!("opening backend {name:?}: {e}")))
}

/// Adds the classes and functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Device>()?;
    m.add_function(wrap_pyfunction!(backends, m)?)?;
    m.add_function(wrap_pyfunction!(open_device, m)?)?;
    Ok(())
}
