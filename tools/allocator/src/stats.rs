//! The statistics the library reports: a C struct, JSON, and the file written at exit.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// Counters and watermarks of the shared allocator, in bytes where not a count.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// The strategy (`TENOR_ALLOC_STRATEGY`).
    pub strategy: String,
    /// The device ordinal.
    pub device: i32,
    /// Successful allocations.
    pub allocs: u64,
    /// Successful frees.
    pub frees: u64,
    /// Allocations the strategy refused (out of memory, cap).
    pub failures: u64,
    /// Requested bytes live now.
    pub used: u64,
    /// High watermark of `used`.
    pub peak_used: u64,
    /// Bytes held from the device pool now.
    pub reserved: u64,
    /// High watermark of `reserved`.
    pub peak_reserved: u64,
    /// Live allocations.
    pub live_blocks: u64,
    /// Requests for 0 bytes (refused).
    pub zero_byte_requests: u64,
    /// Requests refused for lack of memory.
    pub out_of_memory: u64,
    /// Frees of a pointer already freed (ignored).
    pub double_frees: u64,
    /// Frees of a pointer never handed out (ignored).
    pub foreign_frees: u64,
}

/// [`Stats`] as the C struct `tenor_alloc_stats_t` (`tenor_allocator.h`), numbers only.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CStats {
    /// See [`Stats::allocs`].
    pub allocs: u64,
    /// See [`Stats::frees`].
    pub frees: u64,
    /// See [`Stats::failures`].
    pub failures: u64,
    /// See [`Stats::used`].
    pub used: u64,
    /// See [`Stats::peak_used`].
    pub peak_used: u64,
    /// See [`Stats::reserved`].
    pub reserved: u64,
    /// See [`Stats::peak_reserved`].
    pub peak_reserved: u64,
    /// See [`Stats::live_blocks`].
    pub live_blocks: u64,
    /// See [`Stats::zero_byte_requests`].
    pub zero_byte_requests: u64,
    /// See [`Stats::out_of_memory`].
    pub out_of_memory: u64,
    /// See [`Stats::double_frees`].
    pub double_frees: u64,
    /// See [`Stats::foreign_frees`].
    pub foreign_frees: u64,
}

impl From<&Stats> for CStats {
    fn from(s: &Stats) -> Self {
        Self {
            allocs: s.allocs,
            frees: s.frees,
            failures: s.failures,
            used: s.used,
            peak_used: s.peak_used,
            reserved: s.reserved,
            peak_reserved: s.peak_reserved,
            live_blocks: s.live_blocks,
            zero_byte_requests: s.zero_byte_requests,
            out_of_memory: s.out_of_memory,
            double_frees: s.double_frees,
            foreign_frees: s.foreign_frees,
        }
    }
}

/// Writes `stats` as JSON to `path` atomically (`tenor_ports::files`: a temporary file created
/// exclusively under a random name in the same folder, then a rename; a link of another user is
/// not followed).
///
/// # Errors
/// The I/O error, with the path.
pub fn write_atomically(stats: &Stats, path: &Path) -> Result<(), String> {
    let text = serde_json::to_string_pretty(stats).map_err(|e| format!("{}: {e}", path.display()))?;
    tenor_ports::files::write_with(path, |w| {
        w.write_all(text.as_bytes())?;
        w.write_all(b"\n")
    })
    .map_err(|e| e.to_string())
}
