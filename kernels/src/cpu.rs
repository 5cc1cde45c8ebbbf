//! The calling convention of the Rust reference implementations (`kernels/<name>/cpu.rs`).
//!
//! A reference implementation processes a range of blocks: block `b` covers work items
//! `b * block .. min((b + 1) * block, items)`, exactly the items one GPU work-group covers, and
//! writes only the outputs of those items (and its block's partial results). So the CPU adapter
//! runs blocks in parallel on any number of threads, the simulated device runs them one by one,
//! and the result is bitwise the same.

use std::ops::Range;

use tenor_ports::RawArg;

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

/// The element type of one per-product array of a batch kernel ([`run_batch`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchElem {
    /// `u32*`: the single kernel's argument is a `u32` scalar.
    U32,
    /// `f64*`: the single kernel's argument is an `f64` scalar.
    F64,
}

/// Runs blocks `blocks` of a batch kernel by its single-product kernel `single`, so each
/// product's partials are bitwise what `single` writes for it alone.
///
/// The batch kernel's arguments are: the partials (`width` values per block), one array per
/// scalar of `single` after its seed and pairs (`elems` gives their types, in `single`'s
/// order), then `products` (u32), `seed`, `pairs`, `items` (u64). Block `b` of the launch is
/// block `b mod B` of product `b / B`, `B = ceil(pairs / block)`; `single` is called with the
/// argument list `(partials of product i, seed, pairs, scalars of product i)` for the run of
/// consecutive blocks of one product at a time. Blocks beyond the last product write nothing.
///
/// # Safety
/// As [`CpuKernelFn`]: every array holds `products` values and the partials `width` values per
/// block of the launch.
pub unsafe fn run_batch(
    call: &KernelCall<'_>,
    blocks: Range<u64>,
    single: CpuKernelFn,
    width: usize,
    elems: &[BatchElem],
) {
    let n = elems.len();
    let products = u64::from(call.u32(n + 1));
    let (seed, pairs) = (call.u64(n + 2), call.u64(n + 3));
    let block = u64::from(call.block.max(1));
    let per_product = pairs.div_ceil(block).max(1);
    let partials = call.ptr::<f64>(0);
    let mut b = blocks.start;
    while b < blocks.end {
        let i = b / per_product;
        if i >= products {
            break;
        }
        let first = b % per_product;
        let last = (per_product).min(first + (blocks.end - b));
        let mut args = Vec::with_capacity(n + 3);
        let bytes = (width as u64) * per_product * 8;
        // SAFETY: product i's partials start at width * i * B within the launch's partials.
        let base = unsafe { partials.add(width * (i * per_product) as usize) };
        args.push(RawArg::Ptr(base as usize as u64, bytes));
        args.push(RawArg::U64(seed));
        args.push(RawArg::U64(pairs));
        for (k, e) in elems.iter().enumerate() {
            // SAFETY: i < products, the length of every product array.
            args.push(unsafe {
                match e {
                    BatchElem::U32 => RawArg::U32(*call.ptr::<u32>(k + 1).add(i as usize)),
                    BatchElem::F64 => RawArg::F64(*call.ptr::<f64>(k + 1).add(i as usize)),
                }
            });
        }
        let one = KernelCall { items: pairs, block: call.block, args: &args };
        // SAFETY: blocks first..last of product i write only their own partials.
        unsafe { single(&one, first..last) };
        b += last - first;
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
