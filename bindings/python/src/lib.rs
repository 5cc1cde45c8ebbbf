//! `tenor._tenor`: the native module of the Python package `tenor` (PyO3, abi3 for CPython
//! 3.9+). The Python side (`python/tenor/`) wraps it into DataFrames; every computation is the
//! library code the `tenor` command runs (`tenor_app::book::collect`, `tenor-backtest`,
//! `tenor-market`), so results are those of the command line bit for bit.
//!
//! Errors are Python exceptions of the hierarchy in [`errors`]; nothing panics into Python
//! (PyO3 turns a panic into `PanicException`, and no entry point unwraps user input).

use pyo3::prelude::*;

mod alloc;
mod backtest;
mod basket;
mod calibrate;
mod certify;
mod device;
mod errors;
mod market;
mod pilot;

/// The module `tenor._tenor`.
#[pymodule]
fn _tenor(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    device::register(m)?;
    alloc::register(m)?;
    backtest::register(m)?;
    basket::register(m)?;
    calibrate::register(m)?;
    certify::register(m)?;
    market::register(m)?;
    pilot::register(m)?;
    Ok(())
}
