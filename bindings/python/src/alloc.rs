//! The allocation toolkit from Python (`tenor.alloc.profile`, `replay`, `advise`): the
//! `tenor-alloc` code of `tenor alloc profile|replay|advise` on a trace file
//! (`tenor_app::alloc::trace::read_trace`, the command line's reader), with the GIL released.
//! Sizes are in bytes (the command line prints MiB).

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use tenor_alloc::advisor::{advise, Profile};
use tenor_alloc::replay::{replay, Kind, ReplayOptions, ReplayResult};
use tenor_alloc::Trace;
use tenor_app::alloc::trace::{frees, read_trace, size_histogram, TraceFileError};

use crate::errors::{input_error, parameter_error, Problem, TenorError};

fn trace_error(py: Python<'_>, path: &std::path::Path, e: &TraceFileError) -> PyErr {
    let at: Problem = match e {
        TraceFileError::Parse(p) => {
            (Some(p.origin.clone()), Some(p.line as u64), Some(p.column.to_string()), e.to_string())
        }
        TraceFileError::Read(_) | TraceFileError::NoAllocs { .. } => {
            (Some(path.display().to_string()), None, None, e.to_string())
        }
    };
    input_error(py, e.to_string(), at.clone(), vec![at])
}

fn load(py: Python<'_>, path: &std::path::Path) -> PyResult<Trace> {
    py.allow_threads(|| read_trace(path)).map_err(|e| trace_error(py, path, &e))
}

fn replays(py: Python<'_>, trace: &Trace, opts: &ReplayOptions, kinds: &[Kind]) -> PyResult<Vec<ReplayResult>> {
    py.allow_threads(|| {
        kinds
            .iter()
            .map(|&k| replay(trace, k, opts, &tenor_registry::checked_device, &mut |_| {}).map_err(|e| (k, e)))
            .collect::<Result<Vec<_>, _>>()
    })
    .map_err(|(k, e)| TenorError::new_err(format!("replaying against {}: {e}", k.name())))
}

/// The profile of `tenor alloc profile --trace FILE` as a dict: events, allocations, frees,
/// peak_used_bytes, distinct_sizes (256 B granularity), p5/p50/p95/max_bytes, small_share
/// (< 1 MiB), short_lived_share (freed within 64 allocator calls), streams, threads,
/// histogram ({k: allocations of 2^k .. 2^(k+1) bytes}, non-empty buckets) and job_peaks
/// ({job: high watermark in bytes}; job 0 = outside any job).
#[pyfunction]
fn alloc_profile(py: Python<'_>, trace: PathBuf) -> PyResult<Bound<'_, PyDict>> {
    let t = load(py, &trace)?;
    let p = Profile::from_trace(&t);
    let d = PyDict::new(py);
    d.set_item("events", t.events.len())?;
    d.set_item("allocations", p.allocs)?;
    d.set_item("frees", frees(&t))?;
    d.set_item("peak_used_bytes", t.peak_live_bytes())?;
    d.set_item("distinct_sizes", p.distinct_sizes())?;
    d.set_item("p5_bytes", p.quantile(0.05))?;
    d.set_item("p50_bytes", p.quantile(0.5))?;
    d.set_item("p95_bytes", p.quantile(0.95))?;
    d.set_item("max_bytes", p.quantile(1.0))?;
    d.set_item("small_share", p.small_share)?;
    d.set_item("short_lived_share", p.short_lived_share)?;
    d.set_item("streams", p.streams)?;
    d.set_item("threads", p.threads)?;
    let hist = PyDict::new(py);
    for (k, n) in size_histogram(&t).iter().enumerate().filter(|(_, n)| **n > 0) {
        hist.set_item(k, *n)?;
    }
    d.set_item("histogram", hist)?;
    let jobs = PyDict::new(py);
    for (j, b) in &p.job_peaks {
        jobs.set_item(*j, *b)?;
    }
    d.set_item("job_peaks", jobs)?;
    Ok(d)
}

/// The table of `tenor alloc replay --trace FILE` (every strategy on the simulated device) as
/// columns: strategy, configuration, reserved_bytes, used_bytes (peaks), overhead
/// (reserved/used), fragmentation_mean, fragmentation_max (shares), waits, ns_per_op,
/// failures, hazards (count), left_reserved (bytes).
#[pyfunction]
#[pyo3(signature = (trace, opportunistic=false, sync_every=16))]
fn alloc_replay(py: Python<'_>, trace: PathBuf, opportunistic: bool, sync_every: usize) -> PyResult<Bound<'_, PyDict>> {
    if sync_every == 0 {
        return Err(parameter_error(py, "sync_every", "sync_every must be at least 1".into()));
    }
    let t = load(py, &trace)?;
    let opts = ReplayOptions { deterministic: !opportunistic, sync_every, ..ReplayOptions::default() };
    let rs = replays(py, &t, &opts, &Kind::ALL)?;
    let d = PyDict::new(py);
    d.set_item("strategy", rs.iter().map(|x| x.kind.name()).collect::<Vec<_>>())?;
    d.set_item("configuration", rs.iter().map(|x| x.name.clone()).collect::<Vec<_>>())?;
    d.set_item("reserved_bytes", rs.iter().map(|x| x.peak_reserved).collect::<Vec<_>>())?;
    d.set_item("used_bytes", rs.iter().map(|x| x.peak_used).collect::<Vec<_>>())?;
    d.set_item("overhead", rs.iter().map(ReplayResult::overhead).collect::<Vec<_>>())?;
    d.set_item("fragmentation_mean", rs.iter().map(|x| x.fragmentation_mean).collect::<Vec<_>>())?;
    d.set_item("fragmentation_max", rs.iter().map(|x| x.fragmentation_max).collect::<Vec<_>>())?;
    d.set_item("waits", rs.iter().map(|x| x.inserted_waits).collect::<Vec<_>>())?;
    d.set_item("ns_per_op", rs.iter().map(|x| x.ns_per_op).collect::<Vec<_>>())?;
    d.set_item("failures", rs.iter().map(|x| x.failures).collect::<Vec<_>>())?;
    d.set_item("hazards", rs.iter().map(|x| x.hazards.len()).collect::<Vec<_>>())?;
    d.set_item("left_reserved", rs.iter().map(|x| x.left_reserved).collect::<Vec<_>>())?;
    Ok(d)
}

/// The advice of `tenor alloc advise --trace FILE` as a dict: choice (the strategy's
/// description), reasons, bin_exponents (lo, hi), classes (slab class sizes in bytes) and
/// job_cap (bytes; None when the trace has no jobs).
#[pyfunction]
fn alloc_advise(py: Python<'_>, trace: PathBuf) -> PyResult<Bound<'_, PyDict>> {
    let t = load(py, &trace)?;
    let pool = replays(py, &t, &ReplayOptions::default(), &[Kind::Pool])?;
    let a = advise(&Profile::from_trace(&t), &pool[0]);
    let d = PyDict::new(py);
    d.set_item("choice", a.choice.describe())?;
    d.set_item("reasons", a.reasons)?;
    d.set_item("bin_exponents", a.bin_exponents)?;
    d.set_item("classes", a.classes)?;
    d.set_item("job_cap", (a.job_cap != usize::MAX).then_some(a.job_cap))?;
    Ok(d)
}

/// Adds the functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(alloc_profile, m)?)?;
    m.add_function(wrap_pyfunction!(alloc_replay, m)?)?;
    m.add_function(wrap_pyfunction!(alloc_advise, m)?)?;
    Ok(())
}
