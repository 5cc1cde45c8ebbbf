//! Pinned (page-locked) host staging buffers for device-to-host copies.
//!
//! A download is `cuMemcpyDtoHAsync` into a pinned buffer, an event, and a [`Pending`] that
//! copies out once the event completed (CUDA C++ Best Practices Guide, "Pinned Memory": only
//! page-locked memory is copied asynchronously). Buffers are reused through a small free list.

use std::sync::{Arc, Mutex};

use cudarc::driver::sys;
use tenor_ports::{ComputeError, Event};

use crate::context::Context;
use crate::error::check;

const MIN_CAPACITY: usize = 64 * 1024;
const KEEP: usize = 8;

/// One page-locked host buffer (`cuMemHostAlloc`).
#[derive(Debug)]
pub struct Pinned {
    ptr: *mut u8,
    capacity: usize,
    ctx: Arc<Context>,
}

// SAFETY: the pointer is plain page-locked host memory owned by this value.
unsafe impl Send for Pinned {}

impl Pinned {
    fn new(ctx: &Arc<Context>, capacity: usize) -> Result<Self, ComputeError> {
        ctx.bind()?;
        let mut p: *mut std::ffi::c_void = std::ptr::null_mut();
        // SAFETY: valid out-pointer; flags 0 = portable to this context.
        check("cuMemHostAlloc", unsafe { sys::cuMemHostAlloc(&mut p, capacity, 0) })?;
        Ok(Self { ptr: p.cast(), capacity, ctx: ctx.clone() })
    }
    /// Host address.
    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        if self.ctx.bind().is_ok() {
            // SAFETY: allocated by cuMemHostAlloc; no copy is in flight (see `Staged`).
            let _ = unsafe { sys::cuMemFreeHost(self.ptr.cast()) };
        }
    }
}

/// The free list of pinned buffers.
#[derive(Debug)]
pub struct Staging {
    ctx: Arc<Context>,
    free: Mutex<Vec<Pinned>>,
}

impl Staging {
    /// An empty free list on `ctx`.
    pub fn new(ctx: Arc<Context>) -> Arc<Self> {
        Arc::new(Self { ctx, free: Mutex::new(Vec::new()) })
    }

    /// A buffer of at least `len` bytes.
    ///
    /// # Errors
    /// Driver errors of `cuMemHostAlloc`.
    pub fn take(&self, len: usize) -> Result<Pinned, ComputeError> {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        let best = free.iter().enumerate().filter(|(_, b)| b.capacity >= len).min_by_key(|(_, b)| b.capacity);
        if let Some((i, _)) = best {
            return Ok(free.swap_remove(i));
        }
        drop(free);
        Pinned::new(&self.ctx, len.max(MIN_CAPACITY).next_power_of_two())
    }

    fn give(&self, buf: Pinned) {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        if free.len() < KEEP {
            free.push(buf);
        }
    }
}

/// A pinned buffer with a copy in flight: it goes back to the free list only after its event
/// completed, also when the [`tenor_ports::Pending`] is dropped without waiting.
pub struct Staged {
    buf: Option<Pinned>,
    event: Event,
    staging: Arc<Staging>,
}

impl Staged {
    /// Wraps `buf`, whose copy completes with `event`.
    pub fn new(buf: Pinned, event: Event, staging: Arc<Staging>) -> Self {
        Self { buf: Some(buf), event, staging }
    }

    /// Copies the first `len` bytes out (the event must have completed).
    pub fn to_vec(&self, len: usize) -> Vec<u8> {
        match &self.buf {
            // SAFETY: the copy into the buffer completed (caller waited on the event); `len`
            // is at most the capacity it was taken for.
            Some(b) => unsafe { std::slice::from_raw_parts(b.ptr, len.min(b.capacity)) }.to_vec(),
            None => Vec::new(),
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(buf) = self.buf.take() {
            if self.event.synchronize().is_ok() {
                self.staging.give(buf);
            } else {
                // The context is broken: freeing may race with the failed copy, so leak it.
                std::mem::forget(buf);
            }
        }
    }
}
