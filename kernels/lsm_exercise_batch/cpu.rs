//! Reference implementation of `lsm_exercise_batch` (see its kernel.toml): item `g` is path
//! `g mod paths` of product `g / paths`, decided by `lsm_exercise`'s own per-path code
//! ([`crate::cpu::lsm_exercise::exercise`]) on the product's blocks of `spots`, `cash` and
//! `coef`, so each product's cash flows are bitwise those of `lsm_exercise` launched for it alone.
use std::ops::Range;

use crate::cpu::lsm_exercise::{exercise, Product};
use crate::cpu::KernelCall;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let (spots, coef) = (call.slice::<f64>(0), call.slice::<f64>(2));
    let (strike, sign, df) = (call.slice::<f64>(3), call.slice::<f64>(4), call.slice::<f64>(5));
    let products = u64::from(call.u32(6));
    let (paths, steps, step, nbasis) = (call.u64(7), call.u32(8), call.u32(9), call.u32(10));
    if paths == 0 || step >= steps {
        return;
    }
    let (per_spots, per_coef) = ((u64::from(steps) * paths) as usize, steps as usize * nbasis as usize);
    for b in blocks {
        for g in call.block_items(b) {
            let (i, p) = (g / paths, g % paths);
            if i >= products {
                break;
            }
            let k = i as usize;
            let q = Product {
                spots: &spots[k * per_spots..(k + 1) * per_spots],
                cash: call.out::<f64>(1),
                cash_base: (i * paths) as usize,
                coef: &coef[k * per_coef..(k + 1) * per_coef],
            };
            exercise(&q, p, paths, step, nbasis, strike[k], sign[k], df[k]);
        }
    }
}
