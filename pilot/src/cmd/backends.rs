//! `tenor backends`: the probe table.
use std::process::ExitCode;

/// Prints each backend of the registry's table with its device or the reason it is
/// unavailable, and under it what it is.
pub fn run() -> anyhow::Result<ExitCode> {
    for ((name, probe), row) in tenor_registry::probe_all().into_iter().zip(tenor_registry::BACKENDS) {
        match probe {
            Ok(info) => println!("{name:8} available    {} (fp64: {})", info.name, info.fp64),
            Err(e) => println!("{name:8} unavailable  {e}"),
        }
        let feature = row.feature.map_or_else(|| "always built".to_owned(), |f| format!("feature `{f}`"));
        println!("{:8} {} ({feature})", "", row.description);
    }
    Ok(ExitCode::SUCCESS)
}
