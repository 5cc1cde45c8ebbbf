//! Reference implementation of `gbm_paths` (see its kernel.toml).
use std::ops::Range;

use crate::cpu::KernelCall;
use crate::philox::normal_pair_f64;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let out = call.out::<f64>(0);
    let (seed, paths, steps, spot) = (call.u64(1), call.u64(2), call.u32(3), call.f64(4));
    let (d1, v1, d, v) = (call.f64(5), call.f64(6), call.f64(7), call.f64(8));
    let x0 = spot.ln();
    for b in blocks {
        for p in call.block_items(b) {
            let mut x = x0;
            let mut s = 0u32;
            while s < steps {
                let (z0, z1) = normal_pair_f64(seed, p, s >> 1);
                for (k, z) in [(s, z0), (s + 1, z1)] {
                    if k >= steps {
                        break;
                    }
                    x += if k == 0 { d1 + v1 * z } else { d + v * z };
                    out.set((u64::from(k) * paths + p) as usize, x.exp());
                }
                s += 2;
            }
        }
    }
}
