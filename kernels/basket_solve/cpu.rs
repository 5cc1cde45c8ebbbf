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
    let (coef, partials, sums) = (call.out::<f64>(0), call.slice::<f64>(1), call.out::<f64>(2));
    let (nblocks, steps, step, nb) = (call.u64(3) as usize, call.u32(4), call.u32(5), call.u32(6) as usize);
    if nb == 0 || nb > MAX_BASIS || step >= steps {
        return;
    }
    // The first work-group does the work; the others' sums are scratch (zeros here; see the
    // kernel.toml).
    for b in blocks.clone().filter(|&b| b != 0) {
        for k in 0..SLOTS {
            sums.set(SLOTS * b as usize + k, 0.0);
        }
    }
    if !blocks.contains(&0) {
        return;
    }
    let mut ne = [0.0f64; SLOTS];
    for blk in 0..nblocks {
        for (k, a) in ne.iter_mut().enumerate() {
            *a += partials[SLOTS * blk + k];
        }
    }
    for (k, a) in ne.iter().enumerate() {
        sums.set(k, *a);
    }
    let mut beta = [0.0f64; MAX_BASIS];
    solve(&ne, nb, &mut beta);
    for (j, b) in beta.iter().enumerate().take(nb) {
        coef.set(step as usize * nb + j, *b);
    }
}
