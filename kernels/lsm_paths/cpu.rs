//! Reference implementation of `lsm_paths` (see its kernel.toml).
use std::ops::Range;

use crate::cpu::{KernelCall, Out};
use crate::philox::normal_pair_f64;

/// Writes path `p` of `paths` (antithetic: `p >= paths / 2` negates the normals of
/// `p - paths / 2`), step-major from element `base` of `out`: `out[base + s paths + p] =
/// S(t_{s+1})`, `log S(t_0) = x0`. The one per-path code of `lsm_paths` and `lsm_paths_batch`.
#[allow(clippy::too_many_arguments)]
pub fn path(out: &Out<'_, f64>, base: usize, p: u64, seed: u64, paths: u64, steps: u32, x0: f64, drift_dt: f64, vol_sqrt_dt: f64) {
    let half = paths / 2;
    let (source, sign) = if p < half { (p, 1.0) } else { (p - half, -1.0) };
    let mut x = x0;
    let mut s = 0u32;
    while s < steps {
        // One Philox call gives the normals of steps s and s + 1 (normal_f64's mapping).
        let (z0, z1) = normal_pair_f64(seed, source, s >> 1);
        for (step, z) in [(s, z0), (s + 1, z1)] {
            if step < steps {
                x += drift_dt + vol_sqrt_dt * sign * z;
                out.set(base + (u64::from(step) * paths + p) as usize, x.exp());
            }
        }
        s += 2;
    }
}

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let out = call.out::<f64>(0);
    let (seed, paths, steps) = (call.u64(1), call.u64(2), call.u32(3));
    let (spot, drift_dt, vol_sqrt_dt) = (call.f64(4), call.f64(5), call.f64(6));
    let x0 = spot.ln();
    for b in blocks {
        for p in call.block_items(b) {
            path(&out, 0, p, seed, paths, steps, x0, drift_dt, vol_sqrt_dt);
        }
    }
}
