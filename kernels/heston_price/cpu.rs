//! Reference implementation of `heston_price` (see its kernel.toml): one Heston price per
//! (parameter set, quote) through [`crate::heston::price`].
use std::ops::Range;

use crate::cpu::KernelCall;
use crate::heston::{price, Contract, Params};

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let strike = call.slice::<f64>(0);
    let forward = call.slice::<f64>(1);
    let maturity = call.slice::<f64>(2);
    let discount = call.slice::<f64>(3);
    let is_call = call.slice::<u32>(4);
    let params = call.slice::<f64>(5);
    let quotes = call.u64(10);
    let n = call.u32(11) as usize;
    if quotes == 0 {
        return;
    }
    let (nodes, weights) = (&call.slice::<f64>(6)[..n], &call.slice::<f64>(7)[..n]);
    let out = call.out::<f64>(8);
    for b in blocks {
        for i in call.block_items(b) {
            let (set, j) = ((i / quotes) as usize, (i % quotes) as usize);
            let s = &params[5 * set..5 * set + 5];
            let p: Params = [s[0], s[1], s[2], s[3], s[4]];
            let o = Contract {
                forward: forward[j],
                strike: strike[j],
                maturity: maturity[j],
                discount: discount[j],
                is_call: is_call[j] == 1,
            };
            out.set(i as usize, price(&p, &o, nodes, weights));
        }
    }
}
