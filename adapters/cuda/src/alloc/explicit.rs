//! A pool of Tenor's own (`cuMemPoolCreate`), optionally shareable with other processes.

use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cudarc::driver::sys;
use tenor_ports::{AllocError, AllocReport, Allocator, Block, ComputeError, Stream};

use super::pool::{free_async, PoolConfig, PoolHandle};
use crate::context::Context;
use crate::error::{check, drv};

/// Properties of an [`ExplicitPool`] (default: no maximum, no IPC, [`PoolConfig::default`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExplicitPoolConfig {
    /// Maximum bytes the pool may reserve (`CUmemPoolProps::maxSize`; 0 = the driver's
    /// default, the device's memory).
    pub max_size: usize,
    /// Export handles as POSIX file descriptors so another process can map the pool's memory
    /// (`CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR`; the device's default pool cannot).
    pub ipc: bool,
    /// Release threshold and reuse.
    pub pool: PoolConfig,
}

/// A pool created with `cuMemPoolCreate` and allocated from with `cuMemAllocFromPoolAsync`;
/// the device's current pool is never changed (`cuDeviceSetMemPool` is not called), so other
/// libraries in the process are unaffected.
#[derive(Debug)]
pub struct ExplicitPool {
    pool: PoolHandle,
    config: ExplicitPoolConfig,
    live: AtomicUsize,
}

impl ExplicitPool {
    /// Creates a pool on `ctx`'s device.
    ///
    /// # Errors
    /// Driver errors (an IPC pool where the platform has no POSIX handle support, say).
    pub fn new(ctx: Arc<Context>, config: ExplicitPoolConfig) -> Result<Self, ComputeError> {
        ctx.bind()?;
        // SAFETY: CUmemPoolProps is plain old data; zero is its documented "unset" value.
        let mut props: sys::CUmemPoolProps = unsafe { std::mem::zeroed() };
        props.allocType = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        props.handleTypes = if config.ipc {
            sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
        } else {
            sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE
        };
        props.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        props.location.id = ctx.ordinal();
        props.maxSize = config.max_size;
        // SAFETY: `props` is fully initialised.
        let raw = unsafe { cudarc::driver::result::mem_pool::create(&props) }.map_err(|e| drv("cuMemPoolCreate", e))?;
        let pool = PoolHandle { raw, ctx };
        pool.configure(&config.pool)?;
        Ok(Self { pool, config, live: AtomicUsize::new(0) })
    }

    /// The pool handle (attributes, watermarks).
    pub fn handle(&self) -> &PoolHandle {
        &self.pool
    }

    /// The pool's properties.
    pub fn config(&self) -> ExplicitPoolConfig {
        self.config
    }

    /// Exports the pool as a POSIX file descriptor for another process
    /// (`cuMemPoolExportToShareableHandle`). The caller owns the descriptor and passes it on
    /// (inheritance, `SCM_RIGHTS`).
    ///
    /// # Errors
    /// [`ComputeError::Unsupported`] for a pool created without `ipc`; driver errors.
    pub fn export_fd(&self) -> Result<i32, ComputeError> {
        if !self.config.ipc {
            return Err(ComputeError::Unsupported {
                backend: "cuda".into(),
                what: "exporting a pool created without ipc".into(),
            });
        }
        self.pool.ctx.bind()?;
        let mut fd: i32 = -1;
        // SAFETY: for POSIX descriptors the handle is an int written through the pointer.
        check("cuMemPoolExportToShareableHandle", unsafe {
            sys::cuMemPoolExportToShareableHandle(
                (&mut fd as *mut i32).cast::<c_void>(),
                self.pool.raw,
                sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                0,
            )
        })?;
        Ok(fd)
    }

    /// The 64-byte export record of one allocation of this pool (`cuMemPoolExportPointer`),
    /// which an importing process turns into its own pointer.
    ///
    /// # Errors
    /// Driver errors.
    pub fn export_pointer(&self, block: &Block) -> Result<IpcPointer, ComputeError> {
        self.pool.ctx.bind()?;
        // SAFETY: plain old data.
        let mut data: sys::CUmemPoolPtrExportData = unsafe { std::mem::zeroed() };
        // SAFETY: `block.ptr` is a live allocation of this pool.
        check("cuMemPoolExportPointer", unsafe { sys::cuMemPoolExportPointer(&mut data, block.ptr) })?;
        Ok(IpcPointer(data.reserved))
    }
}

// SAFETY: blocks come from this allocator's upstream (or its own slabs) and are handed out

// once until freed, as the trait's contract asks.

unsafe impl Allocator for ExplicitPool {
    fn name(&self) -> &str {
        if self.config.ipc {
            "cuda-explicit-pool(ipc)"
        } else {
            "cuda-explicit-pool"
        }
    }

    fn allocate(&self, bytes: usize, stream: &Stream) -> Result<Block, AllocError> {
        let b = self.pool.alloc_from(bytes, stream)?;
        self.live.fetch_add(1, Ordering::Relaxed);
        Ok(b)
    }

    unsafe fn deallocate(&self, block: Block, stream: &Stream) -> Result<(), AllocError> {
        free_async(&self.pool.ctx, block, stream)?;
        self.live.fetch_sub(1, Ordering::Relaxed);
        Ok(())
    }

    fn report(&self) -> AllocReport {
        let mut r = self.pool.usage().unwrap_or_default();
        r.live_blocks = self.live.load(Ordering::Relaxed);
        r
    }

    fn reset_peaks(&self) {
        let _ = self.pool.reset_peaks();
    }

    fn trim(&self, keep_bytes: usize) -> Result<(), AllocError> {
        self.pool.trim(keep_bytes)
    }
}

impl Drop for ExplicitPool {
    fn drop(&mut self) {
        if self.pool.ctx.bind().is_ok() {
            // SAFETY: the driver defers the release while allocations are outstanding
            // (cuMemPoolDestroy); teardown errors cannot be acted on.
            let _ = unsafe { cudarc::driver::result::mem_pool::destroy(self.pool.raw) };
        }
    }
}

/// The export record of one pool allocation (64 opaque bytes), to send to another process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpcPointer(pub [u8; 64]);

impl IpcPointer {
    /// Lower-case hexadecimal, 128 characters.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
    /// Parses [`IpcPointer::to_hex`] output.
    ///
    /// # Errors
    /// [`ComputeError::InvalidArgument`] for anything but 128 hexadecimal digits.
    pub fn from_hex(text: &str) -> Result<Self, ComputeError> {
        let bad =
            || ComputeError::InvalidArgument(format!("IPC pointer record: expected 128 hex digits, got {text:?}"));
        if text.len() != 128 || !text.is_ascii() {
            return Err(bad());
        }
        let mut out = [0u8; 64];
        for (i, o) in out.iter_mut().enumerate() {
            *o = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
        }
        Ok(Self(out))
    }
}

/// A pool imported from another process (`cuMemPoolImportFromShareableHandle`).
#[derive(Debug)]
pub struct ImportedPool {
    raw: sys::CUmemoryPool,
    ctx: Arc<Context>,
}

// SAFETY: process-wide handle, used with the context bound.
unsafe impl Send for ImportedPool {}
// SAFETY: as above.
unsafe impl Sync for ImportedPool {}

impl ImportedPool {
    /// Imports the pool behind POSIX descriptor `fd`.
    ///
    /// # Errors
    /// Driver errors.
    pub fn from_fd(ctx: Arc<Context>, fd: i32) -> Result<Self, ComputeError> {
        ctx.bind()?;
        let mut raw: sys::CUmemoryPool = std::ptr::null_mut();
        // SAFETY: for POSIX descriptors the handle argument is the descriptor value itself.
        check("cuMemPoolImportFromShareableHandle", unsafe {
            sys::cuMemPoolImportFromShareableHandle(
                &mut raw,
                fd as isize as *mut c_void,
                sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                0,
            )
        })?;
        Ok(Self { raw, ctx })
    }

    /// Maps an exported allocation into this process (`cuMemPoolImportPointer`) and returns
    /// its device address here. The exporter must keep the allocation alive meanwhile.
    ///
    /// # Errors
    /// Driver errors.
    pub fn import_pointer(&self, rec: &IpcPointer) -> Result<u64, ComputeError> {
        self.ctx.bind()?;
        let mut data = sys::CUmemPoolPtrExportData { reserved: rec.0 };
        let mut p = 0u64;
        // SAFETY: valid record and out-pointer.
        check("cuMemPoolImportPointer", unsafe { sys::cuMemPoolImportPointer(&mut p, self.raw, &mut data) })?;
        Ok(p)
    }

    /// Copies `len` bytes at imported address `ptr` to the host (synchronously).
    ///
    /// # Errors
    /// Driver errors.
    pub fn read(&self, ptr: u64, len: usize) -> Result<Vec<u8>, ComputeError> {
        self.ctx.bind()?;
        let mut out = vec![0u8; len];
        // SAFETY: `ptr` was imported for at least `len` bytes; `out` has `len` bytes.
        check("cuMemcpyDtoH", unsafe { sys::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), ptr, len) })?;
        Ok(out)
    }

    /// Unmaps an imported allocation (`cuMemFree` on the imported pointer, as the CUDA
    /// Programming Guide's IPC section prescribes).
    ///
    /// # Errors
    /// Driver errors.
    pub fn release_pointer(&self, ptr: u64) -> Result<(), ComputeError> {
        self.ctx.bind()?;
        // SAFETY: `ptr` was imported into this process.
        check("cuMemFree", unsafe { sys::cuMemFree_v2(ptr) })
    }
}

impl Drop for ImportedPool {
    fn drop(&mut self) {
        if self.ctx.bind().is_ok() {
            // SAFETY: releases this process's reference to the imported pool.
            let _ = unsafe { cudarc::driver::result::mem_pool::destroy(self.raw) };
        }
    }
}
