//! Reference implementation of `heston_qe` (see its kernel.toml): Andersen (2008),
//! "Simple and efficient simulation of the Heston stochastic volatility model", J. Comp.
//! Finance 11(3), sections 3.2.4 (QE variance step), 4.2 (log-spot step) and 4.2.1
//! (martingale correction).
use std::ops::Range;

use crate::cpu::KernelCall;
use crate::philox::{counter, key, normal_pair_f64, philox4x32_10, uniform_f64};

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let out = call.out::<f64>(0);
    let (seed, steps) = (call.u64(1), call.u32(3));
    let (spot, drift_dt, dt) = (call.f64(4), call.f64(5), call.f64(6));
    let (v0, kappa, theta, sigma, rho) = (call.f64(7), call.f64(8), call.f64(9), call.f64(10), call.f64(11));
    let e = (-kappa * dt).exp();
    let s2a = sigma * sigma * e * (1.0 - e) / kappa;
    let s2b = theta * sigma * sigma * (1.0 - e) * (1.0 - e) / (2.0 * kappa);
    let k1 = 0.5 * dt * (kappa * rho / sigma - 0.5) - rho / sigma;
    let k2 = 0.5 * dt * (kappa * rho / sigma - 0.5) + rho / sigma;
    let k3 = 0.5 * dt * (1.0 - rho * rho);
    let k4 = k3;
    let a_coef = k2 + 0.5 * k4;
    let k0_plain = -rho * kappa * theta * dt / sigma;
    for b in blocks {
        for p in call.block_items(b) {
            let mut v = v0;
            let mut x = spot.ln();
            for s in 0..steps {
                let m = theta + (v - theta) * e;
                let s2 = v * s2a + s2b;
                let psi = s2 / (m * m);
                let (zx, zv) = normal_pair_f64(seed, p, s);
                let (v_next, k0) = if psi <= 1.5 {
                    let r = 2.0 / psi;
                    let b2 = r - 1.0 + r.sqrt() * (r - 1.0).sqrt();
                    let a = m / (1.0 + b2);
                    let vn = a * (b2.sqrt() + zv).powi(2);
                    let k0 = if 2.0 * a_coef * a < 1.0 {
                        -a_coef * b2 * a / (1.0 - 2.0 * a_coef * a) + 0.5 * (1.0 - 2.0 * a_coef * a).ln()
                            - (k1 + 0.5 * k3) * v
                    } else {
                        k0_plain
                    };
                    (vn, k0)
                } else {
                    let p0 = (psi - 1.0) / (psi + 1.0);
                    let beta = (1.0 - p0) / m;
                    let w = philox4x32_10([s, 1, p as u32, (p >> 32) as u32], key(seed));
                    // Disjoint from the normals: their counters have word 1 = 0.
                    debug_assert_eq!(counter(p, s)[1], 0);
                    let u = uniform_f64(w[0], w[1]);
                    let vn = if u <= p0 { 0.0 } else { ((1.0 - p0) / (1.0 - u)).ln() / beta };
                    let k0 = if a_coef < beta {
                        -(p0 + beta * (1.0 - p0) / (beta - a_coef)).ln() - (k1 + 0.5 * k3) * v
                    } else {
                        k0_plain
                    };
                    (vn, k0)
                };
                x += drift_dt + k0 + k1 * v + k2 * v_next + (k3 * v + k4 * v_next).sqrt() * zx;
                v = v_next;
            }
            out.set(p as usize, x.exp());
        }
    }
}
