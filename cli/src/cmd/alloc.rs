//! `tenor alloc profile|replay|advise|record|stats`: the allocation toolkit on a trace.
//!
//! The trace comes from a file in the `tenor-alloc trace v1` format (docs/allocators.md), from
//! the synthetic pricing desk (`--desk`, the default), or from a pricing run of Tenor's own
//! kernels on the CPU backend recorded as it runs (`--pricing`).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use tenor_app::alloc::workflows::{ReplayRequest, TraceRequest, TraceSource};

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
    Record(RecordArgs),
    /// Prints the statistics file libtenor_allocator.so writes at exit (`TENOR_ALLOC_STATS`).
    Stats(StatsArgs),
}

/// Arguments of `tenor alloc record`.
#[derive(Debug, Args)]
struct RecordArgs {
    /// Trace file to write (`tenor-alloc trace v1`; written atomically at the program's exit or
    /// on SIGINT/SIGTERM).
    #[arg(long, default_value = "tenor.trace")]
    out: PathBuf,
    /// The interposer library; else `TENOR_TRACE_LIB`, else `libtenor_trace.so` beside the
    /// `tenor` executable (build it with `tools/trace/build.sh DIR`).
    #[arg(long)]
    lib: Option<PathBuf>,
    /// The program and its arguments, after `--`.
    #[arg(last = true, required = true, num_args = 1..)]
    command: Vec<OsString>,
}

/// Arguments of `tenor alloc stats`.
#[derive(Debug, Args)]
struct StatsArgs {
    /// The statistics file (`TENOR_ALLOC_STATS` of a process that used libtenor_allocator.so).
    file: PathBuf,
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

impl Common {
    /// The library's request for these flags.
    fn request(&self) -> TraceRequest {
        let source = match (&self.trace, self.source) {
            (Some(path), _) => TraceSource::File(path.clone()),
            (None, Source::Desk) => TraceSource::Desk { jobs: self.jobs, seed: self.seed },
            (None, Source::Pricing) => TraceSource::Pricing { jobs: self.jobs },
        };
        TraceRequest { source, save_trace: self.save_trace.clone(), out: self.out.clone() }
    }
}

/// Runs `tenor alloc`.
///
/// # Errors
/// As the library's workflows ([`tenor_app::alloc`]).
pub fn run(args: AllocArgs) -> anyhow::Result<ExitCode> {
    use tenor_app::alloc::workflows;
    let events = || crate::progress::bar("{msg:32} [{bar:30}] {pos}/{len} ({eta})");
    let report = match args.action {
        Action::Profile(c) => workflows::profile(&c.request())?,
        Action::Replay(r) => {
            let req = ReplayRequest {
                trace: r.common.request(),
                opportunistic: r.opportunistic,
                sync_every: r.sync_every,
                backend: r.backend.clone(),
                soak: r.soak,
            };
            workflows::replay_all(&req, &events())?
        }
        Action::Advise(c) => workflows::advise(&c.request(), &events())?,
        Action::Record(r) => record(r)?,
        Action::Stats(s) => tenor_app::alloc::stats::stats(&s.file)?,
    };
    Ok(crate::print(&report))
}

#[cfg(unix)]
fn record(r: RecordArgs) -> anyhow::Result<tenor_app::Report> {
    tenor_app::alloc::record::record(&tenor_app::alloc::record::RecordRequest {
        out: r.out,
        lib: r.lib,
        command: r.command,
    })
}

#[cfg(not(unix))]
fn record(_r: RecordArgs) -> anyhow::Result<tenor_app::Report> {
    anyhow::bail!("tenor alloc record needs LD_PRELOAD, which this platform lacks")
}
