//! `tenor backends`: the probe table.
use std::process::ExitCode;

/// Prints each known backend with its device or the reason it is unavailable.
pub fn run() -> anyhow::Result<ExitCode> {
    for (name, probe) in tenor_registry::probe_all() {
        match probe {
            Ok(info) => println!("{name:8} available    {} (fp64: {})", info.name, info.fp64),
            Err(e) => println!("{name:8} unavailable  {e}"),
        }
    }
    Ok(ExitCode::SUCCESS)
}
