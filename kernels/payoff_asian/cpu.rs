//! Reference implementation of `payoff_asian` (see its kernel.toml).
use std::ops::Range;

use crate::cpu::KernelCall;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let (paths_in, out_a, out_g) = (call.slice::<f64>(0), call.out::<f64>(1), call.out::<f64>(2));
    let (paths, steps, spot, spot_fixing) = (call.u64(3), call.u32(4), call.f64(5), call.u32(6));
    let (strike, discount) = (call.f64(7), call.f64(9));
    let w = if call.u32(8) != 0 { 1.0 } else { -1.0 };
    let n = f64::from(steps + u32::from(spot_fixing != 0));
    let (s0, l0) = if spot_fixing != 0 { (spot, spot.ln()) } else { (0.0, 0.0) };
    for b in blocks {
        for p in call.block_items(b) {
            let (mut sum, mut sum_log) = (s0, l0);
            for k in 0..u64::from(steps) {
                let s = paths_in[(k * paths + p) as usize];
                sum += s;
                sum_log += s.ln();
            }
            let (a, g) = (sum / n, (sum_log / n).exp());
            out_a.set(p as usize, discount * (w * (a - strike)).max(0.0));
            out_g.set(p as usize, discount * (w * (g - strike)).max(0.0));
        }
    }
}
