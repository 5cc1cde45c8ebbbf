//! A fault-injecting upstream for tests: fails allocations on a seeded schedule and checks
//! that the allocator above it never leaks, double-frees or frees a foreign block.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tenor_ports::{AllocError, AllocReport, Allocator, Block, Stream};

use crate::order::{lock, FastMap};

/// Wraps an allocator and fails about one allocation in `one_in` (seeded SplitMix64: Steele,
/// Lea and Flood 2014) with a backend error. It records every block it handed out, so
/// [`FaultInjecting::live`] shows leaks and [`FaultInjecting::bad_frees`] counts frees of
/// blocks it does not hold (double or foreign frees), which it refuses.
#[derive(Debug)]
pub struct FaultInjecting {
    inner: Arc<dyn Allocator>,
    one_in: u64,
    rng: Mutex<u64>,
    live: Mutex<FastMap<u64, usize>>,
    injected: AtomicU64,
    bad_frees: AtomicU64,
}

impl FaultInjecting {
    /// Fails about one allocation in `one_in` (0: never) over `inner`.
    pub fn new(inner: Arc<dyn Allocator>, one_in: u64, seed: u64) -> Self {
        Self {
            inner,
            one_in,
            rng: Mutex::new(seed ^ 0x9E37_79B9_7F4A_7C15),
            live: Mutex::new(FastMap::default()),
            injected: AtomicU64::new(0),
            bad_frees: AtomicU64::new(0),
        }
    }
    fn fail_now(&self) -> bool {
        if self.one_in == 0 {
            return false;
        }
        let mut s = lock(&self.rng);
        *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)).is_multiple_of(self.one_in)
    }
    /// Blocks handed out and not returned: (address, size).
    pub fn live(&self) -> Vec<(u64, usize)> {
        let mut v: Vec<_> = lock(&self.live).iter().map(|(p, s)| (*p, *s)).collect();
        v.sort_unstable();
        v
    }
    /// Failures injected so far.
    pub fn injected(&self) -> u64 {
        self.injected.load(Ordering::Relaxed)
    }
    /// Frees of blocks this upstream did not hold.
    pub fn bad_frees(&self) -> u64 {
        self.bad_frees.load(Ordering::Relaxed)
    }
}

// SAFETY: blocks come from this allocator's upstream (or its own slabs) and are handed out

// once until freed, as the trait's contract asks.

unsafe impl Allocator for FaultInjecting {
    fn name(&self) -> &str {
        "fault-injecting"
    }
    fn allocate(&self, bytes: usize, stream: &Stream) -> Result<Block, AllocError> {
        if self.fail_now() {
            self.injected.fetch_add(1, Ordering::Relaxed);
            return Err(AllocError::Backend {
                backend: "fault-injecting".into(),
                code: 2,
                message: format!("injected failure of a {bytes}-byte allocation"),
            });
        }
        let b = self.inner.allocate(bytes, stream)?;
        lock(&self.live).insert(b.ptr, b.size);
        Ok(b)
    }
    unsafe fn deallocate(&self, block: Block, stream: &Stream) -> Result<(), AllocError> {
        if lock(&self.live).remove(&block.ptr).is_none() {
            self.bad_frees.fetch_add(1, Ordering::Relaxed);
            return Err(AllocError::UnknownBlock { ptr: block.ptr, size: block.size });
        }
        // SAFETY: this method's contract (the caller owns `block`), passed on unchanged.
        unsafe { self.inner.deallocate(block, stream) }
    }
    fn report(&self) -> AllocReport {
        self.inner.report()
    }
}
