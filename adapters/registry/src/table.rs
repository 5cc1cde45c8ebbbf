//! The registration table of backends: one row per backend, the one place to add one (ADR 0016).
//!
//! A row names the backend, the Cargo feature of this crate that builds it (`none`: always
//! built), whether `auto` may choose it, a one-line description, the expression that opens its
//! concrete [`tenor_ports::Device`], and, for backends whose memory can come from any
//! allocator, the expression that opens it over one (`over: none` otherwise). Adding a backend
//! is one row here and one feature (with its optional dependency) in `Cargo.toml`.
//!
//! Rows are in `auto`'s order of preference.

use std::sync::Arc;

use tenor_ports::{Allocator, Compute, ComputeError, Device};

use crate::memory::{self, ReplayMemory};
use crate::DeviceVisitor;

/// Expands one row's functions: `visit` (static dispatch), `open`, `open_over`, feature-gated.
macro_rules! row_fns {
    (none, $name:expr, $device:expr) => {
        pub fn visit<V: DeviceVisitor>(visitor: V) -> Result<V::Output, ComputeError> {
            Ok(visitor.visit(&$device?))
        }
        pub fn open() -> Result<Arc<dyn Compute>, ComputeError> {
            Ok(Arc::new($device?))
        }
    };
    ($feature:literal, $name:expr, $device:expr) => {
        #[cfg(feature = $feature)]
        pub fn visit<V: DeviceVisitor>(visitor: V) -> Result<V::Output, ComputeError> {
            Ok(visitor.visit(&$device?))
        }
        #[cfg(feature = $feature)]
        pub fn open() -> Result<Arc<dyn Compute>, ComputeError> {
            Ok(Arc::new($device?))
        }
        #[cfg(not(feature = $feature))]
        pub fn visit<V: DeviceVisitor>(_visitor: V) -> Result<V::Output, ComputeError> {
            Err(crate::not_built($name, $feature))
        }
        #[cfg(not(feature = $feature))]
        pub fn open() -> Result<Arc<dyn Compute>, ComputeError> {
            Err(crate::not_built($name, $feature))
        }
    };
}

macro_rules! feature_of {
    (none) => {
        None
    };
    ($feature:literal) => {
        Some($feature)
    };
}

macro_rules! built {
    (none) => {
        true
    };
    ($feature:literal) => {
        cfg!(feature = $feature)
    };
}

macro_rules! over_of {
    (none) => {
        None
    };
    (($over:path)) => {
        Some($over)
    };
    ($over:expr) => {
        Some($over)
    };
}

/// Builds [`BACKENDS`] and the static dispatch of [`crate::visit`] from the rows.
macro_rules! backends {
    ($( $id:ident {
        feature: $feature:tt,
        auto: $auto:literal,
        description: $description:literal,
        device: $device:expr,
        over: $over:tt,
        replay: $replay:tt $(,)?
    } )*) => {
        $(
            #[allow(missing_docs, unused_imports)]
            mod $id {
                use super::*;
                row_fns!($feature, stringify!($id), $device);
            }
        )*

        /// Every backend Tenor knows, built into this binary or not, in `auto`'s order.
        pub static BACKENDS: &[Backend] = &[$(
            Backend {
                name: stringify!($id),
                feature: feature_of!($feature),
                built: built!($feature),
                auto: $auto,
                description: $description,
                open: $id::open,
                open_over: over_of!($over),
                replay: over_of!($replay),
            },
        )*];

        /// Opens the backend called `name` and hands its concrete device to `visitor`.
        pub(crate) fn visit_row<V: DeviceVisitor>(name: &str, visitor: V) -> Option<Result<V::Output, ComputeError>> {
            $( if name == stringify!($id) { return Some($id::visit(visitor)); } )*
            None
        }
    };
}

/// Opens a backend.
pub type OpenFn = fn() -> Result<Arc<dyn Compute>, ComputeError>;
/// Opens a backend with its device memory from the given allocator.
pub type OpenOverFn = fn(Arc<dyn Allocator>) -> Result<Arc<dyn Compute>, ComputeError>;
/// Opens a backend's replay allocators: (lanes, memory bytes of a simulated device).
pub type ReplayFn = fn(usize, usize) -> Result<ReplayMemory, ComputeError>;

/// One backend: a row of the registration table.
#[derive(Debug, Clone, Copy)]
pub struct Backend {
    /// Its name (`--backend`, `TENOR_BACKEND`, `tenor.open`).
    pub name: &'static str,
    /// The Cargo feature of `tenor-registry` that builds it (`None`: always built).
    pub feature: Option<&'static str>,
    /// Whether this binary has it (its feature was on).
    pub built: bool,
    /// Whether `auto` may choose it.
    pub auto: bool,
    /// One line for help texts and `tenor backends`.
    pub description: &'static str,
    /// Opens it; [`ComputeError::Unavailable`] naming the feature when it was not built, or why
    /// it cannot run here.
    pub open: OpenFn,
    /// Opens it with device memory from the given allocator (recording a trace), where its
    /// memory can come from any allocator (host memory).
    pub open_over: Option<OpenOverFn>,
    /// Opens its allocators for the timed replay ([`crate::replay_memory`]: lanes, memory
    /// bytes of a simulated device), where it has them.
    pub replay: Option<ReplayFn>,
}

fn cpu_over(memory: Arc<dyn Allocator>) -> Result<Arc<dyn Compute>, ComputeError> {
    Ok(Arc::new(Device::with_allocator(tenor_cpu::CpuDriver::new(None)?, memory)?))
}

backends! {
    cuda {
        feature: "cuda",
        auto: true,
        description: "NVIDIA GPUs: CUDA driver, NVRTC, cuBLAS",
        device: tenor_cuda::cuda(),
        over: none,
        replay: (memory::cuda),
    }
    sycl {
        feature: "sycl",
        auto: true,
        description: "SYCL on DPC++, device from TENOR_SYCL_DEVICE",
        device: tenor_sycl::sycl_from_env(),
        over: none,
        replay: none,
    }
    opencl {
        feature: "opencl",
        auto: true,
        description: "OpenCL (library loaded at run time), device from TENOR_OPENCL_DEVICE",
        device: tenor_opencl::opencl_from_env(),
        over: none,
        replay: none,
    }
    cpu {
        feature: none,
        auto: true,
        description: "the CPU reference, all cores",
        device: tenor_cpu::cpu(),
        over: cpu_over,
        replay: none,
    }
    sim {
        feature: none,
        auto: false,
        description: "simulated device that checks stream order, for tests",
        device: tenor_sim::sim(tenor_sim::SimConfig::default()),
        over: none,
        replay: (memory::sim),
    }
}
