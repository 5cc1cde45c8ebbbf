//! Reference implementation of `heston_qe_mc` (see its kernel.toml): antithetic pairs of
//! Andersen's (2008) QE paths ([`super::heston_qe::QeStep`], the step of `heston_qe`), the
//! discounted European payoff averaged over the pair, block sums of it and its square.
use std::ops::Range;

use super::heston_qe::QeStep;
use crate::cpu::KernelCall;
use crate::philox::normal_pair_f64;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`]; the partials hold two values per block.
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let partials = call.out::<f64>(0);
    let (seed, steps) = (call.u64(1), call.u32(3));
    let (spot, strike, is_call) = (call.f64(4), call.f64(5), call.u32(6));
    let (drift_dt, dt) = (call.f64(7), call.f64(8));
    let (v0, kappa, theta, sigma, rho) = (call.f64(9), call.f64(10), call.f64(11), call.f64(12), call.f64(13));
    let discount = call.f64(14);
    let qe = QeStep::new(seed, drift_dt, dt, kappa, theta, sigma, rho);
    let x0 = spot.ln();
    let w = if is_call != 0 { 1.0 } else { -1.0 };
    let half_discount = 0.5 * discount;
    for b in blocks {
        let (mut sum, mut sum_sq) = (0.0, 0.0);
        for p in call.block_items(b) {
            let (mut vu, mut xu, mut vd, mut xd) = (v0, x0, v0, x0);
            for s in 0..steps {
                let (zx, zv) = normal_pair_f64(seed, p, s);
                qe.step(&mut vu, &mut xu, zx, zv, p, s, false);
                qe.step(&mut vd, &mut xd, -zx, -zv, p, s, true);
            }
            let y = half_discount * ((w * (xu.exp() - strike)).max(0.0) + (w * (xd.exp() - strike)).max(0.0));
            sum += y;
            sum_sq += y * y;
        }
        partials.set(2 * b as usize, sum);
        partials.set(2 * b as usize + 1, sum_sq);
    }
}
