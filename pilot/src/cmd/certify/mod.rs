//! `tenor certify` and `tenor compare`: the regression suite that certifies an environment
//! (driver, toolkit, libraries, Tenor build) as a baseline folder, and the comparison of a
//! candidate environment with it (PROMOTE or REJECT), as the seed's "Validating a CUDA driver
//! upgrade" asks (docs/certify.md).

mod compare;
mod format;
mod libs;
mod report;
mod suite;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressStyle};
use tenor_ports::Compute;

use format::{Baseline, BaselineError, FloorRow, Manifest, Part, FORMAT_VERSION};
use suite::{Inputs, SuiteKind};

/// Arguments of `tenor certify`.
#[derive(Debug, clap::Args)]
pub struct CertifyArgs {
    /// Backend to certify (`tenor backends` lists them).
    #[arg(long, env = "TENOR_BACKEND", default_value = "cpu", help = tenor_registry::help())]
    pub backend: String,
    /// `quick` (seconds; runs without the shared folder, recording what it skipped) or
    /// `default` (the whole book at full sizes).
    #[arg(long, value_enum, default_value_t = SuiteKind::Default)]
    pub suite: SuiteKind,
    /// The baseline folder to write (must not exist; written atomically).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub inputs: InputArgs,
}

/// Where the suite's inputs are.
#[derive(Debug, clap::Args)]
pub struct InputArgs {
    /// The repository's examples folder (spx_book.csv, data/spx_cboe_2025-10-01).
    #[arg(long, default_value = "examples")]
    pub examples: PathBuf,
    /// The shared folder (oracles/, data/equities/); parts needing it are skipped, and recorded
    /// as skipped, when it is absent.
    #[arg(long, env = "TENOR_SHARED", default_value = "../shared")]
    pub shared: PathBuf,
}

/// Arguments of `tenor compare`.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// The baseline folder written by `tenor certify`.
    pub baseline: PathBuf,
    /// Folder for report.md, report.json and latency.svg (must not exist).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// `check`: a latency regression rejects (the promotion gate, on a quiet machine);
    /// `report`: latencies are measured and reported but only values decide (a shared or busy
    /// machine, where wall-clock times move with the load, not with the build).
    #[arg(long, value_enum, default_value_t = LatencyMode::Check)]
    pub latency: LatencyMode,
    #[command(flatten)]
    pub inputs: InputArgs,
}

/// What `tenor compare` does with latency regressions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LatencyMode {
    /// A regression rejects.
    Check,
    /// Regressions are reported; only values decide.
    Report,
}

/// Environment settings that change what a backend computes or which libraries it loads.
const SETTINGS: [&str; 5] =
    ["TENOR_CUDA_NVRTC_EXTRA", "TENOR_CUDA_DETERMINISTIC", "TENOR_ENV_LOCK", "TENOR_ENV_IMAGE", "LD_LIBRARY_PATH"];

fn settings() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> =
        SETTINGS.iter().map(|k| ((*k).to_owned(), std::env::var(k).unwrap_or_else(|_| "unset".into()))).collect();
    if let Some(lock) = std::env::var_os("TENOR_ENV_LOCK") {
        let hash = libs::sha256_file(std::path::Path::new(&lock)).unwrap_or_else(|e| format!("unreadable: {e}"));
        v.push(("TENOR_ENV_LOCK.sha256".into(), hash));
    }
    v
}

/// The feature floors: fp64, the built-in kernels loading, and on CUDA the driver API version
/// that stream-ordered allocation (memory pools) needs (11.2).
fn floors(dev: &dyn Compute) -> Vec<FloorRow> {
    let info = dev.info();
    let mut v = vec![FloorRow {
        feature: "fp64".into(),
        required: "yes".into(),
        found: if info.fp64 { "yes" } else { "no" }.into(),
        status: if info.fp64 { "ok" } else { "missing" }.into(),
    }];
    let mut failed = Vec::new();
    use tenor_kernels::typed::{
        CurveBuild, GbmPaths, HestonPrice, McAsian, McAsianF32, McBarrier, McEuropean, McEuropeanF32, PayoffAsian,
    };
    for k in [
        GbmPaths::NAME,
        PayoffAsian::NAME,
        McEuropean::NAME,
        McEuropeanF32::NAME,
        McAsian::NAME,
        McAsianF32::NAME,
        McBarrier::NAME,
        CurveBuild::NAME,
        HestonPrice::NAME,
    ] {
        if let Err(e) = tenor_kernels::get(k).and_then(|d| dev.load_kernel(d)) {
            failed.push(format!("{k}: {e}"));
        }
    }
    v.push(FloorRow {
        feature: "built-in kernels load".into(),
        required: "all 9 the suite launches".into(),
        found: if failed.is_empty() { "all".into() } else { failed.join("; ") },
        status: if failed.is_empty() { "ok" } else { "missing" }.into(),
    });
    let driver_api = info.versions.iter().find(|(k, _)| k == "cuda-driver-api").map(|(_, v)| v.clone());
    let (found, status) = match &driver_api {
        None => (format!("{} backend: its own allocator", info.backend), "n/a".to_owned()),
        Some(ver) => {
            let mut it = ver.split('.').map(|x| x.trim().parse::<u32>().unwrap_or(0));
            let (major, minor) = (it.next().unwrap_or(0), it.next().unwrap_or(0));
            (format!("CUDA driver API {ver}"), if (major, minor) >= (11, 2) { "ok" } else { "missing" }.to_owned())
        }
    };
    v.push(FloorRow {
        feature: "stream-ordered allocation (memory pools)".into(),
        required: "CUDA driver API >= 11.2".into(),
        found,
        status,
    });
    v
}

fn progress(len: u64) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// Runs the whole suite on `backend`.
fn run_suite(backend: &str, kind: SuiteKind, inputs: &Inputs) -> anyhow::Result<Baseline> {
    let dev: Arc<dyn Compute> =
        tenor_registry::open(backend).with_context(|| format!("opening backend {backend:?}"))?;
    let bar = progress(6);
    let mut parts = Vec::new();
    let mut values = Vec::new();
    let mut latency = Vec::new();
    let mut record = |name: &str, r: Result<suite::PartResult, suite::Skipped>, parts: &mut Vec<Part>| match r {
        Ok(p) => {
            parts.push(Part {
                name: name.into(),
                status: "ran".into(),
                reason: String::new(),
                file: format!("results/{name}.csv"),
                rows: p.rows.len(),
            });
            values.push((name.to_owned(), p.rows));
            latency.push(p.latency);
        }
        Err(suite::Skipped(reason)) => {
            parts.push(Part { name: name.into(), status: "skipped".into(), reason, file: String::new(), rows: 0 })
        }
    };
    bar.set_message("book");
    record("book", Ok(suite::book(dev.as_ref(), inputs, kind).context("suite part book")?), &mut parts);
    bar.inc(1);
    bar.set_message("oracles");
    record("oracles", suite::oracles(inputs, kind).context("suite part oracles")?, &mut parts);
    bar.inc(1);
    bar.set_message("kernels");
    let (k, per_kernel) = suite::kernels(dev.as_ref(), kind).context("suite part kernels")?;
    record("kernels", Ok(k), &mut parts);
    bar.inc(1);
    bar.set_message("heston");
    record("heston", Ok(suite::heston(dev.as_ref(), inputs, kind).context("suite part heston")?), &mut parts);
    bar.inc(1);
    bar.set_message("strategy");
    record("strategy", suite::strategy(dev.clone(), inputs, kind).context("suite part strategy")?, &mut parts);
    bar.inc(1);
    bar.set_message("alloc");
    record("alloc", Ok(suite::alloc(kind).context("suite part alloc")?), &mut parts);
    bar.inc(1);
    bar.finish_and_clear();
    latency.extend(per_kernel);
    let floors = floors(dev.as_ref());
    let info = dev.info().clone();
    let env = tenor_pilot::pilot::env::fingerprint(vec![]);
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        suite: kind.name().into(),
        backend: info.backend.clone(),
        device: info.name.clone(),
        compute_units: info.compute_units,
        driver: info.driver_version.clone(),
        components: info.versions.clone(),
        libraries: libs::loaded(),
        tenor_version: env.tenor_version,
        commit: env.commit,
        dirty: env.dirty,
        host_cpu: env.cpu,
        host_cpus: env.cpus,
        os: env.os,
        unix_time: env.unix_time,
        settings: settings(),
        parts,
    };
    Ok(Baseline { manifest, floors, values, latency })
}

fn inputs(a: &InputArgs) -> Inputs {
    Inputs { examples: a.examples.clone(), shared: a.shared.clone() }
}

/// Runs `tenor certify`.
///
/// # Errors
/// An unavailable backend, a suite part that fails, a floor that is missing, or an unwritable
/// output.
pub fn certify(a: &CertifyArgs) -> anyhow::Result<ExitCode> {
    if a.out.exists() {
        anyhow::bail!("--out {} exists; certify writes a new folder (remove it or choose another)", a.out.display());
    }
    let b = run_suite(&a.backend, a.suite, &inputs(&a.inputs))?;
    let missing: Vec<String> =
        b.floors.iter().filter(|f| f.status == "missing").map(|f| format!("{}: {}", f.feature, f.found)).collect();
    if !missing.is_empty() {
        anyhow::bail!("feature floors not met, no baseline written: {}", missing.join("; "));
    }
    format::write(&a.out, &b)?;
    let rows: usize = b.values.iter().map(|(_, v)| v.len()).sum();
    println!(
        "certified suite {} on {} ({}): {} values in {} parts, {} latencies -> {}",
        b.manifest.suite,
        b.manifest.backend,
        b.manifest.device,
        rows,
        b.values.len(),
        b.latency.len(),
        a.out.display()
    );
    for p in b.manifest.parts.iter().filter(|p| p.status == "skipped") {
        println!("  skipped {}: {}", p.name, p.reason);
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses a candidate that ran another suite than the baseline: the suite name, and each part
/// run in one and skipped in the other.
fn same_suite(file: PathBuf, base: &Manifest, cand: &Manifest) -> Result<(), BaselineError> {
    if base.suite != cand.suite {
        return Err(BaselineError::SuiteMismatch {
            file,
            what: format!("suite {} against {}", base.suite, cand.suite),
        });
    }
    for b in &base.parts {
        let c = cand.parts.iter().find(|c| c.name == b.name);
        let cs = c.map_or("absent", |c| c.status.as_str());
        if cs != b.status {
            let why = |p: Option<&Part>| {
                p.filter(|p| !p.reason.is_empty()).map(|p| format!(" ({})", p.reason)).unwrap_or_default()
            };
            return Err(BaselineError::SuiteMismatch {
                file,
                what: format!(
                    "part {}: the baseline {}{}, the candidate {}{}",
                    b.name,
                    b.status,
                    why(Some(b)),
                    cs,
                    why(c)
                ),
            });
        }
    }
    Ok(())
}

/// Runs `tenor compare`: exit 0 on PROMOTE, 1 on REJECT.
///
/// # Errors
/// An unreadable or foreign baseline ([`BaselineError`]), a suite part that fails, an
/// unwritable report.
pub fn compare(a: &CompareArgs) -> anyhow::Result<ExitCode> {
    if let Some(out) = &a.out {
        if out.exists() {
            anyhow::bail!("--out {} exists; compare writes a new folder (remove it or choose another)", out.display());
        }
    }
    let base = format::read(&a.baseline)?;
    let manifest_file = a.baseline.join(format::MANIFEST);
    let dev = tenor_registry::open(&base.manifest.backend)
        .with_context(|| format!("opening backend {:?} (from {})", base.manifest.backend, manifest_file.display()))?;
    let here = dev.info().name.clone();
    drop(dev);
    if here != base.manifest.device {
        return Err(BaselineError::OtherDevice {
            file: manifest_file,
            what: "device model",
            baseline: base.manifest.device.clone(),
            candidate: here,
        }
        .into());
    }
    let kind = match base.manifest.suite.as_str() {
        "quick" => SuiteKind::Quick,
        "default" => SuiteKind::Default,
        other => {
            return Err(
                BaselineError::Malformed { file: manifest_file, what: format!("unknown suite {other:?}") }.into()
            )
        }
    };
    let ins = inputs(&a.inputs);
    let cand = run_suite(&base.manifest.backend, kind, &ins)?;
    same_suite(manifest_file, &base.manifest, &cand.manifest)?;
    let reference = if base.manifest.backend == "cpu" { None } else { Some(run_suite("cpu", kind, &ins)?) };
    let outcome = compare::compare(&base, &cand, reference.as_ref(), a.latency == LatencyMode::Check);
    print!("{}", report::markdown(&outcome, &base.manifest, &cand.manifest));
    if let Some(out) = &a.out {
        report::write(out, &outcome, &base.manifest, &cand.manifest)?;
        println!("wrote {}/{{report.md,report.json,latency.svg}}", out.display());
    }
    Ok(if outcome.verdict == "PROMOTE" { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
