//! The pilot's workflows for every door (`tenor pilot run|devices|kernel`): the harness
//! ([`tenor_pilot`]) run and its report written with peer results merged, the scaling over
//! devices alone, and an in-house kernel benchmarked and checked on every backend.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use tenor_pilot::{self as pilot, Suite};
use tenor_ports::Progress;

use crate::report::Report;

/// Runs the pilot with `opts`, merges the peer results of `peers` (JSON lines of {peer,
/// workload, size, unit, rate}) and writes the report (pilot.json, pilot.md and the SVG charts)
/// into `out`; exit status 1 when a backend disagrees with the CPU reference, the book on
/// several devices differs from one device, or a first price is wrong.
///
/// # Errors
/// A backend error during a measurement, an unreadable or malformed peer file, an unwritable
/// report.
pub fn run_to_folder(
    opts: &pilot::Options,
    peers: &[PathBuf],
    out: &Path,
    progress: &dyn Progress,
) -> anyhow::Result<Report> {
    let mut printed = Report::default();
    let mut report = pilot::run(opts, progress)?;
    for p in peers {
        let text = std::fs::read_to_string(p).with_context(|| format!("reading peer results {}", p.display()))?;
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let row: pilot::PeerRow = serde_json::from_str(line)
                .with_context(|| format!("{}:{}: not a peer result row", p.display(), i + 1))?;
            if !(row.rate.is_finite() && row.rate > 0.0) || row.size == 0 {
                anyhow::bail!(
                    "{}:{}: peer row needs a positive finite rate and a positive size, got rate {} size {}",
                    p.display(),
                    i + 1,
                    row.rate,
                    row.size
                );
            }
            report.peers.push(row);
        }
    }
    let files = pilot::report::write(&report, out)?;
    for f in files {
        printed.line(format!("wrote {}", f.display()));
    }
    let bad: Vec<String> = report
        .agreement
        .iter()
        .filter(|a| !a.agrees)
        .map(|a| format!("{} {}", a.backend, a.workload))
        .chain(
            report
                .devices
                .iter()
                .filter(|d| !d.identical)
                .map(|d| format!("{} book on {} devices", d.selector, d.devices)),
        )
        .collect();
    if !(bad.is_empty() && report.switch.iter().all(|s| s.correct)) {
        printed.warn(format!("disagreement with the CPU reference or a wrong first price: {}", bad.join(", ")));
        printed.code = 1;
    }
    Ok(printed)
}

/// Measures the scaling over devices alone and writes `devices.json` and `devices.md`
/// (atomically); exit status 1 when the book on several devices differs from one device.
///
/// # Errors
/// A selector that does not open, a measurement error, an unwritable output.
pub fn devices_to_folder(selector: &str, suite: Suite, max_bytes: u64, out: &Path) -> anyhow::Result<Report> {
    let mut printed = Report::default();
    let set = tenor_registry::open_devices(selector)
        .with_context(|| format!("{} {selector}", crate::words::setting("devices")))?;
    let env = pilot::devices::environment(&set);
    let rows = pilot::devices::measure(selector, &set, suite, max_bytes)?;
    tenor_ports::files::create_folder(out)?;
    let json = out.join("devices.json");
    let value = serde_json::json!({ "selector": selector, "environment": env, "rows": rows });
    tenor_ports::files::write_atomic(&json, serde_json::to_string_pretty(&value)?.as_bytes())?;
    let md = out.join("devices.md");
    let table = pilot::report::devices_markdown(&env, &rows);
    tenor_ports::files::write_atomic(&md, table.as_bytes())?;
    printed.out.push_str(&table);
    printed.line(format!("wrote {}\nwrote {}", json.display(), md.display()));
    if !rows.iter().all(|r| r.identical) {
        printed.warn("the book on several devices differs from one device");
        printed.code = 1;
    }
    Ok(printed)
}

/// An in-house kernel to benchmark and check ([`kernel_to_folder`]).
#[derive(Debug, Clone)]
pub struct KernelRequest {
    /// The kernel folder: kernel.toml, pilot.toml and the sources it has.
    pub dir: PathBuf,
    /// Backends to try (those without a source for the kernel are reported and skipped).
    pub backends: Vec<String>,
    /// Backend whose outputs the others are checked against (besides the reference file).
    pub reference: Option<String>,
    /// Output folder for kernel.json and kernel.md.
    pub out: PathBuf,
    /// Time budget per measurement, seconds.
    pub budget: f64,
}

/// Benchmarks and checks an in-house kernel on every backend of `args` that has a source for it,
/// and writes kernel.md and kernel.json; exit status 1 when a check failed or no backend could
/// run it.
///
/// # Errors
/// An unreadable kernel folder, an unusable reference backend, a failed run, an unwritable
/// output.
pub fn kernel_to_folder(args: &KernelRequest) -> anyhow::Result<Report> {
    use std::fmt::Write as _;
    use tenor_pilot::inhouse;
    let mut printed = Report::default();
    let k = inhouse::load(&args.dir)?;
    let reference_file = inhouse::reference_outputs(&k)?;
    if let Some(r) = &args.reference {
        // An unusable reference is an error, never a silent "unchecked".
        tenor_registry::open(r)
            .with_context(|| format!("{} {r}: backend cannot be opened", crate::words::setting("reference")))?;
        if !k.def.sources.contains_key(r.as_str()) {
            anyhow::bail!(
                "{} {r}: {} has no {r} source for kernel {} (the CPU backend runs built-in kernels only)",
                crate::words::setting("reference"),
                args.dir.display(),
                k.def.name
            );
        }
    }
    let mut order = args.backends.clone();
    if let Some(r) = &args.reference {
        order.retain(|b| b != r);
        order.insert(0, r.clone());
    }
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    let mut reference_runs: std::collections::BTreeMap<u64, inhouse::Outputs> = Default::default();
    let mut failed = false;
    for b in &order {
        let dev = match tenor_registry::open(b) {
            Ok(d) => d,
            Err(e) => {
                skipped.push(format!("{b}: {e}"));
                continue;
            }
        };
        if !k.def.sources.contains_key(b.as_str()) {
            skipped.push(format!("{b}: no {b} source in {}", args.dir.display()));
            continue;
        }
        for (i, &items) in k.spec.sizes.iter().enumerate() {
            let (out, warm) = inhouse::run_on(&k, &*dev, items, args.budget)
                .with_context(|| format!("{} on {b} at {items} items", k.def.name))?;
            let mut checks = Vec::new();
            if i == 0 {
                if let Some(reff) = &reference_file {
                    checks.push(match inhouse::compare(&out, reff, k.spec.check.rtol) {
                        Ok(()) => "ok against reference file".to_owned(),
                        Err(e) => {
                            failed = true;
                            format!("FAILED against reference file: {e}")
                        }
                    });
                }
            }
            if args.reference.as_deref() == Some(b.as_str()) {
                reference_runs.insert(items, out.clone());
            } else if let Some(r) = reference_runs.get(&items) {
                checks.push(match inhouse::compare(&out, r, k.spec.check.rtol) {
                    Ok(()) => format!("ok against {}", args.reference.as_deref().unwrap_or("-")),
                    Err(e) => {
                        failed = true;
                        format!("FAILED against {}: {e}", args.reference.as_deref().unwrap_or("-"))
                    }
                });
            }
            if let Err(e) = inhouse::compare(&out, &Default::default(), k.spec.check.rtol) {
                failed = true;
                checks.push(format!("FAILED: {e}"));
            }
            if checks.is_empty() {
                checks.push("unchecked: no reference file and no reference backend".into());
            }
            let per = |x: f64| x * items as f64 / warm.median_s;
            rows.push(inhouse::KernelRow {
                backend: b.clone(),
                items,
                items_per_s: per(1.0),
                gb_per_s: per(k.def.metrics.bytes_per_item) / 1e9,
                gflop_per_s: per(k.def.metrics.flops_per_item) / 1e9,
                warm,
                check: checks.join("; "),
            });
        }
    }
    tenor_ports::files::create_folder(&args.out)?;
    let mut md = String::new();
    let _ = writeln!(md, "# In-house kernel `{}`\n\n{}\n", k.def.name, k.def.description);
    let _ =
        writeln!(md, "| backend | items | median | items/s | GB/s | GFLOP/s | check |\n|---|---|---|---|---|---|---|");
    for r in &rows {
        let _ = writeln!(
            md,
            "| {} | {} | {:.3e} s | {:.3e} | {:.2} | {:.2} | {} |",
            r.backend, r.items, r.warm.median_s, r.items_per_s, r.gb_per_s, r.gflop_per_s, r.check
        );
    }
    if !skipped.is_empty() {
        let _ = writeln!(md, "\nNot run:\n");
        for s in &skipped {
            let _ = writeln!(md, "- {s}");
        }
    }
    let md_path = args.out.join("kernel.md");
    tenor_ports::files::write_atomic(&md_path, md.as_bytes())?;
    let json_path = args.out.join("kernel.json");
    tenor_ports::files::write_atomic(&json_path, serde_json::to_string_pretty(&rows)?.as_bytes())?;
    printed.out.push_str(&md);
    if rows.is_empty() {
        printed.warn(format!("no backend could run {}", k.def.name));
        printed.code = 1;
        return Ok(printed);
    }
    printed.code = u8::from(failed);
    Ok(printed)
}
