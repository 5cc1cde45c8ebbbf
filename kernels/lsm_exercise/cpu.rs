//! Reference implementation of `lsm_exercise` (see its kernel.toml).
use std::ops::Range;

use crate::cpu::lsm_basis::laguerre;
use crate::cpu::{KernelCall, Out};

/// One product's Longstaff-Schwartz buffers for [`exercise`]: its step-major spots
/// (`steps x paths`), its cash flows (`paths`) and its coefficients (`nbasis` per step), as
/// slices or views starting at the product's first element.
pub struct Product<'s, 'o> {
    /// Spots, step-major.
    pub spots: &'s [f64],
    /// Cash flows, read and written.
    pub cash: Out<'o, f64>,
    /// Offset of the product's cash flows in `cash`.
    pub cash_base: usize,
    /// Regression coefficients, `nbasis` per exercise date.
    pub coef: &'s [f64],
}

/// The exercise decision of path `p` at exercise date `step` (kernel.toml's formula): the one
/// per-path code of `lsm_exercise` and `lsm_exercise_batch`.
#[allow(clippy::too_many_arguments)]
pub fn exercise(q: &Product<'_, '_>, p: u64, paths: u64, step: u32, nbasis: u32, strike: f64, sign: f64, df: f64) {
    let s = q.spots[(u64::from(step) * paths + p) as usize];
    let h = (sign * (s - strike)).max(0.0);
    let c = q.cash_base + p as usize;
    if h > 0.0 {
        let x = s / strike;
        let mut cont = 0.0;
        for j in 0..nbasis {
            cont += q.coef[step as usize * nbasis as usize + j as usize] * laguerre(j, x);
        }
        if h > cont {
            q.cash.set(c, h);
            return;
        }
    }
    q.cash.set(c, q.cash.get(c) * df);
}

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let q = Product { spots: call.slice::<f64>(0), cash: call.out::<f64>(1), cash_base: 0, coef: call.slice::<f64>(2) };
    let (paths, step, nbasis) = (call.u64(3), call.u32(4), call.u32(5));
    let (strike, sign, df) = (call.f64(6), call.f64(7), call.f64(8));
    for b in blocks {
        for p in call.block_items(b) {
            exercise(&q, p, paths, step, nbasis, strike, sign, df);
        }
    }
}
