//! `tenor pilot`: what a GPU team runs to choose between stacks (shared/seed-notes.md, "CUDA or
//! SYCL"): throughput over a size sweep, scaling over streams, cold (first call: runtime start
//! and kernel compilation, as STAC-A2 reports cold and warm) and warm timings, the cost of
//! swapping adapters, and cross-backend agreement, written as JSON, Markdown and SVG.
//!
//! Order of a run, so that cold figures are cold: (1) for every backend, its on-disk kernel
//! cache state is read and then the run-time switch is timed (open, first verified price): the
//! first time anything touches the backend in the process; (2) for every backend, the cold
//! first call of each workload; (3) for every backend, warm throughput, stream scaling, port
//! overhead and agreement.

pub mod agreement;
pub mod basket;
pub mod book;
pub mod charts;
pub mod devices;
pub mod env;
pub mod inhouse;
pub mod measure;
pub mod overhead;
pub mod report;
pub mod versus;
pub mod workloads;

use std::time::Instant;

use serde::Serialize;
use tenor_ports::progress::Steps;
use tenor_ports::{Compute, ComputeError, Progress, Stream};

use measure::{time, Stats};
use workloads::{prepare, Workload};

/// Which sweep to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Suite {
    /// Small sizes and short budgets: minutes on a laptop.
    Quick,
    /// The full sweep, sized for a GPU.
    Default,
}

impl Suite {
    /// Sizes (paths, or rows for gemm) for a workload.
    pub fn sizes(self, w: Workload) -> Vec<u64> {
        let exps: Vec<u32> = match (self, w) {
            (Suite::Quick, Workload::PathGeneration | Workload::PayoffEvaluation) => vec![10, 13, 16],
            (Suite::Quick, Workload::McEuropean | Workload::McEuropeanF32) => vec![12, 16, 20],
            (Suite::Quick, Workload::McAsian | Workload::McAsianF32) => vec![10, 13, 15],
            (Suite::Quick, Workload::LsmGemm) => vec![12, 15, 18],
            (Suite::Default, Workload::PathGeneration | Workload::PayoffEvaluation) => vec![12, 14, 16, 18, 20, 22],
            (Suite::Default, Workload::McEuropean | Workload::McEuropeanF32) => vec![14, 18, 22, 26, 30],
            (Suite::Default, Workload::McAsian | Workload::McAsianF32) => vec![12, 16, 20, 24],
            (Suite::Default, Workload::LsmGemm) => vec![14, 16, 18, 20, 22, 24],
            (Suite::Quick, Workload::CurveBuild) => vec![10, 13, 16],
            (Suite::Default, Workload::CurveBuild) => vec![10, 12, 14, 16, 18, 20],
        };
        exps.into_iter().map(|e| 1u64 << e).collect()
    }
    /// Time budget per measurement, seconds.
    pub fn budget_s(self) -> f64 {
        match self {
            Suite::Quick => 0.25,
            Suite::Default => 1.0,
        }
    }
    /// Stream counts for the scaling sweep.
    pub fn streams(self) -> Vec<usize> {
        vec![1, 2, 4, 8]
    }
}

/// One throughput measurement.
#[derive(Debug, Clone, Serialize)]
pub struct ThroughputRow {
    /// Backend.
    pub backend: String,
    /// Workload name.
    pub workload: String,
    /// Size (paths, or rows for gemm).
    pub size: u64,
    /// Unit of `rate`.
    pub unit: String,
    /// Warm timings.
    pub warm: Stats,
    /// Work units per second at the median.
    pub rate: f64,
}

/// Cold timing of a workload: a fresh device, then its first result. Measured after the switch
/// ([`SwitchRow`]) started the backend's runtime in this process and before any warm
/// measurement.
#[derive(Debug, Clone, Serialize)]
pub struct ColdRow {
    /// Backend.
    pub backend: String,
    /// Workload name.
    pub workload: String,
    /// Opening a fresh device, seconds (the runtime itself was started by the switch).
    pub open_s: f64,
    /// First call: kernel load or compilation, allocation, first launch and synchronisation.
    pub first_call_s: f64,
    /// Kernels of this workload that were already loaded earlier in this process on this
    /// backend (by the switch or an earlier cold workload), which an in-process cache may
    /// have kept; empty when the first call had to load or compile all of them.
    pub loaded_before: Vec<String>,
    /// The same call warm (median), seconds.
    pub warm_s: f64,
}

/// Scaling over streams: a fixed total split over `streams` streams.
#[derive(Debug, Clone, Serialize)]
pub struct ScalingRow {
    /// Backend.
    pub backend: String,
    /// Workload name.
    pub workload: String,
    /// Total size.
    pub size: u64,
    /// Streams.
    pub streams: usize,
    /// Timings of the whole split run.
    pub warm: Stats,
    /// Work units per second.
    pub rate: f64,
    /// Unit of `rate`.
    pub unit: String,
}

/// Swap cost (2): from selecting a backend to its first correct price, measured before anything
/// else touched the backend in the process (runtime start and kernel compilation or cache load
/// included; see the backend's [`env::KernelCache`]).
#[derive(Debug, Clone, Serialize)]
pub struct SwitchRow {
    /// Backend switched to.
    pub backend: String,
    /// Seconds from selecting the backend to a verified price.
    pub seconds: f64,
    /// Of which opening it (runtime start, device selection), seconds.
    pub open_s: f64,
    /// Price obtained.
    pub price: f64,
    /// Reference (Black-Scholes) price.
    pub reference: f64,
    /// Standard error of the Monte Carlo price.
    pub stderr: f64,
    /// Within 4 standard errors of the reference.
    pub correct: bool,
}

/// Swap cost (3): lines of code per backend.
#[derive(Debug, Clone, Serialize)]
pub struct CodeRow {
    /// Backend.
    pub backend: String,
    /// Non-blank lines of adapter code.
    pub adapter_lines: usize,
    /// Non-blank lines of kernel sources for it.
    pub kernel_lines: usize,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Suite run.
    pub suite: Suite,
    /// Environment fingerprint.
    pub env: env::Fingerprint,
    /// Warm throughput sweep.
    pub throughput: Vec<ThroughputRow>,
    /// Cold first calls.
    pub cold: Vec<ColdRow>,
    /// Stream scaling.
    pub scaling: Vec<ScalingRow>,
    /// Port overhead.
    pub overhead: Vec<overhead::OverheadRow>,
    /// Run-time switch cost.
    pub switch: Vec<SwitchRow>,
    /// Code cost.
    pub code: Vec<CodeRow>,
    /// Cross-backend agreement.
    pub agreement: Vec<agreement::AgreementRow>,
    /// Peer measurements merged from peer scripts (name, unit, rate, note).
    pub peers: Vec<PeerRow>,
    /// The book workload: trades per second by kind, Greeks off and on ([`book`]).
    pub book: Vec<book::BookRow>,
    /// The basket workloads (the STAC-A2 job), cold and warm ([`basket`]).
    pub basket: Vec<basket::BasketRow>,
    /// Scaling over devices ([`devices`]), when [`Options::devices`] names a selector.
    pub devices: Vec<devices::DeviceScalingRow>,
    /// The devices of that selector (labels and names) and their peer access, one line each.
    pub device_env: Vec<String>,
}

/// A peer library's figure on the same problem.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct PeerRow {
    /// Library (numpy, torch, cupy).
    pub peer: String,
    /// Workload name (as the pilot's).
    pub workload: String,
    /// Size.
    pub size: u64,
    /// Unit.
    pub unit: String,
    /// Rate.
    pub rate: f64,
}

/// What the program that runs the pilot knows about its own build, passed in by it (the pilot
/// is a library without a build script): version, commit, whether tracked files had
/// uncommitted changes, and the lines of code per backend (swap cost (3)).
#[derive(Debug, Clone, Default)]
pub struct BuildInfo {
    /// The program's version (`CARGO_PKG_VERSION` of the caller).
    pub version: String,
    /// The git commit it was built from ("unknown" outside a checkout).
    pub commit: String,
    /// Uncommitted changes to tracked files at build time; `None` when unknown.
    pub dirty: Option<bool>,
    /// Lines of adapter and kernel code per backend.
    pub code: Vec<CodeRow>,
}

fn run_split(dev: &dyn Compute, streams: &[Stream], w: Workload, total: u64) -> Result<Stats, ComputeError> {
    let part = (total / streams.len() as u64).max(2);
    let prepared = streams.iter().map(|s| prepare(dev, s, w, part)).collect::<Result<Vec<_>, _>>()?;
    dev.synchronize()?;
    time(1, 50, 0.25, || {
        for (p, s) in prepared.iter().zip(streams) {
            p.enqueue(dev, s)?;
        }
        dev.synchronize()
    })
}

/// Options of a pilot run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Backends to measure (unavailable ones are reported, not measured).
    pub backends: Vec<String>,
    /// Suite.
    pub suite: Suite,
    /// Largest device memory a single workload may take, bytes.
    pub max_bytes: u64,
    /// A selector of several devices (`cuda:*`, `sim:*`) for the device-scaling table; `None`
    /// skips it.
    pub devices: Option<String>,
    /// The caller's build (version, commit, code lines) for the report.
    pub build: BuildInfo,
}

/// Workloads of the stream-scaling sweep.
pub const SCALING: [Workload; 2] = [Workload::McEuropean, Workload::PathGeneration];

/// Progress steps per available backend after its switch: one per cold workload, per
/// throughput size (skipped sizes included), per (scaling workload, stream count), per port
/// overhead size, one for agreement, one for the book workload and one for the basket workloads.
pub fn steps_per_backend(suite: Suite) -> u64 {
    let all = Workload::ALL.len() as u64;
    let sizes: u64 = Workload::ALL.iter().map(|w| suite.sizes(*w).len() as u64).sum();
    all + sizes + (SCALING.len() * suite.streams().len()) as u64 + overhead::SIZES.len() as u64 + 3
}

/// The kernels `w` loads (gemm counted as one), for [`ColdRow::loaded_before`].
fn kernels_of(w: Workload) -> Vec<&'static str> {
    match w {
        Workload::PayoffEvaluation => vec!["gbm_paths", "payoff_asian"],
        Workload::LsmGemm => vec!["gemm"],
        _ => w.kernel().into_iter().collect(),
    }
}

/// The largest size of `w` in the suite that fits in `max_bytes`.
pub(crate) fn largest_fitting(suite: Suite, w: Workload, max_bytes: u64) -> Option<u64> {
    suite.sizes(w).into_iter().rev().find(|s| w.bytes(*s) <= max_bytes)
}

/// Runs the pilot, reporting each measurement to `progress`.
///
/// # Errors
/// A backend error during a measurement (an unavailable backend is not an error).
pub fn run(opts: &Options, progress: &dyn Progress) -> Result<Report, ComputeError> {
    // Phase 1 counts one step per requested backend; the rest is added once availability is known.
    let bar = Steps::new(progress, opts.backends.len() as u64);

    // (1) The switch, before anything else touches the backend; the cache state before that.
    let mut envs = Vec::new();
    let mut switch = Vec::new();
    let mut available: Vec<String> = Vec::new();
    let mut loaded: std::collections::BTreeMap<String, std::collections::BTreeSet<&'static str>> = Default::default();
    for b in &opts.backends {
        progress.message(&format!("{b}: switch (open, first verified price)"));
        let cache = env::kernel_cache(b);
        let t0 = Instant::now();
        match tenor_registry::open(b) {
            Err(e) => envs.push(env::BackendEnv::from_probe(b, &Err(e), cache)),
            Ok(dev) => {
                let open_s = t0.elapsed().as_secs_f64();
                switch.push(agreement::first_price(b, &*dev, t0, open_s)?);
                envs.push(env::BackendEnv::from_probe(b, &Ok(dev.info().clone()), cache));
                loaded.entry(b.clone()).or_default().insert(agreement::SWITCH_KERNEL);
                available.push(b.clone());
            }
        }
        bar.inc();
    }
    let total = opts.backends.len() as u64 + steps_per_backend(opts.suite) * available.len() as u64;
    progress.start(total);

    let mut rep = Report {
        suite: opts.suite,
        env: env::fingerprint(envs, &opts.build),
        throughput: vec![],
        cold: vec![],
        scaling: vec![],
        overhead: vec![],
        switch,
        code: opts.build.code.clone(),
        agreement: vec![],
        peers: vec![],
        book: vec![],
        basket: vec![],
        devices: vec![],
        device_env: vec![],
    };

    // (2) Cold, before any warm measurement: a fresh device per workload.
    for b in &available {
        for w in Workload::ALL {
            progress.message(&format!("{b}: cold {}", w.name()));
            let seen = loaded.entry(b.clone()).or_default();
            let loaded_before: Vec<String> =
                kernels_of(w).into_iter().filter(|k| seen.contains(k)).map(str::to_owned).collect();
            let t0 = Instant::now();
            let dev = tenor_registry::open(b)?;
            let open_s = t0.elapsed().as_secs_f64();
            let s = dev.default_stream().clone();
            let size = opts.suite.sizes(w)[0];
            let t1 = Instant::now();
            let p = prepare(&*dev, &s, w, size)?;
            p.enqueue(&*dev, &s)?;
            dev.synchronize()?;
            let first_call_s = t1.elapsed().as_secs_f64();
            seen.extend(kernels_of(w));
            let warm = time(1, 20, 0.1, || {
                p.enqueue(&*dev, &s)?;
                dev.synchronize()
            })?;
            rep.cold.push(ColdRow {
                backend: b.clone(),
                workload: w.name().into(),
                open_s,
                first_call_s,
                loaded_before,
                warm_s: warm.median_s,
            });
            bar.inc();
        }
    }

    // (3) Warm figures.
    for b in &available {
        let dev = tenor_registry::open(b)?;
        let s = dev.default_stream().clone();
        for w in Workload::ALL {
            for size in opts.suite.sizes(w) {
                progress.message(&format!("{b}: {} at {size}", w.name()));
                if w.bytes(size) > opts.max_bytes {
                    bar.inc();
                    continue;
                }
                let p = prepare(&*dev, &s, w, size)?;
                let warm = time(2, 200, opts.suite.budget_s(), || {
                    p.enqueue(&*dev, &s)?;
                    dev.synchronize()
                })?;
                rep.throughput.push(ThroughputRow {
                    backend: b.clone(),
                    workload: w.name().into(),
                    size,
                    unit: w.unit().into(),
                    rate: w.work(size) / warm.median_s,
                    warm,
                });
                bar.inc();
            }
        }

        let streams: Vec<Stream> = (0..8).map(|_| dev.create_stream()).collect::<Result<_, _>>()?;
        for w in SCALING {
            let total = largest_fitting(opts.suite, w, opts.max_bytes);
            for k in opts.suite.streams() {
                progress.message(&format!("{b}: {} over {k} streams", w.name()));
                // The split allocates k parts of total / k: the same --max-mib limit applies.
                let Some(total) = total.filter(|t| k as u64 * w.bytes((t / k as u64).max(2)) <= opts.max_bytes) else {
                    bar.inc();
                    continue;
                };
                let warm = run_split(&*dev, &streams[..k], w, total)?;
                rep.scaling.push(ScalingRow {
                    backend: b.clone(),
                    workload: w.name().into(),
                    size: total,
                    streams: k,
                    rate: w.work(total / k as u64 * k as u64) / warm.median_s,
                    unit: w.unit().into(),
                    warm,
                });
                bar.inc();
            }
        }
        drop(streams);
        drop(dev);

        for size in overhead::SIZES {
            progress.message(&format!("{b}: port overhead at {size} paths"));
            // Interleaved pairs need more time than one series: four times the suite's budget.
            let m = overhead::Measure { sizes: vec![size], budget_s: 4.0 * opts.suite.budget_s() };
            rep.overhead.extend(tenor_registry::visit(b, m)??);
            bar.inc();
        }

        progress.message(&format!("{b}: agreement with cpu"));
        rep.agreement.extend(agreement::against_cpu(b)?);
        bar.inc();

        progress.message(&format!("{b}: book (trades/s by kind, Greeks off and on)"));
        let dev = tenor_registry::open(b)?;
        rep.book.extend(book::measure(b, &*dev, opts.suite)?);
        drop(dev);
        bar.inc();

        progress.message(&format!("{b}: basket (the STAC-A2 job, cold and warm)"));
        rep.basket.extend(basket::measure(b, opts.suite)?);
        bar.inc();
    }
    debug_assert_eq!(bar.position(), total, "progress steps counted differ from the total");
    if let Some(sel) = &opts.devices {
        progress.message(&format!("{sel}: scaling over devices"));
        let set = tenor_registry::open_devices(sel)?;
        rep.device_env = devices::environment(&set);
        rep.devices = devices::measure(sel, &set, opts.suite, opts.max_bytes)?;
    }
    progress.finish();
    Ok(rep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaling_size_respects_the_memory_limit() {
        // Path generation at 2^16 paths takes 2^16 * (64 * 8 + 16) bytes = 33 MiB; 2^13 fits in 8 MiB.
        let w = Workload::PathGeneration;
        assert_eq!(largest_fitting(Suite::Quick, w, u64::MAX), Some(1 << 16));
        assert_eq!(largest_fitting(Suite::Quick, w, 8 << 20), Some(1 << 13));
        assert_eq!(largest_fitting(Suite::Quick, w, 1024), None);
    }
}
