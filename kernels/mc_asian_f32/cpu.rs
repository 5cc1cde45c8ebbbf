//! Reference implementation of `mc_asian_f32` (see its kernel.toml).
use std::ops::Range;

use crate::cpu::KernelCall;
use crate::philox::normal_quad_f32;

/// Running sums of one antithetic pair: log spots, sums of fixings and of log fixings.
#[derive(Clone, Copy)]
struct Pair {
    xu: f32,
    xd: f32,
    su: f32,
    sd: f32,
    lu: f32,
    ld: f32,
}

impl Pair {
    #[inline(always)]
    fn step(&mut self, d: f32, vz: f32) {
        self.xu += d + vz;
        self.xd += d - vz;
        self.lu += self.xu;
        self.ld += self.xd;
        self.su += self.xu.exp();
        self.sd += self.xd.exp();
    }
}

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let partials = call.out::<f64>(0);
    let (seed, steps, spot, strike) = (call.u64(1), call.u32(3), call.f32(4), call.f32(5));
    let w: f32 = if call.u32(6) != 0 { 1.0 } else { -1.0 };
    let spot_fixing = call.u32(7) != 0;
    let (d1, v1, d, v, discount) = (call.f32(8), call.f32(9), call.f32(10), call.f32(11), call.f32(12));
    let x0 = spot.ln();
    let inv_n = 1.0 / (steps + u32::from(spot_fixing)) as f32;
    let (s0, l0) = if spot_fixing { (spot, x0) } else { (0.0, 0.0) };
    let half_discount = 0.5 * discount;
    for b in blocks {
        let mut acc = [0.0f64; 5];
        for i in call.block_items(b) {
            let mut p = Pair { xu: x0, xd: x0, su: s0, sd: s0, lu: l0, ld: l0 };
            let mut k = 0u32;
            while k < steps {
                let z = normal_quad_f32(seed, i, k >> 2);
                for (j, zj) in z.iter().enumerate() {
                    let kj = k + j as u32;
                    if kj >= steps {
                        break;
                    }
                    if kj == 0 {
                        p.step(d1, v1 * zj);
                    } else {
                        p.step(d, v * zj);
                    }
                }
                k += 4;
            }
            let pay = |m: f32| (w * (m - strike)).max(0.0);
            let a = f64::from(half_discount * (pay(p.su * inv_n) + pay(p.sd * inv_n)));
            let g = f64::from(half_discount * (pay((p.lu * inv_n).exp()) + pay((p.ld * inv_n).exp())));
            acc[0] += a;
            acc[1] += a * a;
            acc[2] += g;
            acc[3] += g * g;
            acc[4] += a * g;
        }
        for (j, v) in acc.iter().enumerate() {
            partials.set(5 * b as usize + j, *v);
        }
    }
}
