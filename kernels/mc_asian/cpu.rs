//! Reference implementation of `mc_asian` (see its kernel.toml).
use std::ops::Range;

use crate::cpu::KernelCall;
use crate::fastmath;

/// Running sums of one antithetic pair: log spots, sums of fixings and of log fixings.
#[derive(Clone, Copy)]
struct Pair {
    xu: f64,
    xd: f64,
    su: f64,
    sd: f64,
    lu: f64,
    ld: f64,
}

impl Pair {
    /// One step; `e2m = exp(x_u + x_d) = exp(2 (ln spot + drifts so far))` is the same for
    /// every pair, so the antithetic fixing is `exp(x_d) = e2m / exp(x_u)`: one exponential
    /// per step instead of two (equal to `exp(x_d)` within a few ulps).
    #[inline(always)]
    fn step(&mut self, d: f64, vz: f64, e2m: f64) {
        self.xu += d + vz;
        self.xd += d - vz;
        self.lu += self.xu;
        self.ld += self.xd;
        let s = fastmath::exp(self.xu);
        self.su += s;
        self.sd += e2m / s;
    }
}

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let partials = call.ptr::<f64>(0);
    let (seed, steps, spot, strike) = (call.u64(1), call.u32(3), call.f64(4), call.f64(5));
    let w = if call.u32(6) != 0 { 1.0 } else { -1.0 };
    let spot_fixing = call.u32(7) != 0;
    let (d1, v1, d, v, discount) = (call.f64(8), call.f64(9), call.f64(10), call.f64(11), call.f64(12));
    let x0 = spot.ln();
    let inv_n = 1.0 / f64::from(steps + u32::from(spot_fixing));
    let (s0, l0) = if spot_fixing { (spot, x0) } else { (0.0, 0.0) };
    let half_discount = 0.5 * discount;
    // exp(2 m_j), m_j = ln spot + d1 + (j - 1) d: the product of a pair's two fixings at step j.
    let e2m: Vec<f64> = (0..steps).map(|j| (2.0 * (x0 + d1 + f64::from(j) * d)).exp()).collect();
    for b in blocks {
        let mut acc = [0.0f64; 5];
        for i in call.block_items(b) {
            let mut p = Pair { xu: x0, xd: x0, su: s0, sd: s0, lu: l0, ld: l0 };
            let mut k = 0u32;
            while k < steps {
                let (z0, z1) = fastmath::normal_pair_f64(seed, i, k >> 1);
                if k == 0 {
                    p.step(d1, v1 * z0, e2m[0]);
                } else {
                    p.step(d, v * z0, e2m[k as usize]);
                }
                if k + 1 < steps {
                    p.step(d, v * z1, e2m[k as usize + 1]);
                }
                k += 2;
            }
            let pay = |m: f64| (w * (m - strike)).max(0.0);
            let a = half_discount * (pay(p.su * inv_n) + pay(p.sd * inv_n));
            let g = half_discount * (pay((p.lu * inv_n).exp()) + pay((p.ld * inv_n).exp()));
            acc[0] += a;
            acc[1] += a * a;
            acc[2] += g;
            acc[3] += g * g;
            acc[4] += a * g;
        }
        for (j, v) in acc.iter().enumerate() {
            // SAFETY: partials holds 5 * blocks values; block b writes its own five.
            unsafe { *partials.add(5 * b as usize + j) = *v };
        }
    }
}
