//! Raw declarations of the shim's C ABI (`shim/tenor_sycl.h`) and the mapping of its status
//! codes to [`ComputeError`]. Only the handle module calls these.
#![allow(non_camel_case_types, missing_docs, dead_code)]

use std::ffi::{c_char, c_int, c_void, CStr};

use tenor_ports::{AllocError, ComputeError};

pub type tsy_status = c_int;
pub const TSY_OK: tsy_status = 0;
pub const TSY_ERR_SYCL: tsy_status = 1;
pub const TSY_ERR_ASYNC: tsy_status = 2;
pub const TSY_ERR_INVALID: tsy_status = 3;
pub const TSY_ERR_NOT_FOUND: tsy_status = 4;
pub const TSY_ERR_COMPILE: tsy_status = 5;
pub const TSY_ERR_OUT_OF_MEMORY: tsy_status = 6;
pub const TSY_ERR_UNSUPPORTED: tsy_status = 7;

#[repr(C)]
pub struct tsy_device {
    _p: [u8; 0],
}
#[repr(C)]
pub struct tsy_queue {
    _p: [u8; 0],
}
#[repr(C)]
pub struct tsy_event {
    _p: [u8; 0],
}
#[repr(C)]
pub struct tsy_usm {
    _p: [u8; 0],
}
#[repr(C)]
pub struct tsy_bundle {
    _p: [u8; 0],
}

#[repr(C)]
pub struct tsy_info {
    pub name: [c_char; 256],
    pub vendor: [c_char; 128],
    pub platform: [c_char; 256],
    pub driver_version: [c_char; 128],
    pub backend_version: [c_char; 128],
    pub global_mem_bytes: u64,
    pub compute_units: u32,
    pub max_work_group_size: u32,
    pub fp64: u32,
    pub usm_device: u32,
    pub async_alloc: u32,
    pub kernel_compiler: u32,
    pub is_cpu: u32,
    pub is_gpu: u32,
    pub identity: u64,
}

pub const TSY_ARG_PTR: u32 = 0;
pub const TSY_ARG_U32: u32 = 1;
pub const TSY_ARG_I32: u32 = 2;
pub const TSY_ARG_U64: u32 = 3;
pub const TSY_ARG_F32: u32 = 4;
pub const TSY_ARG_F64: u32 = 5;

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct tsy_arg {
    pub kind: u32,
    pub pad: u32,
    pub bits: u64,
}

extern "C" {
    pub fn tsy_last_error() -> *const c_char;
    pub fn tsy_device_count(out: *mut usize) -> tsy_status;
    pub fn tsy_device_name(index: usize, buf: *mut c_char, len: usize) -> tsy_status;
    pub fn tsy_device_open(selector: *const c_char, out: *mut *mut tsy_device) -> tsy_status;
    pub fn tsy_device_info(dev: *const tsy_device, out: *mut tsy_info) -> tsy_status;
    pub fn tsy_device_take_async(dev: *mut tsy_device) -> tsy_status;
    pub fn tsy_device_close(dev: *mut tsy_device);
    pub fn tsy_queue_create(dev: *mut tsy_device, out: *mut *mut tsy_queue) -> tsy_status;
    pub fn tsy_queue_wait(q: *mut tsy_queue) -> tsy_status;
    pub fn tsy_queue_record(q: *mut tsy_queue, out: *mut *mut tsy_event) -> tsy_status;
    pub fn tsy_queue_wait_event(q: *mut tsy_queue, ev: *const tsy_event) -> tsy_status;
    pub fn tsy_queue_destroy(q: *mut tsy_queue);
    pub fn tsy_queue_fail_async(q: *mut tsy_queue, message: *const c_char) -> tsy_status;
    pub fn tsy_event_wait(ev: *mut tsy_event) -> tsy_status;
    pub fn tsy_event_wait_keep(ev: *mut tsy_event) -> tsy_status;
    pub fn tsy_event_query(ev: *const tsy_event, complete: *mut c_int) -> tsy_status;
    pub fn tsy_event_destroy(ev: *mut tsy_event);
    pub fn tsy_usm_alloc(q: *mut tsy_queue, bytes: usize, is_async: c_int, out: *mut *mut tsy_usm) -> tsy_status;
    pub fn tsy_usm_address(m: *const tsy_usm) -> u64;
    pub fn tsy_usm_free(q: *mut tsy_queue, m: *mut tsy_usm) -> tsy_status;
    pub fn tsy_copy_h2d(q: *mut tsy_queue, dst: u64, src: *const c_void, len: usize) -> tsy_status;
    pub fn tsy_copy_d2h(
        q: *mut tsy_queue,
        dst: *mut c_void,
        src: u64,
        len: usize,
        out: *mut *mut tsy_event,
    ) -> tsy_status;
    pub fn tsy_bundle_build(
        dev: *mut tsy_device,
        source: *const c_char,
        name: *const c_char,
        out: *mut *mut tsy_bundle,
    ) -> tsy_status;
    pub fn tsy_bundle_destroy(b: *mut tsy_bundle);
    pub fn tsy_launch(
        q: *mut tsy_queue,
        b: *const tsy_bundle,
        groups: u64,
        local: u32,
        args: *const tsy_arg,
        nargs: usize,
    ) -> tsy_status;
}

/// The calling thread's last shim error message.
pub fn last_error() -> String {
    // SAFETY: the shim returns a NUL-terminated thread-local string, valid until the next call
    // on this thread; it is copied at once.
    unsafe {
        let p = tsy_last_error();
        if p.is_null() {
            String::new()
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    }
}

/// `Ok` for `TSY_OK`, otherwise the error for `status` with the shim's message, prefixed by
/// `what` (the operation).
pub fn check(status: tsy_status, what: &str) -> Result<(), ComputeError> {
    if status == TSY_OK {
        return Ok(());
    }
    let message = format!("{what}: {}", last_error());
    Err(match status {
        TSY_ERR_ASYNC => ComputeError::Async(Box::new(ComputeError::Backend {
            backend: "sycl".into(),
            code: i64::from(status),
            message,
        })),
        TSY_ERR_INVALID => ComputeError::InvalidArgument(message),
        TSY_ERR_NOT_FOUND | TSY_ERR_UNSUPPORTED => {
            ComputeError::Unavailable { backend: "sycl".into(), reason: message }
        }
        TSY_ERR_OUT_OF_MEMORY => {
            ComputeError::Alloc(AllocError::Backend { backend: "sycl".into(), code: i64::from(status), message })
        }
        _ => ComputeError::Backend { backend: "sycl".into(), code: i64::from(status), message },
    })
}

/// Converts a NUL-terminated fixed-size field of [`tsy_info`].
pub fn field(s: &[c_char]) -> String {
    let bytes: Vec<u8> = s.iter().take_while(|c| **c != 0).map(|c| *c as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}
