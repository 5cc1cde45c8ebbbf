//! The `Compute` port.

use std::fmt;
use std::sync::Arc;

use crate::{Allocator, Arg, ComputeError, DeviceBuffer, Kernel, KernelDef, Pending, Stream};

/// What a device is, for reports, baselines and backend selection.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceInfo {
    /// Backend name: `cpu`, `sim`, `cuda`, `sycl`, `opencl`.
    pub backend: String,
    /// Device name as the driver reports it.
    pub name: String,
    /// Device memory in bytes (host memory for the CPU backend).
    pub memory_bytes: u64,
    /// Compute units (multiprocessors, cores).
    pub compute_units: u32,
    /// Whether fp64 arithmetic is supported.
    pub fp64: bool,
    /// Driver version string.
    pub driver_version: String,
    /// Runtime / library versions, as (library, version).
    pub versions: Vec<(String, String)>,
}

/// Matrix transposition for [`GemmDesc`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transpose {
    /// Use the matrix as stored.
    No,
    /// Use its transpose.
    Yes,
}

/// Floating-point precision of a BLAS call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// `f32` (`sgemm`).
    F32,
    /// `f64` (`dgemm`).
    F64,
}

/// `C = alpha * op(A) * op(B) + beta * C`, column-major, as BLAS `?gemm`
/// (op(A) is m x k, op(B) is k x n, C is m x n; `lda`, `ldb`, `ldc` are leading dimensions in
/// elements).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GemmDesc {
    /// Element precision.
    pub precision: Precision,
    /// op(A).
    pub transa: Transpose,
    /// op(B).
    pub transb: Transpose,
    /// Rows of op(A) and C.
    pub m: usize,
    /// Columns of op(B) and C.
    pub n: usize,
    /// Columns of op(A), rows of op(B).
    pub k: usize,
    /// Scale of the product.
    pub alpha: f64,
    /// Scale of C's previous value.
    pub beta: f64,
    /// Leading dimension of A.
    pub lda: usize,
    /// Leading dimension of B.
    pub ldb: usize,
    /// Leading dimension of C.
    pub ldc: usize,
}

impl GemmDesc {
    /// A plain `C = op(A) op(B)` with tight leading dimensions.
    pub fn new(precision: Precision, transa: Transpose, transb: Transpose, m: usize, n: usize, k: usize) -> Self {
        let lda = if transa == Transpose::No { m } else { k };
        let ldb = if transb == Transpose::No { k } else { n };
        Self { precision, transa, transb, m, n, k, alpha: 1.0, beta: 0.0, lda, ldb, ldc: m }
    }
    /// Element size in bytes.
    pub fn element_bytes(&self) -> usize {
        match self.precision {
            Precision::F32 => 4,
            Precision::F64 => 8,
        }
    }
    /// Bytes spanned by A, B and C (from the shapes and leading dimensions).
    pub fn operand_bytes(&self) -> (usize, usize, usize) {
        let (ar, ac) = if self.transa == Transpose::No { (self.m, self.k) } else { (self.k, self.m) };
        let (br, bc) = if self.transb == Transpose::No { (self.k, self.n) } else { (self.n, self.k) };
        let span = |ld: usize, rows: usize, cols: usize| {
            if cols == 0 {
                0
            } else {
                (ld * (cols - 1) + rows) * self.element_bytes()
            }
        };
        (span(self.lda, ar, ac), span(self.ldb, br, bc), span(self.ldc, self.m, self.n))
    }
    /// Checks that the leading dimensions are consistent and the buffers (in bytes) are large
    /// enough.
    ///
    /// # Errors
    /// [`ComputeError::InvalidArgument`] naming the offending parameter.
    pub fn validate(&self, a_bytes: usize, b_bytes: usize, c_bytes: usize) -> Result<(), ComputeError> {
        let (ar, ac) = if self.transa == Transpose::No { (self.m, self.k) } else { (self.k, self.m) };
        let (br, bc) = if self.transb == Transpose::No { (self.k, self.n) } else { (self.n, self.k) };
        let es = self.element_bytes();
        let check = |name: &str, ld: usize, rows: usize, cols: usize, bytes: usize| {
            if ld < rows.max(1) {
                return Err(ComputeError::InvalidArgument(format!(
                    "gemm: {name} leading dimension {ld} < rows {rows}"
                )));
            }
            let need = if cols == 0 { 0 } else { (ld * (cols - 1) + rows) * es };
            if bytes < need {
                return Err(ComputeError::InvalidArgument(format!(
                    "gemm: {name} needs {need} bytes, buffer has {bytes}"
                )));
            }
            Ok(())
        };
        check("A", self.lda, ar, ac, a_bytes)?;
        check("B", self.ldb, br, bc, b_bytes)?;
        check("C", self.ldc, self.m, self.n, c_bytes)
    }
}

/// The compute port: an object-safe trait, used as `Arc<dyn Compute>` in production and as
/// `C: Compute + ?Sized` in generic pricing code.
///
/// All enqueue operations return at once; the host blocks only in [`Compute::synchronize`],
/// [`Stream::synchronize`], an event wait, or [`Pending::wait`].
pub trait Compute: Send + Sync + fmt::Debug {
    /// Device description.
    fn info(&self) -> &DeviceInfo;
    /// The stream created with the device.
    fn default_stream(&self) -> &Stream;
    /// Creates another in-order stream.
    ///
    /// # Errors
    /// Backend errors.
    fn create_stream(&self) -> Result<Stream, ComputeError>;
    /// The memory resource buffers come from.
    fn allocator(&self) -> &Arc<dyn Allocator>;
    /// Allocates `bytes` bytes in the order of `stream`.
    ///
    /// # Errors
    /// [`ComputeError::Alloc`] with the allocator's error.
    fn alloc(&self, stream: &Stream, bytes: usize) -> Result<DeviceBuffer, ComputeError>;
    /// Copies `src` into `dst` at byte `offset`, in the order of `stream`. `src` is copied (or
    /// staged) before the call returns.
    ///
    /// # Errors
    /// [`ComputeError::InvalidArgument`] when the range exceeds the buffer; backend errors.
    fn upload(&self, stream: &Stream, dst: &DeviceBuffer, offset: usize, src: &[u8]) -> Result<(), ComputeError>;
    /// Copies `len` bytes of `src` from byte `offset` back to the host, in the order of `stream`.
    ///
    /// # Errors
    /// [`ComputeError::InvalidArgument`] when the range exceeds the buffer; backend errors.
    fn download(
        &self,
        stream: &Stream,
        src: &DeviceBuffer,
        offset: usize,
        len: usize,
    ) -> Result<Pending<Vec<u8>>, ComputeError>;
    /// Compiles (or fetches from cache) a kernel for this device.
    ///
    /// # Errors
    /// [`ComputeError::UnknownKernel`] without a source or implementation for this backend;
    /// [`ComputeError::Compile`] with the compiler's log.
    fn load_kernel(&self, def: &KernelDef) -> Result<Kernel, ComputeError>;
    /// Launches `kernel` over `items` work items with positional `args`, in the order of `stream`.
    ///
    /// # Errors
    /// [`ComputeError::KernelArg`] when an argument does not match the manifest (type, access,
    /// count, item count, foreign buffer); launch errors.
    fn launch(&self, stream: &Stream, kernel: &Kernel, items: u64, args: &[Arg<'_>]) -> Result<(), ComputeError>;
    /// Blocks of `kernel` (of its manifest's block size) that this device runs all at once,
    /// every one of them resident until it ends, so that a launch of at most this many blocks
    /// through [`Compute::launch_cooperative`] may wait on each other (a grid-wide barrier).
    /// `None` (the default): this backend has no such launch. CUDA: the occupancy calculator's
    /// blocks per multiprocessor times the multiprocessors (CUDA Programming Guide, "Grid
    /// Synchronization" of the cooperative groups).
    ///
    /// # Errors
    /// Backend errors.
    fn resident_blocks(&self, kernel: &Kernel) -> Result<Option<u64>, ComputeError> {
        let _ = kernel;
        Ok(None)
    }
    /// [`Compute::launch`] with every block resident at once (CUDA: `cuLaunchCooperativeKernel`),
    /// for kernels whose blocks wait on each other.
    ///
    /// # Errors
    /// [`ComputeError::Unsupported`] where [`Compute::resident_blocks`] is `None` (the default);
    /// a launch error when the launch has more blocks than that; as [`Compute::launch`].
    fn launch_cooperative(
        &self,
        stream: &Stream,
        kernel: &Kernel,
        items: u64,
        args: &[Arg<'_>],
    ) -> Result<(), ComputeError> {
        let _ = (stream, items, args);
        Err(ComputeError::Unsupported {
            backend: self.info().backend.clone(),
            what: format!("a cooperative launch of {}", kernel.def().name),
        })
    }
    /// BLAS gemm on `stream` (cuBLAS on CUDA, our own kernel elsewhere).
    ///
    /// # Errors
    /// [`ComputeError::InvalidArgument`] for inconsistent shapes; backend errors.
    fn gemm(
        &self,
        stream: &Stream,
        desc: &GemmDesc,
        a: &DeviceBuffer,
        b: &DeviceBuffer,
        c: &DeviceBuffer,
    ) -> Result<(), ComputeError>;
    /// Blocks until all streams of the device are idle and returns the first sticky
    /// asynchronous error.
    ///
    /// # Errors
    /// The first asynchronous error since the last synchronisation.
    fn synchronize(&self) -> Result<(), ComputeError>;
}

/// Typed conveniences over any [`Compute`] (blanket-implemented).
pub trait ComputeExt: Compute {
    /// Allocates a buffer and uploads `data` into it.
    ///
    /// # Errors
    /// Allocation or copy errors.
    fn upload_slice<T: bytemuck::Pod>(&self, stream: &Stream, data: &[T]) -> Result<DeviceBuffer, ComputeError> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        let buf = self.alloc(stream, bytes.len())?;
        self.upload(stream, &buf, 0, bytes)?;
        Ok(buf)
    }
    /// Allocates a buffer for `n` elements of `T` (contents unspecified).
    ///
    /// # Errors
    /// Allocation errors.
    fn alloc_elems<T: bytemuck::Pod>(&self, stream: &Stream, n: usize) -> Result<DeviceBuffer, ComputeError> {
        self.alloc(stream, n * std::mem::size_of::<T>())
    }
    /// Downloads the whole buffer as elements of `T` and waits for it.
    ///
    /// # Errors
    /// Copy or asynchronous errors; a length not a multiple of `size_of::<T>()`.
    fn download_vec<T: bytemuck::Pod>(&self, stream: &Stream, buf: &DeviceBuffer) -> Result<Vec<T>, ComputeError> {
        let size = std::mem::size_of::<T>();
        if size == 0 || !buf.len().is_multiple_of(size) {
            return Err(ComputeError::InvalidArgument(format!(
                "buffer of {} bytes is not a whole number of {size}-byte elements",
                buf.len()
            )));
        }
        let bytes = self.download(stream, buf, 0, buf.len())?.wait()?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }
}

impl<C: Compute + ?Sized> ComputeExt for C {}
