//! Reference implementation of `basket_value` (see its kernel.toml and [`crate::basket`]).
use std::ops::Range;

use crate::basket::{
    correlate, exercise, normals, observe, pair, path_items, slot, value_rows, PathState, MAX_ASSETS, MAX_BASIS, MAX_FACTORS,
    RECORD,
};
use crate::cpu::KernelCall;

/// Most rows (16 assets).
const MAX_ROWS: usize = 2 + 2 * MAX_ASSETS + MAX_ASSETS * (MAX_ASSETS - 1) / 2;

/// The inputs of one launch (the manifest's arguments).
pub(crate) struct ValueInputs<'a> {
    pub assets: &'a [f64],
    pub factor: &'a [f64],
    pub coef: &'a [f64],
    pub seed: u64,
    pub set: u32,
    pub steps: u32,
    pub n: usize,
    pub nb: usize,
    /// Whether the rows with Greeks are written ([`value_rows`]), else the price alone.
    pub greeks: bool,
    pub strike: f64,
    pub sign: f64,
    pub rate: f64,
    pub dt: f64,
    pub bump: f64,
}

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let contrib = call.out::<f64>(0);
    let (assets, factor, coef) = (call.slice::<f64>(1), call.slice::<f64>(2), call.slice::<f64>(3));
    let (seed, set, paths, steps) = (call.u64(4), call.u32(5), call.u64(6), call.u32(7));
    let (n, nb, rows) = (call.u32(8) as usize, call.u32(9) as usize, call.u32(10) as usize);
    let (strike, sign, rate, dt, bump) = (call.f64(11), call.f64(12), call.f64(13), call.f64(14), call.f64(15));
    if n == 0 || n > MAX_ASSETS || nb == 0 || nb > MAX_BASIS {
        return;
    }
    let greeks = rows >= value_rows(n);
    let used = if greeks { value_rows(n) } else { 1 };
    let inputs = ValueInputs { assets, factor, coef, seed, set, steps, n, nb, greeks, strike, sign, rate, dt, bump };
    for b in blocks {
        for p in path_items(call.block_items(b), paths) {
            let acc = value_path(&inputs, p);
            for (r, v) in acc.iter().take(used).enumerate() {
                contrib.set(r * paths as usize + p as usize, *v);
            }
        }
    }
}

/// Path `p`'s rows (the first [`value_rows`] with Greeks, else the price alone).
pub(crate) fn value_path(i: &ValueInputs<'_>, p: u64) -> [f64; MAX_ROWS] {
    let ValueInputs { assets, factor, coef, seed, set, steps, n, nb, greeks, strike, sign, rate, dt, bump } = *i;
    let used = if greeks { value_rows(n) } else { 1 };
    let (mut eps, mut z) = ([0.0; MAX_FACTORS], [0.0; MAX_FACTORS]);
    let (mut branches, mut coefs, mut spots) = ([0u32; MAX_ASSETS], [0.0; MAX_ASSETS], [0.0; MAX_ASSETS]);
    let rec = |i: usize, k: usize| assets[i * RECORD + k];
    let mut acc = [0.0f64; MAX_ROWS];
    let mut st = PathState::new(assets, n);
    // Bit 0: the base scenario; bits 1 + 2j and 2 + 2j: spot j up and down.
    let mut alive: u64 = if greeks { (1u64 << (1 + 2 * n)) - 1 } else { 1 };
    for s in 0..steps {
        normals(seed, set, p, s, 2 * n, &mut eps);
        correlate(factor, &eps, 2 * n, &mut z);
        st.step(assets, n, &z, &mut branches, &mut coefs);
        let (bk, nu) = observe(assets, n, &st, strike, &mut spots);
        let last = s + 1 == steps;
        let t = dt * f64::from(s + 1);
        let c = &coef[s as usize * nb..(s as usize + 1) * nb];
        if alive & 1 != 0 {
            let (ex, e) = exercise(bk, nu, strike, sign, c, nb, last);
            if ex {
                let d = (-rate * t).exp();
                acc[0] += d * e;
                if greeks {
                    for k in 0..n {
                        acc[1 + k] += d * sign * rec(k, slot::WEIGHT) * spots[k] / rec(k, slot::SPOT);
                    }
                    acc[used - 1] += d * t * sign * strike;
                }
                alive &= !1;
            }
        }
        if greeks {
            for j in 0..n {
                for (bit, dir) in [(1 + 2 * j, 1.0f64), (2 + 2 * j, -1.0f64)] {
                    if alive & (1u64 << bit) == 0 {
                        continue;
                    }
                    let ds = dir * bump * rec(j, slot::WEIGHT) * spots[j];
                    let (ex, _) = exercise(bk + ds, nu + ds * st.v[j] / strike, strike, sign, c, nb, last);
                    if ex {
                        let scale = dir * (-rate * t).exp() * sign / (2.0 * bump * rec(j, slot::SPOT));
                        for k in 0..n {
                            let dk = scale * rec(k, slot::WEIGHT) * spots[k] / rec(k, slot::SPOT);
                            if k == j {
                                acc[1 + n + j] += dk;
                            } else {
                                acc[1 + 2 * n + pair(j.min(k), j.max(k), n)] += 0.5 * dk;
                            }
                        }
                        alive &= !(1u64 << bit);
                    }
                }
            }
        }
        if alive == 0 {
            break;
        }
    }
    acc
}
