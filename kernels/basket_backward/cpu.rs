//! Reference implementation of `basket_backward` (see its kernel.toml and [`crate::basket`]).
use std::ops::Range;

use crate::basket::{accumulate, basis, exercise, MAX_BASIS};
use crate::cpu::KernelCall;

/// Values per block of the partial normal equations (the width of 6 basis functions).
const SLOTS: usize = 27;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let (partials, cash) = (call.out::<f64>(0), call.out::<f64>(1));
    let (basket, feature, coef) = (call.slice::<f64>(2), call.slice::<f64>(3), call.slice::<f64>(4));
    let (paths, steps, step, nb) = (call.u64(5), call.u32(6), call.u32(7), call.u32(8) as usize);
    let (strike, sign, df) = (call.f64(9), call.f64(10), call.f64(11));
    if nb == 0 || nb > MAX_BASIS || step >= steps {
        return;
    }
    let last = step + 1 == steps;
    let c = &coef[step as usize * nb..(step as usize + 1) * nb];
    let mut phi = [0.0; MAX_BASIS];
    for b in blocks {
        let mut acc = [0.0f64; SLOTS];
        for p in call.block_items(b) {
            let at = (u64::from(step) * paths + p) as usize;
            let (ex, e) = exercise(basket[at], feature[at], strike, sign, c, nb, last);
            let value = if ex {
                e
            } else if last {
                0.0
            } else {
                df * cash.get(p as usize)
            };
            cash.set(p as usize, value);
            if step > 0 {
                let prev = at - paths as usize;
                let bp = basket[prev];
                if sign * (bp - strike) > 0.0 {
                    basis(bp / strike - 1.0, feature[prev], nb, &mut phi);
                    accumulate(&mut acc, &phi, df * value, nb);
                }
            }
        }
        for (k, v) in acc.iter().enumerate() {
            partials.set(SLOTS * b as usize + k, *v);
        }
    }
}
