//! # tenor-ports: the ports of Tenor's hexagon
//!
//! Backend-neutral pricing and backtesting code talks to two ports defined here:
//!
//! * [`Compute`]: streams (in-order queues), events, device buffers, kernel launches by name
//!   from the kernel registry, BLAS `gemm`, and device information.
//! * [`Allocator`]: stream-ordered device memory, the contract of RAPIDS RMM's
//!   `device_memory_resource` and of CUDA's stream-ordered allocator
//!   (CUDA Programming Guide, "Stream Ordered Memory Allocator").
//!
//! ## The stream-ordered contract
//!
//! 1. `allocate(bytes, s)` returns memory usable by work enqueued on stream `s` after the call.
//! 2. `deallocate(block, s)` is ordered after all work enqueued on `s` before the call; the
//!    caller guarantees that every use of the block on other streams is ordered before that
//!    point (stream `s` already waits on their events). It is an `unsafe fn`: the caller also
//!    owns the block (no live [`DeviceBuffer`] uses it); dropping the last `DeviceBuffer` is
//!    the safe way to free one.
//! 3. A block freed on stream `f` may be handed to an allocation on another stream `s` only
//!    after `s` waits on an event recorded on `f` after the free (or after `f` is known complete).
//! 4. Errors that happen asynchronously (a kernel fault, a failed free in `Drop`) are kept in a
//!    sticky slot and returned by the next [`Compute::synchronize`], [`Stream::synchronize`]
//!    on a tracked device, or [`Pending::wait`]. They never panic and are never lost.
//!
//! Adapters implement the small [`Driver`] trait; [`Device`] turns any driver into a
//! [`Compute`] and implements the hazard tracking once for all of them: every buffer
//! argument declares its [`Access`], cross-stream read-after-write, write-after-read and
//! write-after-write are ordered by event waits, and a buffer is freed on the stream of its
//! last use after that stream waited for all others.

pub mod allocator;
pub mod buffer;
pub mod checked;
pub mod compute;
pub mod device;
pub mod error;
pub mod expr;
pub mod files;
pub mod kernel;
pub mod multi;
pub mod number;
pub mod progress;
pub mod stream;
pub mod text;

pub use allocator::{AllocReport, Allocator, Block, Counted, Ledger};
pub use buffer::{Access, Arg, DeviceBuffer, RawArg};
pub use checked::CheckedDevice;
pub use compute::{Compute, ComputeExt, DeviceInfo, GemmDesc, Precision, Transpose};
pub use device::{Device, Driver};
pub use error::{AllocError, ComputeError};
pub use expr::{Expr, ExprError};
pub use kernel::{ArgDef, ArgType, Kernel, KernelDef, LaunchShape, SourceSpec, VariantKind, VariantSpec};
pub use multi::{shard_by_cost, Devices, PeerAccess, Sharding};
pub use progress::{NoProgress, Progress};
pub use stream::{Event, EventImpl, Pending, Stream, StreamImpl};

/// Result alias for port operations.
pub type Result<T, E = ComputeError> = std::result::Result<T, E>;
