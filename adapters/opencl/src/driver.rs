//! [`OpenClDriver`]: the `Driver` primitives on in-order OpenCL command queues, marker events
//! and coarse-grained SVM.

use std::any::Any;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{Device as ClDevice, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER};
use opencl3::event::Event as ClEvent;
use opencl3::types::{cl_context, cl_device_id, CL_FALSE};
use tenor_ports::{
    Allocator, ComputeError, DeviceInfo, Driver, Event, EventImpl, GemmDesc, Kernel, KernelDef, Pending, Precision,
    RawArg, Stream, StreamImpl, Transpose,
};

use crate::allocator::SvmAllocator;
use crate::error::{backend, unavailable, BACKEND};
use crate::kernels::{self, Loaded};
use crate::platform;

/// The one context of each device for the process: every driver opened on the device shares it,
/// so programs (cached per device, [`kernels`]), SVM blocks and events of one driver are valid
/// for the others (a program built in another context would be `CL_INVALID_CONTEXT` on this
/// one's queues).
fn shared_context(choice: &platform::DeviceChoice) -> Result<Arc<Context>, opencl3::error_codes::ClError> {
    static CONTEXTS: OnceLock<Mutex<HashMap<usize, Arc<Context>>>> = OnceLock::new();
    let mut map = CONTEXTS.get_or_init(|| Mutex::new(HashMap::new())).lock().unwrap_or_else(|p| p.into_inner());
    if let Some(c) = map.get(&(choice.id as usize)) {
        return Ok(c.clone());
    }
    let c = Arc::new(Context::from_device(&ClDevice::new(choice.id))?);
    map.insert(choice.id as usize, c.clone());
    Ok(c)
}

/// What a driver's streams, events and allocations share: the context on one device.
#[derive(Debug)]
pub struct Ctx {
    context: Arc<Context>,
    device: cl_device_id,
    max_alloc: usize,
    native_f32: bool,
}

// SAFETY: OpenCL handles (contexts, device ids) may be used from any thread (OpenCL 3.0 API,
// section "Shared OpenCL Objects": all API calls are thread-safe except clSetKernelArg on one
// kernel, which the adapter serialises per kernel).
unsafe impl Send for Ctx {}
// SAFETY: as above.
unsafe impl Sync for Ctx {}

impl Ctx {
    /// The raw context.
    pub fn raw(&self) -> cl_context {
        self.context.get()
    }
    /// The device.
    pub fn device(&self) -> cl_device_id {
        self.device
    }
    /// The context.
    pub fn context(&self) -> &Context {
        &self.context
    }
    /// Whether this device's programs are built with `-DTENOR_NATIVE_F32`
    /// ([`crate::kernels::native_f32_default`]).
    pub fn native_f32(&self) -> bool {
        self.native_f32
    }
    /// CL_DEVICE_MAX_MEM_ALLOC_SIZE in bytes.
    pub fn max_alloc(&self) -> usize {
        self.max_alloc
    }
}

/// Host memory a copy reads from or writes into, kept alive until the copy's event completed.
#[derive(Debug)]
struct Staged {
    event: ClEvent,
    _buf: Vec<u8>,
}

/// A stream: an in-order OpenCL command queue.
#[derive(Debug)]
pub struct OpenClStream {
    queue: CommandQueue,
    ctx: Arc<Ctx>,
    id: OnceLock<u64>,
    /// Host-to-device sources not yet known to be copied.
    staged: Mutex<Vec<Staged>>,
}

impl OpenClStream {
    /// The command queue.
    pub fn queue(&self) -> &CommandQueue {
        &self.queue
    }
    /// The context it belongs to.
    pub fn ctx(&self) -> &Arc<Ctx> {
        &self.ctx
    }
    fn prune(&self) {
        let mut s = self.staged.lock().unwrap_or_else(|p| p.into_inner());
        s.retain(|st| !matches!(event_done(&st.event), Ok(true)));
    }
    fn finish(&self) -> Result<(), ComputeError> {
        let r = self.queue.finish().map_err(|e| ComputeError::Async(Box::new(backend("clFinish", e))));
        if r.is_ok() {
            self.staged.lock().unwrap_or_else(|p| p.into_inner()).clear();
        }
        r
    }
}

impl Drop for OpenClStream {
    fn drop(&mut self) {
        // Staged host memory must outlive the copies reading it. When the queue cannot be
        // finished we cannot know that the copies stopped, so their buffers are leaked on purpose.
        if self.queue.finish().is_err() {
            let staged = std::mem::take(self.staged.get_mut().unwrap_or_else(|p| p.into_inner()));
            std::mem::forget(staged);
        }
    }
}

/// Whether an event completed; a negative execution status (the command failed) is an error.
fn event_done(e: &ClEvent) -> Result<bool, ComputeError> {
    let status = e.command_execution_status().map_err(|err| backend("clGetEventInfo", err))?;
    match status.0 {
        0 => Ok(true),
        s if s < 0 => Err(ComputeError::Async(Box::new(ComputeError::Backend {
            backend: BACKEND.into(),
            code: i64::from(s),
            message: "a command of the stream failed".into(),
        }))),
        _ => Ok(false),
    }
}

/// An event of an OpenCL queue (a marker enqueued on it).
#[derive(Debug)]
pub struct OpenClEvent {
    event: ClEvent,
    context: cl_context,
}

// SAFETY: the context handle is only compared, never used; ClEvent is Send + Sync.
unsafe impl Send for OpenClEvent {}
// SAFETY: as above.
unsafe impl Sync for OpenClEvent {}

impl EventImpl for OpenClEvent {
    fn is_complete(&self) -> Result<bool, ComputeError> {
        event_done(&self.event)
    }
    fn synchronize(&self) -> Result<(), ComputeError> {
        self.event.wait().map_err(|e| ComputeError::Async(Box::new(backend("clWaitForEvents", e))))
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl StreamImpl for OpenClStream {
    fn record(&self) -> Result<Event, ComputeError> {
        // SAFETY: an empty wait list; the queue is valid.
        let ev = unsafe { self.queue.enqueue_marker_with_wait_list(&[]) }
            .map_err(|e| backend("clEnqueueMarkerWithWaitList", e))?;
        self.queue.flush().map_err(|e| backend("clFlush", e))?;
        Ok(Event::new(self.id.get().copied(), Arc::new(OpenClEvent { event: ev, context: self.ctx.raw() })))
    }
    fn wait_event(&self, event: &Event) -> Result<(), ComputeError> {
        match event.downcast::<OpenClEvent>() {
            // SAFETY: an event of the same context may be in the wait list of any of its queues.
            Some(e) if e.context == self.ctx.raw() => {
                unsafe { self.queue.enqueue_barrier_with_wait_list(&[e.event.get()]) }
                    .map(drop)
                    .map_err(|err| backend("clEnqueueBarrierWithWaitList", err))
            }
            // An event of another context or backend (or an already complete one): the host waits.
            _ => event.synchronize(),
        }
    }
    fn synchronize(&self) -> Result<(), ComputeError> {
        self.finish()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The OpenCL adapter's primitives on one device.
#[derive(Debug)]
pub struct OpenClDriver {
    ctx: Arc<Ctx>,
    info: DeviceInfo,
    key: String,
    max_work_group: usize,
    svm: Arc<SvmAllocator>,
    /// What buffers come from: the toolkit's coalescing pool over 32 MiB SVM slabs.
    default: Arc<dyn Allocator>,
    queues: Mutex<Vec<Weak<OpenClStream>>>,
    gemm: Mutex<Option<(Arc<Loaded>, Arc<Loaded>)>>,
}

fn stream_of(stream: &Stream) -> Result<&OpenClStream, ComputeError> {
    stream
        .downcast::<OpenClStream>()
        .ok_or_else(|| ComputeError::ForeignHandle(format!("{stream:?} is not an OpenCL stream")))
}

/// Host memory a device-to-host copy writes into; kept alive until the copy completed, even
/// when the `Pending` result is dropped unread.
struct Landing {
    buf: Vec<u8>,
    event: Arc<OpenClEvent>,
}

impl Drop for Landing {
    fn drop(&mut self) {
        // The copy may still write into buf: wait. If the wait fails we cannot know that the
        // copy stopped, so the buffer is leaked on purpose rather than freed under the device.
        if !self.buf.is_empty() && self.event.event.wait().is_err() {
            std::mem::forget(std::mem::take(&mut self.buf));
        }
    }
}

impl OpenClDriver {
    /// A driver on the device `selector` names (see [`platform::choose`]).
    ///
    /// # Errors
    /// [`ComputeError::Unavailable`] when the library or a matching device is missing, or the
    /// device lacks fp64 (`cl_khr_fp64`) or coarse-grained buffer SVM.
    pub fn open(selector: &str) -> Result<Self, ComputeError> {
        let all = platform::devices()?;
        let choice = platform::choose(&all, selector)?;
        let dev = ClDevice::new(choice.id);
        let q = |what: &str, e| unavailable(format!("{}: {what}: {e}", choice.name));
        let svm = dev.svm_mem_capability();
        if svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER == 0 {
            return Err(unavailable(format!(
                "device {} [{}] has no coarse-grained buffer SVM (CL_DEVICE_SVM_CAPABILITIES = {svm:#x}), \
                 which the adapter's device addresses need (docs/adr/0017)",
                choice.name, choice.platform
            )));
        }
        let fp64 = dev.double_fp_config().map_err(|e| q("CL_DEVICE_DOUBLE_FP_CONFIG", e))? != 0;
        if !fp64 {
            return Err(unavailable(format!(
                "device {} [{}] has no fp64 (cl_khr_fp64), which the built-in kernels need",
                choice.name, choice.platform
            )));
        }
        let context = shared_context(&choice).map_err(|e| q("clCreateContext", e))?;
        let max_alloc = dev.max_mem_alloc_size().map_err(|e| q("CL_DEVICE_MAX_MEM_ALLOC_SIZE", e))?;
        let native_f32 = kernels::native_f32_default(
            &choice.platform,
            &dev.vendor().unwrap_or_default(),
            std::env::var(kernels::NATIVE_F32_ENV).ok().as_deref(),
        );
        let ctx = Arc::new(Ctx {
            context,
            device: choice.id,
            max_alloc: usize::try_from(max_alloc).unwrap_or(usize::MAX),
            native_f32,
        });
        let max_work_group = dev.max_work_group_size().map_err(|e| q("CL_DEVICE_MAX_WORK_GROUP_SIZE", e))?;
        let svm_alloc = Arc::new(SvmAllocator::new(ctx.clone()));
        let default: Arc<dyn Allocator> = Arc::new(tenor_alloc::Pool::new(
            svm_alloc.clone(),
            tenor_alloc::PoolConfig { initial_bytes: 32 << 20, upstream_ordered: true, ..Default::default() },
        ));
        let key = format!("{} [{}] #{:x}", choice.name, choice.platform, choice.id as usize);
        let svm_kind = if svm & opencl3::device::CL_DEVICE_SVM_FINE_GRAIN_BUFFER != 0 {
            "coarse+fine-grained buffer"
        } else {
            "coarse-grained buffer"
        };
        let info = DeviceInfo {
            backend: BACKEND.into(),
            name: choice.name.clone(),
            memory_bytes: dev.global_mem_size().unwrap_or(0),
            compute_units: dev.max_compute_units().unwrap_or(0),
            fp64,
            driver_version: dev.driver_version().unwrap_or_default(),
            versions: vec![
                ("opencl-platform".into(), choice.platform.clone()),
                ("device-version".into(), dev.version().unwrap_or_default()),
                ("opencl-c".into(), dev.opencl_c_version().unwrap_or_default()),
                ("vendor".into(), dev.vendor().unwrap_or_default()),
                ("svm".into(), svm_kind.into()),
                ("build-options".into(), kernels::build_options(native_f32)),
                ("allocator".into(), default.name().to_owned()),
                ("tenor-opencl".into(), env!("CARGO_PKG_VERSION").into()),
            ],
        };
        Ok(Self {
            ctx,
            info,
            key,
            max_work_group,
            svm: svm_alloc,
            default,
            queues: Mutex::default(),
            gemm: Mutex::new(None),
        })
    }

    /// The SVM allocator of this device (no pool).
    pub fn svm_allocator(&self) -> &Arc<SvmAllocator> {
        &self.svm
    }

    fn gemm_kernel(&self, precision: Precision) -> Result<Arc<Loaded>, ComputeError> {
        let mut g = self.gemm.lock().unwrap_or_else(|p| p.into_inner());
        if g.is_none() {
            let src = include_str!("gemm.cl");
            let f64k =
                kernels::load_source(&self.ctx, &self.key, self.max_work_group, "tenor_gemm_f64", GEMM_LOCAL, src)?;
            let f32k =
                kernels::load_source(&self.ctx, &self.key, self.max_work_group, "tenor_gemm_f32", GEMM_LOCAL, src)?;
            *g = Some((Arc::new(f64k), Arc::new(f32k)));
        }
        let (a, b) = g.as_ref().ok_or_else(|| ComputeError::InvalidArgument("gemm kernels not loaded".into()))?;
        Ok(match precision {
            Precision::F64 => a.clone(),
            Precision::F32 => b.clone(),
        })
    }
}

/// Work-items per work-group of the gemm kernel (one 4x4 tile of C each).
const GEMM_LOCAL: u32 = 64;

/// Sets `args` on `k` and enqueues `groups` work-groups of `k.local` work-items.
fn enqueue(s: &OpenClStream, k: &Loaded, groups: u64, args: &[RawArg]) -> Result<(), String> {
    if groups == 0 {
        return Ok(());
    }
    let kernel = k.kernel.lock().unwrap_or_else(|p| p.into_inner());
    for (i, a) in args.iter().enumerate() {
        let i = u32::try_from(i).map_err(|_| "too many arguments".to_owned())?;
        // SAFETY: the argument index and size follow the manifest, which the entry point's
        // signature matches (tested by the conformance suite); pointers are SVM addresses of
        // this context, checked by Device (buffer of this device).
        let r = unsafe {
            match *a {
                RawArg::Ptr(p, _) => kernel.set_arg_svm_pointer(i, p as usize as *const c_void),
                RawArg::U32(v) => kernel.set_arg(i, &v),
                RawArg::I32(v) => kernel.set_arg(i, &v),
                RawArg::U64(v) => kernel.set_arg(i, &v),
                RawArg::F32(v) => kernel.set_arg(i, &v),
                RawArg::F64(v) => kernel.set_arg(i, &v),
            }
        };
        r.map_err(|e| format!("clSetKernelArg({i}): {e}"))?;
    }
    let local = k.local as usize;
    let global = usize::try_from(groups).ok().and_then(|g| g.checked_mul(local)).ok_or("launch too large")?;
    // SAFETY: one dimension; global and local sizes live across the call; the kernel's
    // arguments were all set above under its lock.
    unsafe { s.queue.enqueue_nd_range_kernel(kernel.get(), 1, std::ptr::null(), &global, &local, &[]) }
        .map(drop)
        .map_err(|e| format!("clEnqueueNDRangeKernel (global {global}, local {local}): {e}"))
}

// SAFETY: streams are `OpenClStream`s of this context (`stream_of` refuses others), kernels
// are programs this driver built, and device addresses are coarse-grained SVM blocks of this
// context from the adapter's allocator, live until their stream-ordered `clEnqueueSVMFree`; the
// raw methods below enqueue only within the ranges `Device` checked.
unsafe impl Driver for OpenClDriver {
    fn info(&self) -> DeviceInfo {
        self.info.clone()
    }

    fn create_stream(&self) -> Result<Stream, ComputeError> {
        let queue = CommandQueue::create_default_with_properties(&self.ctx.context, 0, 0)
            .map_err(|e| backend("clCreateCommandQueueWithProperties", e))?;
        let inner =
            Arc::new(OpenClStream { queue, ctx: self.ctx.clone(), id: OnceLock::new(), staged: Mutex::default() });
        {
            let mut v = self.queues.lock().unwrap_or_else(|p| p.into_inner());
            v.retain(|w| w.strong_count() > 0);
            v.push(Arc::downgrade(&inner));
        }
        let stream = Stream::new(inner.clone());
        let _ = inner.id.set(stream.id());
        Ok(stream)
    }

    fn default_allocator(&self) -> Arc<dyn Allocator> {
        self.default.clone()
    }

    unsafe fn copy_h2d(&self, stream: &Stream, dst: u64, src: &[u8]) -> Result<(), ComputeError> {
        let s = stream_of(stream)?;
        if src.is_empty() {
            return Ok(());
        }
        s.prune();
        let buf = src.to_vec();
        // SAFETY: dst is an SVM address of this context (Device checked the buffer and range);
        // buf's heap memory stays alive in `staged` until the copy's event completed.
        let event = unsafe {
            s.queue.enqueue_svm_mem_cpy(CL_FALSE, dst as usize as *mut c_void, buf.as_ptr().cast(), buf.len(), &[])
        }
        .map_err(|e| backend("clEnqueueSVMMemcpy (host to device)", e))?;
        s.staged.lock().unwrap_or_else(|p| p.into_inner()).push(Staged { event, _buf: buf });
        Ok(())
    }

    unsafe fn copy_d2h(&self, stream: &Stream, src: u64, len: usize) -> Result<Pending<Vec<u8>>, ComputeError> {
        let s = stream_of(stream)?;
        let mut buf = vec![0u8; len];
        if len == 0 {
            return Ok(Pending::new(None, move || Ok(buf)));
        }
        // SAFETY: src is an SVM address of this context; buf's heap memory moves into
        // `Landing`, which waits for the copy's event before freeing it.
        let ev = unsafe {
            s.queue.enqueue_svm_mem_cpy(CL_FALSE, buf.as_mut_ptr().cast(), src as usize as *const c_void, len, &[])
        }
        .map_err(|e| backend("clEnqueueSVMMemcpy (device to host)", e))?;
        s.queue.flush().map_err(|e| backend("clFlush", e))?;
        let event = Arc::new(OpenClEvent { event: ev, context: self.ctx.raw() });
        let mut landing = Landing { buf, event: event.clone() };
        Ok(Pending::new(Some(Event::new(s.id.get().copied(), event)), move || {
            landing.event.event.wait().map_err(|e| ComputeError::Async(Box::new(backend("clWaitForEvents", e))))?;
            Ok(std::mem::take(&mut landing.buf))
        }))
    }

    fn load_kernel(&self, def: &KernelDef) -> Result<Arc<dyn Any + Send + Sync>, ComputeError> {
        Ok(Arc::new(kernels::load(&self.ctx, &self.key, self.max_work_group, def)?))
    }

    unsafe fn launch(&self, stream: &Stream, kernel: &Kernel, items: u64, args: &[RawArg]) -> Result<(), ComputeError> {
        let s = stream_of(stream)?;
        let k = kernel.backend().downcast_ref::<Loaded>().ok_or_else(|| {
            ComputeError::ForeignHandle(format!("kernel {} was not loaded by the OpenCL backend", kernel.def().name))
        })?;
        let groups = items.div_ceil(u64::from(k.block));
        enqueue(s, k, groups, args)
            .map_err(|reason| ComputeError::Launch { kernel: kernel.def().name.clone(), reason })?;
        s.queue.flush().map_err(|e| backend("clFlush", e))
    }

    unsafe fn gemm(&self, stream: &Stream, d: &GemmDesc, a: u64, b: u64, c: u64) -> Result<(), ComputeError> {
        let s = stream_of(stream)?;
        let k = self.gemm_kernel(d.precision)?;
        let t = |x: Transpose| RawArg::U32(u32::from(x == Transpose::Yes));
        let args = [
            t(d.transa),
            t(d.transb),
            RawArg::U64(d.m as u64),
            RawArg::U64(d.n as u64),
            RawArg::U64(d.k as u64),
            RawArg::F64(d.alpha),
            RawArg::Ptr(a, 0),
            RawArg::U64(d.lda as u64),
            RawArg::Ptr(b, 0),
            RawArg::U64(d.ldb as u64),
            RawArg::F64(d.beta),
            RawArg::Ptr(c, 0),
            RawArg::U64(d.ldc as u64),
        ];
        let tiles = (d.m as u64).div_ceil(4) * (d.n as u64).div_ceil(4);
        enqueue(s, &k, tiles.div_ceil(u64::from(k.local)), &args)
            .map_err(|reason| ComputeError::Launch { kernel: "tenor_gemm".into(), reason })?;
        s.queue.flush().map_err(|e| backend("clFlush", e))
    }

    fn synchronize(&self) -> Result<(), ComputeError> {
        let queues: Vec<Arc<OpenClStream>> = {
            let mut v = self.queues.lock().unwrap_or_else(|p| p.into_inner());
            v.retain(|w| w.strong_count() > 0);
            v.iter().filter_map(Weak::upgrade).collect()
        };
        let mut first = None;
        for q in queues {
            if let Err(e) = q.finish() {
                first.get_or_insert(e);
            }
        }
        first.map_or(Ok(()), Err)
    }
}
