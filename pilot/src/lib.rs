//! The `tenor` package: the command line (src/main.rs) and the pilot harness, exposed as a
//! library so tests and other tools can drive the measurements, and the pieces of the commands
//! that other front ends (the Python package, `bindings/python`) share with it.

pub mod alloc_pricing;
pub mod alloc_trace;
pub mod backtest_config;
pub mod book_chunks;
pub mod book_pricing;
pub mod calibration;
pub mod chains;
pub mod pilot;
