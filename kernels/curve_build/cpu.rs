//! Reference implementation of `curve_build` (see its kernel.toml): one par-yield bootstrap per
//! item through [`crate::curve::bootstrap`], reading and writing the tenor-major layout.
use std::ops::Range;

use crate::cpu::KernelCall;
use crate::curve::{bootstrap, MAX_TENORS};

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let par = call.slice::<f64>(0);
    let tenors_in = call.slice::<f64>(1);
    let log_df = call.out::<f64>(2);
    let n = call.u64(3) as usize;
    let m = call.u64(4) as usize;
    // m above the maximum: a tenor slice that `bootstrap` refuses, so every output is NaN.
    let mut tenors = [f64::NAN; MAX_TENORS + 1];
    let mt = m.min(MAX_TENORS + 1);
    for (k, t) in tenors.iter_mut().enumerate().take(mt) {
        *t = tenors_in[k];
    }
    let mut y = [0.0f64; MAX_TENORS];
    let mut out = [0.0f64; MAX_TENORS + 1];
    for b in blocks {
        for c in call.block_items(b) {
            let c = c as usize;
            if m > MAX_TENORS {
                for k in 0..m {
                    log_df.set(k * n + c, f64::NAN);
                }
                continue;
            }
            for (k, v) in y.iter_mut().enumerate().take(m) {
                *v = par[k * n + c];
            }
            bootstrap(&tenors[..m], &y[..m], &mut out[..m]);
            for (k, v) in out.iter().enumerate().take(m) {
                log_df.set(k * n + c, *v);
            }
        }
    }
}
