//! [`SyclDriver`]: the `Driver` primitives on SYCL in-order queues, events and USM.

use std::any::Any;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use tenor_ports::{
    Allocator, ComputeError, DeviceInfo, Driver, Event, EventImpl, GemmDesc, Kernel, KernelDef, Pending, Precision,
    RawArg, Stream, StreamImpl, Transpose,
};

use super::allocator::UsmAllocator;
use super::ffi;
use super::handle::{DeviceHandle, EventHandle, Queue, RawInfo};
use super::kernels::{self, Loaded};

/// A stream: an in-order SYCL queue.
#[derive(Debug)]
pub struct SyclStream {
    queue: Arc<Queue>,
    id: OnceLock<u64>,
}

impl SyclStream {
    /// The queue.
    pub fn queue(&self) -> &Queue {
        &self.queue
    }
}

/// An event of a SYCL queue (a barrier recorded on it).
#[derive(Debug)]
pub struct SyclEvent(EventHandle);

impl EventImpl for SyclEvent {
    fn is_complete(&self) -> Result<bool, ComputeError> {
        self.0.is_complete()
    }
    fn synchronize(&self) -> Result<(), ComputeError> {
        self.0.wait()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl StreamImpl for SyclStream {
    fn record(&self) -> Result<Event, ComputeError> {
        let ev = self.queue.record()?;
        Ok(Event::new(self.id.get().copied(), Arc::new(SyclEvent(ev))))
    }
    fn wait_event(&self, event: &Event) -> Result<(), ComputeError> {
        match event.downcast::<SyclEvent>() {
            Some(e) => self.queue.wait_event(&e.0),
            // Stream::wait hands over only events of this device (its foreign-event policy).
            None => Err(ComputeError::ForeignHandle(format!("{event:?} is not a SYCL event"))),
        }
    }
    fn synchronize(&self) -> Result<(), ComputeError> {
        self.queue.wait()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The SYCL adapter's primitives on one device.
#[derive(Debug)]
pub struct SyclDriver {
    dev: Arc<DeviceHandle>,
    raw: RawInfo,
    key: String,
    allocator: Arc<UsmAllocator>,
    /// What buffers come from: the USM allocator itself where the device allocates
    /// asynchronously, else the toolkit's coalescing pool over USM slabs.
    default: Arc<dyn Allocator>,
    queues: Mutex<Vec<Weak<Queue>>>,
}

fn stream_of(stream: &Stream) -> Result<&SyclStream, ComputeError> {
    stream
        .downcast::<SyclStream>()
        .ok_or_else(|| ComputeError::ForeignHandle(format!("{stream:?} is not a SYCL stream")))
}

fn raw_arg(a: &RawArg) -> ffi::tsy_arg {
    let (kind, bits) = match *a {
        RawArg::Ptr(p, _) => (ffi::TSY_ARG_PTR, p),
        RawArg::U32(v) => (ffi::TSY_ARG_U32, u64::from(v)),
        RawArg::I32(v) => (ffi::TSY_ARG_I32, u64::from(v as u32)),
        RawArg::U64(v) => (ffi::TSY_ARG_U64, v),
        RawArg::F32(v) => (ffi::TSY_ARG_F32, u64::from(v.to_bits())),
        RawArg::F64(v) => (ffi::TSY_ARG_F64, v.to_bits()),
    };
    ffi::tsy_arg { kind, pad: 0, bits }
}

/// Host memory a device-to-host copy writes into; kept alive until the copy completed, even
/// when the `Pending` result is dropped unread.
struct Landing {
    buf: Vec<u8>,
    event: Arc<SyclEvent>,
}

impl Drop for Landing {
    fn drop(&mut self) {
        if !self.buf.is_empty() {
            // The copy may still write into buf: wait. Asynchronous errors stay on the device
            // for its next synchronisation. When the wait itself fails we cannot know that the
            // copy has stopped, so the buffer is leaked on purpose: freeing memory the device
            // may still write into would let it corrupt whatever the allocator hands it to next.
            if self.event.0.wait_keeping_async().is_err() {
                std::mem::forget(std::mem::take(&mut self.buf));
            }
        }
    }
}

impl SyclDriver {
    /// A driver on the device `selector` names (see [`DeviceHandle::open`]).
    ///
    /// # Errors
    /// [`ComputeError::Unavailable`] when no device matches or it cannot compile SYCL source.
    pub fn open(selector: &str) -> Result<Self, ComputeError> {
        let dev = DeviceHandle::open(selector)?;
        let raw = dev.info()?;
        if !raw.kernel_compiler {
            return Err(ComputeError::Unavailable {
                backend: "sycl".into(),
                reason: format!("device {} cannot compile SYCL source at run time (kernel_compiler)", raw.name),
            });
        }
        // Kernel bundles are shared by every driver on the same SYCL device (not by two devices
        // of the same name).
        let key = format!("{} [{}] #{:016x}", raw.name, raw.platform, raw.identity);
        let allocator = Arc::new(UsmAllocator::new(raw.async_alloc));
        // Without the asynchronous-allocation extension every USM allocation and free is a
        // device-wide call; the toolkit's pool takes 32 MiB slabs and sub-allocates in stream
        // order. USM frees wait for the freeing stream's earlier work, so the upstream orders
        // its own reuse.
        let default: Arc<dyn Allocator> = if raw.async_alloc {
            allocator.clone()
        } else {
            Arc::new(tenor_alloc::Pool::new(
                allocator.clone(),
                tenor_alloc::PoolConfig { initial_bytes: 32 << 20, upstream_ordered: true, ..Default::default() },
            ))
        };
        Ok(Self { allocator, default, dev, raw, key, queues: Mutex::default() })
    }

    /// What the runtime reports about the device.
    pub fn raw_info(&self) -> &RawInfo {
        &self.raw
    }

    /// The USM allocator of this device.
    pub fn usm_allocator(&self) -> &Arc<UsmAllocator> {
        &self.allocator
    }

    fn gemm_kernel(&self, precision: Precision) -> Result<Loaded, ComputeError> {
        let name = match precision {
            Precision::F64 => "tenor_gemm_f64",
            Precision::F32 => "tenor_gemm_f32",
        };
        let src = kernels::translation_unit(GEMM_LOCAL, include_str!("gemm.cpp"));
        let bundle = kernels::build_cached(&self.dev, &self.key, name, &src)?;
        Ok(Loaded { bundle, block: GEMM_LOCAL, local: GEMM_LOCAL.min(self.raw.max_work_group_size.max(1)) })
    }
}

/// Work-items per work-group of the gemm kernel (one 4x4 tile of C each).
const GEMM_LOCAL: u32 = 64;

// SAFETY: streams are `SyclStream`s of this device, kernels the manifests' SYCL sources (checked
// against the CPU reference by the conformance suite), blocks USM of this device, and the raw
// methods enqueue on the given queue only the ranges they are given; runtime errors are
// returned (the shim catches SYCL exceptions), never unwound.
unsafe impl Driver for SyclDriver {
    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            backend: "sycl".into(),
            name: self.raw.name.clone(),
            memory_bytes: self.raw.global_mem_bytes,
            compute_units: self.raw.compute_units,
            fp64: self.raw.fp64,
            driver_version: self.raw.driver_version.clone(),
            versions: vec![
                ("sycl-platform".into(), self.raw.platform.clone()),
                ("backend".into(), self.raw.backend_version.clone()),
                ("vendor".into(), self.raw.vendor.clone()),
                ("allocator".into(), self.default.name().to_owned()),
                ("tenor-sycl".into(), env!("CARGO_PKG_VERSION").into()),
            ],
        }
    }

    fn create_stream(&self) -> Result<Stream, ComputeError> {
        let queue = Arc::new(Queue::new(&self.dev)?);
        self.queues.lock().unwrap_or_else(|p| p.into_inner()).push(Arc::downgrade(&queue));
        let inner = Arc::new(SyclStream { queue, id: OnceLock::new() });
        let stream = Stream::new(inner.clone());
        let _ = inner.id.set(stream.id());
        Ok(stream)
    }

    fn default_allocator(&self) -> Arc<dyn Allocator> {
        self.default.clone()
    }

    unsafe fn copy_h2d(&self, stream: &Stream, dst: u64, src: &[u8]) -> Result<(), ComputeError> {
        // SAFETY: the caller's contract (a live range of this device's memory).
        unsafe { stream_of(stream)?.queue.copy_h2d(dst, src) }
    }

    unsafe fn copy_d2h(&self, stream: &Stream, src: u64, len: usize) -> Result<Pending<Vec<u8>>, ComputeError> {
        let s = stream_of(stream)?;
        let mut buf = vec![0u8; len];
        // SAFETY: buf's heap memory moves into `Landing`, which waits for the copy's event
        // before freeing it; a Vec's buffer does not move when the Vec does; `src` is a live
        // range (the caller's contract).
        let ev = unsafe { s.queue.copy_d2h(buf.as_mut_ptr(), src, len)? };
        let event = Arc::new(SyclEvent(ev));
        let mut landing = Landing { buf, event: event.clone() };
        Ok(Pending::new(Some(Event::new(s.id.get().copied(), event)), move || Ok(std::mem::take(&mut landing.buf))))
    }

    fn load_kernel(&self, def: &KernelDef) -> Result<Arc<dyn Any + Send + Sync>, ComputeError> {
        Ok(Arc::new(kernels::load(&self.dev, &self.key, self.raw.max_work_group_size, def)?))
    }

    unsafe fn launch(&self, stream: &Stream, kernel: &Kernel, items: u64, args: &[RawArg]) -> Result<(), ComputeError> {
        let s = stream_of(stream)?;
        let k = kernel.backend().downcast_ref::<Loaded>().ok_or_else(|| {
            ComputeError::ForeignHandle(format!("kernel {} was not loaded by the SYCL backend", kernel.def().name))
        })?;
        let raw: Vec<ffi::tsy_arg> = args.iter().map(raw_arg).collect();
        let groups = items.div_ceil(u64::from(k.block));
        // SAFETY: the caller's contract (live ranges holding the manifest's lengths).
        unsafe { s.queue.launch(&k.bundle, groups, k.local, &raw) }
            .map_err(|e| ComputeError::Launch { kernel: kernel.def().name.clone(), reason: e.to_string() })
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
        let raw: Vec<ffi::tsy_arg> = args.iter().map(raw_arg).collect();
        let tiles = (d.m as u64).div_ceil(4) * (d.n as u64).div_ceil(4);
        // SAFETY: the caller's contract: a, b and c hold the validated operand shapes.
        unsafe { s.queue.launch(&k.bundle, tiles.div_ceil(u64::from(k.local)), k.local, &raw) }
    }

    fn synchronize(&self) -> Result<(), ComputeError> {
        let queues: Vec<Arc<Queue>> = {
            let mut v = self.queues.lock().unwrap_or_else(|p| p.into_inner());
            v.retain(|w| w.strong_count() > 0);
            v.iter().filter_map(Weak::upgrade).collect()
        };
        let mut first = None;
        for q in queues {
            if let Err(e) = q.wait() {
                first.get_or_insert(e);
            }
        }
        if let Err(e) = self.dev.take_async() {
            first.get_or_insert(e);
        }
        first.map_or(Ok(()), Err)
    }
}
