//! [`CudaDriver`]: the CUDA primitives behind [`tenor_ports::Device`].

use std::any::Any;
use std::ffi::{c_void, CString};
use std::sync::{Arc, Mutex};

use cudarc::cublas::sys as cb;
use cudarc::driver::{result as dr, sys};
use tenor_ports::{
    Allocator, ComputeError, DeviceInfo, Driver, GemmDesc, Kernel, KernelDef, Pending, Precision, RawArg, Stream,
    StreamImpl, Transpose,
};

use crate::alloc::{DefaultPool, ExplicitPool, ExplicitPoolConfig, PoolChoice};
use crate::context::Context;
use crate::error::{check, drv, BACKEND};
use crate::nvrtc::{self, ImageCache};
use crate::staging::{Staged, Staging};
use crate::stream::{cuda_stream, CudaStream};

/// A kernel loaded on the device: its module and entry point, and its launch shape.
#[derive(Debug)]
pub struct CudaKernel {
    module: sys::CUmodule,
    func: sys::CUfunction,
    threads: u32,
    ctx: Arc<Context>,
}

// SAFETY: module and function handles are process-wide and immutable once loaded.
unsafe impl Send for CudaKernel {}
// SAFETY: as above.
unsafe impl Sync for CudaKernel {}

impl Drop for CudaKernel {
    fn drop(&mut self) {
        if self.ctx.bind().is_ok() {
            // SAFETY: no launch references the module after the last handle dropped (launches
            // already enqueued keep the code resident in the driver).
            let _ = unsafe { dr::module::unload(self.module) };
        }
    }
}

struct Blas(cb::cublasHandle_t);
// SAFETY: the handle is only used under the driver's mutex.
unsafe impl Send for Blas {}

/// The CUDA adapter's primitives: one device's primary context, NVRTC with an image cache,
/// cuBLAS, pinned staging, and a default allocator.
pub struct CudaDriver {
    ctx: Arc<Context>,
    cc: (u32, u32),
    info: DeviceInfo,
    allocator: Arc<dyn Allocator>,
    cache: ImageCache,
    staging: Arc<Staging>,
    blas: Mutex<Option<Blas>>,
}

impl std::fmt::Debug for CudaDriver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaDriver").field("device", &self.info.name).field("cc", &self.cc).finish()
    }
}

fn driver_release() -> Option<String> {
    // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  ..."
    let text = std::fs::read_to_string("/proc/driver/nvidia/version").ok()?;
    let line = text.lines().next()?;
    line.split_whitespace()
        .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()) && w.contains('.'))
        .map(str::to_owned)
}

fn cuda_version(v: i32) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

impl CudaDriver {
    /// Enqueues a launch of `kernel` over `items` work items (`cooperative`:
    /// `cuLaunchCooperativeKernel`, every block resident at once; the driver refuses a grid
    /// larger than that with CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE).
    ///
    /// # Safety
    /// As [`Driver::launch`].
    unsafe fn enqueue(
        &self,
        stream: &Stream,
        kernel: &Kernel,
        items: u64,
        args: &[RawArg],
        cooperative: bool,
    ) -> Result<(), ComputeError> {
        let s = cuda_stream(stream)?;
        let k = kernel_of(kernel)?;
        let def = kernel.def();
        if items == 0 {
            return Ok(());
        }
        let grid = u32::try_from(def.blocks(items)).ok().filter(|g| *g <= i32::MAX as u32).ok_or_else(|| {
            ComputeError::Launch {
                kernel: def.name.clone(),
                reason: format!("{items} items need more than 2^31 - 1 blocks of {}", def.launch.block),
            }
        })?;
        // Each argument in its own 8-byte slot; the driver reads the parameter's size from the
        // kernel's signature (CUDA Driver API, cuLaunchKernel, "kernelParams").
        let mut slots: Vec<[u8; 8]> = args
            .iter()
            .map(|a| {
                let mut b = [0u8; 8];
                match *a {
                    RawArg::Ptr(p, _) | RawArg::U64(p) => b.copy_from_slice(&p.to_ne_bytes()),
                    RawArg::U32(v) => b[..4].copy_from_slice(&v.to_ne_bytes()),
                    RawArg::I32(v) => b[..4].copy_from_slice(&v.to_ne_bytes()),
                    RawArg::F32(v) => b[..4].copy_from_slice(&v.to_ne_bytes()),
                    RawArg::F64(v) => b.copy_from_slice(&v.to_ne_bytes()),
                }
                b
            })
            .collect();
        let mut params: Vec<*mut c_void> = slots.iter_mut().map(|b| b.as_mut_ptr().cast()).collect();
        self.ctx.bind()?;
        // SAFETY: `params` points to one slot per kernel parameter, in order, alive for the
        // call (the driver copies them); buffers are live device ranges holding the manifest's
        // lengths (the caller's contract).
        let r = unsafe {
            if cooperative {
                sys::cuLaunchCooperativeKernel(k.func, grid, 1, 1, k.threads, 1, 1, 0, s.raw(), params.as_mut_ptr())
            } else {
                sys::cuLaunchKernel(
                    k.func,
                    grid,
                    1,
                    1,
                    k.threads,
                    1,
                    1,
                    0,
                    s.raw(),
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            }
        };
        r.result().map_err(|e| ComputeError::Launch { kernel: def.name.clone(), reason: crate::error::describe(e) })
    }

    /// Opens device `ordinal` with the pool [`PoolChoice::from_env`] picks as allocator: by
    /// default a pool of Tenor's own ([`ExplicitPool`]), so the device's shared default pool and
    /// its attributes are left as other libraries in the process set them; the device's default
    /// pool ([`DefaultPool`], attributes written) only with `TENOR_CUDA_POOL=device`. Either is
    /// configured by `TENOR_CUDA_SHARING` and `TENOR_CUDA_DETERMINISTIC`.
    ///
    /// # Errors
    /// [`ComputeError::Unavailable`] when CUDA cannot run here; driver errors.
    pub fn new(ordinal: i32) -> Result<Self, ComputeError> {
        let mut trace = crate::open_trace::OpenTrace::start();
        crate::probe::probe()?;
        trace.step("libcuda + cuInit + NVRTC dlopen");
        let ctx = Context::open(ordinal)?;
        trace.step("primary context");
        let allocator: Arc<dyn Allocator> = match PoolChoice::from_env()? {
            PoolChoice::Own { config } => {
                Arc::new(ExplicitPool::new(ctx.clone(), ExplicitPoolConfig { pool: config, ..Default::default() })?)
            }
            PoolChoice::Device { config } => Arc::new(DefaultPool::new(ctx.clone(), config)?),
        };
        trace.step("pool");
        let driver = Self::with_allocator(ctx, allocator);
        trace.step("device description (attributes, versions, staging)");
        trace.report();
        driver
    }

    /// Opens a driver on `ctx` whose default allocator is `allocator`.
    ///
    /// # Errors
    /// Driver errors while reading the device description.
    pub fn with_allocator(ctx: Arc<Context>, allocator: Arc<dyn Allocator>) -> Result<Self, ComputeError> {
        use sys::CUdevice_attribute::*;
        ctx.bind()?;
        let cc = ctx.compute_capability()?;
        let name = dr::device::get_name(ctx.device()).map_err(|e| drv("cuDeviceGetName", e))?;
        // SAFETY: valid device handle.
        let memory = unsafe { dr::device::total_mem(ctx.device()) }.map_err(|e| drv("cuDeviceTotalMem", e))?;
        let sms = ctx.attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
        let mut drv_api = 0;
        // SAFETY: valid out-pointer.
        check("cuDriverGetVersion", unsafe { sys::cuDriverGetVersion(&mut drv_api) })?;
        let (nv_major, nv_minor) = nvrtc::version()?;
        let mut versions = vec![
            ("cuda-driver-api".to_owned(), cuda_version(drv_api)),
            ("cuda-bindings".to_owned(), "13.0 (cudarc 0.19, cuda-13000)".to_owned()),
            ("nvrtc".to_owned(), format!("{nv_major}.{nv_minor}")),
            ("compute-capability".to_owned(), format!("{}.{}", cc.0, cc.1)),
        ];
        if let Some(rt) = runtime_version() {
            versions.push(("cuda-runtime".to_owned(), rt));
        }
        let driver = Self {
            info: DeviceInfo {
                backend: BACKEND.into(),
                name,
                memory_bytes: memory as u64,
                compute_units: sms.max(0) as u32,
                fp64: true,
                driver_version: driver_release().unwrap_or_else(|| format!("CUDA {}", cuda_version(drv_api))),
                versions,
            },
            cc,
            allocator,
            cache: ImageCache::from_env(),
            staging: Staging::new(ctx.clone()),
            blas: Mutex::new(None),
            ctx,
        };
        // cuBLAS is loaded and its handle created on the first gemm (with_blas), not here: a
        // book never calls gemm, and loading libcublas (with libcublasLt) and cublasCreate were
        // a large part of opening the device.
        let mut driver = driver;
        driver.info.versions.push(("cublas".into(), "loaded on the first gemm".into()));
        Ok(driver)
    }

    /// The context.
    pub fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    /// Compute capability of the device.
    pub fn compute_capability(&self) -> (u32, u32) {
        self.cc
    }

    /// Uses the image cache in `dir` (`None`: compile every time).
    pub fn set_cache_dir(&mut self, dir: Option<std::path::PathBuf>) {
        self.cache = ImageCache::at(dir);
    }

    fn with_blas<R>(&self, f: impl FnOnce(cb::cublasHandle_t) -> Result<R, ComputeError>) -> Result<R, ComputeError> {
        let mut guard = self.blas.lock().unwrap_or_else(|p| p.into_inner());
        self.ctx.bind()?;
        if guard.is_none() {
            crate::probe::probe_cublas()?;
            let h = cudarc::cublas::result::create_handle().map_err(|e| blas_err("cublasCreate", e))?;
            *guard = Some(Blas(h));
        }
        match guard.as_ref() {
            Some(b) => f(b.0),
            None => Err(ComputeError::Unsupported { backend: BACKEND.into(), what: "cuBLAS handle".into() }),
        }
    }
}

fn runtime_version() -> Option<String> {
    // The runtime library is optional for Tenor (it uses the driver API); report it when present.
    // SAFETY: only tries dlopen on candidate names.
    if !unsafe { cudarc::runtime::sys::is_culib_present() } {
        return None;
    }
    let mut v = 0;
    // SAFETY: library present; valid out-pointer.
    let r = unsafe { cudarc::runtime::sys::cudaRuntimeGetVersion(&mut v) };
    (r == cudarc::runtime::sys::cudaError::cudaSuccess).then(|| cuda_version(v))
}

fn blas_err(what: &str, e: cudarc::cublas::result::CublasError) -> ComputeError {
    ComputeError::Backend { backend: BACKEND.into(), code: e.0 as i64, message: format!("{what}: {:?}", e.0) }
}

impl Drop for CudaDriver {
    fn drop(&mut self) {
        let guard = self.blas.get_mut().unwrap_or_else(|p| p.into_inner());
        if let Some(b) = guard.take() {
            if self.ctx.bind().is_ok() {
                // SAFETY: the handle is destroyed once; teardown errors cannot be acted on.
                let _ = unsafe { cudarc::cublas::result::destroy_handle(b.0) };
            }
        }
    }
}

fn kernel_of(kernel: &Kernel) -> Result<&CudaKernel, ComputeError> {
    kernel.backend().downcast_ref::<CudaKernel>().ok_or_else(|| {
        ComputeError::ForeignHandle(format!("kernel {} was not loaded by the CUDA backend", kernel.def().name))
    })
}

// SAFETY: streams are `CudaStream`s of this context, kernels NVRTC images of the manifests'
// sources (which the conformance suite checks against the CPU reference, including their
// bounds), blocks come from the context's allocator, and the raw methods enqueue on the given
// stream only the ranges they are given; driver errors are returned, never unwound.
unsafe impl Driver for CudaDriver {
    fn info(&self) -> DeviceInfo {
        self.info.clone()
    }

    fn create_stream(&self) -> Result<Stream, ComputeError> {
        CudaStream::create(&self.ctx)
    }

    fn default_allocator(&self) -> Arc<dyn Allocator> {
        self.allocator.clone()
    }

    unsafe fn copy_h2d(&self, stream: &Stream, dst: u64, src: &[u8]) -> Result<(), ComputeError> {
        let s = cuda_stream(stream)?;
        if src.is_empty() {
            return Ok(());
        }
        self.ctx.bind()?;
        // SAFETY: `dst` is a live device block of at least `src.len()` bytes (the caller's
        // contract). From pageable memory the driver stages `src` before returning (CUDA Driver
        // API, "API synchronization behavior"), so `src` may be reused at once.
        check("cuMemcpyHtoDAsync", unsafe { sys::cuMemcpyHtoDAsync_v2(dst, src.as_ptr().cast(), src.len(), s.raw()) })
    }

    unsafe fn copy_d2h(&self, stream: &Stream, src: u64, len: usize) -> Result<Pending<Vec<u8>>, ComputeError> {
        let s = cuda_stream(stream)?;
        if len == 0 {
            return Ok(Pending::ready(Vec::new()));
        }
        let buf = self.staging.take(len)?;
        self.ctx.bind()?;
        // SAFETY: `buf` is pinned host memory of at least `len` bytes, kept alive by `Staged`
        // until the copy's event completed; `src` is a live device range (the caller's contract).
        check("cuMemcpyDtoHAsync", unsafe { sys::cuMemcpyDtoHAsync_v2(buf.ptr().cast(), src, len, s.raw()) })?;
        let event = s.record()?;
        let staged = Staged::new(buf, event.clone(), self.staging.clone());
        Ok(Pending::new(Some(event), move || Ok(staged.to_vec(len))))
    }

    fn load_kernel(&self, def: &KernelDef) -> Result<Arc<dyn Any + Send + Sync>, ComputeError> {
        let image = self.cache.get_or_compile(def, self.cc)?;
        self.ctx.bind()?;
        // SAFETY: `image` is a CUBIN produced by NVRTC for this device's architecture.
        let module = unsafe { dr::module::load_data(image.as_ptr().cast()) }.map_err(|e| ComputeError::Compile {
            kernel: def.name.clone(),
            backend: BACKEND.into(),
            log: format!("cuModuleLoadData: {}", crate::error::describe(e)),
        })?;
        let cname = CString::new(def.name.as_str())
            .map_err(|_| ComputeError::InvalidArgument(format!("kernel name {:?} contains NUL", def.name)))?;
        // SAFETY: live module, valid C string.
        let func = match unsafe { dr::module::get_function(module, cname) } {
            Ok(f) => f,
            Err(e) => {
                // SAFETY: the module was just loaded and is referenced nowhere else.
                let _ = unsafe { dr::module::unload(module) };
                return Err(ComputeError::UnknownKernel {
                    kernel: def.name.clone(),
                    backend: BACKEND.into(),
                    reason: format!(
                        "no extern \"C\" __global__ {} in cuda.cu: {}",
                        def.name,
                        crate::error::describe(e)
                    ),
                });
            }
        };
        Ok(Arc::new(CudaKernel { module, func, threads: nvrtc::threads_for(def.launch.block), ctx: self.ctx.clone() }))
    }

    unsafe fn launch(&self, stream: &Stream, kernel: &Kernel, items: u64, args: &[RawArg]) -> Result<(), ComputeError> {
        // SAFETY: the caller's contract, passed on.
        unsafe { self.enqueue(stream, kernel, items, args, false) }
    }

    fn resident_blocks(&self, kernel: &Kernel) -> Result<Option<u64>, ComputeError> {
        use sys::CUdevice_attribute::*;
        let k = kernel_of(kernel)?;
        if self.ctx.attribute(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)? == 0 {
            return Ok(None);
        }
        let sms = self.ctx.attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
        self.ctx.bind()?;
        let threads = i32::try_from(k.threads).unwrap_or(i32::MAX);
        let mut per_sm = 0;
        // SAFETY: live function of this context, valid out-pointer; the kernels allocate no
        // dynamic shared memory (0 bytes).
        check("cuOccupancyMaxActiveBlocksPerMultiprocessor", unsafe {
            sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut per_sm, k.func, threads, 0)
        })?;
        Ok(Some(u64::try_from(per_sm).unwrap_or(0) * u64::try_from(sms).unwrap_or(0)))
    }

    unsafe fn launch_cooperative(
        &self,
        stream: &Stream,
        kernel: &Kernel,
        items: u64,
        args: &[RawArg],
    ) -> Result<(), ComputeError> {
        // SAFETY: the caller's contract, passed on.
        unsafe { self.enqueue(stream, kernel, items, args, true) }
    }

    unsafe fn gemm(&self, stream: &Stream, d: &GemmDesc, a: u64, b: u64, c: u64) -> Result<(), ComputeError> {
        let s = cuda_stream(stream)?;
        let dim = |v: usize, what: &str| {
            i32::try_from(v).map_err(|_| ComputeError::InvalidArgument(format!("gemm: {what} = {v} exceeds i32")))
        };
        let (m, n, k) = (dim(d.m, "m")?, dim(d.n, "n")?, dim(d.k, "k")?);
        let (lda, ldb, ldc) = (dim(d.lda, "lda")?, dim(d.ldb, "ldb")?, dim(d.ldc, "ldc")?);
        if m == 0 || n == 0 {
            return Ok(());
        }
        let op = |t: Transpose| match t {
            Transpose::No => cb::cublasOperation_t::CUBLAS_OP_N,
            Transpose::Yes => cb::cublasOperation_t::CUBLAS_OP_T,
        };
        let (ta, tb) = (op(d.transa), op(d.transb));
        self.with_blas(|h| {
            // SAFETY: live handle and stream of this context.
            unsafe { cudarc::cublas::result::set_stream(h, s.raw().cast()) }
                .map_err(|e| blas_err("cublasSetStream", e))?;
            // SAFETY: shapes validated against the buffer sizes by Device::gemm; alpha/beta
            // are host scalars (the default pointer mode); column-major as GemmDesc.
            let r = unsafe {
                match d.precision {
                    Precision::F64 => cudarc::cublas::result::dgemm(
                        h,
                        ta,
                        tb,
                        m,
                        n,
                        k,
                        &d.alpha,
                        a as *const f64,
                        lda,
                        b as *const f64,
                        ldb,
                        &d.beta,
                        c as *mut f64,
                        ldc,
                    ),
                    Precision::F32 => {
                        let (alpha, beta) = (d.alpha as f32, d.beta as f32);
                        cudarc::cublas::result::sgemm(
                            h,
                            ta,
                            tb,
                            m,
                            n,
                            k,
                            &alpha,
                            a as *const f32,
                            lda,
                            b as *const f32,
                            ldb,
                            &beta,
                            c as *mut f32,
                            ldc,
                        )
                    }
                }
            };
            r.map_err(|e| blas_err("cublas gemm", e))
        })
    }

    fn synchronize(&self) -> Result<(), ComputeError> {
        self.ctx.synchronize()
    }
}
