//! Allocation ids without a shared counter on the fast path.
//!
//! [`tenor_ports::Block::new`] draws ids from one process-wide atomic, whose cache line bounces
//! between threads allocating at the same time. Strategies of this crate draw ids from
//! per-thread batches of a second process-wide counter instead, in a disjoint range (top bit
//! set), so ids stay unique in the process and the fast path touches no shared line.
//!
//! Blocks of the size-class strategies carry the index of their block record (see
//! [`crate::records`]) in their id, so that a free finds the record without a map: such ids
//! have bit 62 set, the allocation's sequence number in bits 22..62 and the record index in bits
//! 0..22. Sequence numbers come from the same counter as plain ids, so ids stay unique; once the
//! counter passes 2^40 [`indexed`] gives `None` and the strategy falls back to a map.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use tenor_ports::Block;

/// Ids handed to a thread at once.
const BATCH: u64 = 1024;
/// Marks ids issued by tenor-alloc (tenor-ports's counter never reaches it).
const TAG: u64 = 1 << 63;

static NEXT_BATCH: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static RANGE: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

/// Marks ids that carry a record index.
const INDEXED: u64 = 1 << 62;
/// Bits of the record index in an indexed id.
pub(crate) const INDEX_BITS: u32 = 22;
/// Sequence numbers an indexed id can carry.
const SEQ_LIMIT: u64 = 1 << (62 - INDEX_BITS);

/// The next number of this thread's batch (a batch of the process-wide counter).
fn next_seq() -> u64 {
    let take = |r: &Cell<(u64, u64)>| {
        let (mut next, mut end) = r.get();
        if next == end {
            next = NEXT_BATCH.fetch_add(BATCH, Ordering::Relaxed);
            end = next + BATCH;
        }
        r.set((next + 1, end));
        next
    };
    // During thread teardown the thread-local may be gone: draw one number directly.
    RANGE.try_with(take).unwrap_or_else(|_| NEXT_BATCH.fetch_add(1, Ordering::Relaxed))
}

/// A fresh process-wide unique allocation id.
pub fn next_id() -> u64 {
    TAG | next_seq()
}

/// A fresh process-wide unique id carrying record index `index` (below `2^INDEX_BITS`), or
/// `None` once the sequence numbers an indexed id can carry are used up.
pub(crate) fn indexed(index: u32) -> Option<u64> {
    let seq = next_seq();
    (seq < SEQ_LIMIT && u64::from(index) < (1 << INDEX_BITS))
        .then_some(TAG | INDEXED | seq << INDEX_BITS | u64::from(index))
}

/// The record index an id carries, if it is an indexed id.
pub(crate) fn index_of(id: u64) -> Option<u32> {
    (id & (TAG | INDEXED) == TAG | INDEXED).then_some((id & ((1 << INDEX_BITS) - 1)) as u32)
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
        all.extend((0..3000u32).filter_map(|i| indexed(i % 7)));
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }

    #[test]
    fn indexed_ids_carry_their_index() {
        let id = indexed(12345).expect("sequence numbers left");
        assert_eq!(index_of(id), Some(12345));
        assert_eq!(index_of(next_id()), None, "plain ids carry no index");
        assert_eq!(index_of(Block::new(0, 1).id), None, "tenor-ports ids carry no index");
        assert_eq!(indexed(1 << INDEX_BITS), None, "index out of range");
    }
}
