//! Block records of a size-class cache, found from a block's id without a map.
//!
//! Every block position a size-class cache carves (or takes whole from the upstream) gets a
//! record: its address, its chunk and its class, fixed while the chunk is held, and, while the
//! block is handed out, the id it was handed out under and the job it is charged to. The
//! record's index travels in the block's id ([`crate::ids::indexed`]), so a free reads the
//! record directly (the slab-indexed metadata of RMM's `fixed_size_memory_resource` and of
//! mimalloc's pages, rather than a hash map under a lock).
//!
//! Records live in segments that never move, so reads take no lock. The live fields are
//! written by the thread that holds the block: the allocating thread, then, after the caller
//! handed the block over (which orders the two threads), the freeing thread. A free claims the
//! record with one compare-and-swap of the id, so a second free of the same block, even one
//! racing from another thread, finds no live record and is refused.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::ids::INDEX_BITS;
use crate::order::lock;

/// Records per segment.
const SEGMENT: usize = 4096;
/// Segments (so `SEGMENT * SEGMENTS` is `2^INDEX_BITS` records).
const SEGMENTS: usize = (1 << INDEX_BITS) / SEGMENT;

/// One block position, on its own cache line (blocks of different threads do not share one).
#[derive(Debug, Default)]
#[repr(align(64))]
pub(crate) struct Record {
    /// Id of the live allocation (0: free).
    id: AtomicU64,
    /// Job the live allocation is charged to.
    job: AtomicU64,
    /// Block address.
    ptr: AtomicU64,
    /// Address of the upstream chunk holding the block.
    chunk: AtomicU64,
    /// Size class.
    class: AtomicU32,
}

impl Record {
    /// Block address.
    pub(crate) fn ptr(&self) -> u64 {
        self.ptr.load(Ordering::Relaxed)
    }
    /// Address of the chunk holding the block.
    pub(crate) fn chunk(&self) -> u64 {
        self.chunk.load(Ordering::Relaxed)
    }
    /// Size class.
    pub(crate) fn class(&self) -> usize {
        self.class.load(Ordering::Relaxed) as usize
    }
    /// Marks the block handed out under `id`, charged to `job`.
    pub(crate) fn hand_out(&self, id: u64, job: u64) {
        self.job.store(job, Ordering::Relaxed);
        self.id.store(id, Ordering::Release);
    }
    /// Claims the live block `id` at `ptr` for a free: its job, or `None` when the record holds
    /// no such live block (a double or foreign free).
    pub(crate) fn take_back(&self, id: u64, ptr: u64) -> Option<u64> {
        if self.ptr() != ptr {
            return None;
        }
        self.id.compare_exchange(id, 0, Ordering::Acquire, Ordering::Relaxed).ok()?;
        Some(self.job.load(Ordering::Relaxed))
    }
}

/// The records of one cache.
#[derive(Debug)]
pub(crate) struct Records {
    segments: Box<[OnceLock<Box<[Record]>>]>,
    /// Released indices and the next never-used index.
    spare: Mutex<(Vec<u32>, u32)>,
}

impl Default for Records {
    fn default() -> Self {
        Self { segments: (0..SEGMENTS).map(|_| OnceLock::new()).collect(), spare: Mutex::new((Vec::new(), 0)) }
    }
}

impl Records {
    /// The record at `index`, if it exists.
    pub(crate) fn get(&self, index: u32) -> Option<&Record> {
        let i = index as usize;
        self.segments.get(i / SEGMENT)?.get()?.get(i % SEGMENT)
    }

    /// A record for the block at `ptr` of class `class` in chunk `chunk`, or `None` when all
    /// `2^INDEX_BITS` are in use (the cache then keeps the block in its map).
    pub(crate) fn acquire(&self, ptr: u64, chunk: u64, class: usize) -> Option<u32> {
        let index = {
            let mut s = lock(&self.spare);
            match s.0.pop() {
                Some(i) => i,
                None if (s.1 as usize) < SEGMENT * SEGMENTS => {
                    s.1 += 1;
                    s.1 - 1
                }
                None => return None,
            }
        };
        let i = index as usize;
        let seg = self.segments[i / SEGMENT].get_or_init(|| (0..SEGMENT).map(|_| Record::default()).collect());
        let r = &seg[i % SEGMENT];
        r.ptr.store(ptr, Ordering::Relaxed);
        r.chunk.store(chunk, Ordering::Relaxed);
        r.class.store(class as u32, Ordering::Relaxed);
        r.id.store(0, Ordering::Relaxed);
        Some(index)
    }

    /// Gives back the record at `index` (its block went back to the upstream).
    pub(crate) fn release(&self, index: u32) {
        if let Some(r) = self.get(index) {
            r.id.store(0, Ordering::Relaxed);
            r.ptr.store(u64::MAX, Ordering::Relaxed);
        }
        lock(&self.spare).0.push(index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_taken_back_once() {
        let r = Records::default();
        let i = r.acquire(4096, 0, 3).expect("record");
        let rec = r.get(i).expect("exists");
        assert_eq!((rec.ptr(), rec.chunk(), rec.class()), (4096, 0, 3));
        rec.hand_out(77, 5);
        assert_eq!(rec.take_back(77, 8192), None, "wrong address");
        assert_eq!(rec.take_back(78, 4096), None, "wrong id");
        assert_eq!(rec.take_back(77, 4096), Some(5));
        assert_eq!(rec.take_back(77, 4096), None, "second free");
        r.release(i);
        assert_eq!(r.acquire(1, 1, 1), Some(i), "released indices are reused");
    }
}
