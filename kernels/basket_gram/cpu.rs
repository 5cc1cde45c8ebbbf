//! Reference implementation of `basket_gram` (see its kernel.toml and [`crate::basket`]).
use std::ops::Range;

use crate::basket::{accumulate_gram, basis, factor, FACTOR_RECORD, GRAM, MAX_BASIS};
use crate::cpu::KernelCall;

/// Runs blocks `blocks` of the launch: block `d < steps` sums date `d`'s Gram matrix over its
/// in-the-money paths in path order and writes its factor record.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let factors = call.out::<f64>(0);
    let (basket, feature) = (call.slice::<f64>(1), call.slice::<f64>(2));
    let (paths, steps, nb) = (call.u64(3), call.u32(4), call.u32(5) as usize);
    let (strike, sign) = (call.f64(6), call.f64(7));
    if nb == 0 || nb > MAX_BASIS {
        return;
    }
    let mut phi = [0.0; MAX_BASIS];
    let mut rec = [0.0; FACTOR_RECORD];
    for d in blocks.filter(|d| *d < u64::from(steps)) {
        let mut xtx = [0.0f64; GRAM];
        let at = (d * paths) as usize;
        for p in 0..paths as usize {
            let b = basket[at + p];
            if sign * (b - strike) > 0.0 {
                basis(b / strike - 1.0, feature[at + p], nb, &mut phi);
                accumulate_gram(&mut xtx, &phi, nb);
            }
        }
        factor(&xtx, nb, &mut rec);
        for (k, v) in rec.iter().enumerate() {
            factors.set(d as usize * FACTOR_RECORD + k, *v);
        }
    }
}
