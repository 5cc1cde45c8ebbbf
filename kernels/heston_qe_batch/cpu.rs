//! Reference implementation of `heston_qe_batch` (see its kernel.toml): each product's blocks
//! are `heston_qe_mc`'s own ([`crate::cpu::run_batch`]), so its partials are bitwise those of
//! `heston_qe_mc` launched for it alone.
use std::ops::Range;

use crate::cpu::{run_batch, BatchElem, KernelCall};

/// The per-product arrays: `heston_qe_mc`'s scalars after seed and pairs.
const ELEMS: [BatchElem; 12] = {
    use BatchElem::{F64, U32};
    [U32, F64, F64, U32, F64, F64, F64, F64, F64, F64, F64, F64]
};

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`]; every product array holds `products` values and the partials
/// two values per block.
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    // SAFETY: forwarded from the caller.
    unsafe { run_batch(call, blocks, super::heston_qe_mc::run, 2, &ELEMS) }
}
