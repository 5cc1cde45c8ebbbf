//! The exception hierarchy of the Python package, and conversions from the library's typed
//! errors (messages as the command line prints them).
//!
//! The classes are created in module `tenor` (and re-exported there by `tenor/__init__.py`), so
//! an instance pickles by reference to `tenor.InputError` etc. and unpickles in another process
//! (an error raised on a Dask worker, reaching the client) as the same class with its
//! attributes: `except tenor.InputError` catches it there too.
//!
//! ```text
//! TenorError
//!  +-- InputError      bad input file or cell: .file, .line, .column (None when not known)
//!  +-- ParameterError  a setting out of range: .parameter
//!  +-- BackendError    a backend that cannot be opened or failed while working
//!  +-- StrategyError   a strategy stopped the run: .strategy, .bar
//! ```

use pyo3::create_exception;
use pyo3::prelude::*;

create_exception!(tenor, TenorError, pyo3::exceptions::PyException, "Base class of every Tenor error.");
create_exception!(
    tenor,
    InputError,
    TenorError,
    "Bad input: a file, row or cell. Attributes `file`, `line` (1-based) and `column` (the column's name), each None when not known, and `errors` (every problem as (file, line, column, message))."
);
create_exception!(tenor, ParameterError, TenorError, "A setting out of range. Attribute `parameter` names it.");
create_exception!(tenor, BackendError, TenorError, "A backend that cannot be opened or that failed while working.");
create_exception!(
    tenor,
    StrategyError,
    TenorError,
    "A strategy stopped the backtest. Attributes `strategy` and `bar` (0-based bar index)."
);

/// Adds the exception classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("TenorError", py.get_type::<TenorError>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("ParameterError", py.get_type::<ParameterError>())?;
    m.add("BackendError", py.get_type::<BackendError>())?;
    m.add("StrategyError", py.get_type::<StrategyError>())?;
    Ok(())
}

/// One located problem: file, line, column name, message.
pub type Problem = (Option<String>, Option<u64>, Option<String>, String);

/// An [`InputError`] with `message` whose attributes are those of the first of `problems` (or
/// of `at` when there are none) and whose `errors` attribute lists them all.
pub fn input_error(py: Python<'_>, message: String, at: Problem, problems: Vec<Problem>) -> PyErr {
    let err = InputError::new_err(message);
    let v = err.value(py);
    let first = problems.first().cloned().unwrap_or(at);
    let set = || -> PyResult<()> {
        v.setattr("file", first.0)?;
        v.setattr("line", first.1)?;
        v.setattr("column", first.2)?;
        v.setattr("errors", problems)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// A [`ParameterError`] naming `parameter`.
pub fn parameter_error(py: Python<'_>, parameter: &str, message: String) -> PyErr {
    let err = ParameterError::new_err(message);
    if let Err(e) = err.value(py).setattr("parameter", parameter) {
        return e;
    }
    err
}

/// An [`InputError`] from a backtest data file's error (file, line, column as the loader gives).
pub fn data_error(py: Python<'_>, e: &tenor_backtest::DataError) -> PyErr {
    use tenor_backtest::DataError as D;
    let (file, line, column) = match e {
        D::Bad { file, line, column, .. } => (file.clone(), Some(*line as u64), Some(column.clone())),
        D::Cells { file, line, .. } => (file.clone(), Some(*line as u64), None),
        D::Io { file, .. } | D::Empty { file } => (file.clone(), None, None),
        D::Layout { file, .. } => (file.clone(), Some(1), None),
        // bad bytes: the message names the file, line and column
        D::NotUtf8(_) => {
            let at: Problem = (None, None, None, e.to_string());
            return input_error(py, e.to_string(), at.clone(), vec![at]);
        }
    };
    let at: Problem = (Some(file), line, column, e.to_string());
    input_error(py, e.to_string(), at.clone(), vec![at])
}

/// The Python exception for a market-data error: [`InputError`] with file, line and column for
/// a bad file, row or cell; [`ParameterError`] for an invalid argument; [`BackendError`] for a
/// device failure; [`TenorError`] otherwise.
pub fn market_error(py: Python<'_>, e: &tenor_market::MarketError) -> PyErr {
    use tenor_market::MarketError as M;
    let at: Problem = match e {
        M::Io { path, .. } | M::Source { path, .. } => (Some(path.display().to_string()), None, None, e.to_string()),
        M::Row { file, line, .. } => (Some(file.clone()), Some(*line), None, e.to_string()),
        M::Cell { file, line, name, .. } => (Some(file.clone()), Some(*line), Some(name.clone()), e.to_string()),
        M::InvalidArgument { name, .. } => return parameter_error(py, name, e.to_string()),
        M::Compute(_) => return BackendError::new_err(e.to_string()),
        _ => return TenorError::new_err(e.to_string()),
    };
    input_error(py, e.to_string(), at.clone(), vec![at])
}
