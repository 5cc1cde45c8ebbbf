//! Backends and book pricing: `backends()`, `open(name)` and `Device.price_csv(...)`.
//!
//! A book is priced by `tenor_app::book::collect::price_parsed`, the function `tenor price` calls,
//! with the GIL released while the device works, so prices are those of the command line bit
//! for bit. `plan_book` and `price_csv(..., lines=...)` are the two halves of a book priced in
//! chunks by other processes (`tenor.distributed`, `tenor_app::book::chunks`).

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use tenor_app::book::chunks as book_chunks;
use tenor_app::book::collect::price_parsed;
use tenor_ports::Compute;
use tenor_pricing::portfolio::{self, BookConfig, Engine, PortfolioError, PricedRow, RowError};

use crate::errors::{input_error, parameter_error, BackendError, Problem, TenorError};

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
    /// A device belongs to the process that opened it: pickling one (sending it to another
    /// process, e.g. a Dask worker) raises TypeError saying what to do instead.
    fn __reduce__(&self) -> PyResult<PyObject> {
        Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "a tenor Device (backend {:?}) cannot be sent to another process: it is the open backend of the process \
             that opened it. Send the backend's name instead and open it there (on a Dask cluster: \
             tenor.distributed.setup(client, backend={:?}), then tenor.distributed.price(book, backend={:?}))",
            self.compute.info().backend,
            self.compute.info().backend,
            self.compute.info().backend
        )))
    }

    /// Prices a portfolio CSV (docs/portfolio-csv.md): from the file `file`, or from `text`
    /// (CSV text named `file` in messages). Returns `(columns, problems, rows_read)`: the
    /// output columns of `tenor price` (id, price, stderr, delta, gamma, vega, theta, rho,
    /// method, backend; None where not applicable) and `line` (each row's line in the file),
    /// every problem as (file, line, column, message) with the command line's messages, and
    /// the number of data rows read.
    ///
    /// `lines`: `text` is a chunk planned by `plan_book` and `lines` the whole file's line of
    /// each of its trades; rows and problems are named by those lines
    /// (`tenor_app::book::chunks::price_chunk`).
    ///
    /// Raises ParameterError for a bad setting, InputError for a file that cannot be read or
    /// holds no trade row, TenorError for a chunk that does not read back whole.
    #[pyo3(signature = (file, text=None, paths=100_000, seed=42, engine="auto", steps=64, streams=1, greeks=true, lines=None))]
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
        lines: Option<Vec<u64>>,
    ) -> PyResult<(Bound<'py, PyDict>, Vec<Problem>, usize)> {
        if lines.is_some() && text.is_none() {
            return Err(parameter_error(py, "lines", "lines is for a chunk given as text".into()));
        }
        let config = book_config(py, engine, paths, seed, steps, streams, greeks)?;
        let compute = self.compute.clone();
        let file_name = file.clone();
        let run = portfolio::BookRun { batch: true };
        let book = py.allow_threads(move || match (lines, text) {
            (Some(lines), Some(text)) => {
                let book = book_chunks::price_chunk(
                    compute.as_ref(),
                    text.as_bytes(),
                    &lines,
                    &file,
                    &config,
                    &run,
                    &mut |_| {},
                );
                book.map(|b| (lines.len(), b)).map_err(Failed::Chunk)
            }
            (_, text) => {
                let parsed = match &text {
                    Some(t) => portfolio::parse_portfolio(t.as_bytes(), &file),
                    None => portfolio::read_portfolio(&file),
                }
                .map_err(Failed::Book)?;
                let book = price_parsed(compute.as_ref(), &parsed, &file, &config, &run, &mut |_| {});
                Ok((parsed.rows, book))
            }
        });
        let (rows_read, book) = match book {
            Ok(b) => b,
            Err(Failed::Book(e)) => return Err(portfolio_error(py, &e)),
            Err(Failed::Chunk(e)) => return Err(TenorError::new_err(e.to_string())),
        };
        let mut problems: Vec<Problem> = book.read_errors.iter().map(row_problem).collect();
        let name = file_name.display().to_string();
        problems
            .extend(book.trade_failures.iter().map(|f| (Some(name.clone()), Some(f.line), None, f.message.clone())));
        let columns = columns(py, &book.rows)?;
        columns.set_item("line", &book.lines)?;
        Ok((columns, problems, rows_read))
    }
}

/// Why a book could not be priced at all.
enum Failed {
    /// The file cannot be read or holds no trade.
    Book(PortfolioError),
    /// A chunk that does not read back whole.
    Chunk(book_chunks::ChunkError),
}

/// The book settings of `tenor price` (`--engine`, `--paths`, ...), checked.
fn book_config(
    py: Python<'_>,
    engine: &str,
    paths: u64,
    seed: u64,
    steps: u32,
    streams: usize,
    greeks: bool,
) -> PyResult<BookConfig> {
    let engine = match engine {
        "auto" => Engine::Auto,
        "mc" => Engine::Mc,
        other => return Err(parameter_error(py, "engine", format!("engine {other:?}: expected \"auto\" or \"mc\""))),
    };
    let config = BookConfig { engine, paths, seed, steps, streams, greeks };
    config.check().map_err(|e| parameter_error(py, e.setting(), e.to_string()))?;
    Ok(config)
}

/// A header or row problem as (file, line, column, message).
fn row_problem(e: &RowError) -> Problem {
    (Some(e.location.file.display().to_string()), Some(e.location.line), e.location.column.clone(), e.to_string())
}

/// One chunk of a planned book for Python: (CSV text, the whole file's line of each trade,
/// each trade's label for messages, estimated cost).
type ChunkRow = (String, Vec<u64>, Vec<String>, f64);

/// Reads and checks a whole portfolio once (the file `file`, or `text` named `file`) and plans
/// it in at most `chunks` chunks of about equal estimated cost for pricing elsewhere
/// (`tenor_app::book::chunks::plan`). Returns `(problems, rows_read, chunks)`: every header
/// and row problem of the whole file as (file, line, column, message), the data rows read, and
/// the chunks as [`ChunkRow`]s (each priced by `Device.price_csv(file, text, lines=lines)`).
///
/// Raises ParameterError for a bad setting or `chunks` 0, InputError for a file that cannot be
/// read or holds no trade row.
#[pyfunction]
#[pyo3(signature = (file, text=None, chunks=1, paths=100_000, seed=42, engine="auto", steps=64, streams=1, greeks=true))]
#[allow(clippy::too_many_arguments)]
fn plan_book(
    py: Python<'_>,
    file: PathBuf,
    text: Option<String>,
    chunks: usize,
    paths: u64,
    seed: u64,
    engine: &str,
    steps: u32,
    streams: usize,
    greeks: bool,
) -> PyResult<(Vec<Problem>, usize, Vec<ChunkRow>)> {
    if chunks == 0 {
        return Err(parameter_error(py, "chunks", "chunks 0: at least one chunk is needed".into()));
    }
    let config = book_config(py, engine, paths, seed, steps, streams, greeks)?;
    let planned = py.allow_threads(|| {
        let parsed = match &text {
            Some(t) => portfolio::parse_portfolio(t.as_bytes(), &file),
            None => portfolio::read_portfolio(&file),
        }?;
        let chunks = book_chunks::plan(&parsed, &file, &config, chunks)?;
        Ok::<_, PortfolioError>((parsed, chunks))
    });
    let (parsed, planned) = planned.map_err(|e| portfolio_error(py, &e))?;
    let problems = parsed.errors.iter().map(row_problem).collect();
    let chunks = planned.into_iter().map(|c| (c.text, c.lines, c.labels, c.load)).collect();
    Ok((problems, parsed.rows, chunks))
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

/// Writes priced rows to `path` as `tenor price --out` writes them (the same bytes: header,
/// shortest round-trip numbers, empty cells for None), atomically: `path` is replaced only
/// once every row reached the disk (`tenor_ports::files`). `columns`: the output columns as
/// `price_csv` returns them (lists; None where not applicable), rows in the order to write.
/// With `columns` None, only checks that `path` can be written (a temporary file is created
/// beside it and removed), so a bad path fails before any work.
///
/// Raises InputError naming the file when it cannot be written, ParameterError for columns of
/// different lengths.
#[pyfunction]
#[pyo3(signature = (path, columns=None))]
fn write_prices(py: Python<'_>, path: PathBuf, columns: Option<Bound<'_, PyDict>>) -> PyResult<()> {
    let written = |e: tenor_ports::files::WriteError| {
        let at: Problem = (Some(path.display().to_string()), None, None, e.to_string());
        input_error(py, e.to_string(), at.clone(), vec![at])
    };
    let Some(columns) = columns else {
        return tenor_ports::files::AtomicFile::create(&path).map(drop).map_err(written);
    };
    let get = |name: &str| -> PyResult<Bound<'_, PyAny>> {
        columns.get_item(name)?.ok_or_else(|| parameter_error(py, "columns", format!("column {name:?} missing")))
    };
    let ids: Vec<String> = get("id")?.extract()?;
    let prices: Vec<f64> = get("price")?.extract()?;
    let mut optional: Vec<Vec<Option<f64>>> = Vec::new();
    for name in ["stderr", "delta", "gamma", "vega", "theta", "rho"] {
        optional.push(get(name)?.extract()?);
    }
    let methods: Vec<String> = get("method")?.extract()?;
    let backends: Vec<String> = get("backend")?.extract()?;
    let n = ids.len();
    if prices.len() != n || methods.len() != n || backends.len() != n || optional.iter().any(|c| c.len() != n) {
        return Err(parameter_error(py, "columns", "the columns have different lengths".into()));
    }
    let rows: Vec<PricedRow> = (0..n)
        .map(|i| PricedRow {
            id: ids[i].clone(),
            price: prices[i],
            stderr: optional[0][i],
            delta: optional[1][i],
            gamma: optional[2][i],
            vega: optional[3][i],
            theta: optional[4][i],
            rho: optional[5][i],
            method: methods[i].clone(),
            backend: backends[i].clone(),
        })
        .collect();
    py.allow_threads(|| {
        tenor_ports::files::write_with(&path, |w| {
            portfolio::write_priced(w, &rows).map_err(|e| std::io::Error::other(e.to_string()))
        })
    })
    .map_err(written)
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
    m.add_function(wrap_pyfunction!(plan_book, m)?)?;
    m.add_function(wrap_pyfunction!(write_prices, m)?)?;
    Ok(())
}
