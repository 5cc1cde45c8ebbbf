//! `tenor backends`: the probe table, one line per device, and peer access between devices.
use std::process::ExitCode;

/// Prints each backend of the registry's table with its device or the reason it is
/// unavailable, and under it what it is; then every device of each backend (`cuda:0`,
/// `cuda:1`, `sim:0` ...; `TENOR_SIM_DEVICES` simulated devices) and, for backends with
/// several, whether each pair has peer access (`cuDeviceCanAccessPeer` on CUDA; `n/a` where the
/// question does not apply).
pub fn run() -> anyhow::Result<ExitCode> {
    for ((name, probe), row) in tenor_registry::probe_all().into_iter().zip(tenor_registry::BACKENDS) {
        match probe {
            Ok(info) => println!("{name:8} available    {} (fp64: {})", info.name, info.fp64),
            Err(e) => println!("{name:8} unavailable  {e}"),
        }
        let feature = row.feature.map_or_else(|| "always built".to_owned(), |f| format!("feature `{f}`"));
        println!("{:8} {} ({feature})", "", row.description);
    }
    println!("devices (select one with --backend NAME:N, all with NAME:*, a range with NAME:A..B):");
    for (label, line) in tenor_registry::list_devices() {
        match line {
            Ok(text) => println!("  {label:10} {text}"),
            Err(e) => println!("  {label:10} unavailable: {e}"),
        }
    }
    Ok(ExitCode::SUCCESS)
}
