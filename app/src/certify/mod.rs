//! `tenor certify` and `tenor compare`: the regression suite that certifies an environment
//! (driver, toolkit, libraries, Tenor build) as a baseline folder, and the comparison of a
//! candidate environment with it (PROMOTE or REJECT), as the seed's "Validating a CUDA driver
//! upgrade" asks (docs/certify.md).

mod compare;
mod format;
mod libs;
mod read;
mod report;
mod suite;

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;
use tenor_pilot::BuildInfo;
use tenor_ports::progress::Steps;
use tenor_ports::{Compute, Progress};

use format::{Baseline, BaselineError, FloorRow, Manifest, Part, FORMAT_VERSION};
pub use suite::{Inputs, SuiteKind};

/// A certification: the suite to run on a backend and the baseline folder to write.
#[derive(Debug, Clone)]
pub struct CertifyRequest {
    /// Backend to certify.
    pub backend: String,
    /// `Quick` (seconds; runs without the shared folder, recording what it skipped) or
    /// `Default` (the whole book at full sizes).
    pub suite: SuiteKind,
    /// The baseline folder to write (must not exist; written atomically).
    pub out: PathBuf,
    /// Where the suite's inputs are.
    pub inputs: Inputs,
}

/// A comparison of this environment with a baseline.
#[derive(Debug, Clone)]
pub struct CompareRequest {
    /// The baseline folder written by [`certify`].
    pub baseline: PathBuf,
    /// Folder for report.md, report.json and latency.svg (must not exist).
    pub out: Option<PathBuf>,
    /// What a latency regression does.
    pub latency: LatencyMode,
    /// Where the suite's inputs are.
    pub inputs: Inputs,
}

/// What `compare` does with latency regressions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LatencyMode {
    /// A regression rejects (the promotion gate, on a quiet machine).
    Check,
    /// Regressions are reported; only values decide (a shared or busy machine).
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

/// Runs the whole suite on `backend`, a step of `progress` per part.
fn run_suite(
    backend: &str,
    kind: SuiteKind,
    inputs: &Inputs,
    build: &BuildInfo,
    progress: &dyn Progress,
) -> anyhow::Result<Baseline> {
    let dev: Arc<dyn Compute> =
        tenor_registry::open(backend).with_context(|| format!("opening backend {backend:?}"))?;
    let bar = Steps::new(progress, 6);
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
    progress.message("book");
    record("book", Ok(suite::book(dev.as_ref(), inputs, kind).context("suite part book")?), &mut parts);
    bar.inc();
    progress.message("oracles");
    record("oracles", suite::oracles(inputs, kind).context("suite part oracles")?, &mut parts);
    bar.inc();
    progress.message("kernels");
    let (k, per_kernel) = suite::kernels(dev.as_ref(), kind).context("suite part kernels")?;
    record("kernels", Ok(k), &mut parts);
    bar.inc();
    progress.message("heston");
    record("heston", Ok(suite::heston(dev.as_ref(), inputs, kind).context("suite part heston")?), &mut parts);
    bar.inc();
    progress.message("strategy");
    record("strategy", suite::strategy(dev.clone(), inputs, kind).context("suite part strategy")?, &mut parts);
    bar.inc();
    progress.message("alloc");
    record("alloc", Ok(suite::alloc(kind).context("suite part alloc")?), &mut parts);
    bar.inc();
    progress.finish();
    latency.extend(per_kernel);
    let floors = floors(dev.as_ref());
    let info = dev.info().clone();
    let env = tenor_pilot::env::fingerprint(vec![], build);
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

/// What [`certify`] wrote.
#[derive(Debug, Clone)]
pub struct Certified {
    /// The suite's name.
    pub suite: String,
    /// The backend certified.
    pub backend: String,
    /// Its device.
    pub device: String,
    /// Values recorded, over all parts.
    pub values: usize,
    /// Parts run.
    pub parts: usize,
    /// Latencies recorded.
    pub latencies: usize,
    /// Parts skipped, with the reason.
    pub skipped: Vec<(String, String)>,
}

/// Runs the suite of `req` and writes its baseline folder.
///
/// # Errors
/// The output exists, an unavailable backend, a suite part that fails, a floor that is missing,
/// or an unwritable output.
pub fn certify(req: &CertifyRequest, build: &BuildInfo, progress: &dyn Progress) -> anyhow::Result<Certified> {
    if req.out.exists() {
        anyhow::bail!("{} exists; certify writes a new folder (remove it or choose another)", req.out.display());
    }
    let b = run_suite(&req.backend, req.suite, &req.inputs, build, progress)?;
    let missing: Vec<String> =
        b.floors.iter().filter(|f| f.status == "missing").map(|f| format!("{}: {}", f.feature, f.found)).collect();
    if !missing.is_empty() {
        anyhow::bail!("feature floors not met, no baseline written: {}", missing.join("; "));
    }
    format::write(&req.out, &b)?;
    Ok(Certified {
        suite: b.manifest.suite.clone(),
        backend: b.manifest.backend.clone(),
        device: b.manifest.device.clone(),
        values: b.values.iter().map(|(_, v)| v.len()).sum(),
        parts: b.values.len(),
        latencies: b.latency.len(),
        skipped: b
            .manifest
            .parts
            .iter()
            .filter(|p| p.status == "skipped")
            .map(|p| (p.name.clone(), p.reason.clone()))
            .collect(),
    })
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

/// What [`compare`] decided.
#[derive(Debug, Clone)]
pub struct Compared {
    /// Whether the candidate is promoted (every value within its rule, and no latency
    /// regression under [`LatencyMode::Check`]).
    pub promote: bool,
    /// The report in Markdown (what `tenor compare` prints).
    pub markdown: String,
}

/// Reruns the baseline's suite here and compares; writes the report folder when asked.
///
/// # Errors
/// An unreadable or foreign baseline ([`BaselineError`]), a suite part that fails, an existing
/// or unwritable report folder.
pub fn compare(req: &CompareRequest, build: &BuildInfo, progress: &dyn Progress) -> anyhow::Result<Compared> {
    if let Some(out) = &req.out {
        if out.exists() {
            anyhow::bail!("{} exists; compare writes a new folder (remove it or choose another)", out.display());
        }
    }
    let base = format::read(&req.baseline)?;
    let manifest_file = req.baseline.join(format::MANIFEST);
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
    let ins = &req.inputs;
    let cand = run_suite(&base.manifest.backend, kind, ins, build, progress)?;
    same_suite(manifest_file, &base.manifest, &cand.manifest)?;
    let reference =
        if base.manifest.backend == "cpu" { None } else { Some(run_suite("cpu", kind, ins, build, progress)?) };
    compare::same_rules(&base, &cand)
        .map_err(|what| BaselineError::RulesDiffer { file: req.baseline.clone(), what })?;
    let outcome = compare::compare(&base, &cand, reference.as_ref(), req.latency == LatencyMode::Check);
    let mut markdown = report::markdown(&outcome, &base.manifest, &cand.manifest);
    if let Some(out) = &req.out {
        report::write(out, &outcome, &base.manifest, &cand.manifest)?;
        markdown += &format!("wrote {}/{{report.md,report.json,latency.svg}}\n", out.display());
    }
    Ok(Compared { promote: outcome.verdict == "PROMOTE", markdown })
}
