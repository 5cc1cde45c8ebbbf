//! # tenor-app: the application library under every door
//!
//! The `tenor` command (`cli/`), `tenor serve`, the Python package (`bindings/python`), the C ABI
//! (`bindings/c`) and a Dask cluster (through the Python package) are doors: they turn their
//! users' requests into calls of this library and word its answers and errors for their users.
//! Everything a door would otherwise copy lives here, once: book runs and their summary
//! ([`book`]), the server's protocol and request handling ([`serve`]), surfaces ([`surface`]),
//! Treasury curves ([`curves`]), calibration ([`calibration`]), backtests ([`backtest`]),
//! certify/compare ([`certify`]), the allocation workflows ([`alloc`]), the trade conversion of
//! the bindings ([`trades`]) and the guards on output paths ([`paths`]).
//!
//! This crate knows no flags, terminals or progress bars: requests name settings (`paths`, not
//! `--paths`), progress goes to a [`tenor_ports::Progress`] sink, text goes to writers the door
//! passes in. It defines the backend features (`cuda`, `sycl`, `opencl`) once; every door
//! forwards that list.

pub mod alloc;
pub mod backtest;
pub mod basket;
pub mod book;
pub mod calibration;
pub mod certify;
pub mod chains;
pub mod curves;
pub mod paths;
pub mod pilot;
pub mod report;
#[cfg(unix)]
pub mod serve;
pub mod spx;
pub mod surface;
pub mod trades;
pub mod words;

pub use report::Report;

/// The error and its causes joined by ": ", leaving out a cause whose text the message before it
/// already ends with (typed errors that quote their source, such as "cannot read X: <io error>").
pub fn error_chain(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.ends_with(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}
