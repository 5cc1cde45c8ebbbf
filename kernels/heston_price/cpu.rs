//! Reference implementation of `heston_price` (see its kernel.toml): one Heston price per
//! (parameter set, quote) through [`crate::heston::price`].
use std::ops::Range;

use crate::cpu::KernelCall;
use crate::heston::{price, Contract, Params};

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`]: arguments 0..=4 hold `quotes` values each, 5 holds
/// `5 * items / quotes` parameters, 6 and 7 `nodes_count` values, 8 `items` outputs.
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let strike = call.ptr::<f64>(0);
    let forward = call.ptr::<f64>(1);
    let maturity = call.ptr::<f64>(2);
    let discount = call.ptr::<f64>(3);
    let is_call = call.ptr::<u32>(4);
    let params = call.ptr::<f64>(5);
    let quotes = call.u64(10);
    let n = call.u32(11) as usize;
    if quotes == 0 {
        return;
    }
    let (nodes, weights): (&[f64], &[f64]) = if n == 0 {
        (&[], &[])
    } else {
        // SAFETY: nodes and weights hold nodes_count values each.
        unsafe { (std::slice::from_raw_parts(call.ptr::<f64>(6), n), std::slice::from_raw_parts(call.ptr::<f64>(7), n)) }
    };
    let out = call.ptr::<f64>(8);
    for b in blocks {
        for i in call.block_items(b) {
            let (set, j) = ((i / quotes) as usize, (i % quotes) as usize);
            // SAFETY: quote inputs hold `quotes` values, params 5 per set; the block writes only
            // its own items.
            unsafe {
                let p: Params = std::ptr::read_unaligned(params.add(5 * set).cast::<Params>());
                let o = Contract {
                    forward: *forward.add(j),
                    strike: *strike.add(j),
                    maturity: *maturity.add(j),
                    discount: *discount.add(j),
                    is_call: *is_call.add(j) == 1,
                };
                *out.add(i as usize) = price(&p, &o, nodes, weights);
            }
        }
    }
}
