//! The allocation workflows on a trace (`tenor alloc profile|replay|advise`): a trace from a
//! file, the synthetic pricing desk, or a pricing run of Tenor's own kernels on the CPU backend
//! recorded as it runs; its profile, its replay against every strategy, a recommendation.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use tenor_alloc::advisor::Profile;
use tenor_alloc::desk::{desk_trace, DeskConfig};
use tenor_alloc::replay::{replay, Kind, ReplayOptions, ReplayResult};
use tenor_alloc::{Recorder, Trace};
use tenor_ports::Progress;

use super::pricing::{run_pricing, PricingRun};
use crate::report::Report;

/// Where a trace comes from.
#[derive(Debug, Clone)]
pub enum TraceSource {
    /// A trace file (`tenor-alloc trace v1`).
    File(PathBuf),
    /// The synthetic pricing desk with `jobs` jobs (its default when `None`) and `seed`.
    Desk {
        /// Jobs (at least 1).
        jobs: Option<usize>,
        /// Seed of the desk.
        seed: u64,
    },
    /// A recorded run of Tenor's Monte Carlo kernels on the CPU backend with `jobs` jobs.
    Pricing {
        /// Jobs (at least 1).
        jobs: Option<usize>,
    },
}

/// A trace to study and where its charts go.
#[derive(Debug, Clone)]
pub struct TraceRequest {
    /// The trace.
    pub source: TraceSource,
    /// Also write the trace to this file.
    pub save_trace: Option<PathBuf>,
    /// Folder for the SVG charts.
    pub out: PathBuf,
}

/// The trace of `c`, saved when asked; notes go to `report`.
///
/// # Errors
/// An unreadable or malformed trace file, a failed pricing run, an unwritable copy.
pub fn load(c: &TraceRequest, report: &mut Report) -> anyhow::Result<Trace> {
    let trace = match &c.source {
        TraceSource::File(path) => super::trace::read_trace(path)?,
        TraceSource::Desk { jobs, seed } => {
            let mut cfg = DeskConfig { seed: *seed, ..DeskConfig::default() };
            cfg.jobs = jobs.unwrap_or(cfg.jobs);
            desk_trace(&cfg)
        }
        TraceSource::Pricing { jobs } => {
            let recorder = Arc::new(Recorder::new(tenor_registry::host_memory()));
            let dev = tenor_registry::open_over("cpu", recorder.clone())?;
            let mut run = PricingRun::default();
            run.jobs = jobs.unwrap_or(run.jobs);
            let priced = run_pricing(dev.as_ref(), &run)?;
            report.line(format!("recorded a pricing run of {} jobs", priced.len()));
            recorder.trace()
        }
    };
    if let Some(path) = &c.save_trace {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            tenor_ports::files::create_folder(dir)?;
        }
        tenor_ports::files::write_atomic(path, trace.to_text().as_bytes())?;
        report.line(format!("trace written to {}", path.display()));
    }
    Ok(trace)
}

fn out_file(dir: &Path, name: &str) -> anyhow::Result<PathBuf> {
    tenor_ports::files::create_folder(dir)?;
    Ok(dir.join(name))
}

fn mib(b: usize) -> f64 {
    b as f64 / (1u64 << 20) as f64
}

/// Sizes, lifetimes, streams and per-job high watermarks of the trace of `c`; writes
/// `size_histogram.svg` into its folder.
///
/// # Errors
/// As [`load`], and an unwritable chart.
pub fn profile(c: &TraceRequest) -> anyhow::Result<Report> {
    let mut report = Report::default();
    let trace = load(c, &mut report)?;
    let p = Profile::from_trace(&trace);
    let hist = super::trace::size_histogram(&trace);
    let frees = super::trace::frees(&trace);
    report.line(format!("events            {}", trace.events.len()));
    report.line(format!("allocations       {} ({} freed)", p.allocs, frees));
    report.line(format!(
        "peak used         {:.2} MiB (requested bytes of live allocations)",
        mib(trace.peak_live_bytes())
    ));
    report.line(format!("distinct sizes    {} (256 B granularity)", p.distinct_sizes()));
    report.line(format!(
        "size quantiles    p5 {} B, p50 {} B, p95 {} B, max {} B",
        p.quantile(0.05),
        p.quantile(0.5),
        p.quantile(0.95),
        p.quantile(1.0)
    ));
    report.line(format!("small (< 1 MiB)   {:.1} %", 100.0 * p.small_share));
    report.line(format!("short-lived       {:.1} % freed within 64 allocator calls", 100.0 * p.short_lived_share));
    report.line(format!("streams / threads {} / {}", p.streams, p.threads));
    report.line("\nsize bucket        allocations");
    for (k, n) in hist.iter().enumerate().filter(|(_, n)| **n > 0) {
        report.line(format!("  2^{k:<2} .. 2^{:<2}   {n:>8}", k + 1));
    }
    let mut jobs: Vec<(u64, usize)> = p.job_peaks.iter().map(|(j, b)| (*j, *b)).collect();
    jobs.sort_by_key(|j| std::cmp::Reverse(j.1));
    report.line("\nper-job high watermarks (largest 5; job 0 = outside any job)");
    for (j, b) in jobs.iter().take(5) {
        report.line(format!("  job {j:>5}  {:>10.2} MiB", mib(*b)));
    }
    let path = out_file(&c.out, "size_histogram.svg")?;
    super::charts::size_histogram(&path, &hist)?;
    report.line(format!("\nchart: {}", path.display()));
    Ok(report)
}

fn run_replays(
    trace: &Trace,
    opts: &ReplayOptions,
    kinds: &[Kind],
    progress: &dyn Progress,
) -> anyhow::Result<Vec<ReplayResult>> {
    progress.start((trace.events.len() * kinds.len()) as u64);
    let mut out = Vec::new();
    for (i, &kind) in kinds.iter().enumerate() {
        progress.message(kind.name());
        let base = (i * trace.events.len()) as u64;
        let r = replay(trace, kind, opts, &tenor_registry::checked_device, &mut |done| {
            progress.set(base + done as u64);
        })
        .with_context(|| format!("replaying against {}", kind.name()))?;
        out.push(r);
    }
    progress.finish();
    Ok(out)
}

/// How to replay a trace ([`replay_all`]).
#[derive(Debug, Clone)]
pub struct ReplayRequest {
    /// The trace and the charts' folder.
    pub trace: TraceRequest,
    /// Let the caching allocator reuse opportunistically (not deterministic).
    pub opportunistic: bool,
    /// Host synchronisation every this many events (at least 1).
    pub sync_every: usize,
    /// A timed replay on a backend's streams (`cuda`, `sim`); `None`: the hazard-checking
    /// replay on the simulated device.
    pub backend: Option<String>,
    /// With a backend: loop the trace for this many seconds in all.
    pub soak: Option<f64>,
}

/// Replays the trace against every strategy on the simulated device (or, with a backend, timed
/// on it: [`super::device::run`]); writes `reserved_used.svg`. Exit status 1 when a strategy
/// let a hazard through or left memory reserved.
///
/// # Errors
/// As [`load`], replay errors, an unwritable chart.
pub fn replay_all(r: &ReplayRequest, progress: &dyn Progress) -> anyhow::Result<Report> {
    let mut report = Report::default();
    let trace = load(&r.trace, &mut report)?;
    if let Some(backend) = &r.backend {
        let mut timed = super::device::run(&trace, backend, r.soak, &r.trace.out, progress)?;
        timed.out.insert_str(0, &report.out);
        return Ok(timed);
    }
    let opts = ReplayOptions { deterministic: !r.opportunistic, sync_every: r.sync_every, ..ReplayOptions::default() };
    let results = run_replays(&trace, &opts, &Kind::ALL, progress)?;
    report.line(format!(
        "{:<9} {:<22} {:>12} {:>10} {:>9} {:>10} {:>8} {:>10} {:>7} {:>7}",
        "strategy",
        "configuration",
        "reserved MiB",
        "used MiB",
        "res/used",
        "frag mean",
        "waits",
        "ns/op",
        "fails",
        "hazards"
    ));
    for x in &results {
        report.line(format!(
            "{:<9} {:<22} {:>12.2} {:>10.2} {:>9.3} {:>9.1}% {:>8} {:>10.0} {:>7} {:>7}",
            x.kind.name(),
            x.name,
            mib(x.peak_reserved),
            mib(x.peak_used),
            x.overhead(),
            100.0 * x.fragmentation_mean,
            x.inserted_waits,
            x.ns_per_op,
            x.failures,
            x.hazards.len()
        ));
    }
    let path = out_file(&r.trace.out, "reserved_used.svg")?;
    super::charts::reserved_over_time(&path, &results)?;
    report.line(format!("\nchart: {}", path.display()));
    let bad = results.iter().any(|x| !x.hazards.is_empty() || x.left_reserved != 0);
    report.code = u8::from(bad);
    Ok(report)
}

/// Recommends a strategy, bin exponents and a per-job cap from the profile of the trace of `c`
/// and a pool replay.
///
/// # Errors
/// As [`load`], replay errors.
pub fn advise(c: &TraceRequest, progress: &dyn Progress) -> anyhow::Result<Report> {
    let mut report = Report::default();
    let trace = load(c, &mut report)?;
    let pool = run_replays(&trace, &ReplayOptions::default(), &[Kind::Pool], progress)?;
    let a = tenor_alloc::advisor::advise(&Profile::from_trace(&trace), &pool[0]);
    report.line(format!("recommendation: {}", a.choice.describe()));
    for reason in &a.reasons {
        report.line(format!("  - {reason}"));
    }
    report.line(format!("binning exponents: 2^{} .. 2^{}", a.bin_exponents.0, a.bin_exponents.1));
    report.line(format!("slab classes (bytes): {:?}", a.classes));
    if a.job_cap == usize::MAX {
        report.line("per-job cap: none (the trace has no jobs)");
    } else {
        report.line(format!("per-job cap: {:.0} MiB (largest job's high watermark + 25 %)", mib(a.job_cap)));
    }
    Ok(report)
}
