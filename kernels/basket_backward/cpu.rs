//! Reference implementation of `basket_backward` (see its kernel.toml and [`crate::basket`]).
use std::ops::Range;

use crate::basket::{accumulate_target, basis, exercise, substitute, FACTOR_RECORD, MAX_BASIS};
use crate::cpu::KernelCall;

/// Values per block of the partial sums of `X^T y` (one per basis function of 6).
const SLOTS: usize = MAX_BASIS;

/// Runs blocks `blocks` of a launch of one date (`dates` = 1): the date's fit (each call adds every block's sums
/// itself, in block order, as each device work-group does, and substitutes them into the
/// date's factor record), the decision, the block sums of the date before.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let (partials, fits, cash, coef) = (call.out::<f64>(0), call.out::<f64>(1), call.out::<f64>(2), call.out::<f64>(3));
    let (factors, basket, feature) = (call.slice::<f64>(5), call.slice::<f64>(6), call.slice::<f64>(7));
    let (paths, steps, step, dates, nb) = (call.u64(8), call.u32(9), call.u32(10), call.u32(11), call.u32(12) as usize);
    let (strike, sign, df) = (call.f64(13), call.f64(14), call.f64(15));
    // One date per launch: the CPU backend runs ranges of blocks apart, with no wait between
    // them (the manifest: dates > 1 writes nothing here).
    if nb == 0 || nb > MAX_BASIS || step >= steps || dates != 1 {
        return;
    }
    let last = step + 1 == steps;
    let nblocks = call.blocks() as usize;
    let half = SLOTS * nblocks;
    // Half `d mod 2` holds date d's sums, slot k of block b at k nblocks + b: this launch reads
    // date step's, writes date step - 1's.
    let (read, write) = ((step % 2) as usize * half, ((step + 1) % 2) as usize * half);
    let mut c = [0.0f64; MAX_BASIS];
    if !last {
        let mut xty = [0.0f64; SLOTS];
        for blk in 0..nblocks {
            for (k, a) in xty.iter_mut().enumerate() {
                *a += partials.get(read + k * nblocks + blk);
            }
        }
        substitute(&factors[step as usize * FACTOR_RECORD..][..FACTOR_RECORD], &xty, nb, &mut c);
        for b in blocks.clone() {
            for (j, v) in c.iter().enumerate().take(nb) {
                fits.set(MAX_BASIS * b as usize + j, *v);
            }
        }
        if blocks.contains(&0) {
            for (j, v) in c.iter().enumerate().take(nb) {
                coef.set(step as usize * nb + j, *v);
            }
        }
    }
    let mut phi = [0.0; MAX_BASIS];
    for b in blocks {
        let mut acc = [0.0f64; SLOTS];
        for p in call.block_items(b) {
            let at = (u64::from(step) * paths + p) as usize;
            let (ex, e) = exercise(basket[at], feature[at], strike, sign, &c[..nb], nb, last);
            let value = if ex {
                e
            } else if last {
                0.0
            } else {
                df * cash.get(p as usize)
            };
            cash.set(p as usize, value);
            if step > 0 {
                let prev = at - paths as usize;
                let bp = basket[prev];
                if sign * (bp - strike) > 0.0 {
                    basis(bp / strike - 1.0, feature[prev], nb, &mut phi);
                    accumulate_target(&mut acc, &phi, df * value, nb);
                }
            }
        }
        if step > 0 {
            for (k, v) in acc.iter().enumerate() {
                partials.set(write + k * nblocks + b as usize, *v);
            }
        }
    }
}
