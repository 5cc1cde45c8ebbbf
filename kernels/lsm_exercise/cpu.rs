//! Reference implementation of `lsm_exercise` (see its kernel.toml).
use std::ops::Range;

use crate::cpu::KernelCall;
use crate::cpu::lsm_basis::laguerre;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let spots = call.slice::<f64>(0);
    let cash = call.out::<f64>(1);
    let coef = call.slice::<f64>(2);
    let (paths, step, nbasis) = (call.u64(3), call.u32(4), call.u32(5));
    let (strike, sign, df) = (call.f64(6), call.f64(7), call.f64(8));
    for b in blocks {
        for p in call.block_items(b) {
            let s = spots[(u64::from(step) * paths + p) as usize];
            let h = (sign * (s - strike)).max(0.0);
            let c = p as usize;
            if h > 0.0 {
                let x = s / strike;
                let mut cont = 0.0;
                for j in 0..nbasis {
                    cont += coef[step as usize * nbasis as usize + j as usize] * laguerre(j, x);
                }
                if h > cont {
                    cash.set(c, h);
                    continue;
                }
            }
            cash.set(c, cash.get(c) * df);
        }
    }
}
