//! # tenor-cpu: the CPU reference backend
//!
//! Always built; every other backend is checked against it. Streams execute their work
//! synchronously at enqueue time (a legal schedule of an in-order queue: every event is complete
//! when recorded), kernels are the Rust reference implementations of `tenor-kernels` run block
//! by block on a rayon pool, memory comes from [`HostAllocator`], and `gemm` is
//! `matrixmultiply`'s blocked dgemm/sgemm (the BLIS design, Van Zee and van de Geijn 2015).
//!
//! Results do not depend on the number of threads: a kernel's blocks write disjoint outputs
//! and per-block partial results, and reductions over partials happen in a fixed order.

mod allocator;

use std::any::Any;
use std::sync::Arc;

use rayon::prelude::*;
use tenor_kernels::cpu::{CpuKernelFn, KernelCall};
use tenor_ports::{
    Allocator, ComputeError, Device, DeviceInfo, Driver, Event, GemmDesc, Kernel, KernelDef, Pending, Precision,
    RawArg, Stream, StreamImpl, Transpose,
};

pub use allocator::HostAllocator;

/// A CPU [`tenor_ports::Compute`]: [`Device`] over [`CpuDriver`].
pub type CpuCompute = Device<CpuDriver>;

/// Creates the CPU backend on the global rayon pool.
///
/// # Errors
/// Never in practice; the signature matches the other backends' constructors.
pub fn cpu() -> Result<CpuCompute, ComputeError> {
    Device::new(CpuDriver::new(None)?)
}

/// Creates the CPU backend on a pool of `threads` threads.
///
/// # Errors
/// [`ComputeError::Unavailable`] when the thread pool cannot be built.
pub fn cpu_with_threads(threads: usize) -> Result<CpuCompute, ComputeError> {
    Device::new(CpuDriver::new(Some(threads))?)
}

/// The CPU adapter's primitives.
#[derive(Debug)]
pub struct CpuDriver {
    pool: Option<rayon::ThreadPool>,
    allocator: Arc<HostAllocator>,
}

impl CpuDriver {
    /// A driver on `threads` threads (`None`: the global rayon pool).
    ///
    /// # Errors
    /// [`ComputeError::Unavailable`] when the pool cannot be built.
    pub fn new(threads: Option<usize>) -> Result<Self, ComputeError> {
        let pool = match threads {
            Some(n) => Some(rayon::ThreadPoolBuilder::new().num_threads(n).build().map_err(|e| {
                ComputeError::Unavailable { backend: "cpu".into(), reason: format!("thread pool: {e}") }
            })?),
            None => None,
        };
        Ok(Self { pool, allocator: Arc::new(HostAllocator::new()) })
    }

    fn threads(&self) -> usize {
        self.pool.as_ref().map_or_else(rayon::current_num_threads, rayon::ThreadPool::current_num_threads)
    }

    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(p) => p.install(f),
            None => f(),
        }
    }
}

/// A CPU stream: work runs at enqueue time, so events are complete when recorded.
#[derive(Debug)]
pub struct CpuStream;

impl StreamImpl for CpuStream {
    fn record(&self) -> Result<Event, ComputeError> {
        Ok(Event::completed())
    }
    fn wait_event(&self, event: &Event) -> Result<(), ComputeError> {
        // Work runs at enqueue time, so the native wait is the host's (CPU events are complete
        // when recorded).
        event.synchronize()
    }
    fn synchronize(&self) -> Result<(), ComputeError> {
        Ok(())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn check_stream(stream: &Stream) -> Result<(), ComputeError> {
    stream
        .downcast::<CpuStream>()
        .map(|_| ())
        .ok_or_else(|| ComputeError::ForeignHandle(format!("{stream:?} is not a CPU stream")))
}

// SAFETY: streams are `CpuStream`s, kernels the registry's reference implementations (which
// access buffers only through bounds-checked views), blocks come from `HostAllocator` (host
// memory, 64-byte aligned, live until deallocated), and work runs at enqueue time.
unsafe impl Driver for CpuDriver {
    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            backend: "cpu".into(),
            name: format!("{} host threads", self.threads()),
            memory_bytes: 0,
            compute_units: u32::try_from(self.threads()).unwrap_or(u32::MAX),
            fp64: true,
            driver_version: String::new(),
            versions: vec![("tenor-cpu".into(), env!("CARGO_PKG_VERSION").into())],
        }
    }

    fn create_stream(&self) -> Result<Stream, ComputeError> {
        Ok(Stream::new(Arc::new(CpuStream)))
    }

    fn default_allocator(&self) -> Arc<dyn Allocator> {
        self.allocator.clone()
    }

    unsafe fn copy_h2d(&self, stream: &Stream, dst: u64, src: &[u8]) -> Result<(), ComputeError> {
        check_stream(stream)?;
        // SAFETY: the caller's contract: `dst` is a host address of a live block at least
        // `src.len()` bytes long past it; blocks never overlap `src`, which the caller owns.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst as usize as *mut u8, src.len()) };
        Ok(())
    }

    unsafe fn copy_d2h(&self, stream: &Stream, src: u64, len: usize) -> Result<Pending<Vec<u8>>, ComputeError> {
        check_stream(stream)?;
        let mut v = vec![0u8; len];
        // SAFETY: as in copy_h2d, the caller's contract gives a live range of `len` bytes.
        unsafe { std::ptr::copy_nonoverlapping(src as usize as *const u8, v.as_mut_ptr(), len) };
        Ok(Pending::ready(v))
    }

    fn load_kernel(&self, def: &KernelDef) -> Result<Arc<dyn Any + Send + Sync>, ComputeError> {
        let f = tenor_kernels::cpu::lookup(&def.name).ok_or_else(|| ComputeError::UnknownKernel {
            kernel: def.name.clone(),
            backend: "cpu".into(),
            reason: "no Rust reference implementation (kernels/<name>/cpu.rs)".into(),
        })?;
        Ok(Arc::new(f))
    }

    unsafe fn launch(&self, stream: &Stream, kernel: &Kernel, items: u64, args: &[RawArg]) -> Result<(), ComputeError> {
        check_stream(stream)?;
        let f = *kernel.backend().downcast_ref::<CpuKernelFn>().ok_or_else(|| {
            ComputeError::ForeignHandle(format!("kernel {} was not loaded by the CPU backend", kernel.def().name))
        })?;
        // SAFETY: the caller's contract: every buffer argument is a live, 64-byte aligned host
        // block at least as long as its range, the written ones overlapping no other argument,
        // and nothing else touches them until this synchronous launch returns.
        let call = unsafe { KernelCall::new(items, kernel.def().launch.block, args) };
        let blocks = call.blocks();
        let per_task = (blocks / (4 * self.threads() as u64).max(1)).max(1);
        self.install(|| {
            (0..blocks.div_ceil(per_task)).into_par_iter().for_each(|t| {
                let range = t * per_task..((t + 1) * per_task).min(blocks);
                // SAFETY: tasks get disjoint block ranges of the launch.
                unsafe { f(&call, range) };
            });
        });
        Ok(())
    }

    unsafe fn gemm(&self, stream: &Stream, d: &GemmDesc, a: u64, b: u64, c: u64) -> Result<(), ComputeError> {
        check_stream(stream)?;
        // Column-major: element (i, j) at i + j * ld, so row stride 1 and column stride ld;
        // a transposed operand swaps them.
        let strides = |t: Transpose, ld: usize| -> (isize, isize) {
            let ld = ld as isize;
            if t == Transpose::No {
                (1, ld)
            } else {
                (ld, 1)
            }
        };
        let (rsa, csa) = strides(d.transa, d.lda);
        let (rsb, csb) = strides(d.transb, d.ldb);
        let (rsc, csc) = (1isize, d.ldc as isize);
        self.install(|| match d.precision {
            // SAFETY: the caller's contract: live host blocks of the operand sizes, C distinct.
            Precision::F64 => unsafe {
                matrixmultiply::dgemm(
                    d.m,
                    d.k,
                    d.n,
                    d.alpha,
                    a as usize as *const f64,
                    rsa,
                    csa,
                    b as usize as *const f64,
                    rsb,
                    csb,
                    d.beta,
                    c as usize as *mut f64,
                    rsc,
                    csc,
                );
            },
            // SAFETY: as above.
            Precision::F32 => unsafe {
                matrixmultiply::sgemm(
                    d.m,
                    d.k,
                    d.n,
                    d.alpha as f32,
                    a as usize as *const f32,
                    rsa,
                    csa,
                    b as usize as *const f32,
                    rsb,
                    csb,
                    d.beta as f32,
                    c as usize as *mut f32,
                    rsc,
                    csc,
                );
            },
        });
        Ok(())
    }

    fn synchronize(&self) -> Result<(), ComputeError> {
        Ok(())
    }
}
