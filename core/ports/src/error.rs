//! Typed errors of the two ports.

use thiserror::Error;

/// Errors of the [`crate::Allocator`] port.
///
/// Every variant names what was asked for, so an out-of-memory report can be acted on
/// (RMM's `out_of_memory` carries no sizes; ours does).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AllocError {
    /// The request does not fit: `requested` bytes asked, `available` bytes left under the
    /// limit or on the device.
    #[error("out of memory: requested {requested} bytes, {available} bytes available")]
    OutOfMemory {
        /// Bytes requested.
        requested: usize,
        /// Bytes still available (under a cap, or free on the device).
        available: usize,
    },
    /// A per-job budget would be exceeded.
    #[error("job {job} over budget: requested {requested} bytes with {in_use} in use, budget {budget}")]
    BudgetExceeded {
        /// Job identifier.
        job: u64,
        /// Bytes requested.
        requested: usize,
        /// Bytes the job already holds.
        in_use: usize,
        /// The job's budget in bytes.
        budget: usize,
    },
    /// A zero-sized or absurd request.
    #[error("invalid allocation size {bytes} bytes: {reason}")]
    InvalidSize {
        /// Bytes requested.
        bytes: usize,
        /// Why the size is refused.
        reason: String,
    },
    /// A block handed back that this allocator does not own (double free or foreign block).
    #[error("unknown block at 0x{ptr:x} ({size} bytes): double free or foreign block")]
    UnknownBlock {
        /// Device address of the block.
        ptr: u64,
        /// Size of the block in bytes.
        size: usize,
    },
    /// The backend's allocation call failed.
    #[error("{backend} allocation error {code}: {message}")]
    Backend {
        /// Backend name.
        backend: String,
        /// Native error code.
        code: i64,
        /// Native message.
        message: String,
    },
    /// A stream operation the allocator needed (record, wait) failed.
    #[error("stream operation failed inside the allocator: {0}")]
    Stream(String),
}

/// Errors of the [`crate::Compute`] port.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ComputeError {
    /// The backend cannot be used here (no driver, no library, no device, feature not built).
    #[error("backend {backend} unavailable: {reason}")]
    Unavailable {
        /// Backend name.
        backend: String,
        /// Why it cannot be used.
        reason: String,
    },
    /// An allocation failed.
    #[error(transparent)]
    Alloc(#[from] AllocError),
    /// A kernel source did not compile.
    #[error("kernel {kernel} failed to compile on {backend}: {log}")]
    Compile {
        /// Kernel name.
        kernel: String,
        /// Backend name.
        backend: String,
        /// Compiler log.
        log: String,
    },
    /// A kernel launch was refused by the backend.
    #[error("launch of kernel {kernel} failed: {reason}")]
    Launch {
        /// Kernel name.
        kernel: String,
        /// Reason given by the backend.
        reason: String,
    },
    /// A launch argument does not match the kernel's manifest.
    #[error("kernel {kernel}, argument {position} ({name}): {reason}")]
    KernelArg {
        /// Kernel name.
        kernel: String,
        /// Zero-based position of the argument.
        position: usize,
        /// Argument name from the manifest.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// A buffer argument holds fewer elements than the manifest's `len` requires for this
    /// launch (checked by [`crate::Device`] before anything is enqueued).
    #[error(
        "kernel {kernel}, argument {position} ({name}): buffer holds {given} elements, the launch needs {required} (len = \"{len}\")"
    )]
    BufferTooShort {
        /// Kernel name.
        kernel: String,
        /// Zero-based position of the argument.
        position: usize,
        /// Argument name from the manifest.
        name: String,
        /// The manifest's length expression.
        len: String,
        /// Elements the launch needs (the expression's value).
        required: u64,
        /// Elements the buffer holds (its bytes over the element size).
        given: u64,
    },
    /// A kernel name that no registry knows, or a kernel without a source for this backend.
    #[error("kernel {kernel} not available on {backend}: {reason}")]
    UnknownKernel {
        /// Kernel name.
        kernel: String,
        /// Backend name.
        backend: String,
        /// Why.
        reason: String,
    },
    /// A malformed request (sizes, ranges, shapes).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The backend does not offer this operation.
    #[error("{what} is not supported on {backend}")]
    Unsupported {
        /// Backend name.
        backend: String,
        /// The operation.
        what: String,
    },
    /// A handle (stream, event, kernel) from another device or backend.
    #[error("handle belongs to another device or backend: {0}")]
    ForeignHandle(String),
    /// The simulated device's hazard checker found an unordered access.
    #[error("hazard: {0}")]
    Hazard(String),
    /// An error that happened asynchronously, reported at the next synchronisation.
    #[error("asynchronous error: {0}")]
    Async(Box<ComputeError>),
    /// A native backend error with its code.
    #[error("{backend} error {code}: {message}")]
    Backend {
        /// Backend name.
        backend: String,
        /// Native error code.
        code: i64,
        /// Native message.
        message: String,
    },
}
