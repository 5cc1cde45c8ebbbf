//! CUDA allocators behind the [`tenor_ports::Allocator`] port.
//!
//! * [`DefaultPool`]: the device's default memory pool through `cuMemAllocAsync` /
//!   `cuMemFreeAsync` (CUDA Programming Guide, "Stream Ordered Memory Allocator").
//! * [`ExplicitPool`]: a pool of Tenor's own from `cuMemPoolCreate` (maximum size, optional
//!   POSIX-file-descriptor IPC), used through `cuMemAllocFromPoolAsync` without ever making it
//!   the device's current pool: the rule for a library.
//! * [`PlainAllocator`]: `cuMemAlloc` / `cuMemFree` per block, outside every pool; its
//!   [`RdmaBuffer`] is the type for GPUDirect RDMA buffers, which must not come from the
//!   stream-ordered allocator.
//!
//! Which pool the backend opens with ([`PoolChoice`]): Tenor's own by default; the device's
//! shared default pool, whose attributes are process-wide state, only with `TENOR_CUDA_POOL=device`.
//!
//! Pool configuration ([`PoolConfig`]): the release threshold comes from a [`Sharing`]
//! policy (seed notes, "Release threshold"), and the three reuse attributes from a
//! [`ReusePolicy`] ([`ReusePolicy::deterministic`] keeps event-dependency reuse only).

mod choice;
mod explicit;
mod plain;
mod pool;

pub use choice::{PoolChoice, POOL_VAR};
pub use explicit::{ExplicitPool, ExplicitPoolConfig, ImportedPool, IpcPointer};
pub use plain::{PlainAllocator, RdmaBuffer};
pub use pool::{DefaultPool, PoolConfig, PoolHandle, ReusePolicy, Sharing};
