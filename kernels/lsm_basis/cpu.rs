//! Reference implementation of `lsm_basis` (see its kernel.toml).
use std::ops::Range;

use crate::cpu::KernelCall;

/// Laguerre polynomial `L_j(x)` by the three-term recurrence.
#[inline(always)]
pub fn laguerre(j: u32, x: f64) -> f64 {
    let (mut prev, mut cur) = (1.0, 1.0 - x);
    if j == 0 {
        return prev;
    }
    for n in 1..j {
        let n = f64::from(n);
        let next = ((2.0 * n + 1.0 - x) * cur - n * prev) / (n + 1.0);
        prev = cur;
        cur = next;
    }
    cur
}

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let spots = call.slice::<f64>(0);
    let cash = call.slice::<f64>(1);
    let design = call.out::<f64>(2);
    let (paths, step, nbasis) = (call.u64(3), call.u32(4), call.u32(5));
    let (strike, sign, df) = (call.f64(6), call.f64(7), call.f64(8));
    for b in blocks {
        for p in call.block_items(b) {
            let (s, c) = (spots[(u64::from(step) * paths + p) as usize], cash[p as usize]);
            let h = (sign * (s - strike)).max(0.0);
            let x = s / strike;
            for j in 0..nbasis {
                let v = if h > 0.0 { laguerre(j, x) } else { 0.0 };
                design.set((u64::from(j) * paths + p) as usize, v);
            }
            design.set((u64::from(nbasis) * paths + p) as usize, if h > 0.0 { df * c } else { 0.0 });
        }
    }
}
