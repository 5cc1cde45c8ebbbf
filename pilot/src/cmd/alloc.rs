//! `tenor alloc profile|replay|advise|record|stats`: the allocation toolkit on a trace.
//!
//! The trace comes from a file in the `tenor-alloc trace v1` format (docs/allocators.md), from
//! the synthetic pricing desk (`--desk`, the default), or from a pricing run of Tenor's own
//! kernels on the CPU backend recorded as it runs (`--pricing`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use tenor_alloc::advisor::{advise, Profile};
use tenor_alloc::desk::{desk_trace, DeskConfig};
use tenor_alloc::replay::{replay, Kind, ReplayOptions, ReplayResult};
use tenor_alloc::{Recorder, Trace};
use tenor_pilot::alloc_pricing::{run_pricing, PricingRun};

use super::alloc_charts;

/// Arguments of `tenor alloc`.
#[derive(Debug, Args)]
pub struct AllocArgs {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// Sizes, lifetimes, streams, per-job high watermarks; writes size_histogram.svg.
    Profile(Common),
    /// Replays the trace against every strategy on the simulated device; writes reserved_used.svg
    /// (`--backend cuda [--soak SECONDS]`: timed on the GPU, see docs/allocators.md section 10).
    Replay(ReplayArgs),
    /// Recommends a strategy, bin exponents and a per-job cap from the profile and a pool replay.
    Advise(Common),
    /// Runs any program with libtenor_trace.so preloaded and writes its device allocations as a
    /// trace (`tenor alloc record --out run.trace -- ./pricer args`).
    Record(super::alloc_record::RecordArgs),
    /// Prints the statistics file libtenor_alloc.so writes at exit (`TENOR_ALLOC_STATS`).
    Stats(super::alloc_stats::StatsArgs),
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Source {
    /// The synthetic pricing desk.
    Desk,
    /// A recorded run of Tenor's Monte Carlo kernels on the CPU backend.
    Pricing,
}

#[derive(Debug, Args)]
struct Common {
    /// Trace file (`tenor-alloc trace v1`); overrides --source.
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Where the trace comes from when no file is given.
    #[arg(long, value_enum, default_value = "desk")]
    source: Source,
    /// Jobs of the synthetic desk or of the pricing run (at least 1).
    #[arg(long, value_parser = at_least_one)]
    jobs: Option<usize>,
    /// Seed of the synthetic desk.
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// Also write the trace to this file.
    #[arg(long)]
    save_trace: Option<PathBuf>,
    /// Directory for the SVG charts.
    #[arg(long, default_value = ".")]
    out: PathBuf,
}

#[derive(Debug, Args)]
struct ReplayArgs {
    #[command(flatten)]
    common: Common,
    /// Let the caching allocator reuse opportunistically (not deterministic).
    #[arg(long)]
    opportunistic: bool,
    /// Host synchronisation every this many events (at least 1).
    #[arg(long, default_value_t = 16, value_parser = at_least_one)]
    sync_every: usize,
    /// Timed replay on a backend's streams (`cuda`: the driver pool at each threshold and reuse
    /// policy, cuMemAlloc and every strategy over Tenor's pool; `sim`: the simulated device);
    /// without it, the hazard-checking replay on the simulated device.
    #[arg(long)]
    backend: Option<String>,
    /// With --backend: loop the trace (bursty, seeded idle gaps between jobs) for this many
    /// seconds in all, split evenly between the targets.
    #[arg(long, requires = "backend", value_parser = positive_seconds)]
    soak: Option<f64>,
}

/// Parses a positive number of seconds.
fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        Ok(_) => Err(format!("`{s}` is not a positive number of seconds")),
        Err(e) => Err(format!("`{s}` is not a number of seconds: {e}")),
    }
}

/// Parses a count that must be at least 1 (clap names the flag in the error).
fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("0 is not allowed; the value must be a whole number of at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("`{s}` is not a whole number of at least 1: {e}")),
    }
}

/// Runs `tenor alloc`.
pub fn run(args: AllocArgs) -> anyhow::Result<ExitCode> {
    match args.action {
        Action::Profile(c) => profile(&c),
        Action::Replay(r) => replay_all(&r),
        Action::Advise(c) => advise_cmd(&c),
        Action::Record(r) => super::alloc_record::record(&r),
        Action::Stats(s) => super::alloc_stats::stats(&s),
    }
}

fn load(c: &Common) -> anyhow::Result<Trace> {
    let trace = if let Some(path) = &c.trace {
        tenor_pilot::alloc_trace::read_trace(path)?
    } else {
        match c.source {
            Source::Desk => {
                let mut cfg = DeskConfig { seed: c.seed, ..DeskConfig::default() };
                cfg.jobs = c.jobs.unwrap_or(cfg.jobs);
                desk_trace(&cfg)
            }
            Source::Pricing => {
                let recorder = Arc::new(Recorder::new(tenor_registry::host_memory()));
                let dev = tenor_registry::open_over("cpu", recorder.clone())?;
                let mut run = PricingRun::default();
                run.jobs = c.jobs.unwrap_or(run.jobs);
                let priced = run_pricing(dev.as_ref(), &run)?;
                println!("recorded a pricing run of {} jobs", priced.len());
                recorder.trace()
            }
        }
    };
    if let Some(path) = &c.save_trace {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        tenor_ports::files::write_atomic(path, trace.to_text().as_bytes())?;
        println!("trace written to {}", path.display());
    }
    Ok(trace)
}

fn out_file(dir: &Path, name: &str) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir.join(name))
}

fn mib(b: usize) -> f64 {
    b as f64 / (1u64 << 20) as f64
}

fn profile(c: &Common) -> anyhow::Result<ExitCode> {
    let trace = load(c)?;
    let p = Profile::from_trace(&trace);
    let hist = tenor_pilot::alloc_trace::size_histogram(&trace);
    let frees = tenor_pilot::alloc_trace::frees(&trace);
    println!("events            {}", trace.events.len());
    println!("allocations       {} ({} freed)", p.allocs, frees);
    println!("peak used         {:.2} MiB (requested bytes of live allocations)", mib(trace.peak_live_bytes()));
    println!("distinct sizes    {} (256 B granularity)", p.distinct_sizes());
    println!(
        "size quantiles    p5 {} B, p50 {} B, p95 {} B, max {} B",
        p.quantile(0.05),
        p.quantile(0.5),
        p.quantile(0.95),
        p.quantile(1.0)
    );
    println!("small (< 1 MiB)   {:.1} %", 100.0 * p.small_share);
    println!("short-lived       {:.1} % freed within 64 allocator calls", 100.0 * p.short_lived_share);
    println!("streams / threads {} / {}", p.streams, p.threads);
    println!("\nsize bucket        allocations");
    for (k, n) in hist.iter().enumerate().filter(|(_, n)| **n > 0) {
        println!("  2^{k:<2} .. 2^{:<2}   {n:>8}", k + 1);
    }
    let mut jobs: Vec<(u64, usize)> = p.job_peaks.iter().map(|(j, b)| (*j, *b)).collect();
    jobs.sort_by_key(|j| std::cmp::Reverse(j.1));
    println!("\nper-job high watermarks (largest 5; job 0 = outside any job)");
    for (j, b) in jobs.iter().take(5) {
        println!("  job {j:>5}  {:>10.2} MiB", mib(*b));
    }
    let path = out_file(&c.out, "size_histogram.svg")?;
    alloc_charts::size_histogram(&path, &hist)?;
    println!("\nchart: {}", path.display());
    Ok(ExitCode::SUCCESS)
}

fn run_replays(trace: &Trace, opts: &ReplayOptions, kinds: &[Kind]) -> anyhow::Result<Vec<ReplayResult>> {
    let total = (trace.events.len() * kinds.len()) as u64;
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{msg:10} [{bar:40}] {pos}/{len} events ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let mut out = Vec::new();
    for (i, &kind) in kinds.iter().enumerate() {
        bar.set_message(kind.name());
        let base = (i * trace.events.len()) as u64;
        let r = replay(trace, kind, opts, &tenor_registry::checked_device, &mut |done| {
            bar.set_position(base + done as u64)
        })
        .with_context(|| format!("replaying against {}", kind.name()))?;
        out.push(r);
    }
    bar.finish_and_clear();
    Ok(out)
}

fn replay_all(r: &ReplayArgs) -> anyhow::Result<ExitCode> {
    let trace = load(&r.common)?;
    if let Some(backend) = &r.backend {
        return super::alloc_device::run(&trace, backend, r.soak, &r.common.out);
    }
    let opts = ReplayOptions { deterministic: !r.opportunistic, sync_every: r.sync_every, ..ReplayOptions::default() };
    let results = run_replays(&trace, &opts, &Kind::ALL)?;
    println!(
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
    );
    for x in &results {
        println!(
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
        );
    }
    let path = out_file(&r.common.out, "reserved_used.svg")?;
    alloc_charts::reserved_over_time(&path, &results)?;
    println!("\nchart: {}", path.display());
    let bad = results.iter().any(|x| !x.hazards.is_empty() || x.left_reserved != 0);
    Ok(if bad { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

fn advise_cmd(c: &Common) -> anyhow::Result<ExitCode> {
    let trace = load(c)?;
    let pool = run_replays(&trace, &ReplayOptions::default(), &[Kind::Pool])?;
    let a = advise(&Profile::from_trace(&trace), &pool[0]);
    println!("recommendation: {}", a.choice.describe());
    for reason in &a.reasons {
        println!("  - {reason}");
    }
    println!("binning exponents: 2^{} .. 2^{}", a.bin_exponents.0, a.bin_exponents.1);
    println!("slab classes (bytes): {:?}", a.classes);
    if a.job_cap == usize::MAX {
        println!("per-job cap: none (the trace has no jobs)");
    } else {
        println!("per-job cap: {:.0} MiB (largest job's high watermark + 25 %)", mib(a.job_cap));
    }
    Ok(ExitCode::SUCCESS)
}
