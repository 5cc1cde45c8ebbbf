//! Reference implementation of `mc_european_batch` (see its kernel.toml): block `b` of the
//! launch is block `b mod B` of product `b / B` (`B = ceil(pairs / block)` blocks per
//! product), computed by `mc_european`'s own block code ([`super::mc_european::pair_sums`]),
//! so each product's partials are bitwise those of `mc_european` launched alone.
use std::ops::Range;

use super::mc_european::{pair_sums, Params};
use crate::cpu::KernelCall;

/// Runs blocks `blocks` of the launch. Blocks beyond the last product's (an `items` larger than
/// `products * B * block`) write nothing.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let products = u64::from(call.u32(7));
    let seed = call.u64(8);
    let pairs = call.u64(9);
    let block = u64::from(call.block.max(1));
    let per_product = pairs.div_ceil(block).max(1);
    let partials = call.out::<f64>(0);
    for b in blocks {
        let (i, c) = (b / per_product, b % per_product);
        if i >= products {
            break;
        }
        let i = i as usize;
        let p = Params::new(
            seed,
            call.slice::<f64>(1)[i],
            call.slice::<f64>(2)[i],
            call.slice::<u32>(3)[i],
            call.slice::<f64>(4)[i],
            call.slice::<f64>(5)[i],
            call.slice::<f64>(6)[i],
        );
        let first = c * block;
        let (sum, sum_sq) = pair_sums(&p, first.min(pairs)..(first + block).min(pairs));
        partials.set(2 * b as usize, sum);
        partials.set(2 * b as usize + 1, sum_sq);
    }
}
