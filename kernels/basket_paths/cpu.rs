//! Reference implementation of `basket_paths` (see its kernel.toml and [`crate::basket`]).
use std::ops::Range;

use crate::basket::{correlate, normals, observe, path_items, PathState, MAX_ASSETS, MAX_FACTORS};
use crate::cpu::KernelCall;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let (basket, feature) = (call.out::<f64>(0), call.out::<f64>(1));
    let (assets, factor) = (call.slice::<f64>(2), call.slice::<f64>(3));
    let (seed, set, paths, steps, n) = (call.u64(4), call.u32(5), call.u64(6), call.u32(7), call.u32(8) as usize);
    let strike = call.f64(9);
    if n == 0 || n > MAX_ASSETS {
        return;
    }
    let (mut eps, mut z) = ([0.0; MAX_FACTORS], [0.0; MAX_FACTORS]);
    let (mut branches, mut coefs, mut spots) = ([0u32; MAX_ASSETS], [0.0; MAX_ASSETS], [0.0; MAX_ASSETS]);
    for b in blocks {
        for p in path_items(call.block_items(b), paths) {
            let mut st = PathState::new(assets, n);
            for s in 0..steps {
                normals(seed, set, p, s, 2 * n, &mut eps);
                correlate(factor, &eps, 2 * n, &mut z);
                st.step(assets, n, &z, &mut branches, &mut coefs);
                let (bk, nu) = observe(assets, n, &st, strike, &mut spots);
                let at = (u64::from(s) * paths + p) as usize;
                basket.set(at, bk);
                feature.set(at, nu);
            }
        }
    }
}
