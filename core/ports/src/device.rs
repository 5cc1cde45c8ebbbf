//! [`Driver`]: what an adapter implements; [`Device`]: the tracked [`Compute`] built on it.
//!
//! Adapters supply primitives (streams, copies, kernel loading, launches, gemm); `Device`
//! validates launch arguments against the kernel manifest, orders cross-stream accesses with
//! event waits (see [`crate::buffer`]), frees buffers on the stream of last use, caches loaded
//! kernels and keeps asynchronous errors until the next synchronisation. This logic lives once,
//! here, for every backend.

use std::any::Any;
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::{
    Access, Allocator, Arg, ArgType, Compute, ComputeError, DeviceBuffer, DeviceInfo, GemmDesc, Kernel, KernelDef,
    Pending, RawArg, Stream,
};

static NEXT_DEVICE_ID: AtomicU64 = AtomicU64::new(1);

/// Sticky slot for asynchronous errors (failed frees in `Drop`, kernel faults).
#[derive(Debug, Default)]
pub struct ErrorSlot {
    errors: Mutex<Vec<ComputeError>>,
}

impl ErrorSlot {
    /// Keeps an error for the next synchronisation.
    pub fn push(&self, e: ComputeError) {
        self.errors.lock().unwrap_or_else(|p| p.into_inner()).push(e);
    }
    /// Takes the first kept error (and clears the slot), as [`ComputeError::Async`].
    pub fn take(&self) -> Option<ComputeError> {
        let mut v = self.errors.lock().unwrap_or_else(|p| p.into_inner());
        if v.is_empty() {
            None
        } else {
            let first = v.remove(0);
            v.clear();
            Some(ComputeError::Async(Box::new(first)))
        }
    }
}

/// The primitives an adapter implements. [`Device`] makes a [`Compute`] of them.
///
/// This is a hardware abstraction layer in the manner of `wgpu-hal`: its methods that take raw
/// device addresses are `unsafe fn`, because nothing in them can check that an address is a
/// live allocation or that a kernel stays inside its buffers. [`Device`] is the one safe way
/// in: it checks every call (buffer ownership and ranges, argument types and access, the
/// manifest's required buffer lengths, aliasing, the stream's device) and orders cross-stream
/// accesses before it calls a raw method, and it never hands out the driver to safe code.
///
/// Streams and events are the adapter's own types behind [`Stream`] and [`crate::Event`];
/// `launch` receives buffers as raw device addresses, already ordered by the tracker.
///
/// ```compile_fail
/// // Safe code cannot reach the raw methods: `Device::driver` is an `unsafe fn` and so is
/// // every method that takes an address.
/// fn write_anywhere(dev: &tenor_ports::Device<impl tenor_ports::Driver>) {
///     let s = tenor_ports::Compute::default_stream(dev).clone();
///     let _ = dev.driver().copy_h2d(&s, 0xdead_0000, &[0u8; 8]);
/// }
/// ```
///
/// The same call compiles once the caller takes on the contract in an `unsafe` block (so the
/// examples above fail for that reason alone):
///
/// ```no_run
/// fn write_with_contract(dev: &tenor_ports::Device<impl tenor_ports::Driver>) {
///     let s = tenor_ports::Compute::default_stream(dev).clone();
///     // SAFETY: (not upheld: this example is never run.)
///     let _ = unsafe { dev.driver().copy_h2d(&s, 0xdead_0000, &[0u8; 8]) };
/// }
/// ```
///
/// ```compile_fail
/// // Even with a driver in hand, a raw copy is an `unsafe fn`.
/// fn write_anywhere<D: tenor_ports::Driver>(drv: &D, s: &tenor_ports::Stream) {
///     let _ = drv.copy_h2d(s, 0xdead_0000, &[0u8; 8]);
/// }
/// ```
///
/// # Safety
/// Implementing the trait promises what [`Device`]'s soundness rests on:
/// * the safe methods touch no memory the caller did not hand over: `create_stream` returns a
///   stream of this driver, `load_kernel` returns the implementation of the given manifest
///   (whose accesses stay within the manifest's `len` of every buffer argument), and
///   `default_allocator` returns an allocator whose blocks are valid device addresses of this
///   driver for their whole size until deallocated;
/// * the raw methods access only the ranges their contracts name, on the stream given, in
///   stream order, and report failures as errors (or asynchronously, to the next
///   `synchronize`), never by unwinding across a foreign call.
pub unsafe trait Driver: Send + Sync + fmt::Debug + 'static {
    /// Device description.
    fn info(&self) -> DeviceInfo;
    /// Creates an in-order stream.
    ///
    /// # Errors
    /// Backend errors.
    fn create_stream(&self) -> Result<Stream, ComputeError>;
    /// The allocator the adapter recommends (the device's stream-ordered pool on CUDA).
    fn default_allocator(&self) -> Arc<dyn Allocator>;
    /// Enqueues a host-to-device copy of `src` to `dst`; `src` is staged before returning.
    ///
    /// # Safety
    /// `stream` is a stream of this driver; `dst .. dst + src.len()` lies inside one live
    /// block of this driver's memory, which stays allocated until the copy completed, and no
    /// other work accesses that range until then unless ordered after the copy.
    ///
    /// # Errors
    /// Backend errors.
    unsafe fn copy_h2d(&self, stream: &Stream, dst: u64, src: &[u8]) -> Result<(), ComputeError>;
    /// Enqueues a device-to-host copy of `len` bytes from `src`.
    ///
    /// # Safety
    /// `stream` is a stream of this driver; `src .. src + len` lies inside one live block of
    /// this driver's memory, which stays allocated, and is not written by unordered work, until
    /// the copy completed.
    ///
    /// # Errors
    /// Backend errors.
    unsafe fn copy_d2h(&self, stream: &Stream, src: u64, len: usize) -> Result<Pending<Vec<u8>>, ComputeError>;
    /// Compiles or looks up the kernel's implementation for this device.
    ///
    /// # Errors
    /// [`ComputeError::UnknownKernel`] or [`ComputeError::Compile`].
    fn load_kernel(&self, def: &KernelDef) -> Result<Arc<dyn Any + Send + Sync>, ComputeError>;
    /// Enqueues a launch of `kernel` over `items` work items.
    ///
    /// # Safety
    /// `stream` is a stream of this driver and `kernel` was loaded by it; `args` match the
    /// manifest's arguments in number and type; every `RawArg::Ptr(addr, bytes)` is a range
    /// inside one live block of this driver's memory holding at least the manifest's `len`
    /// elements for this launch (`bytes` is that range's length), which stays allocated until
    /// the launch completed; a range the kernel writes overlaps no other argument's range; and
    /// every access by other streams is ordered before the launch. ([`Device::launch`] checks
    /// and orders all of this.)
    ///
    /// # Errors
    /// Launch errors.
    unsafe fn launch(&self, stream: &Stream, kernel: &Kernel, items: u64, args: &[RawArg]) -> Result<(), ComputeError>;
    /// Blocks of `kernel` this device runs all at once ([`Compute::resident_blocks`]); `None`
    /// (the default) where the driver has no cooperative launch.
    ///
    /// # Errors
    /// Backend errors.
    fn resident_blocks(&self, kernel: &Kernel) -> Result<Option<u64>, ComputeError> {
        let _ = kernel;
        Ok(None)
    }
    /// [`Driver::launch`] with every block resident at once ([`Compute::launch_cooperative`]).
    ///
    /// # Safety
    /// As [`Driver::launch`].
    ///
    /// # Errors
    /// [`ComputeError::Unsupported`] (the default); launch errors, among them a grid larger than
    /// [`Driver::resident_blocks`].
    unsafe fn launch_cooperative(
        &self,
        stream: &Stream,
        kernel: &Kernel,
        items: u64,
        args: &[RawArg],
    ) -> Result<(), ComputeError> {
        let _ = (stream, items, args);
        Err(ComputeError::Unsupported {
            backend: "this driver".into(),
            what: format!("a cooperative launch of {}", kernel.def().name),
        })
    }
    /// Enqueues `C = alpha op(A) op(B) + beta C` on raw addresses.
    ///
    /// # Safety
    /// `stream` is a stream of this driver; `a`, `b` and `c` start live blocks of this
    /// driver's memory of at least [`GemmDesc::operand_bytes`] bytes each (the shapes were
    /// validated), `c` overlaps neither `a` nor `b`, all stay allocated until the product
    /// completed, and accesses by other streams are ordered before it.
    ///
    /// # Errors
    /// Backend errors; [`ComputeError::Unsupported`] where no BLAS exists.
    unsafe fn gemm(&self, stream: &Stream, desc: &GemmDesc, a: u64, b: u64, c: u64) -> Result<(), ComputeError>;
    /// Blocks until every stream of the device is idle.
    ///
    /// # Errors
    /// Asynchronous errors of the device.
    fn synchronize(&self) -> Result<(), ComputeError>;
}

/// A [`Compute`] over any [`Driver`], with hazard tracking, argument checking, a kernel cache
/// and sticky asynchronous errors.
pub struct Device<D: Driver> {
    driver: Arc<D>,
    info: DeviceInfo,
    id: u64,
    default_stream: Stream,
    allocator: Arc<dyn Allocator>,
    errors: Arc<ErrorSlot>,
    kernels: Mutex<HashMap<String, Kernel>>,
}

impl<D: Driver> fmt::Debug for Device<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Device")
            .field("backend", &self.info.backend)
            .field("name", &self.info.name)
            .field("allocator", &self.allocator.name())
            .finish()
    }
}

impl<D: Driver> Device<D> {
    /// [`Compute::launch`] (`cooperative`: [`Compute::launch_cooperative`]) after checking the
    /// stream and the arguments and ordering every buffer's earlier uses before it.
    fn checked_launch(
        &self,
        stream: &Stream,
        kernel: &Kernel,
        items: u64,
        args: &[Arg<'_>],
        cooperative: bool,
    ) -> Result<(), ComputeError> {
        self.check_stream(stream)?;
        let raw = self.check_args(kernel.def(), items, args)?;
        let def = kernel.def();
        if let Some(at) = def.waits_position().filter(|_| !cooperative) {
            if matches!(raw.get(at), Some(RawArg::U32(v)) if *v > 1) {
                return Err(ComputeError::KernelArg {
                    kernel: def.name.clone(),
                    position: at,
                    name: def.args[at].name.clone(),
                    reason: "a value above 1 makes the blocks wait on each other: launch it with \
                             Compute::launch_cooperative"
                        .into(),
                });
            }
        }
        if cooperative && self.driver.resident_blocks(kernel)?.is_none() {
            return Err(ComputeError::Unsupported {
                backend: self.info.backend.clone(),
                what: format!("a cooperative launch of {}", kernel.def().name),
            });
        }
        for a in args {
            if let Arg::Buf(b, acc) = a {
                b.order_before(stream, *acc)?;
            }
        }
        // SAFETY: check_stream and check_args established the launch contract (stream and
        // buffers of this device, types, required lengths, no written range aliasing another
        // argument); every other stream's use is ordered before; the buffers are freed only in
        // stream order after this use.
        unsafe {
            if cooperative {
                self.driver.launch_cooperative(stream, kernel, items, &raw)?;
            } else {
                self.driver.launch(stream, kernel, items, &raw)?;
            }
        }
        for a in args {
            if let Arg::Buf(b, acc) = a {
                b.note_use(stream, *acc);
            }
        }
        Ok(())
    }

    /// A device on `driver` with the driver's default allocator.
    ///
    /// # Errors
    /// Stream creation errors.
    pub fn new(driver: D) -> Result<Self, ComputeError> {
        let alloc = driver.default_allocator();
        Self::with_allocator(driver, alloc)
    }

    /// A device on `driver` whose buffers come from `allocator` (a toolkit strategy over the
    /// driver's allocator, for instance). [`Compute::allocator`] is `allocator` inside a
    /// [`crate::Counted`], which adds the count of allocations to its report.
    ///
    /// # Errors
    /// Stream creation errors.
    pub fn with_allocator(driver: D, allocator: Arc<dyn Allocator>) -> Result<Self, ComputeError> {
        let id = NEXT_DEVICE_ID.fetch_add(1, Ordering::Relaxed);
        let default_stream = driver.create_stream()?.in_domain(id);
        Ok(Self {
            info: driver.info(),
            driver: Arc::new(driver),
            id,
            default_stream,
            // Counted once here for every backend (AllocReport::allocations).
            allocator: Arc::new(crate::allocator::Counted::new(allocator)),
            errors: Arc::new(ErrorSlot::default()),
            kernels: Mutex::new(HashMap::new()),
        })
    }

    /// The adapter, for adapter-specific calls outside the port (a benchmark that times the
    /// raw launch, an adapter's own tests).
    ///
    /// # Safety
    /// Work the caller enqueues through the driver bypasses this device: it is not checked,
    /// not ordered against other streams' uses of this device's buffers, and streams the
    /// caller creates through it belong to no device (see [`Stream::wait`]). The caller
    /// upholds the contracts of the raw methods it calls and orders such work against every
    /// tracked use of the buffers it touches (for instance by synchronizing the device before
    /// and after).
    pub unsafe fn driver(&self) -> &D {
        &self.driver
    }

    /// Process-wide id of this device (buffers carry it).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Launch without hazard tracking: the caller orders streams by hand. For adapter tests
    /// and for demonstrating what the tracker prevents; arguments are still checked.
    ///
    /// # Errors
    /// As [`Compute::launch`].
    pub fn launch_untracked(
        &self,
        stream: &Stream,
        kernel: &Kernel,
        items: u64,
        args: &[Arg<'_>],
    ) -> Result<(), ComputeError> {
        self.check_stream(stream)?;
        let raw = self.check_args(kernel.def(), items, args)?;
        // SAFETY: check_stream and check_args established the launch contract's checks (stream
        // and buffers of this device, types, required lengths, no written range aliasing
        // another argument); the buffers are borrowed for the call and freed only in stream
        // order after it. Cross-stream order is the caller's, as documented.
        unsafe { self.driver.launch(stream, kernel, items, &raw) }
    }

    fn check_args(&self, def: &KernelDef, items: u64, args: &[Arg<'_>]) -> Result<Vec<RawArg>, ComputeError> {
        let err = |position: usize, reason: String| ComputeError::KernelArg {
            kernel: def.name.clone(),
            position,
            name: def.args.get(position).map_or_else(|| "-".to_owned(), |a| a.name.clone()),
            reason,
        };
        if args.len() != def.args.len() {
            return Err(err(
                args.len().min(def.args.len()),
                format!("{} arguments given, manifest has {}", args.len(), def.args.len()),
            ));
        }
        let mut raw = Vec::with_capacity(args.len());
        for (i, (arg, ad)) in args.iter().zip(&def.args).enumerate() {
            let r = match (arg, ad.ty) {
                (Arg::Buf(b, acc), t) if t.is_pointer() => {
                    if Some(*acc) != ad.access {
                        return Err(err(i, format!("access {acc:?} given, manifest says {:?}", ad.access)));
                    }
                    if b.device_id() != self.id {
                        return Err(err(i, "buffer belongs to another device".into()));
                    }
                    RawArg::Ptr(b.ptr(), b.len() as u64)
                }
                (Arg::U32(v), ArgType::U32) => RawArg::U32(*v),
                (Arg::I32(v), ArgType::I32) => RawArg::I32(*v),
                (Arg::U64(v), ArgType::U64) => RawArg::U64(*v),
                (Arg::F32(v), ArgType::F32) => RawArg::F32(*v),
                (Arg::F64(v), ArgType::F64) => RawArg::F64(*v),
                (a, t) => return Err(err(i, format!("expected {}, got {a:?}", t.as_str()))),
            };
            raw.push(r);
        }
        if let Some(p) = def.items_position() {
            let n = match raw[p] {
                RawArg::U64(v) => v,
                RawArg::U32(v) => u64::from(v),
                _ => items,
            };
            if n != items {
                return Err(err(p, format!("launch over {items} items but argument says {n}")));
            }
        }
        self.check_lengths(def, items, &raw)?;
        Ok(raw)
    }

    /// Every buffer argument holds at least the manifest's `len` elements for this launch, and
    /// no buffer the kernel writes overlaps another buffer argument.
    fn check_lengths(&self, def: &KernelDef, items: u64, raw: &[RawArg]) -> Result<(), ComputeError> {
        for (i, (r, ad)) in raw.iter().zip(&def.args).enumerate() {
            let RawArg::Ptr(ptr, bytes) = *r else { continue };
            let required = match def.required_len(i, items, raw) {
                Some(Ok(n)) => n,
                Some(Err(e)) => {
                    return Err(ComputeError::KernelArg {
                        kernel: def.name.clone(),
                        position: i,
                        name: ad.name.clone(),
                        reason: format!("required length: {e}"),
                    })
                }
                None => continue,
            };
            let elem = ad.ty.element_bytes() as u64;
            let given = bytes / elem.max(1);
            if given < required {
                return Err(ComputeError::BufferTooShort {
                    kernel: def.name.clone(),
                    position: i,
                    name: ad.name.clone(),
                    len: ad.len.as_ref().map_or_else(String::new, |e| e.as_str().to_owned()),
                    required,
                    given,
                });
            }
            if ad.access.is_some_and(Access::writes) {
                for (j, other) in raw.iter().enumerate() {
                    if let RawArg::Ptr(q, qb) = *other {
                        if j != i && ptr < q.saturating_add(qb) && q < ptr.saturating_add(bytes) {
                            return Err(ComputeError::KernelArg {
                                kernel: def.name.clone(),
                                position: i,
                                name: ad.name.clone(),
                                reason: format!(
                                    "written buffer overlaps argument {j} ({}); pass distinct buffers",
                                    def.args.get(j).map_or("-", |a| a.name.as_str())
                                ),
                            });
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The stream was created by this device (not by another device or outside one).
    fn check_stream(&self, stream: &Stream) -> Result<(), ComputeError> {
        if stream.device_id() == self.id {
            Ok(())
        } else {
            Err(ComputeError::ForeignHandle(format!(
                "{stream:?} belongs to device {}, not to this {} device {}",
                stream.device_id(),
                self.info.backend,
                self.id
            )))
        }
    }

    fn check_range(buf: &DeviceBuffer, offset: usize, len: usize, what: &str) -> Result<(), ComputeError> {
        match offset.checked_add(len) {
            Some(end) if end <= buf.len() => Ok(()),
            _ => Err(ComputeError::InvalidArgument(format!(
                "{what}: range {offset}..{offset}+{len} exceeds buffer of {} bytes",
                buf.len()
            ))),
        }
    }

    fn check_owner(&self, buf: &DeviceBuffer) -> Result<(), ComputeError> {
        if buf.device_id() == self.id {
            Ok(())
        } else {
            Err(ComputeError::ForeignHandle("buffer of another device".into()))
        }
    }
}

impl<D: Driver> Compute for Device<D> {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn default_stream(&self) -> &Stream {
        &self.default_stream
    }

    fn create_stream(&self) -> Result<Stream, ComputeError> {
        Ok(self.driver.create_stream()?.in_domain(self.id))
    }

    fn allocator(&self) -> &Arc<dyn Allocator> {
        &self.allocator
    }

    fn alloc(&self, stream: &Stream, bytes: usize) -> Result<DeviceBuffer, ComputeError> {
        self.check_stream(stream)?;
        let block = self.allocator.allocate(bytes, stream)?;
        Ok(DeviceBuffer::new(block, bytes, self.allocator.clone(), self.id, stream, self.errors.clone()))
    }

    fn upload(&self, stream: &Stream, dst: &DeviceBuffer, offset: usize, src: &[u8]) -> Result<(), ComputeError> {
        self.check_stream(stream)?;
        self.check_owner(dst)?;
        Self::check_range(dst, offset, src.len(), "upload")?;
        dst.order_before(stream, Access::Write)?;
        // SAFETY: a stream and a live buffer of this device, the range checked against the
        // buffer, other streams' uses ordered before; the buffer is freed only in stream order
        // after this use.
        unsafe { self.driver.copy_h2d(stream, dst.ptr() + offset as u64, src)? };
        dst.note_use(stream, Access::Write);
        Ok(())
    }

    fn download(
        &self,
        stream: &Stream,
        src: &DeviceBuffer,
        offset: usize,
        len: usize,
    ) -> Result<Pending<Vec<u8>>, ComputeError> {
        self.check_stream(stream)?;
        self.check_owner(src)?;
        Self::check_range(src, offset, len, "download")?;
        src.order_before(stream, Access::Read)?;
        // SAFETY: as in upload.
        let p = unsafe { self.driver.copy_d2h(stream, src.ptr() + offset as u64, len)? };
        src.note_use(stream, Access::Read);
        Ok(p)
    }

    fn load_kernel(&self, def: &KernelDef) -> Result<Kernel, ComputeError> {
        let mut cache = self.kernels.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = cache.get(&def.name) {
            if k.def() == def {
                return Ok(k.clone());
            }
        }
        let obj = self.driver.load_kernel(def)?;
        let k = Kernel::new(Arc::new(def.clone()), obj);
        cache.insert(def.name.clone(), k.clone());
        Ok(k)
    }

    fn launch(&self, stream: &Stream, kernel: &Kernel, items: u64, args: &[Arg<'_>]) -> Result<(), ComputeError> {
        self.checked_launch(stream, kernel, items, args, false)
    }

    fn resident_blocks(&self, kernel: &Kernel) -> Result<Option<u64>, ComputeError> {
        self.driver.resident_blocks(kernel)
    }

    fn launch_cooperative(
        &self,
        stream: &Stream,
        kernel: &Kernel,
        items: u64,
        args: &[Arg<'_>],
    ) -> Result<(), ComputeError> {
        self.checked_launch(stream, kernel, items, args, true)
    }

    fn gemm(
        &self,
        stream: &Stream,
        desc: &GemmDesc,
        a: &DeviceBuffer,
        b: &DeviceBuffer,
        c: &DeviceBuffer,
    ) -> Result<(), ComputeError> {
        self.check_stream(stream)?;
        for x in [a, b, c] {
            self.check_owner(x)?;
        }
        desc.validate(a.len(), b.len(), c.len())?;
        if c.ptr() < a.ptr() + a.len() as u64 && a.ptr() < c.ptr() + c.len() as u64
            || c.ptr() < b.ptr() + b.len() as u64 && b.ptr() < c.ptr() + c.len() as u64
        {
            return Err(ComputeError::InvalidArgument("gemm: C overlaps A or B; pass distinct buffers".into()));
        }
        let c_access = if desc.beta == 0.0 { Access::Write } else { Access::ReadWrite };
        a.order_before(stream, Access::Read)?;
        b.order_before(stream, Access::Read)?;
        c.order_before(stream, c_access)?;
        // SAFETY: stream and buffers of this device, shapes validated against the buffer sizes,
        // C distinct from A and B, other streams' uses ordered before.
        unsafe { self.driver.gemm(stream, desc, a.ptr(), b.ptr(), c.ptr())? };
        a.note_use(stream, Access::Read);
        b.note_use(stream, Access::Read);
        c.note_use(stream, c_access);
        Ok(())
    }

    fn synchronize(&self) -> Result<(), ComputeError> {
        let r = self.driver.synchronize();
        if let Some(e) = self.errors.take() {
            return Err(e);
        }
        r
    }
}
