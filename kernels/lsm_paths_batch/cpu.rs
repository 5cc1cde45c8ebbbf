//! Reference implementation of `lsm_paths_batch` (see its kernel.toml): item `g` is path
//! `g mod paths` of product `g / paths`, written by `lsm_paths`'s own per-path code
//! ([`crate::cpu::lsm_paths::path`]) into the product's block of `out`, so each product's paths
//! are bitwise those of `lsm_paths` launched for it alone.
use std::ops::Range;

use crate::cpu::lsm_paths::path;
use crate::cpu::KernelCall;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let out = call.out::<f64>(0);
    let (spot, drift_dt, vol_sqrt_dt) = (call.slice::<f64>(1), call.slice::<f64>(2), call.slice::<f64>(3));
    let products = u64::from(call.u32(4));
    let (seed, paths, steps) = (call.u64(5), call.u64(6), call.u32(7));
    if paths == 0 {
        return;
    }
    for b in blocks {
        for g in call.block_items(b) {
            let (i, p) = (g / paths, g % paths);
            if i >= products {
                break;
            }
            let k = i as usize;
            let base = (i * u64::from(steps) * paths) as usize;
            path(&out, base, p, seed, paths, steps, spot[k].ln(), drift_dt[k], vol_sqrt_dt[k]);
        }
    }
}
