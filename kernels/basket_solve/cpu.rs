//! Reference implementation of `basket_solve` (see its kernel.toml and [`crate::basket::solve`]).
use std::ops::Range;

use crate::basket::{solve, MAX_BASIS};
use crate::cpu::KernelCall;

/// Values per block of the partial normal equations.
const SLOTS: usize = 27;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let (coef, partials) = (call.out::<f64>(0), call.slice::<f64>(1));
    let (nblocks, steps, step, nb) = (call.u64(2) as usize, call.u32(3), call.u32(4), call.u32(5) as usize);
    if nb == 0 || nb > MAX_BASIS || step >= steps {
        return;
    }
    let mut ne = [0.0f64; SLOTS];
    for blk in 0..nblocks {
        for (k, a) in ne.iter_mut().enumerate() {
            *a += partials[SLOTS * blk + k];
        }
    }
    let mut beta = [0.0f64; MAX_BASIS];
    solve(&ne, nb, &mut beta);
    for b in blocks {
        for j in call.block_items(b) {
            coef.set(step as usize * nb + j as usize, beta[j as usize]);
        }
    }
}
