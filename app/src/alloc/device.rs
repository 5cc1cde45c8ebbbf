//! `tenor alloc replay --backend cuda|sim [--soak SECONDS]`: the timed replay
//! ([`tenor_alloc::device_replay`]) of a trace against every allocator of a backend.
//!
//! CUDA targets: Tenor's driver pool (`cuMemPoolCreate`, never the device's default pool) at
//! release threshold 0 and `u64::MAX`, each with the driver's reuse defaults and deterministic
//! reuse; plain `cuMemAlloc`/`cuMemFree`; every toolkit strategy over Tenor's pool (threshold 0,
//! deterministic reuse). Sim targets (the same driver on the simulated device, for tests and
//! for a host run of the command): every strategy over the device's allocator (the bare
//! simulated allocator is not stream-ordered across streams, so it is no target).
//!
//! Output: a table on stdout; `alloc-replay-BACKEND.json` (every report),
//! `fragmentation-BACKEND.csv` (every sample) and `fragmentation-BACKEND.svg`, written
//! atomically into `--out`.

use std::path::Path;
use std::time::Duration;

use anyhow::Context as _;
use serde_json::json;
use tenor_alloc::device_replay::{replay_on, DeviceReplayReport, Percentiles, SoakOptions, Target};
use tenor_alloc::replay::{build, Kind, ReplayOptions};
use tenor_alloc::Trace;
use tenor_ports::{ComputeError, Progress, Stream};

use super::charts as alloc_charts;
use crate::report::Report;

/// One target with the streams it runs on (created on the target's device).
pub struct Run {
    /// The target.
    pub target: Target,
    /// One stream per trace stream.
    pub streams: Vec<Stream>,
}

/// Opens the targets of `backend` (a backend with replay allocators in the registry's table:
/// `sim`, `cuda`) for `trace`, each with `lanes` streams: the backend's own allocators, then
/// every toolkit strategy over a fresh upstream of the backend.
///
/// # Errors
/// [`ComputeError::Unavailable`] for CUDA where it was not built or cannot run (no driver, no
/// device); [`ComputeError::InvalidArgument`] naming `--backend` for a backend without replay
/// allocators or an unknown one; driver errors.
pub fn targets(backend: &str, trace: &Trace, lanes: usize) -> Result<Vec<Run>, ComputeError> {
    let memory_bytes = trace.peak_live_bytes().saturating_mul(4).clamp(256 << 20, 4 << 30).next_multiple_of(1 << 20);
    let memory = tenor_registry::replay_memory(backend, lanes, memory_bytes).map_err(|e| match e {
        ComputeError::InvalidArgument(m) => ComputeError::InvalidArgument(format!(
            "--backend {backend:?}: {m} (without --backend: the hazard-checking sim replay)"
        )),
        other => other,
    })?;
    let mut runs: Vec<Run> = memory
        .native
        .into_iter()
        .map(|n| Run {
            target: Target { name: n.name, allocator: n.allocator.clone(), strategy: None, device: n.allocator },
            streams: n.streams,
        })
        .collect();
    for kind in Kind::ALL {
        let (device, streams) = (memory.upstream)()?;
        let s = build(kind, device.clone(), trace, &ReplayOptions::default());
        let name = format!("{} ({})", kind.name(), s.name());
        runs.push(Run { target: Target { name, allocator: s.clone(), strategy: Some(s), device }, streams });
    }
    Ok(runs)
}

fn mib(b: usize) -> f64 {
    b as f64 / (1u64 << 20) as f64
}

fn pct(p: &Percentiles) -> serde_json::Value {
    json!({"count": p.count, "p50": p.p50, "p99": p.p99, "p99_9": p.p999, "max": p.max, "mean": p.mean})
}

/// The JSON document of a timed replay.
pub fn to_json(backend: &str, soak_s: Option<f64>, reports: &[DeviceReplayReport]) -> serde_json::Value {
    let rows: Vec<_> = reports
        .iter()
        .map(|r| {
            json!({
                "target": r.name, "passes": r.passes, "events": r.events, "wall_s": r.wall_s, "idle_s": r.idle_s,
                "alloc_ns": pct(&r.alloc_ns), "free_ns": pct(&r.free_ns),
                "peak_reserved_bytes": r.peak_reserved, "peak_used_bytes": r.peak_used,
                "reserved_over_used": r.overhead(), "fragmentation_max": r.fragmentation_max(),
                "ordering_waits": r.ordering_waits, "inserted_waits": r.inserted_waits, "failures": r.failures,
                "samples": r.samples.iter().map(|s| json!({"time_s": s.time_s, "pass": s.pass, "event": s.event,
                    "reserved": s.reserved, "used": s.used})).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({"backend": backend, "soak_s": soak_s, "targets": rows})
}

fn to_csv(reports: &[DeviceReplayReport]) -> anyhow::Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["target", "pass", "event", "time_s", "reserved", "used", "reserved_over_used"])?;
    for r in reports {
        for s in &r.samples {
            w.write_record([
                r.name.clone(),
                s.pass.to_string(),
                s.event.to_string(),
                format!("{:.6}", s.time_s),
                s.reserved.to_string(),
                s.used.to_string(),
                format!("{:.4}", s.ratio()),
            ])?;
        }
    }
    w.into_inner().map_err(|e| anyhow::anyhow!("csv: {e}"))
}

/// Runs the timed replay of `trace` on `backend`, reports the table and writes the files into
/// `out`; `progress` counts events replayed (or milliseconds of a soak).
///
/// # Errors
/// The backend's errors ([`ComputeError::Unavailable`] without CUDA), replay and file errors.
pub fn run(
    trace: &Trace,
    backend: &str,
    soak_s: Option<f64>,
    out: &Path,
    progress: &dyn Progress,
) -> anyhow::Result<Report> {
    let mut report = Report::default();
    let lanes = tenor_alloc::device_replay::OrderPlan::of(trace).lanes;
    let runs = targets(backend, trace, lanes)?;
    let n_targets = runs.len();
    let soak = soak_s.map(|s| SoakOptions {
        duration: Duration::from_secs_f64(s / n_targets as f64),
        seed: 20_261_202,
        max_gap: Duration::from_millis(2),
    });
    progress.start(match soak {
        Some(s) => (s.duration.as_millis() as u64).max(1) * n_targets as u64,
        None => (trace.events.len() * n_targets) as u64,
    });
    let mut reports = Vec::new();
    for (i, r) in runs.into_iter().enumerate() {
        progress.message(&r.target.name);
        let rep = replay_on(trace, &r.target, &r.streams, soak, &mut |p| {
            let done = match soak {
                Some(s) => {
                    (p.elapsed.as_millis() as u64).min(s.duration.as_millis() as u64)
                        + i as u64 * s.duration.as_millis() as u64
                }
                None => (i * trace.events.len() + p.events) as u64,
            };
            progress.set(done);
        })
        .with_context(|| format!("replaying on {}", r.target.name))?;
        // give the memory back before the next target runs (the targets share the device)
        r.target.allocator.trim(0).with_context(|| format!("trimming {}", r.target.name))?;
        drop(r);
        reports.push(rep);
    }
    progress.finish();
    report.line(format!(
        "{:<44} {:>6} {:>9} {:>8} {:>8} {:>9} {:>8} {:>8} {:>9} {:>10} {:>9} {:>9} {:>7} {:>6}",
        "target",
        "passes",
        "wall s",
        "a p50",
        "a p99",
        "a p99.9",
        "f p50",
        "f p99",
        "f p99.9",
        "res MiB",
        "used MiB",
        "frag max",
        "waits",
        "fails"
    ));
    for r in &reports {
        report.line(format!(
            "{:<44} {:>6} {:>9.4} {:>8} {:>8} {:>9} {:>8} {:>8} {:>9} {:>10.2} {:>9.2} {:>9.3} {:>7} {:>6}",
            r.name,
            r.passes,
            r.wall_s,
            r.alloc_ns.p50,
            r.alloc_ns.p99,
            r.alloc_ns.p999,
            r.free_ns.p50,
            r.free_ns.p99,
            r.free_ns.p999,
            mib(r.peak_reserved),
            mib(r.peak_used),
            r.fragmentation_max(),
            r.inserted_waits + r.ordering_waits,
            r.failures
        ));
    }
    report.line("(latencies in ns per call, host side; waits = strategy's inserted + cross-stream ordering)");
    tenor_ports::files::create_folder(out)?;
    let json_path = out.join(format!("alloc-replay-{backend}.json"));
    let doc = serde_json::to_vec_pretty(&to_json(backend, soak_s, &reports))?;
    tenor_ports::files::write_atomic(&json_path, &doc)?;
    let csv_path = out.join(format!("fragmentation-{backend}.csv"));
    tenor_ports::files::write_atomic(&csv_path, &to_csv(&reports)?)?;
    let svg_path = out.join(format!("fragmentation-{backend}.svg"));
    alloc_charts::fragmentation_over_time(&svg_path, &reports)?;
    report.line(format!("\nfiles: {}, {}, {}", json_path.display(), csv_path.display(), svg_path.display()));
    Ok(report)
}
