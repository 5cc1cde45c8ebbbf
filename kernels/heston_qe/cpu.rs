//! Reference implementation of `heston_qe` (see its kernel.toml): Andersen (2008),
//! "Simple and efficient simulation of the Heston stochastic volatility model", J. Comp.
//! Finance 11(3), sections 3.2.4 (QE variance step), 4.2 (log-spot step) and 4.2.1
//! (martingale correction). [`QeStep`] is the step, shared with `heston_qe_mc` (and through it
//! `heston_qe_batch`); the device code's `tenor_heston_qe_step` in `kernels/common/shared.h`
//! performs the same operations.
use std::ops::Range;

use crate::cpu::KernelCall;
use crate::philox::{counter, key, normal_pair_f64, philox4x32_10, uniform_f64};

/// The constants of one QE step of length `dt` (Andersen's K0..K4 and the moments' factors),
/// for one launch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct QeStep {
    seed: u64,
    drift_dt: f64,
    theta: f64,
    e: f64,
    s2a: f64,
    s2b: f64,
    k1: f64,
    k2: f64,
    k3: f64,
    k4: f64,
    a_coef: f64,
    k0_plain: f64,
}

impl QeStep {
    /// The step for Philox key `seed`, log-drift `drift_dt = (r - q) dt` per step, step `dt`
    /// (years) and the Heston parameters.
    pub(crate) fn new(seed: u64, drift_dt: f64, dt: f64, kappa: f64, theta: f64, sigma: f64, rho: f64) -> Self {
        let e = (-kappa * dt).exp();
        let k1 = 0.5 * dt * (kappa * rho / sigma - 0.5) - rho / sigma;
        let k2 = 0.5 * dt * (kappa * rho / sigma - 0.5) + rho / sigma;
        let k3 = 0.5 * dt * (1.0 - rho * rho);
        Self {
            seed,
            drift_dt,
            theta,
            e,
            s2a: sigma * sigma * e * (1.0 - e) / kappa,
            s2b: theta * sigma * sigma * (1.0 - e) * (1.0 - e) / (2.0 * kappa),
            k1,
            k2,
            k3,
            k4: k3,
            a_coef: k2 + 0.5 * k3,
            k0_plain: -rho * kappa * theta * dt / sigma,
        }
    }

    /// Step `s` of path `p` from variance `v` and log-spot `x`, with the step's normals `zx`,
    /// `zv` (negated for an antithetic path) and, in the exponential branch, the uniform of
    /// counter `(s, 1, p)` (`1 - u` when `flip`: exact, `u` is a multiple of 2^-53 in (0, 1)).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn step(&self, v: &mut f64, x: &mut f64, zx: f64, zv: f64, p: u64, s: u32, flip: bool) {
        let vc = *v;
        let m = self.theta + (vc - self.theta) * self.e;
        let s2 = vc * self.s2a + self.s2b;
        let psi = s2 / (m * m);
        // `(v_next, k0 + k1 v + k2 v_next)`: the step's variance and the log-spot increment
        // before the drift and the diffusion term.
        let (v_next, inc) = if psi <= 1.5 {
            let r = 2.0 / psi;
            let b2 = r - 1.0 + r.sqrt() * (r - 1.0).sqrt();
            let a = m / (1.0 + b2);
            let b = b2.sqrt();
            let q = b + zv;
            let vn = a * (q * q);
            let two_aa = 2.0 * self.a_coef * a;
            let inc = if two_aa < 1.0 {
                // Andersen's K0* + K1 v + K2 v_next with K0* = -A b^2 a / (1 - 2 A a)
                // + ln(1 - 2 A a) / 2 - (K1 + K3 / 2) v, rearranged so that the terms
                // +-rho v / sigma of K1 v and K2 v_next, which cancel, are never formed
                // (with v_next = a b^2 + a zv (2 b + zv) and A = K2 + K4 / 2, K4 = K3):
                // `K2 a zv (2 b + zv) - a b^2 (2 A a K2 + K3 / 2) / (1 - 2 A a)
                // + log1p(-2 A a) / 2 - K3 v / 2`. Formed as written, they lost every digit
                // below vol of variance about 1e-13 (issue 29).
                self.k2 * a * (zv * (2.0 * b + zv)) - b2 * a * (two_aa * self.k2 + 0.5 * self.k3) / (1.0 - two_aa)
                    + 0.5 * (-two_aa).ln_1p()
                    - 0.5 * self.k3 * vc
            } else {
                self.k0_plain + self.k1 * vc + self.k2 * vn
            };
            (vn, inc)
        } else {
            let p0 = (psi - 1.0) / (psi + 1.0);
            let beta = (1.0 - p0) / m;
            let w = philox4x32_10([s, 1, p as u32, (p >> 32) as u32], key(self.seed));
            // Disjoint from the normals: their counters have word 1 = 0.
            debug_assert_eq!(counter(p, s)[1], 0);
            let u0 = uniform_f64(w[0], w[1]);
            let u = if flip { 1.0 - u0 } else { u0 };
            let vn = if u <= p0 { 0.0 } else { ((1.0 - p0) / (1.0 - u)).ln() / beta };
            let k0 = if self.a_coef < beta {
                -(p0 + beta * (1.0 - p0) / (beta - self.a_coef)).ln() - (self.k1 + 0.5 * self.k3) * vc
            } else {
                self.k0_plain
            };
            (vn, k0 + self.k1 * vc + self.k2 * vn)
        };
        *x += self.drift_dt + inc + (self.k3 * vc + self.k4 * v_next).sqrt() * zx;
        *v = v_next;
    }
}

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let out = call.out::<f64>(0);
    let (seed, steps) = (call.u64(1), call.u32(3));
    let (spot, drift_dt, dt) = (call.f64(4), call.f64(5), call.f64(6));
    let (v0, kappa, theta, sigma, rho) = (call.f64(7), call.f64(8), call.f64(9), call.f64(10), call.f64(11));
    let qe = QeStep::new(seed, drift_dt, dt, kappa, theta, sigma, rho);
    let x0 = spot.ln();
    for b in blocks {
        for p in call.block_items(b) {
            let (mut v, mut x) = (v0, x0);
            for s in 0..steps {
                let (zx, zv) = normal_pair_f64(seed, p, s);
                qe.step(&mut v, &mut x, zx, zv, p, s, false);
            }
            out.set(p as usize, x.exp());
        }
    }
}
