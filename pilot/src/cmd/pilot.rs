//! `tenor pilot run`: the pilot (see `crate::pilot`).
use std::path::PathBuf;
use std::process::ExitCode;

use tenor_pilot::pilot::{self, Suite};

/// Arguments of `tenor pilot run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Backends to measure (comma-separated; default: every device backend of the registry's
    /// table); unavailable ones are reported with the reason.
    #[arg(long, value_delimiter = ',', default_values_t = tenor_registry::devices().into_iter().map(String::from))]
    pub backends: Vec<String>,
    /// Sweep to run.
    #[arg(long, value_enum, default_value_t = Suite::Quick)]
    pub suite: Suite,
    /// Output folder for pilot.json, pilot.md and the SVG charts.
    #[arg(long, default_value = "pilot-report")]
    pub out: PathBuf,
    /// Largest device memory one workload may take, in MiB.
    #[arg(long, default_value_t = 2048)]
    pub max_mib: u64,
    /// Peer results (JSON lines of {peer, workload, size, unit, rate}, as written by
    /// `benches/numpy_mc.py --jsonl` and `benches/peers/mc_peers.py --jsonl`) to merge into the
    /// report; each is compared with the pilot's row at the same size, or at the largest measured
    /// size below it. Repeatable.
    #[arg(long)]
    pub peers: Vec<PathBuf>,
    /// Also measure scaling over the devices of this selector (`cuda:*`, `sim:*` with
    /// `TENOR_SIM_DEVICES`, `sim:0..3`): the fused Monte Carlo workloads and the mixed book over
    /// 1..N devices, the book checked bitwise against one device (a difference fails the run).
    #[arg(long)]
    pub devices: Option<String>,
}

/// Runs the pilot and writes the report.
pub fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    use anyhow::Context as _;
    let opts = pilot::Options {
        backends: args.backends.clone(),
        suite: args.suite,
        max_bytes: args.max_mib << 20,
        devices: args.devices.clone(),
    };
    let mut report = pilot::run(&opts)?;
    for p in &args.peers {
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
    let files = pilot::report::write(&report, &args.out)?;
    for f in files {
        println!("wrote {}", f.display());
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
    if bad.is_empty() && report.switch.iter().all(|s| s.correct) {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("disagreement with the CPU reference or a wrong first price: {}", bad.join(", "));
        Ok(ExitCode::FAILURE)
    }
}

/// Arguments of `tenor pilot devices`.
#[derive(Debug, clap::Args)]
pub struct DevicesArgs {
    /// The devices: `cuda:*`, `sim:*` (with `TENOR_SIM_DEVICES`), `sim:0..3`, ...
    #[arg(long)]
    pub devices: String,
    /// Sizes: `quick`, or `default` (device-filling sizes on a GPU).
    #[arg(long, value_enum, default_value_t = Suite::Quick)]
    pub suite: Suite,
    /// Largest device memory one workload may take on one device, in MiB.
    #[arg(long, default_value_t = 2048)]
    pub max_mib: u64,
    /// Output folder for devices.json and devices.md.
    #[arg(long, default_value = "pilot-devices")]
    pub out: PathBuf,
}

/// Measures the scaling over devices alone and writes `devices.json` and `devices.md`
/// (atomically); exit status 1 when the book on several devices differs from one device.
pub fn devices(args: &DevicesArgs) -> anyhow::Result<ExitCode> {
    use anyhow::Context as _;
    let set = tenor_registry::open_devices(&args.devices).with_context(|| format!("--devices {}", args.devices))?;
    let env = pilot::devices::environment(&set);
    let rows = pilot::devices::measure(&args.devices, &set, args.suite, args.max_mib << 20)?;
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    let json = args.out.join("devices.json");
    let value = serde_json::json!({ "selector": args.devices, "environment": env, "rows": rows });
    tenor_ports::files::write_atomic(&json, serde_json::to_string_pretty(&value)?.as_bytes())?;
    let md = args.out.join("devices.md");
    let table = pilot::report::devices_markdown(&env, &rows);
    tenor_ports::files::write_atomic(&md, table.as_bytes())?;
    print!("{table}");
    println!("wrote {}\nwrote {}", json.display(), md.display());
    if rows.iter().all(|r| r.identical) {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("the book on several devices differs from one device");
        Ok(ExitCode::FAILURE)
    }
}

/// Arguments of `tenor pilot kernel`.
#[derive(Debug, clap::Args)]
pub struct KernelArgs {
    /// The kernel folder: kernel.toml, pilot.toml and the sources it has.
    pub dir: PathBuf,
    /// Backends to try (default: every device backend of the registry's table; those without a
    /// source for the kernel are reported and skipped).
    #[arg(long, value_delimiter = ',', default_values_t = tenor_registry::devices().into_iter().map(String::from))]
    pub backends: Vec<String>,
    /// Backend whose outputs the others are checked against (besides the reference file). It must
    /// be a known, available backend with a source for the kernel, or the command fails naming it.
    #[arg(long)]
    pub reference: Option<String>,
    /// Output folder for kernel.json and kernel.md (tables; no chart).
    #[arg(long, default_value = "pilot-kernel-report")]
    pub out: PathBuf,
    /// Time budget per measurement, seconds (finite and > 0).
    #[arg(long, default_value_t = 0.5, value_parser = positive_seconds)]
    pub budget: f64,
}

/// Parses a time budget in seconds: finite and > 0 (clap names the flag in the error).
fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        Ok(v) => Err(format!("{v} is not allowed; seconds must be finite and > 0")),
        Err(e) => Err(format!("`{s}` is not a number of seconds (finite and > 0): {e}")),
    }
}

/// Benchmarks and checks an in-house kernel.
pub fn kernel(args: &KernelArgs) -> anyhow::Result<ExitCode> {
    use anyhow::Context as _;
    use std::fmt::Write as _;
    use tenor_pilot::pilot::inhouse;
    let k = inhouse::load(&args.dir)?;
    let reference_file = inhouse::reference_outputs(&k)?;
    if let Some(r) = &args.reference {
        // An unusable reference is an error, never a silent "unchecked".
        tenor_registry::open(r).with_context(|| format!("--reference {r}: backend cannot be opened"))?;
        if !k.def.sources.contains_key(r.as_str()) {
            anyhow::bail!(
                "--reference {r}: {} has no {r} source for kernel {} (the CPU backend runs built-in kernels only)",
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
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
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
    print!("{md}");
    if rows.is_empty() {
        eprintln!("no backend could run {}", k.def.name);
        return Ok(ExitCode::FAILURE);
    }
    Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}
