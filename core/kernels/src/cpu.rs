//! The calling convention of the Rust reference implementations (`kernels/<name>/cpu.rs`).
//!
//! A reference implementation processes a range of blocks: block `b` covers work items
//! `b * block .. min((b + 1) * block, items)`, exactly the items one GPU work-group covers, and
//! writes only the outputs of those items (and its block's partial results). So the CPU adapter
//! runs blocks in parallel on any number of threads, the simulated device runs them one by one,
//! and the result is bitwise the same.

use std::marker::PhantomData;
use std::ops::Range;

use tenor_ports::RawArg;

/// One launch as a reference implementation sees it: buffer arguments are host memory ranges,
/// read through bounds-checked views ([`KernelCall::slice`], [`KernelCall::out`]).
///
/// Only [`KernelCall::new`] makes one, and it is `unsafe`: this module is the one place where
/// the reference kernels' raw host addresses become slices, so the kernels themselves hold no
/// pointer arithmetic (an index outside a buffer panics instead of writing past it).
#[derive(Debug, Clone, Copy)]
pub struct KernelCall<'a> {
    /// Total work items.
    pub items: u64,
    /// Work items per block (from the manifest).
    pub block: u32,
    args: &'a [RawArg],
}

/// A reference implementation: runs the given blocks of a launch.
///
/// # Safety
/// Concurrent calls must be given disjoint block ranges of one launch; an implementation
/// writes only the outputs of the items of its blocks (and its blocks' partial results), so
/// concurrent calls never write the same element. Buffer bounds are not part of the contract:
/// every access goes through the call's bounds-checked views.
pub type CpuKernelFn = unsafe fn(&KernelCall<'_>, Range<u64>);

/// Element types a reference kernel may view a buffer as: plain data for which every bit
/// pattern is a value, so viewing any initialised bytes as them is sound.
pub trait Elem: Copy + sealed::Sealed + 'static {}
impl Elem for f64 {}
impl Elem for f32 {}
impl Elem for u32 {}
impl Elem for u64 {}
mod sealed {
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for f32 {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// A bounds-checked view of an output (`write` or `read_write`) buffer argument.
///
/// Several block ranges of one launch write the same buffer from several threads (each its own
/// elements), so this is a shared view with element writes, not a `&mut [T]` (two of which
/// over one buffer would alias).
#[derive(Debug)]
pub struct Out<'a, T: Elem> {
    ptr: *mut T,
    len: usize,
    _buffer: PhantomData<&'a [std::cell::UnsafeCell<T>]>,
}

impl<T: Elem> Out<'_, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the buffer holds no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Writes element `i`.
    ///
    /// # Panics
    /// When `i` is outside the buffer (a kernel bug: [`tenor_ports::Device`] checked the
    /// buffer against the manifest's `len` before the launch).
    #[inline(always)]
    pub fn set(&self, i: usize, v: T) {
        assert!(i < self.len, "kernel output index {i} outside its buffer of {} elements", self.len);
        // SAFETY: i < len, and the view covers len elements of a live, aligned range that
        // KernelCall::new's contract gives this launch; concurrent calls write disjoint elements
        // (CpuKernelFn's contract), so the write races with nothing.
        unsafe { self.ptr.add(i).write(v) }
    }
    /// Reads element `i` (for `read_write` arguments).
    ///
    /// # Panics
    /// When `i` is outside the buffer.
    #[inline(always)]
    pub fn get(&self, i: usize) -> T {
        assert!(i < self.len, "kernel output index {i} outside its buffer of {} elements", self.len);
        // SAFETY: as in set; element i belongs to this call's items.
        unsafe { self.ptr.add(i).read() }
    }
}

impl<'a> KernelCall<'a> {
    /// A launch of `items` work items in blocks of `block` over `args`.
    ///
    /// # Safety
    /// For every `RawArg::Ptr(addr, bytes)` of `args`: `addr .. addr + bytes` is host memory,
    /// aligned to 8 bytes (or 0 bytes long), initialised, valid for reads and (for arguments
    /// the manifest writes) writes for `'a`, and accessed during `'a` by nothing but the calls
    /// of this launch; a range the kernel writes overlaps no other argument's range. This is
    /// what [`tenor_ports::Device`] checks before a launch (lengths against the manifest,
    /// aliasing) and what the CPU and simulated adapters' memory provides.
    pub unsafe fn new(items: u64, block: u32, args: &'a [RawArg]) -> Self {
        Self { items, block, args }
    }
    /// The raw arguments.
    pub fn args(&self) -> &'a [RawArg] {
        self.args
    }
    /// Items of block `b`.
    pub fn block_items(&self, b: u64) -> Range<u64> {
        let start = b * u64::from(self.block);
        start.min(self.items)..(start + u64::from(self.block)).min(self.items)
    }
    /// Number of blocks.
    pub fn blocks(&self) -> u64 {
        self.items.div_ceil(u64::from(self.block))
    }
    fn range<T: Elem>(&self, i: usize) -> (*mut T, usize) {
        match self.args.get(i) {
            Some(RawArg::Ptr(p, bytes)) => {
                let len = usize::try_from(*bytes).unwrap_or(usize::MAX) / std::mem::size_of::<T>();
                if len == 0 {
                    return (std::ptr::NonNull::<T>::dangling().as_ptr(), 0);
                }
                let ptr = *p as usize as *mut T;
                assert!(
                    ptr.is_aligned(),
                    "buffer argument {i} at 0x{p:x} is not aligned for {}",
                    std::any::type_name::<T>()
                );
                (ptr, len)
            }
            other => panic!("kernel argument {i} is not a buffer: {other:?}"),
        }
    }
    /// Buffer argument `i` (one the kernel only reads) as a slice of `T`.
    ///
    /// # Panics
    /// When argument `i` is not a buffer or is misaligned for `T` (kernel bugs: the manifest
    /// and [`tenor_ports::Device`] fix the types).
    pub fn slice<T: Elem>(&self, i: usize) -> &'a [T] {
        let (ptr, len) = self.range::<T>(i);
        // SAFETY: KernelCall::new's contract: len elements at ptr are live, aligned,
        // initialised and not written during 'a (read-only arguments overlap no written range).
        unsafe { std::slice::from_raw_parts(ptr, len) }
    }
    /// Buffer argument `i` (one the kernel writes) as a bounds-checked output view.
    ///
    /// # Panics
    /// As [`KernelCall::slice`].
    pub fn out<T: Elem>(&self, i: usize) -> Out<'a, T> {
        let (ptr, len) = self.range::<T>(i);
        Out { ptr, len, _buffer: PhantomData }
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
/// As [`CpuKernelFn`] (every array is read through a bounds-checked view).
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
    let partials = call.out::<f64>(0);
    let mut b = blocks.start;
    while b < blocks.end {
        let i = b / per_product;
        if i >= products {
            break;
        }
        let first = b % per_product;
        let last = (per_product).min(first + (blocks.end - b));
        let mut args = Vec::with_capacity(n + 3);
        // Product i's partials: width * B values from width * i * B, inside the launch's.
        let start = width * (i * per_product) as usize;
        let count = width * per_product as usize;
        assert!(
            start + count <= partials.len(),
            "batch partials of product {i} end at {} of {} values",
            start + count,
            partials.len()
        );
        // SAFETY: start + count <= len (asserted), so the offset stays inside the buffer.
        let base = unsafe { partials.ptr.add(start) };
        args.push(RawArg::Ptr(base as usize as u64, (count * 8) as u64));
        args.push(RawArg::U64(seed));
        args.push(RawArg::U64(pairs));
        for (k, e) in elems.iter().enumerate() {
            args.push(match e {
                BatchElem::U32 => RawArg::U32(call.slice::<u32>(k + 1)[i as usize]),
                BatchElem::F64 => RawArg::F64(call.slice::<f64>(k + 1)[i as usize]),
            });
        }
        // SAFETY: the only buffer argument is a sub-range of this launch's partials (asserted
        // above), which the caller's contract covers; blocks first..last of product i write
        // only their own partials within it.
        let one = unsafe { KernelCall::new(pairs, call.block, &args) };
        // SAFETY: disjoint block ranges of one launch map to disjoint blocks of product i.
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
