//! Reference implementation of `payoff_european` (see its kernel.toml).
use std::ops::Range;

use crate::cpu::KernelCall;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let (paths_in, out) = (call.slice::<f64>(0), call.out::<f64>(1));
    let (paths, steps, strike, discount) = (call.u64(2), call.u32(3), call.f64(4), call.f64(6));
    let w = if call.u32(5) != 0 { 1.0 } else { -1.0 };
    let last = u64::from(steps.max(1) - 1) * paths;
    for b in blocks {
        for p in call.block_items(b) {
            let s = paths_in[(last + p) as usize];
            out.set(p as usize, discount * (w * (s - strike)).max(0.0));
        }
    }
}
