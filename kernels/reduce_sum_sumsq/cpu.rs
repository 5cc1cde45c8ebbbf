//! Reference implementation of `reduce_sum_sumsq` (see its kernel.toml).
use std::ops::Range;

use crate::cpu::KernelCall;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let x = call.slice::<f64>(0);
    let partials = call.out::<f64>(1);
    for b in blocks {
        let (mut s, mut q) = (0.0, 0.0);
        for i in call.block_items(b) {
            let v = x[i as usize];
            s += v;
            q += v * v;
        }
        partials.set(2 * b as usize, s);
        partials.set(2 * b as usize + 1, q);
    }
}
