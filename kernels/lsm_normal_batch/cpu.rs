//! Reference implementation of `lsm_normal_batch` (see its kernel.toml).
use std::ops::Range;

use crate::cpu::lsm_basis::laguerre;
use crate::cpu::KernelCall;

/// Most basis functions (the pricer's limit, `LsmConfig::nbasis`).
const MAX_BASIS: usize = 8;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let partials = call.out::<f64>(0);
    let (spots, cash) = (call.slice::<f64>(1), call.slice::<f64>(2));
    let (strike, sign, df) = (call.slice::<f64>(3), call.slice::<f64>(4), call.slice::<f64>(5));
    let products = u64::from(call.u32(6));
    let (paths, steps, step, nbasis, chunk) = (call.u64(7), call.u32(8), call.u32(9), call.u32(10), call.u64(11));
    let nb = nbasis as usize;
    if paths == 0 || chunk == 0 || step >= steps || nb == 0 || nb > MAX_BASIS {
        return;
    }
    let chunks = paths.div_ceil(chunk);
    let width = nb * (nb + 1);
    for b in blocks {
        for g in call.block_items(b) {
            let (i, c) = (g / chunks, g % chunks);
            if i >= products {
                break;
            }
            let k = i as usize;
            let mut acc = [0.0f64; MAX_BASIS * (MAX_BASIS + 1)];
            let mut row = [0.0f64; MAX_BASIS + 1];
            let spot_base = i * u64::from(steps) * paths + u64::from(step) * paths;
            for p in c * chunk..paths.min((c + 1) * chunk) {
                let s = spots[(spot_base + p) as usize];
                let h = (sign[k] * (s - strike[k])).max(0.0);
                if h > 0.0 {
                    let x = s / strike[k];
                    for (j, r) in row.iter_mut().enumerate().take(nb) {
                        *r = laguerre(j as u32, x);
                    }
                    row[nb] = df[k] * cash[(i * paths + p) as usize];
                    // acc[col nb + r] += row[r] row[col], columns then rows (the device order).
                    for (col, &rc) in row.iter().enumerate().take(nb + 1) {
                        for (a, &rr) in acc[col * nb..(col + 1) * nb].iter_mut().zip(&row[..nb]) {
                            *a += rr * rc;
                        }
                    }
                }
            }
            for (e, v) in acc.iter().take(width).enumerate() {
                partials.set(g as usize * width + e, *v);
            }
        }
    }
}
