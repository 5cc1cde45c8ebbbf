//! Reference implementation of `basket_moments` (see its kernel.toml).
use std::ops::Range;

use crate::cpu::KernelCall;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let (out, values) = (call.out::<f64>(0), call.slice::<f64>(1));
    let (rows, paths, chunk) = (u64::from(call.u32(2)), call.u64(3), call.u64(4));
    let chunks = if chunk == 0 { 0 } else { paths.div_ceil(chunk) };
    for b in blocks {
        for g in call.block_items(b) {
            let (mut s1, mut s2) = (0.0f64, 0.0f64);
            if chunks > 0 && g / chunks < rows {
                let (r, c) = (g / chunks, g % chunks);
                for p in c * chunk..paths.min((c + 1) * chunk) {
                    let x = values[(r * paths + p) as usize];
                    s1 += x;
                    s2 += x * x;
                }
            }
            out.set(2 * g as usize, s1);
            out.set(2 * g as usize + 1, s2);
        }
    }
}
