//! Reference implementation of `basket_sens` (see its kernel.toml and [`crate::basket`]).
use std::ops::Range;

use crate::basket::{
    correlate, exercise, normals, observe, pair, path_items, qe_jet, qe_step_parts, qe_tangent, sens_rows, slot, value_rows,
    PathState, FREE, MAX_ASSETS, MAX_BASIS, MAX_FACTORS, RECORD, TANGENTS,
};
use crate::cpu::KernelCall;

use super::basket_value::{value_path, ValueInputs};

/// Most rows (16 assets).
const MAX_ROWS: usize = 4 * MAX_ASSETS + MAX_ASSETS * (MAX_ASSETS - 1) / 2 + 1;
/// Entries of the lower triangle of G (16 assets).
const MAX_G: usize = MAX_ASSETS * (MAX_ASSETS + 1) / 2;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let contrib = call.out::<f64>(0);
    let (assets, tangents, factor) = (call.slice::<f64>(1), call.slice::<f64>(2), call.slice::<f64>(3));
    let (dfactor, coef) = (call.slice::<f64>(4), call.slice::<f64>(5));
    let (seed, set, paths, steps) = (call.u64(6), call.u32(7), call.u64(8), call.u32(9));
    let (n, nb, rows) = (call.u32(10) as usize, call.u32(11) as usize, call.u32(12) as usize);
    let (strike, sign, rate, dt) = (call.f64(13), call.f64(14), call.f64(15), call.f64(16));
    let bump = call.f64(17);
    if n == 0 || n > MAX_ASSETS || nb == 0 || nb > MAX_BASIS || rows != value_rows(n) + sens_rows(n) {
        return;
    }
    // The first value_rows(n) rows are basket_value's with Greeks, then this kernel's own.
    let (vrows, rows) = (value_rows(n), sens_rows(n));
    let values = ValueInputs { assets, factor, coef, seed, set, steps, n, nb, greeks: true, strike, sign, rate, dt, bump };
    let (mut eps, mut z) = ([0.0; MAX_FACTORS], [0.0; MAX_FACTORS]);
    let (mut coefs, mut spots) = ([0.0; MAX_ASSETS], [0.0; MAX_ASSETS]);
    let weight = |i: usize| assets[i * RECORD + slot::WEIGHT];
    let tangent = |i: usize, q: usize| &tangents[(TANGENTS * i + q) * RECORD..(TANGENTS * i + q + 1) * RECORD];
    for b in blocks {
        for p in path_items(call.block_items(b), paths) {
            let mut acc = [0.0f64; MAX_ROWS];
            let mut st = PathState::new(assets, n);
            // Each tangent's derivative of the variance and of the log-price.
            let mut tv = [[0.0f64; TANGENTS]; MAX_ASSETS];
            let mut tx = [[0.0f64; TANGENTS]; MAX_ASSETS];
            for (i, row) in tv.iter_mut().enumerate().take(n) {
                for (q, v) in row.iter_mut().enumerate() {
                    *v = tangent(i, q)[slot::V0];
                }
            }
            let mut g = [0.0f64; MAX_G];
            for s in 0..steps {
                normals(seed, set, p, s, 2 * n, &mut eps);
                correlate(factor, &eps, 2 * n, &mut z);
                for i in 0..n {
                    let base = &assets[i * RECORD..(i + 1) * RECORD];
                    let (vn, dx, br, sq, parts) = qe_step_parts(base, st.v[i], z[i], z[n + i], FREE);
                    let jet = qe_jet(base, st.v[i], vn, br, sq, &parts);
                    for q in 0..TANGENTS {
                        let (tvn, tdx) = qe_tangent(base, tangent(i, q), &jet, tv[i][q], z[n + i]);
                        tv[i][q] = tvn;
                        tx[i][q] += tdx;
                    }
                    st.v[i] = vn;
                    st.x[i] += dx;
                    coefs[i] = sq;
                }
                for k in 0..n {
                    for m in 0..=k {
                        g[k * (k + 1) / 2 + m] += coefs[k] * eps[n + m];
                    }
                }
                let (bk, nu) = observe(assets, n, &st, strike, &mut spots);
                let last = s + 1 == steps;
                let c = &coef[s as usize * nb..(s as usize + 1) * nb];
                let (ex, e) = exercise(bk, nu, strike, sign, c, nb, last);
                if !ex {
                    continue;
                }
                // The payoff's derivative along a tangent: sign dB (e > 0 at an exercise).
                let d = (-rate * dt * f64::from(s + 1)).exp();
                for i in 0..n {
                    for q in 0..TANGENTS - 1 {
                        acc[q * n + i] = d * sign * (weight(i) * spots[i] * tx[i][q]);
                    }
                }
                for i in 0..n {
                    for j in i + 1..n {
                        let pi = pair(i, j, n);
                        let mut db = 0.0;
                        for k in 0..n {
                            let mut dx = 0.0;
                            for m in 0..=k {
                                dx += dfactor[(pi * n + k) * n + m] * g[k * (k + 1) / 2 + m];
                            }
                            db += weight(k) * spots[k] * dx;
                        }
                        acc[4 * n + pi] = d * sign * db;
                    }
                }
                // Theta: minus the derivative by the maturity of D e, every asset's tangent
                // along it, the date's time (s + 1) maturity / steps.
                let mut db = 0.0;
                for i in 0..n {
                    db += weight(i) * spots[i] * tx[i][TANGENTS - 1];
                }
                let dd = -rate * f64::from(s + 1) / f64::from(steps) * d;
                acc[rows - 1] = -(dd * e + d * sign * db);
                break;
            }
            let value = value_path(&values, p);
            for (r, v) in value.iter().take(vrows).chain(acc.iter().take(rows)).enumerate() {
                contrib.set(r * paths as usize + p as usize, *v);
            }
        }
    }
}
