//! Device buffers, their declared accesses, and the cross-stream hazard tracker.
//!
//! Every use of a buffer (launch argument, copy) declares an [`Access`]. Before enqueueing a
//! use on stream `t`, the tracker makes `t` wait on:
//! * for a read: the last write, when it was on another stream (read after write);
//! * for a write: the last write and every read since, from other streams (write after write,
//!   write after read).
//!
//! Events are recorded lazily: a use remembers its stream, and an event is recorded on that
//! stream only when another stream first needs to wait for it. An event recorded later on the
//! same stream completes after the use, so the wait is correct (at worst conservative), and the
//! single-stream path records no events at all.
//!
//! When the last handle drops, the block is freed on the stream of its latest use, after that
//! stream waited on the other streams' uses: RMM's `deallocate` contract.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Deserialize;

use crate::device::ErrorSlot;
use crate::{Allocator, Block, ComputeError, Event, Stream};

static NEXT_USE: AtomicU64 = AtomicU64::new(1);

/// How a launch or copy uses a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Only read.
    Read,
    /// Only written.
    Write,
    /// Read and written.
    ReadWrite,
}

impl Access {
    /// Whether the access writes.
    pub fn writes(self) -> bool {
        !matches!(self, Self::Read)
    }
    /// Whether the access reads.
    pub fn reads(self) -> bool {
        !matches!(self, Self::Write)
    }
}

/// A launch argument as core passes it.
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    /// A buffer with its access (must match the manifest's).
    Buf(&'a DeviceBuffer, Access),
    /// A `u32` scalar.
    U32(u32),
    /// An `i32` scalar.
    I32(i32),
    /// A `u64` scalar.
    U64(u64),
    /// An `f32` scalar.
    F32(f32),
    /// An `f64` scalar.
    F64(f64),
}

/// A launch argument as adapters receive it: buffers reduced to device addresses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RawArg {
    /// A buffer: device address and length in bytes.
    Ptr(u64, u64),
    /// A `u32` scalar.
    U32(u32),
    /// An `i32` scalar.
    I32(i32),
    /// A `u64` scalar.
    U64(u64),
    /// An `f32` scalar.
    F32(f32),
    /// An `f64` scalar.
    F64(f64),
}

#[derive(Debug)]
pub(crate) struct Use {
    stream: Stream,
    event: Option<Event>,
    seq: u64,
}

impl Use {
    fn new(stream: &Stream) -> Self {
        Self { stream: stream.clone(), event: None, seq: NEXT_USE.fetch_add(1, Ordering::Relaxed) }
    }
    /// The event to wait on for this use, recorded now if none was.
    fn event(&mut self) -> Result<Event, ComputeError> {
        if let Some(e) = &self.event {
            return Ok(e.clone());
        }
        let e = self.stream.record()?;
        self.event = Some(e.clone());
        Ok(e)
    }
}

#[derive(Debug, Default)]
pub(crate) struct AccessState {
    writer: Option<Use>,
    readers: Vec<Use>,
}

#[derive(Debug)]
struct Inner {
    block: Block,
    len: usize,
    allocator: Arc<dyn Allocator>,
    state: Mutex<AccessState>,
    device: u64,
    home: Stream,
    errors: Arc<ErrorSlot>,
}

/// A stream-ordered device allocation. Cloning shares the allocation; it is freed (in stream
/// order) when the last clone drops.
///
/// `len()` is the requested size in bytes; the block may be larger.
#[derive(Debug, Clone)]
pub struct DeviceBuffer {
    inner: Arc<Inner>,
}

fn lock(m: &Mutex<AccessState>) -> MutexGuard<'_, AccessState> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl DeviceBuffer {
    pub(crate) fn new(
        block: Block,
        len: usize,
        allocator: Arc<dyn Allocator>,
        device: u64,
        home: &Stream,
        errors: Arc<ErrorSlot>,
    ) -> Self {
        let state = AccessState {
            writer: Some(Use::new(home)), // allocation is ordered on its home stream
            readers: Vec::new(),
        };
        Self {
            inner: Arc::new(Inner {
                block,
                len,
                allocator,
                state: Mutex::new(state),
                device,
                home: home.clone(),
                errors,
            }),
        }
    }
    /// Requested size in bytes.
    pub fn len(&self) -> usize {
        self.inner.len
    }
    /// Whether the buffer has zero bytes.
    pub fn is_empty(&self) -> bool {
        self.inner.len == 0
    }
    /// Device address.
    pub fn ptr(&self) -> u64 {
        self.inner.block.ptr
    }
    /// The block the allocator handed out.
    pub fn block(&self) -> Block {
        self.inner.block
    }
    /// Id of the device that owns the buffer.
    pub fn device_id(&self) -> u64 {
        self.inner.device
    }
    /// The stream the buffer was allocated on.
    pub fn home_stream(&self) -> &Stream {
        &self.inner.home
    }
    /// Whether two handles share one allocation.
    pub fn same(&self, other: &DeviceBuffer) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Makes `stream` wait for every earlier use on other streams that `access` conflicts with.
    pub(crate) fn order_before(&self, stream: &Stream, access: Access) -> Result<(), ComputeError> {
        let mut st = lock(&self.inner.state);
        if let Some(w) = st.writer.as_mut() {
            if w.stream != *stream {
                stream.wait(&w.event()?)?;
            }
        }
        if access.writes() {
            for r in st.readers.iter_mut().filter(|r| r.stream != *stream) {
                stream.wait(&r.event()?)?;
            }
        }
        Ok(())
    }

    /// Notes a use enqueued on `stream`.
    pub(crate) fn note_use(&self, stream: &Stream, access: Access) {
        let mut st = lock(&self.inner.state);
        if access.writes() {
            st.writer = Some(Use::new(stream));
            st.readers.clear();
        } else {
            st.readers.retain(|r| r.stream != *stream);
            st.readers.push(Use::new(stream));
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let st = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        let mut uses: Vec<&mut Use> = st.writer.iter_mut().chain(st.readers.iter_mut()).collect();
        uses.sort_by_key(|u| u.seq);
        let free_on = uses.last().map_or_else(|| self.home.clone(), |u| u.stream.clone());
        let mut result = Ok(());
        for u in uses.into_iter().filter(|u| u.stream != free_on) {
            if let Err(e) = u.event().and_then(|e| free_on.wait(&e)) {
                result = Err(e);
            }
        }
        // SAFETY: this is the last handle of the buffer (`Inner` is dropped once, when the last
        // `DeviceBuffer` clone goes), the block is its own (allocated for it by `Device::alloc`,
        // never handed to anything else), and `free_on` has just waited on every use on another
        // stream; uses on `free_on` itself are ordered before the free by the stream.
        let result = result
            .and_then(|()| unsafe { self.allocator.deallocate(self.block, &free_on) }.map_err(ComputeError::from));
        if let Err(e) = result {
            self.errors.push(e);
        }
    }
}
