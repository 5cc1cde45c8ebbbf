//! CUB-style caching allocator (`cub::CachingDeviceAllocator`, `cub/util_allocator.cuh`).
//!
//! Geometric bins `growth^k` for `k` in `min_bin..=max_bin`; a request is rounded up to its bin
//! and served by a cached block of that bin: at once on the stream that freed it, on other
//! streams once an event recorded after the free completed (opportunistic, as CUB queries
//! `cudaEventQuery`), or after an inserted wait in deterministic mode. Each block is one upstream
//! allocation (no splitting); requests above the largest bin are allocated exactly and freed
//! straight back. A lane keeps at most `max_cached_bytes` free; above that a freed block returns
//! to the upstream.

use std::sync::Arc;

use tenor_ports::Allocator;

use crate::classes::{class_strategy, ClassCache, ClassSpec};
use crate::order::{Keying, Reuse};

/// Settings of [`Caching`].
#[derive(Debug, Clone, Copy)]
pub struct CachingConfig {
    /// Bin growth factor (CUB: 8).
    pub growth: usize,
    /// Smallest bin is `growth^min_bin` bytes (at least 256).
    pub min_bin: u32,
    /// Largest bin is `growth^max_bin` bytes.
    pub max_bin: u32,
    /// Free bytes each stream's lane keeps cached.
    pub max_cached_bytes: usize,
    /// Cross-stream reuse: [`Reuse::Opportunistic`] is CUB's; [`Reuse::FollowEvents`] is the
    /// deterministic mode.
    pub reuse: Reuse,
    /// Whether the upstream orders reuse across streams itself (this crate's [`crate::Pool`],
    /// CUDA's stream-ordered pool); when not, returns to it wait for the freeing stream on the
    /// host.
    pub upstream_ordered: bool,
}

impl Default for CachingConfig {
    /// Growth 2 from 256 B to 64 MiB, 256 MiB cached per stream, opportunistic reuse.
    fn default() -> Self {
        Self {
            growth: 2,
            min_bin: 8,
            max_bin: 26,
            max_cached_bytes: 256 << 20,
            reuse: Reuse::Opportunistic,
            upstream_ordered: false,
        }
    }
}

/// A CUB-style caching allocator over an upstream.
#[derive(Debug)]
pub struct Caching {
    cache: ClassCache,
}

impl Caching {
    /// A caching allocator over `upstream`.
    pub fn new(upstream: Arc<dyn Allocator>, config: CachingConfig) -> Self {
        let g = config.growth.max(2);
        let mut sizes: Vec<usize> = (config.min_bin..=config.max_bin.max(config.min_bin))
            .filter_map(|k| g.checked_pow(k))
            .map(|s| s.max(256).next_multiple_of(256))
            .collect();
        sizes.dedup();
        let spec = ClassSpec {
            name: format!("caching[{g}^{}..{g}^{}]", config.min_bin, config.max_bin),
            sizes,
            chunk_bytes: 0,
            max_cached: config.max_cached_bytes,
            reuse: config.reuse,
            max_waste: 1.0,
            keying: Keying::Stream,
            upstream_ordered: config.upstream_ordered,
        };
        Self { cache: ClassCache::new(spec, upstream, None) }
    }
}

class_strategy!(Caching);
