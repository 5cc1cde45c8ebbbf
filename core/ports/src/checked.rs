//! The hazard-checked device: a port for tools that model device work on memory without
//! running kernels (the allocation toolkit's trace replay, `tenor_alloc::replay`).
//!
//! An adapter that checks stream order (the simulated device, `tenor-sim`, with its
//! vector-clock checker) implements it; the composition root (`tenor-registry`) opens one, so
//! the toolkit in `core/alloc` needs no adapter (ADR 0016).

use std::sync::Arc;

use crate::{Access, Allocator, ComputeError, Stream};

/// A device whose memory uses are declared and checked against stream order.
pub trait CheckedDevice: Send + Sync {
    /// The device's own allocator (the upstream a strategy draws device memory from).
    fn memory(&self) -> Arc<dyn Allocator>;

    /// Creates a stream of this device.
    ///
    /// # Errors
    /// The device's error when it has no more streams.
    fn create_stream(&self) -> Result<Stream, ComputeError>;

    /// Enqueues on `stream` a use of `len` bytes at device address `ptr` with `access` and no
    /// data change ("work on this stream uses this block"), checked against every other use
    /// when it runs.
    ///
    /// # Errors
    /// [`ComputeError::ForeignHandle`] for a stream of another device.
    fn touch(&self, stream: &Stream, ptr: u64, len: usize, access: Access) -> Result<(), ComputeError>;

    /// Runs all enqueued work (a device-wide synchronisation).
    ///
    /// # Errors
    /// The first sticky error of the work run (a hazard is one).
    fn synchronize(&self) -> Result<(), ComputeError>;

    /// Every hazard found so far, as text naming the accesses.
    fn hazards(&self) -> Vec<String>;
}
