//! The `Allocator` port: stream-ordered device memory.
//!
//! The contract is RAPIDS RMM's `device_memory_resource` (`allocate(bytes, stream)`,
//! `deallocate(ptr, bytes, stream)`), which CUDA's stream-ordered allocator follows
//! (`cuMemAllocAsync` / `cuMemFreeAsync`, CUDA Driver API "Stream Ordered Memory Allocator").
//! See the crate documentation for the four rules.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::{AllocError, Stream};

static NEXT_BLOCK_ID: AtomicU64 = AtomicU64::new(1);

/// A block of device memory handed out by an [`Allocator`].
///
/// `ptr` is a device address in the backend's address space (a `CUdeviceptr` on CUDA, a USM
/// pointer on SYCL, a host address on the CPU backend, an offset in the simulated device's
/// memory). `size` is the usable size in bytes, at least the requested size. `id` is unique in
/// the process and names the allocation in traces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Block {
    /// Device address.
    pub ptr: u64,
    /// Usable size in bytes.
    pub size: usize,
    /// Process-wide unique allocation id.
    pub id: u64,
}

impl Block {
    /// A block with a fresh id.
    pub fn new(ptr: u64, size: usize) -> Self {
        Self { ptr, size, id: NEXT_BLOCK_ID.fetch_add(1, Ordering::Relaxed) }
    }
    /// The same memory under a fresh allocation id (a sub-allocator handing out a cached block).
    pub fn renewed(self, size: usize) -> Self {
        Self::new(self.ptr, size)
    }
    /// One past the last byte.
    pub fn end(&self) -> u64 {
        self.ptr + self.size as u64
    }
}

/// Bytes in use and reserved, with their high watermarks since the last reset.
///
/// `used` counts bytes handed to callers; `reserved` counts bytes taken from the upstream
/// (for CUDA's pool these are `CU_MEMPOOL_ATTR_USED_MEM_CURRENT` and
/// `CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT`, and the `_HIGH` attributes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AllocReport {
    /// Bytes currently handed out.
    pub used: usize,
    /// Bytes currently held from the upstream or the device.
    pub reserved: usize,
    /// High watermark of `used`.
    pub peak_used: usize,
    /// High watermark of `reserved`.
    pub peak_reserved: usize,
    /// Live allocations.
    pub live_blocks: usize,
    /// Successful `allocate` calls since the allocator was created, counted once for every
    /// backend by the [`Counted`] wrapper that [`crate::Device`] puts around its allocator (an
    /// allocator's own report leaves it 0). The difference of two reports is the allocations
    /// between them (`tenor price` reports it per book).
    pub allocations: u64,
    /// Bytes asked for by those calls (the requested sizes, before any rounding).
    pub allocated_bytes: u64,
}

/// The allocation port. Implementations must be thread-safe.
///
/// # Contract (stream-ordered, as RMM and CUDA)
/// * `allocate(bytes, s)`: memory usable by work enqueued on `s` after the call.
/// * `deallocate(block, s)` (an `unsafe fn`: the caller owns the block, see its `# Safety`):
///   ordered after all work enqueued on `s` before the call. The caller guarantees all uses of
///   the block on other streams are ordered before it (`s` waited on their events).
///   [`crate::Device`] does this for every [`crate::DeviceBuffer`].
/// * Reuse of a freed block on another stream only after that stream waits on an event recorded
///   on the freeing stream after the free.
///
/// # Safety
/// An `unsafe trait` (as wgpu-hal's device traits): [`crate::Device`] writes and reads through
/// the addresses of the blocks an allocator returns, so an implementation promises that every
/// [`Block`] `allocate(bytes, s)` returns names at least `bytes` bytes of device memory of this
/// allocator's device (`Block::len() >= bytes`), usable in stream order on `s`, that no two live
/// blocks overlap, and that a block stays valid until it is passed to `deallocate`. A safe
/// implementation returning an arbitrary address could otherwise make safe code write anywhere.
///
/// Implementing the trait without `unsafe` does not compile:
/// ```compile_fail
/// use tenor_ports::{AllocError, Allocator, Block, Stream};
/// #[derive(Debug)]
/// struct Anywhere;
/// impl Allocator for Anywhere {
///     fn name(&self) -> &str { "anywhere" }
///     fn allocate(&self, bytes: usize, _: &Stream) -> Result<Block, AllocError> { Ok(Block::new(0x1234, bytes)) }
///     unsafe fn deallocate(&self, _: Block, _: &Stream) -> Result<(), AllocError> { Ok(()) }
/// }
/// ```
/// while the same code with `unsafe impl` (the implementer's promise) does:
/// ```no_run
/// use tenor_ports::{AllocError, Allocator, Block, Stream};
/// #[derive(Debug)]
/// struct Anywhere;
/// // SAFETY: (a doctest of the syntax only; this allocator breaks the contract.)
/// unsafe impl Allocator for Anywhere {
///     fn name(&self) -> &str { "anywhere" }
///     fn allocate(&self, bytes: usize, _: &Stream) -> Result<Block, AllocError> { Ok(Block::new(0x1234, bytes)) }
///     unsafe fn deallocate(&self, _: Block, _: &Stream) -> Result<(), AllocError> { Ok(()) }
/// }
/// ```
pub unsafe trait Allocator: Send + Sync + fmt::Debug {
    /// Short name for reports (`"cuda-default-pool"`, `"binning"`, ...).
    fn name(&self) -> &str;
    /// Allocates at least `bytes` bytes, usable on `stream` in stream order.
    ///
    /// # Errors
    /// [`AllocError::OutOfMemory`] with requested and available bytes, a budget error, or a
    /// backend error.
    fn allocate(&self, bytes: usize, stream: &Stream) -> Result<Block, AllocError>;
    /// Returns `block` in the order of `stream`.
    ///
    /// An `unsafe fn` in the manner of `wgpu-hal`'s raw frees: [`Block`] is a plain copyable
    /// description (address, size, id), so nothing in the type system stops a second holder of
    /// the same block from freeing it while a [`crate::DeviceBuffer`] still uses it. The caller
    /// takes that duty on. [`crate::DeviceBuffer`]'s `Drop` is the one safe path that frees a
    /// device buffer's block; the toolkit's strategies (core/alloc) forward the call with the
    /// caller's guarantee, and trace replays free only blocks they allocated themselves.
    ///
    /// ```compile_fail
    /// // Safe code cannot free the block of a live buffer (a use-after-free on the CPU backend).
    /// use tenor_ports::Compute;
    /// fn free_under_a_live_buffer(dev: &dyn Compute) {
    ///     let s = dev.default_stream().clone();
    ///     let buf = dev.alloc(&s, 64).expect("alloc");
    ///     let _ = dev.allocator().deallocate(buf.block(), &s);
    ///     drop(buf);
    /// }
    /// ```
    ///
    /// The same call compiles once the caller takes on the contract in an `unsafe` block (so the
    /// example above fails for that reason alone):
    ///
    /// ```no_run
    /// use tenor_ports::Compute;
    /// fn free_a_block_of_ones_own(dev: &dyn Compute) {
    ///     let s = dev.default_stream().clone();
    ///     let block = dev.allocator().allocate(64, &s).expect("alloc");
    ///     // SAFETY: `block` came from this allocator just now and nothing else holds or uses it.
    ///     let _ = unsafe { dev.allocator().deallocate(block, &s) };
    /// }
    /// ```
    ///
    /// # Safety
    /// The caller owns `block`: no live [`crate::DeviceBuffer`] or other holder uses the memory
    /// `block.ptr .. block.end()`, and every use of it on a stream other than `stream` is ordered
    /// before the call (`stream` waited on those uses' events). Work enqueued on `stream`
    /// before the call may still use it (the free is stream-ordered). Passing a block this
    /// allocator does not hold (never handed out, or already freed and not handed out again) is
    /// allowed and must be refused with [`AllocError::UnknownBlock`]; passing an already freed
    /// block whose memory was handed out again frees the new holder's memory and is the misuse
    /// this contract forbids.
    ///
    /// # Errors
    /// [`AllocError::UnknownBlock`] for a block this allocator does not own; backend errors.
    unsafe fn deallocate(&self, block: Block, stream: &Stream) -> Result<(), AllocError>;
    /// Current and peak usage.
    fn report(&self) -> AllocReport {
        AllocReport::default()
    }
    /// Resets the high watermarks to the current values.
    fn reset_peaks(&self) {}
    /// Releases cached memory above `keep_bytes` back to the upstream (`cuMemPoolTrimTo`).
    ///
    /// # Errors
    /// Backend errors.
    fn trim(&self, keep_bytes: usize) -> Result<(), AllocError> {
        let _ = keep_bytes;
        Ok(())
    }
}

/// An allocator that counts the successful `allocate` calls made through it and the bytes they
/// asked for, and reports them in [`AllocReport::allocations`] and
/// [`AllocReport::allocated_bytes`] over the wrapped allocator's own report. [`crate::Device`]
/// wraps every allocator it is given, so the count is kept in one place for every backend.
/// Two relaxed atomic additions per allocation.
#[derive(Debug)]
pub struct Counted {
    inner: std::sync::Arc<dyn Allocator>,
    allocations: AtomicU64,
    bytes: AtomicU64,
}

impl Counted {
    /// Counts the allocations made through `inner` from now on.
    pub fn new(inner: std::sync::Arc<dyn Allocator>) -> Self {
        Self { inner, allocations: AtomicU64::new(0), bytes: AtomicU64::new(0) }
    }
}

// SAFETY: blocks come from this allocator's upstream (or its own slabs) and are handed out

// once until freed, as the trait's contract asks.

unsafe impl Allocator for Counted {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn allocate(&self, bytes: usize, stream: &Stream) -> Result<Block, AllocError> {
        let block = self.inner.allocate(bytes, stream)?;
        self.allocations.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
        Ok(block)
    }
    unsafe fn deallocate(&self, block: Block, stream: &Stream) -> Result<(), AllocError> {
        // SAFETY: the caller's contract (Allocator::deallocate) is passed on unchanged: this
        // wrapper hands out the inner allocator's blocks as they are.
        unsafe { self.inner.deallocate(block, stream) }
    }
    fn report(&self) -> AllocReport {
        AllocReport {
            allocations: self.allocations.load(Ordering::Relaxed),
            allocated_bytes: self.bytes.load(Ordering::Relaxed),
            ..self.inner.report()
        }
    }
    fn reset_peaks(&self) {
        self.inner.reset_peaks();
    }
    fn trim(&self, keep_bytes: usize) -> Result<(), AllocError> {
        self.inner.trim(keep_bytes)
    }
}

/// Rounds `bytes` up to a multiple of `align` (a power of two).
pub fn align_up(bytes: usize, align: usize) -> usize {
    debug_assert!(align.is_power_of_two());
    (bytes + align - 1) & !(align - 1)
}

/// The live blocks of an allocator that takes every block straight from the device (no caching:
/// `used` = `reserved`), each with the backend's handle `H`, and the [`AllocReport`] they add up
/// to, high watermarks included. Thread-safe; the lock is held only for the bookkeeping, never
/// across a device call. Shared by the host, USM and OpenCL buffer allocators so each adapter keeps
/// only its device calls.
#[derive(Debug)]
pub struct Ledger<H> {
    state: std::sync::Mutex<LedgerState<H>>,
}

#[derive(Debug)]
struct LedgerState<H> {
    live: std::collections::HashMap<u64, (H, usize)>,
    report: AllocReport,
}

impl<H> Default for Ledger<H> {
    fn default() -> Self {
        Self { state: std::sync::Mutex::new(LedgerState { live: Default::default(), report: AllocReport::default() }) }
    }
}

impl<H> Ledger<H> {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LedgerState<H>> {
        // A panic elsewhere while holding the lock leaves the counts consistent (each update is
        // a few additions), so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records `block` (its `size` bytes counted as used and reserved) with its handle.
    pub fn insert(&self, block: Block, handle: H) {
        let mut st = self.lock();
        st.live.insert(block.ptr, (handle, block.size));
        let r = &mut st.report;
        r.used += block.size;
        r.reserved += block.size;
        r.live_blocks += 1;
        r.peak_used = r.peak_used.max(r.used);
        r.peak_reserved = r.peak_reserved.max(r.reserved);
    }

    /// Forgets `block` and gives back its handle and recorded size, for the caller to free.
    ///
    /// # Errors
    /// [`AllocError::UnknownBlock`] when the ledger holds no block at `block.ptr`.
    pub fn remove(&self, block: Block) -> Result<(H, usize), AllocError> {
        let mut st = self.lock();
        let (handle, size) =
            st.live.remove(&block.ptr).ok_or(AllocError::UnknownBlock { ptr: block.ptr, size: block.size })?;
        let r = &mut st.report;
        r.used -= size;
        r.reserved -= size;
        r.live_blocks -= 1;
        Ok((handle, size))
    }

    /// Current and peak usage.
    pub fn report(&self) -> AllocReport {
        self.lock().report
    }

    /// Resets both high watermarks to the current values.
    pub fn reset_peaks(&self) {
        let mut st = self.lock();
        st.report.peak_used = st.report.used;
        st.report.peak_reserved = st.report.reserved;
    }

    /// Takes every still-live block with its handle and size (for an allocator's `Drop`), leaving
    /// the ledger empty.
    pub fn drain(&mut self) -> Vec<(u64, H, usize)> {
        let st = self.state.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
        st.report = AllocReport::default();
        st.live.drain().map(|(p, (h, s))| (p, h, s)).collect()
    }
}

#[cfg(test)]
mod ledger_tests {
    use super::*;

    #[test]
    fn counts_and_watermarks_follow_a_hand_computed_sequence() {
        let l = Ledger::new();
        l.insert(Block::new(0x1000, 100), 'a');
        l.insert(Block::new(0x2000, 50), 'b');
        let r = l.report();
        assert_eq!((r.used, r.reserved, r.peak_used, r.live_blocks), (150, 150, 150, 2));
        assert_eq!(l.remove(Block::new(0x1000, 100)).ok(), Some(('a', 100)));
        let r = l.report();
        assert_eq!((r.used, r.peak_used, r.peak_reserved, r.live_blocks), (50, 150, 150, 1));
        l.reset_peaks();
        assert_eq!(l.report().peak_used, 50);
        assert!(matches!(l.remove(Block::new(0x1000, 100)), Err(AllocError::UnknownBlock { ptr: 0x1000, .. })));
    }

    /// The counts follow a hand-computed sequence: two successful calls (100 and 50 bytes
    /// asked), one refused (not counted), a free (counts unchanged); the wrapped report's usage
    /// shows through.
    #[test]
    fn counted_counts_successful_allocations_and_their_bytes() {
        #[derive(Debug, Default)]
        struct Upstream(Ledger<()>, std::sync::atomic::AtomicU64);
        // SAFETY: blocks come from this allocator's upstream (or its own slabs) and are handed out
        // once until freed, as the trait's contract asks.
        unsafe impl Allocator for Upstream {
            fn name(&self) -> &str {
                "upstream"
            }
            fn allocate(&self, bytes: usize, _: &Stream) -> Result<Block, AllocError> {
                if bytes > 1000 {
                    return Err(AllocError::OutOfMemory { requested: bytes, available: 1000 });
                }
                let b = Block::new(0x1000 + self.1.fetch_add(0x1000, Ordering::Relaxed), align_up(bytes, 64));
                self.0.insert(b, ());
                Ok(b)
            }
            unsafe fn deallocate(&self, block: Block, _: &Stream) -> Result<(), AllocError> {
                self.0.remove(block).map(|_| ())
            }
            fn report(&self) -> AllocReport {
                self.0.report()
            }
        }
        #[derive(Debug)]
        struct Host;
        impl crate::StreamImpl for Host {
            fn record(&self) -> Result<crate::Event, crate::ComputeError> {
                Ok(crate::Event::completed())
            }
            fn wait_event(&self, _: &crate::Event) -> Result<(), crate::ComputeError> {
                Ok(())
            }
            fn synchronize(&self) -> Result<(), crate::ComputeError> {
                Ok(())
            }
            fn as_any(&self) -> &dyn std::any::Any {
                self
            }
        }
        let c = Counted::new(std::sync::Arc::new(Upstream::default()));
        let s = Stream::new(std::sync::Arc::new(Host));
        let a = c.allocate(100, &s).expect("100 bytes");
        c.allocate(50, &s).expect("50 bytes");
        assert!(c.allocate(5000, &s).is_err());
        // SAFETY: `a` came from `c` and no buffer uses it (the test holds only the handle).
        unsafe { c.deallocate(a, &s) }.expect("free");
        let r = c.report();
        assert_eq!((r.allocations, r.allocated_bytes), (2, 150));
        assert_eq!((r.used, r.peak_used, r.live_blocks), (64, 192, 1));
        assert_eq!(c.name(), "upstream");
    }

    #[test]
    fn drain_returns_what_is_still_live() {
        let mut l = Ledger::new();
        l.insert(Block::new(8, 8), ());
        assert_eq!(l.drain(), vec![(8, (), 8)]);
        assert_eq!(l.report(), AllocReport::default());
    }
}
