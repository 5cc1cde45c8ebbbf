//! One module per subcommand.
pub mod alloc;
mod alloc_charts;
mod alloc_device;
mod alloc_record;
mod alloc_stats;
pub mod backends;
pub mod backtest;
pub mod book;
pub mod calibrate;
pub mod certify;
mod open_backend;
pub mod paths;
pub mod pilot;
pub mod price;
pub mod serve;
pub mod surface;

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
