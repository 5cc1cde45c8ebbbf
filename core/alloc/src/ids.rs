//! Allocation ids without a shared counter on the fast path.
//!
//! [`tenor_core::Block::new`] draws ids from one process-wide atomic, whose cache line bounces
//! between threads allocating at the same time. Strategies of this crate draw ids from
//! per-thread batches of a second process-wide counter instead, in a disjoint range (top bit
//! set), so ids stay unique in the process and the fast path touches no shared line.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use tenor_core::Block;

/// Ids handed to a thread at once.
const BATCH: u64 = 1024;
/// Marks ids issued by tenor-alloc (tenor-core's counter never reaches it).
const TAG: u64 = 1 << 63;

static NEXT_BATCH: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static RANGE: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

/// A fresh process-wide unique allocation id.
pub fn next_id() -> u64 {
    RANGE.with(|r| {
        let (mut next, mut end) = r.get();
        if next == end {
            next = NEXT_BATCH.fetch_add(BATCH, Ordering::Relaxed);
            end = next + BATCH;
        }
        r.set((next + 1, end));
        TAG | next
    })
}

/// A block at `ptr` of `size` bytes under a fresh id.
pub fn block(ptr: u64, size: usize) -> Block {
    Block { ptr, size, id: next_id() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_across_threads() {
        let mut all: Vec<u64> = (0..4)
            .map(|_| std::thread::spawn(|| (0..3000).map(|_| next_id()).collect::<Vec<_>>()))
            .flat_map(|h| h.join().expect("thread"))
            .collect();
        all.extend((0..10).map(|_| Block::new(0, 1).id));
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}
