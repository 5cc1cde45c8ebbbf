//! Allocation traces read from files for the allocation toolkit (`tenor alloc`, and
//! `tenor.alloc` in Python): the reading rules and the size histogram both front ends share.

use std::path::{Path, PathBuf};

use tenor_alloc::stats::{log2_bucket, BUCKETS};
use tenor_alloc::trace::TraceError;
use tenor_alloc::{Trace, TraceOp};
use tenor_ports::text::TextError;

/// Why a trace file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TraceFileError {
    /// The file cannot be read or is not UTF-8.
    #[error(transparent)]
    Read(#[from] TextError),
    /// A malformed line (the error names the file, line and column).
    #[error(transparent)]
    Parse(#[from] TraceError),
    /// The trace has no alloc event.
    #[error("{}: the trace has no alloc events: nothing to profile, replay or advise on", path.display())]
    NoAllocs {
        /// The trace file.
        path: PathBuf,
    },
}

/// Reads a `tenor-alloc trace v1` file (docs/allocators.md).
///
/// # Errors
/// [`TraceFileError`]: unreadable file, malformed line, no alloc event.
pub fn read_trace(path: &Path) -> Result<Trace, TraceFileError> {
    let text = tenor_ports::text::read_text(path)?;
    let trace = Trace::parse(&text, &path.display().to_string())?;
    if !trace.events.iter().any(|e| e.op == TraceOp::Alloc) {
        return Err(TraceFileError::NoAllocs { path: path.to_owned() });
    }
    Ok(trace)
}

/// Allocations per power-of-two size bucket: entry `k` counts requests of `2^k ..
/// 2^(k+1)` bytes (`tenor_alloc::stats::log2_bucket`).
#[must_use]
pub fn size_histogram(trace: &Trace) -> [u64; BUCKETS] {
    let mut hist = [0u64; BUCKETS];
    for e in trace.events.iter().filter(|e| e.op == TraceOp::Alloc) {
        hist[log2_bucket(e.bytes as u64)] += 1;
    }
    hist
}

/// Free events of the trace.
#[must_use]
pub fn frees(trace: &Trace) -> usize {
    trace.events.iter().filter(|e| e.op == TraceOp::Free).count()
}
