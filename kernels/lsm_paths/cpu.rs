//! Reference implementation of `lsm_paths` (see its kernel.toml).
use std::ops::Range;

use crate::cpu::KernelCall;
use crate::philox::normal_pair_f64;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let out = call.out::<f64>(0);
    let (seed, paths, steps) = (call.u64(1), call.u64(2), call.u32(3));
    let (spot, drift_dt, vol_sqrt_dt) = (call.f64(4), call.f64(5), call.f64(6));
    let half = paths / 2;
    for b in blocks {
        for p in call.block_items(b) {
            let (source, sign) = if p < half { (p, 1.0) } else { (p - half, -1.0) };
            let mut x = spot.ln();
            let mut s = 0u32;
            while s < steps {
                // One Philox call gives the normals of steps s and s + 1 (normal_f64's mapping).
                let (z0, z1) = normal_pair_f64(seed, source, s >> 1);
                for (step, z) in [(s, z0), (s + 1, z1)] {
                    if step < steps {
                        x += drift_dt + vol_sqrt_dt * sign * z;
                        out.set((u64::from(step) * paths + p) as usize, x.exp());
                    }
                }
                s += 2;
            }
        }
    }
}
