//! Reference implementation of `reduce_sum_sumsq` (see its kernel.toml).
use std::ops::Range;

use crate::cpu::KernelCall;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let x = call.ptr::<f64>(0);
    let partials = call.ptr::<f64>(1);
    for b in blocks {
        let (mut s, mut q) = (0.0, 0.0);
        for i in call.block_items(b) {
            // SAFETY: x holds n values.
            let v = unsafe { *x.add(i as usize) };
            s += v;
            q += v * v;
        }
        // SAFETY: partials holds 2 * blocks values; block b writes its own pair.
        unsafe {
            *partials.add(2 * b as usize) = s;
            *partials.add(2 * b as usize + 1) = q;
        }
    }
}
