//! Binning: power-of-two size classes between two exponents, larger requests to the upstream
//! (RMM's `binning_memory_resource` over `fixed_size_memory_resource` bins).

use std::sync::Arc;

use tenor_ports::Allocator;

use crate::classes::{class_strategy, ClassCache, ClassSpec};
use crate::order::{Keying, Reuse};

/// Settings of [`Binning`].
#[derive(Debug, Clone, Copy)]
pub struct BinningConfig {
    /// Smallest bin is `2^min_exp` bytes (at least 2^8 = 256).
    pub min_exp: u32,
    /// Largest bin is `2^max_exp` bytes; larger requests go straight to the upstream.
    pub max_exp: u32,
    /// Upstream chunk carved into blocks of one bin (bins at least this large take one block
    /// per upstream allocation).
    pub chunk_bytes: usize,
    /// Cross-stream reuse policy.
    pub reuse: Reuse,
    /// Whether the upstream orders reuse across streams itself (this crate's [`crate::Pool`],
    /// CUDA's stream-ordered pool); when not, returns to it wait for the freeing stream on the
    /// host.
    pub upstream_ordered: bool,
}

impl Default for BinningConfig {
    /// 256 B to 4 MiB bins from 1 MiB chunks (RMM's example range, seed notes).
    fn default() -> Self {
        Self { min_exp: 8, max_exp: 22, chunk_bytes: 1 << 20, reuse: Reuse::FollowEvents, upstream_ordered: false }
    }
}

/// Power-of-two bins over an upstream. Freed blocks stay cached in their bin until
/// [`Allocator::trim`].
#[derive(Debug)]
pub struct Binning {
    cache: ClassCache,
}

impl Binning {
    /// Bins over `upstream`; requests above `2^max_exp` also go to `upstream`.
    pub fn new(upstream: Arc<dyn Allocator>, config: BinningConfig) -> Self {
        let lo = config.min_exp.max(8);
        let hi = config.max_exp.max(lo);
        let spec = ClassSpec {
            name: format!("binning[2^{lo}..2^{hi}]"),
            sizes: (lo..=hi).map(|e| 1usize << e).collect(),
            chunk_bytes: config.chunk_bytes,
            max_cached: usize::MAX,
            reuse: config.reuse,
            max_waste: 1.0,
            keying: Keying::Stream,
            upstream_ordered: config.upstream_ordered,
        };
        Self { cache: ClassCache::new(spec, upstream, None) }
    }
}

class_strategy!(Binning);
