//! The calling convention of the Rust reference implementations (`kernels/<name>/cpu.rs`).
//!
//! A reference implementation processes a range of blocks: block `b` covers work items
//! `b * block .. min((b + 1) * block, items)`, exactly the items one GPU work-group covers, and
//! writes only the outputs of those items (and its block's partial results). So the CPU adapter
//! runs blocks in parallel on any number of threads, the simulated device runs them one by one,
//! and the result is bitwise the same.

use std::ops::Range;

use tenor_core::RawArg;

/// One launch as a reference implementation sees it: buffer arguments are host addresses.
#[derive(Debug, Clone, Copy)]
pub struct KernelCall<'a> {
    /// Total work items.
    pub items: u64,
    /// Work items per block (from the manifest).
    pub block: u32,
    /// Positional arguments; `RawArg::Ptr` holds a host address and a length in bytes.
    pub args: &'a [RawArg],
}

/// A reference implementation: runs the given blocks of a launch.
///
/// # Safety
/// Every `Ptr` argument must point to host memory large enough for the kernel's accesses, and
/// concurrent calls must be given disjoint block ranges of one launch.
pub type CpuKernelFn = unsafe fn(&KernelCall<'_>, Range<u64>);

impl KernelCall<'_> {
    /// Items of block `b`.
    pub fn block_items(&self, b: u64) -> Range<u64> {
        let start = b * u64::from(self.block);
        start.min(self.items)..(start + u64::from(self.block)).min(self.items)
    }
    /// Number of blocks.
    pub fn blocks(&self) -> u64 {
        self.items.div_ceil(u64::from(self.block))
    }
    /// Pointer argument `i` as `*mut T`.
    pub fn ptr<T>(&self, i: usize) -> *mut T {
        match self.args.get(i) {
            Some(RawArg::Ptr(p, _)) => *p as usize as *mut T,
            other => {
                debug_assert!(false, "argument {i} is not a pointer: {other:?}");
                std::ptr::null_mut()
            }
        }
    }
    /// Scalar argument `i` as `u64` (a `u32` widens).
    pub fn u64(&self, i: usize) -> u64 {
        match self.args.get(i) {
            Some(RawArg::U64(v)) => *v,
            Some(RawArg::U32(v)) => u64::from(*v),
            other => {
                debug_assert!(false, "argument {i} is not u64: {other:?}");
                0
            }
        }
    }
    /// Scalar argument `i` as `u32`.
    pub fn u32(&self, i: usize) -> u32 {
        match self.args.get(i) {
            Some(RawArg::U32(v)) => *v,
            other => {
                debug_assert!(false, "argument {i} is not u32: {other:?}");
                0
            }
        }
    }
    /// Scalar argument `i` as `i32`.
    pub fn i32(&self, i: usize) -> i32 {
        match self.args.get(i) {
            Some(RawArg::I32(v)) => *v,
            other => {
                debug_assert!(false, "argument {i} is not i32: {other:?}");
                0
            }
        }
    }
    /// Scalar argument `i` as `f64`.
    pub fn f64(&self, i: usize) -> f64 {
        match self.args.get(i) {
            Some(RawArg::F64(v)) => *v,
            other => {
                debug_assert!(false, "argument {i} is not f64: {other:?}");
                0.0
            }
        }
    }
    /// Scalar argument `i` as `f32`.
    pub fn f32(&self, i: usize) -> f32 {
        match self.args.get(i) {
            Some(RawArg::F32(v)) => *v,
            other => {
                debug_assert!(false, "argument {i} is not f32: {other:?}");
                0.0
            }
        }
    }
}

mod generated {
    #![allow(missing_docs, clippy::all)]
    use super::CpuKernelFn;
    include!(concat!(env!("OUT_DIR"), "/cpu_kernels.rs"));
}

pub use generated::*;

/// The reference implementation of kernel `name`, if it has one.
pub fn lookup(name: &str) -> Option<CpuKernelFn> {
    generated::TABLE.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}
