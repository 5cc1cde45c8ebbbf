//! `tenor alloc stats FILE`: prints the statistics file `libtenor_allocator.so` (tools/allocator) writes
//! at exit (`TENOR_ALLOC_STATS`, JSON; docs/allocators.md "One pool for every library").

use std::path::Path;

use anyhow::Context;
use serde_json::Value;

use crate::report::Report;

/// Reports every field of the file, one per line, bytes also in MiB, then peak reserved over
/// peak used.
///
/// # Errors
/// The file cannot be read, or is not a JSON object (the message names the file, line and
/// column).
pub fn stats(file: &Path) -> anyhow::Result<Report> {
    let mut report = Report::default();
    let path = file.display();
    let text = std::fs::read_to_string(file).with_context(|| format!("reading {path}"))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!("{path}:{}:{}: not a libtenor_allocator statistics file: {e}", e.line(), e.column())
    })?;
    let fields = v.as_object().with_context(|| format!("{path}: expected a JSON object of statistics"))?;
    for (k, val) in fields {
        match val.as_u64() {
            Some(n) if k == "used" || k.starts_with("peak_") || k == "reserved" => {
                report.line(format!("{k:<20} {n} ({:.1} MiB)", n as f64 / 1048576.0))
            }
            _ => report.line(format!("{k:<20} {val}")),
        }
    }
    let n = |k: &str| fields.get(k).and_then(Value::as_u64);
    if let (Some(r), Some(u)) = (n("peak_reserved"), n("peak_used")) {
        if u > 0 {
            report.line(format!("{:<20} {:.3}", "reserved/used", r as f64 / u as f64));
        }
    }
    Ok(report)
}
