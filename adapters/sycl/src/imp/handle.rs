//! Owning, thread-safe wrappers of the shim's opaque handles: each frees its handle in `Drop`
//! and keeps the device it belongs to alive.

use std::ffi::{c_char, c_int, c_void, CString};
use std::ptr::{self, NonNull};
use std::sync::Arc;

use tenor_ports::ComputeError;

use super::ffi::{self, check};

/// A SYCL device and its context (`tsy_device`).
#[derive(Debug)]
pub struct DeviceHandle(NonNull<ffi::tsy_device>);

// SAFETY: the shim's device is immutable after creation except for mutex-protected lists, and
// SYCL runtime objects are thread-safe (SYCL 2020, 4.3.1).
unsafe impl Send for DeviceHandle {}
// SAFETY: as above.
unsafe impl Sync for DeviceHandle {}

impl Drop for DeviceHandle {
    fn drop(&mut self) {
        // SAFETY: the handle came from tsy_device_open and is closed once, here.
        unsafe { ffi::tsy_device_close(self.0.as_ptr()) }
    }
}

/// Device description as the shim reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawInfo {
    /// Device name.
    pub name: String,
    /// Vendor.
    pub vendor: String,
    /// Platform name.
    pub platform: String,
    /// Driver version.
    pub driver_version: String,
    /// Backend (OpenCL, Level Zero, CUDA) version string.
    pub backend_version: String,
    /// Global memory in bytes.
    pub global_mem_bytes: u64,
    /// Compute units.
    pub compute_units: u32,
    /// Largest work-group.
    pub max_work_group_size: u32,
    /// `aspect::fp64`.
    pub fp64: bool,
    /// `aspect::ext_oneapi_async_memory_alloc`.
    pub async_alloc: bool,
    /// Whether the device can build SYCL source at run time.
    pub kernel_compiler: bool,
    /// A CPU device.
    pub is_cpu: bool,
    /// Identity of the SYCL device (`std::hash<sycl::device>`): equal for the same device.
    pub identity: u64,
}

/// Names of every SYCL device visible to the runtime, as "device [platform]".
///
/// # Errors
/// Runtime errors.
pub fn device_names() -> Result<Vec<String>, ComputeError> {
    let mut n = 0usize;
    // SAFETY: `n` is a valid out pointer.
    check(unsafe { ffi::tsy_device_count(&mut n) }, "listing SYCL devices")?;
    (0..n)
        .map(|i| {
            let mut buf = vec![0 as c_char; 512];
            // SAFETY: buf has the length passed.
            check(unsafe { ffi::tsy_device_name(i, buf.as_mut_ptr(), buf.len()) }, "device name")?;
            Ok(ffi::field(&buf))
        })
        .collect()
}

impl DeviceHandle {
    /// Opens the device that `selector` names (`cpu`, `gpu`, `default`, `index:N` or part of
    /// the device name).
    ///
    /// # Errors
    /// [`ComputeError::Unavailable`] listing the devices when none matches;
    /// [`ComputeError::InvalidArgument`] naming the selector when the `N` of `index:N` is not
    /// all decimal digits (`index:foo`, `index:`, `index:1x`).
    pub fn open(selector: &str) -> Result<Arc<Self>, ComputeError> {
        let sel = CString::new(selector)
            .map_err(|_| ComputeError::InvalidArgument(format!("SYCL device selector {selector:?} contains NUL")))?;
        let mut raw = ptr::null_mut();
        // SAFETY: valid C string and out pointer.
        check(unsafe { ffi::tsy_device_open(sel.as_ptr(), &mut raw) }, "opening SYCL device")?;
        NonNull::new(raw)
            .map(|p| Arc::new(Self(p)))
            .ok_or_else(|| ComputeError::InvalidArgument("tsy_device_open returned null".into()))
    }

    pub(crate) fn raw(&self) -> *mut ffi::tsy_device {
        self.0.as_ptr()
    }

    /// The device's description.
    ///
    /// # Errors
    /// Runtime errors.
    pub fn info(&self) -> Result<RawInfo, ComputeError> {
        // SAFETY: tsy_info is plain old data; all-zero is a valid value.
        let mut i: ffi::tsy_info = unsafe { std::mem::zeroed() };
        // SAFETY: live handle and valid out pointer.
        check(unsafe { ffi::tsy_device_info(self.raw(), &mut i) }, "device info")?;
        Ok(RawInfo {
            name: ffi::field(&i.name),
            vendor: ffi::field(&i.vendor),
            platform: ffi::field(&i.platform),
            driver_version: ffi::field(&i.driver_version),
            backend_version: ffi::field(&i.backend_version),
            global_mem_bytes: i.global_mem_bytes,
            compute_units: i.compute_units,
            max_work_group_size: i.max_work_group_size,
            fp64: i.fp64 != 0,
            async_alloc: i.async_alloc != 0,
            kernel_compiler: i.kernel_compiler != 0,
            is_cpu: i.is_cpu != 0,
            identity: i.identity,
        })
    }

    /// The first asynchronous error kept since the last call, if any.
    ///
    /// # Errors
    /// That error.
    pub fn take_async(&self) -> Result<(), ComputeError> {
        // SAFETY: live handle.
        check(unsafe { ffi::tsy_device_take_async(self.raw()) }, "asynchronous SYCL error")
    }
}

/// An in-order queue (`tsy_queue`).
#[derive(Debug)]
pub struct Queue {
    raw: NonNull<ffi::tsy_queue>,
    dev: Arc<DeviceHandle>,
}

// SAFETY: sycl::queue is thread-safe (SYCL 2020, 4.3.1); the shim adds no unsynchronised state.
unsafe impl Send for Queue {}
// SAFETY: as above.
unsafe impl Sync for Queue {}

impl Drop for Queue {
    fn drop(&mut self) {
        // SAFETY: created by tsy_queue_create, destroyed once (the shim waits for its work).
        unsafe { ffi::tsy_queue_destroy(self.raw.as_ptr()) }
    }
}

impl Queue {
    /// A new in-order queue on `dev`.
    ///
    /// # Errors
    /// Runtime errors.
    pub fn new(dev: &Arc<DeviceHandle>) -> Result<Self, ComputeError> {
        let mut raw = ptr::null_mut();
        // SAFETY: live device, valid out pointer.
        check(unsafe { ffi::tsy_queue_create(dev.raw(), &mut raw) }, "creating SYCL queue")?;
        let raw = NonNull::new(raw).ok_or_else(|| ComputeError::InvalidArgument("null queue".into()))?;
        Ok(Self { raw, dev: dev.clone() })
    }

    fn raw(&self) -> *mut ffi::tsy_queue {
        self.raw.as_ptr()
    }

    /// The device of this queue.
    pub fn device(&self) -> &Arc<DeviceHandle> {
        &self.dev
    }

    /// Blocks until the queue is idle; returns kept asynchronous errors.
    ///
    /// # Errors
    /// Synchronous or asynchronous runtime errors.
    pub fn wait(&self) -> Result<(), ComputeError> {
        // SAFETY: live queue.
        check(unsafe { ffi::tsy_queue_wait(self.raw()) }, "waiting for SYCL queue")
    }

    /// Enqueues a host task that throws `message`: a genuine asynchronous SYCL error, delivered
    /// by the runtime to this queue's async_handler and returned by the next wait (or by the
    /// device's [`DeviceHandle::take_async`]) as [`ComputeError::Async`]. For tests of that
    /// path: we found no kernel or launch that makes the OpenCL CPU device report one.
    ///
    /// # Errors
    /// [`ComputeError::InvalidArgument`] when `message` contains NUL; runtime errors.
    pub fn fail_async(&self, message: &str) -> Result<(), ComputeError> {
        let msg = CString::new(message).map_err(|_| {
            ComputeError::InvalidArgument(format!("asynchronous error message {message:?} contains NUL"))
        })?;
        // SAFETY: live queue, valid C string (the shim copies it).
        check(unsafe { ffi::tsy_queue_fail_async(self.raw(), msg.as_ptr()) }, "enqueueing a failing host task")
    }

    /// An event completing after all work enqueued so far.
    ///
    /// # Errors
    /// Runtime errors.
    pub fn record(&self) -> Result<EventHandle, ComputeError> {
        let mut raw = ptr::null_mut();
        // SAFETY: live queue, valid out pointer.
        check(unsafe { ffi::tsy_queue_record(self.raw(), &mut raw) }, "recording SYCL event")?;
        EventHandle::from_raw(raw, &self.dev)
    }

    /// Later work on this queue waits for `ev` (a barrier with an event dependency).
    ///
    /// # Errors
    /// Runtime errors.
    pub fn wait_event(&self, ev: &EventHandle) -> Result<(), ComputeError> {
        // SAFETY: live queue and event.
        check(unsafe { ffi::tsy_queue_wait_event(self.raw(), ev.raw.as_ptr()) }, "SYCL event dependency")
    }

    /// Allocates `bytes` of USM device memory (stream-ordered with `is_async`).
    ///
    /// # Errors
    /// Out of memory or runtime errors.
    pub fn alloc(&self, bytes: usize, is_async: bool) -> Result<Usm, ComputeError> {
        let mut raw = ptr::null_mut();
        // SAFETY: live queue, valid out pointer.
        check(unsafe { ffi::tsy_usm_alloc(self.raw(), bytes, c_int::from(is_async), &mut raw) }, "USM allocation")?;
        NonNull::new(raw).map(Usm).ok_or_else(|| ComputeError::InvalidArgument("null USM handle".into()))
    }

    /// Frees `m` in the order of this queue.
    ///
    /// # Errors
    /// Runtime errors (the block is then leaked, never freed twice).
    pub fn free(&self, m: Usm) -> Result<(), ComputeError> {
        // SAFETY: live queue; `m` is consumed, so its handle is freed at most once.
        check(unsafe { ffi::tsy_usm_free(self.raw(), m.0.as_ptr()) }, "USM free")
    }

    /// Enqueues a copy of `src` (staged by the shim before returning) to device address `dst`.
    ///
    /// # Safety
    /// `dst .. dst + src.len()` is a live USM range of this queue's device that stays
    /// allocated, and is not accessed by unordered work, until the copy completed.
    ///
    /// # Errors
    /// Runtime errors.
    pub unsafe fn copy_h2d(&self, dst: u64, src: &[u8]) -> Result<(), ComputeError> {
        // SAFETY: src is valid for src.len() bytes during the call; the shim stages it; dst is
        // the caller's.
        check(
            unsafe { ffi::tsy_copy_h2d(self.raw(), dst, src.as_ptr().cast::<c_void>(), src.len()) },
            "host-to-device copy",
        )
    }

    /// Enqueues a copy of `len` bytes from `src` to the host memory at `dst`.
    ///
    /// # Safety
    /// `dst` must stay valid for `len` bytes until the returned event completes.
    ///
    /// # Errors
    /// Runtime errors.
    pub unsafe fn copy_d2h(&self, dst: *mut u8, src: u64, len: usize) -> Result<EventHandle, ComputeError> {
        let mut raw = ptr::null_mut();
        // SAFETY: the caller keeps dst valid; live queue; valid out pointer.
        check(
            unsafe { ffi::tsy_copy_d2h(self.raw(), dst.cast::<c_void>(), src, len, &mut raw) },
            "device-to-host copy",
        )?;
        EventHandle::from_raw(raw, &self.dev)
    }

    /// Enqueues `bundle` over `groups` work-groups of `local` work-items.
    ///
    /// # Safety
    /// As [`tenor_ports::Driver::launch`]: every pointer argument is a live USM range of this
    /// device holding what the kernel accesses, until the launch completed.
    ///
    /// # Errors
    /// Runtime errors (argument kinds, work-group size).
    pub unsafe fn launch(
        &self,
        bundle: &Bundle,
        groups: u64,
        local: u32,
        args: &[ffi::tsy_arg],
    ) -> Result<(), ComputeError> {
        // SAFETY: live queue and bundle; args valid for args.len() elements during the call;
        // the buffers are the caller's.
        check(
            unsafe { ffi::tsy_launch(self.raw(), bundle.raw.as_ptr(), groups, local, args.as_ptr(), args.len()) },
            "kernel launch",
        )
    }
}

/// A SYCL event (`tsy_event`).
#[derive(Debug)]
pub struct EventHandle {
    raw: NonNull<ffi::tsy_event>,
    _dev: Arc<DeviceHandle>,
}

// SAFETY: sycl::event is thread-safe; the shim's event is immutable.
unsafe impl Send for EventHandle {}
// SAFETY: as above.
unsafe impl Sync for EventHandle {}

impl Drop for EventHandle {
    fn drop(&mut self) {
        // SAFETY: created by the shim, destroyed once.
        unsafe { ffi::tsy_event_destroy(self.raw.as_ptr()) }
    }
}

impl EventHandle {
    fn from_raw(raw: *mut ffi::tsy_event, dev: &Arc<DeviceHandle>) -> Result<Self, ComputeError> {
        let raw = NonNull::new(raw).ok_or_else(|| ComputeError::InvalidArgument("null event".into()))?;
        Ok(Self { raw, _dev: dev.clone() })
    }

    /// Blocks until the event completes; returns kept asynchronous errors.
    ///
    /// # Errors
    /// Runtime errors.
    pub fn wait(&self) -> Result<(), ComputeError> {
        // SAFETY: live event.
        check(unsafe { ffi::tsy_event_wait(self.raw.as_ptr()) }, "waiting for SYCL event")
    }

    /// Blocks until the event completes, leaving asynchronous errors kept on the device for
    /// the next wait or synchronisation.
    ///
    /// # Errors
    /// Synchronous runtime errors.
    pub fn wait_keeping_async(&self) -> Result<(), ComputeError> {
        // SAFETY: live event.
        check(unsafe { ffi::tsy_event_wait_keep(self.raw.as_ptr()) }, "waiting for SYCL event")
    }

    /// Whether the event completed.
    ///
    /// # Errors
    /// Runtime errors.
    pub fn is_complete(&self) -> Result<bool, ComputeError> {
        let mut done: c_int = 0;
        // SAFETY: live event, valid out pointer.
        check(unsafe { ffi::tsy_event_query(self.raw.as_ptr(), &mut done) }, "querying SYCL event")?;
        Ok(done != 0)
    }
}

/// A USM device allocation (`tsy_usm`); freed through [`Queue::free`].
#[derive(Debug)]
pub struct Usm(NonNull<ffi::tsy_usm>);

// SAFETY: the handle is a plain record (pointer, size); the memory is device memory.
unsafe impl Send for Usm {}
// SAFETY: as above.
unsafe impl Sync for Usm {}

impl Usm {
    /// The device address.
    pub fn address(&self) -> u64 {
        // SAFETY: live handle.
        unsafe { ffi::tsy_usm_address(self.0.as_ptr()) }
    }
}

/// A kernel compiled at run time (`tsy_bundle`).
#[derive(Debug)]
pub struct Bundle {
    raw: NonNull<ffi::tsy_bundle>,
    _dev: Arc<DeviceHandle>,
}

// SAFETY: sycl::kernel is thread-safe and immutable.
unsafe impl Send for Bundle {}
// SAFETY: as above.
unsafe impl Sync for Bundle {}

impl Drop for Bundle {
    fn drop(&mut self) {
        // SAFETY: created by tsy_bundle_build, destroyed once.
        unsafe { ffi::tsy_bundle_destroy(self.raw.as_ptr()) }
    }
}

impl Bundle {
    /// Compiles `source` for `dev` and takes its kernel `name`.
    ///
    /// # Errors
    /// [`ComputeError::Compile`] with the compiler's log; other runtime errors.
    pub fn build(dev: &Arc<DeviceHandle>, source: &str, name: &str) -> Result<Self, ComputeError> {
        let src = CString::new(source)
            .map_err(|_| ComputeError::InvalidArgument(format!("SYCL source of {name} contains NUL")))?;
        let cname = CString::new(name)
            .map_err(|_| ComputeError::InvalidArgument(format!("kernel name {name:?} contains NUL")))?;
        let mut raw = ptr::null_mut();
        // SAFETY: live device, valid C strings and out pointer.
        let status = unsafe { ffi::tsy_bundle_build(dev.raw(), src.as_ptr(), cname.as_ptr(), &mut raw) };
        if status == ffi::TSY_ERR_COMPILE {
            return Err(ComputeError::Compile { kernel: name.into(), backend: "sycl".into(), log: ffi::last_error() });
        }
        check(status, &format!("building kernel {name}"))?;
        let raw = NonNull::new(raw).ok_or_else(|| ComputeError::InvalidArgument("null kernel bundle".into()))?;
        Ok(Self { raw, _dev: dev.clone() })
    }
}
