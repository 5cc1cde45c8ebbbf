//! # libtenor_allocator.so: one Tenor pool for every library in the process
//!
//! A C ABI (`include/tenor_allocator.h`) over Tenor's allocation toolkit ([`tenor_alloc`]) drawing
//! from Tenor's own CUDA pool ([`tenor_cuda::alloc::ExplicitPool`], `cuMemPoolCreate`; the
//! device's default pool is never touched), shaped for the two hooks libraries offer:
//!
//! * PyTorch, `torch.cuda.memory.CUDAPluggableAllocator(path, "tenor_torch_alloc",
//!   "tenor_torch_free")`: [`tenor_torch_alloc`] and [`tenor_torch_free`];
//! * CuPy, `cupy.cuda.memory.CFunctionAllocator(0, malloc, free, 0)` with the addresses of
//!   [`tenor_cupy_malloc`] and [`tenor_cupy_free`] (CuPy passes no stream: its blocks are
//!   ordered on the legacy default stream, CuPy's default).
//!
//! Both hooks share one allocator per process, so PyTorch, CuPy and Tenor draw from one pool.
//! Configuration is read from the environment at the first call ([`config`]). Statistics:
//! [`tenor_alloc_stats`] (a struct), [`tenor_alloc_stats_json`], and the `TENOR_ALLOC_STATS`
//! file written at exit (`tenor alloc stats FILE` prints it).
//!
//! **Contract.** No call panics across the boundary (every entry runs under `catch_unwind`).
//! A zero-byte request, an out-of-memory refusal, a double free, a foreign pointer and a call
//! for another device each return NULL / are ignored, leave the allocator unchanged, set the
//! calling thread's last error ([`tenor_alloc_last_error`]: a [`error::Code`] and a message
//! naming the pointer or size and device) and are counted in the statistics.

pub mod config;
pub mod error;
pub mod shared;
pub mod stats;

use std::ffi::{c_char, c_int, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::OnceLock;

use error::{set_last, Code, Failure};
use shared::Shared;
use stats::{CStats, Stats};

static SHARED: OnceLock<Result<Shared, Failure>> = OnceLock::new();

/// The process's allocator, opened on `device` at the first call.
fn shared(device: i32) -> Result<&'static Shared, Failure> {
    SHARED
        .get_or_init(|| {
            let config = config::Config::from_env_vars().map_err(|e| Failure::new(Code::Config, e.to_string()))?;
            let has_stats_file = config.stats_path.is_some();
            let s = Shared::open(config, device)?;
            if has_stats_file {
                // SAFETY: registering a plain `extern "C" fn()` that never unwinds.
                unsafe { libc::atexit(write_stats_at_exit) };
            }
            Ok(s)
        })
        .as_ref()
        .map_err(Clone::clone)
}

extern "C" fn write_stats_at_exit() {
    let _ = catch_unwind(|| {
        if let Some(Ok(s)) = SHARED.get() {
            if let Some(path) = &s.config().stats_path {
                if let Err(e) = stats::write_atomically(&s.stats(), Path::new(path)) {
                    eprintln!("libtenor_allocator: statistics file {e}");
                }
            }
        }
    });
}

/// Runs `f` under `catch_unwind`; records the outcome as the thread's last error and returns
/// `fallback` on failure.
fn guard<T>(fallback: T, f: impl FnOnce() -> Result<T, Failure>) -> T {
    let outcome = catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err(Failure::new(Code::Panic, "internal panic caught at the C boundary")));
    match outcome {
        Ok(v) => {
            set_last(Failure::new(Code::Ok, ""));
            v
        }
        Err(e) => {
            set_last(e);
            fallback
        }
    }
}

/// As [`guard`] for a function returning a [`Code`]: the failure's own code on failure.
fn guard_code(f: impl FnOnce() -> Result<(), Failure>) -> c_int {
    let mut code = Code::Ok;
    guard((), || f().inspect_err(|e| code = e.code));
    code as c_int
}

fn size_of(size: isize) -> Result<usize, Failure> {
    usize::try_from(size).map_err(|_| Failure::new(Code::BadArgument, format!("negative size {size}")))
}

/// Opens the allocator on `device` now (otherwise the first allocation does); returns a
/// [`Code`] (`Config` names the bad variable, `Backend` the device error).
#[no_mangle]
pub extern "C" fn tenor_alloc_init(device: c_int) -> c_int {
    guard_code(|| shared(device).map(|_| ()))
}

/// PyTorch's `alloc_fn`: `size` bytes on `device`, ordered on `stream` (a `cudaStream_t`).
/// NULL on failure ([`tenor_alloc_last_error`] says why).
#[no_mangle]
pub extern "C" fn tenor_torch_alloc(size: isize, device: c_int, stream: *mut c_void) -> *mut c_void {
    guard(std::ptr::null_mut(), || {
        let bytes = size_of(size)?;
        Ok(shared(device)?.allocate(bytes, device, stream as usize)? as usize as *mut c_void)
    })
}

/// PyTorch's `free_fn`: frees `ptr` in the order of the stream it was allocated on (`size` and
/// `stream` are PyTorch's record of it and are not needed). NULL is a no-op.
#[no_mangle]
pub extern "C" fn tenor_torch_free(ptr: *mut c_void, size: isize, device: c_int, stream: *mut c_void) {
    let _ = (size, stream);
    guard((), || shared(device)?.deallocate(ptr as usize as u64, device));
}

/// CuPy's `malloc_func` for `CFunctionAllocator`: `size` bytes on `device_id`, ordered on the
/// legacy default stream; `param` is unused. 0 on failure.
#[no_mangle]
pub extern "C" fn tenor_cupy_malloc(param: isize, size: usize, device_id: c_int) -> isize {
    let _ = param;
    guard(0, || Ok(shared(device_id)?.allocate(size, device_id, 0)? as isize))
}

/// CuPy's `free_func` for `CFunctionAllocator`: frees `ptr`; `param` is unused. 0 is a no-op.
#[no_mangle]
pub extern "C" fn tenor_cupy_free(param: isize, ptr: isize, device_id: c_int) {
    let _ = param;
    guard((), || shared(device_id)?.deallocate(ptr as u64, device_id));
}

fn current() -> Result<Stats, Failure> {
    match SHARED.get() {
        Some(Ok(s)) => Ok(s.stats()),
        Some(Err(e)) => Err(e.clone()),
        None => Ok(Stats::default()),
    }
}

/// Fills `*out` with the statistics (all zero before the first call); returns a [`Code`].
///
/// # Safety
/// `out` is NULL (refused with `BadArgument`) or points to a writable `tenor_alloc_stats_t`.
#[no_mangle]
pub unsafe extern "C" fn tenor_alloc_stats(out: *mut CStats) -> c_int {
    guard_code(|| {
        if out.is_null() {
            return Err(Failure::new(Code::BadArgument, "tenor_alloc_stats: out is NULL"));
        }
        let s = CStats::from(&current()?);
        // SAFETY: non-null and writable per the contract.
        unsafe { out.write(s) };
        Ok(())
    })
}

/// Writes the statistics as JSON (NUL-terminated) into `buf` when `len` bytes suffice; returns
/// the JSON's length without the NUL (call again with a larger buffer when it is `>= len`), or
/// -1 on failure.
///
/// # Safety
/// `buf` points to `len` writable bytes (or `len` is 0).
#[no_mangle]
pub unsafe extern "C" fn tenor_alloc_stats_json(buf: *mut c_char, len: usize) -> isize {
    guard(-1, || {
        let text = serde_json::to_string(&current()?).map_err(|e| Failure::new(Code::Io, e.to_string()))?;
        if !buf.is_null() && text.len() < len {
            // SAFETY: `buf` has `len > text.len()` writable bytes.
            unsafe {
                std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), text.len());
                buf.add(text.len()).write(0);
            }
        }
        Ok(text.len() as isize)
    })
}

/// Writes the statistics file to `path` now (atomically); returns a [`Code`].
///
/// # Safety
/// `path` is NULL (refused) or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn tenor_alloc_write_stats(path: *const c_char) -> c_int {
    guard_code(|| {
        if path.is_null() {
            return Err(Failure::new(Code::BadArgument, "tenor_alloc_write_stats: path is NULL"));
        }
        // SAFETY: NUL-terminated per the contract.
        let p = unsafe { CStr::from_ptr(path) }.to_string_lossy().into_owned();
        stats::write_atomically(&current()?, Path::new(&p)).map_err(|e| Failure::new(Code::Io, e))
    })
}

/// The calling thread's last result code of a `tenor_*` call (0: it succeeded); its message,
/// NUL-terminated and truncated to fit, is copied into `buf` when `len > 0`.
///
/// # Safety
/// `buf` points to `len` writable bytes (or `len` is 0).
#[no_mangle]
pub unsafe extern "C" fn tenor_alloc_last_error(buf: *mut c_char, len: usize) -> c_int {
    let r = catch_unwind(|| {
        let f = error::last().unwrap_or_else(|| Failure::new(Code::Ok, ""));
        if !buf.is_null() && len > 0 {
            let n = f.message.len().min(len - 1);
            // SAFETY: `buf` has `len > n` writable bytes.
            unsafe {
                std::ptr::copy_nonoverlapping(f.message.as_ptr(), buf.cast::<u8>(), n);
                buf.add(n).write(0);
            }
        }
        f.code as c_int
    });
    r.unwrap_or(Code::Panic as c_int)
}
