//! `tenor alloc stats FILE`: prints the statistics file `libtenor_alloc.so` (tools/alloc) writes
//! at exit (`TENOR_ALLOC_STATS`, JSON; docs/allocators.md "One pool for every library").

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use serde_json::Value;

/// Arguments of `tenor alloc stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// The statistics file (`TENOR_ALLOC_STATS` of a process that used libtenor_alloc.so).
    file: PathBuf,
}

/// Prints every field of the file, one per line, bytes also in MiB, then peak reserved over
/// peak used.
///
/// # Errors
/// The file cannot be read, or is not a JSON object (the message names the file, line and
/// column).
pub fn stats(args: &StatsArgs) -> anyhow::Result<ExitCode> {
    let path = args.file.display();
    let text = std::fs::read_to_string(&args.file).with_context(|| format!("reading {path}"))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!("{path}:{}:{}: not a libtenor_alloc statistics file: {e}", e.line(), e.column())
    })?;
    let fields = v.as_object().with_context(|| format!("{path}: expected a JSON object of statistics"))?;
    for (k, val) in fields {
        match val.as_u64() {
            Some(n) if k == "used" || k.starts_with("peak_") || k == "reserved" => {
                println!("{k:<20} {n} ({:.1} MiB)", n as f64 / 1048576.0)
            }
            _ => println!("{k:<20} {val}"),
        }
    }
    let n = |k: &str| fields.get(k).and_then(Value::as_u64);
    if let (Some(r), Some(u)) = (n("peak_reserved"), n("peak_used")) {
        if u > 0 {
            println!("{:<20} {:.3}", "reserved/used", r as f64 / u as f64);
        }
    }
    Ok(ExitCode::SUCCESS)
}
