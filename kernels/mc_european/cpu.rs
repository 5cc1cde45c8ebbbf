//! Reference implementation of `mc_european` (see its kernel.toml).
use std::ops::Range;

use crate::cpu::KernelCall;
use crate::fastmath;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let partials = call.ptr::<f64>(0);
    let (seed, spot, strike) = (call.u64(1), call.f64(3), call.f64(4));
    let w = if call.u32(5) != 0 { 1.0 } else { -1.0 };
    let (drift, vol, discount) = (call.f64(6), call.f64(7), call.f64(8));
    let half_discount = 0.5 * discount;
    for b in blocks {
        let (mut sum, mut sum_sq) = (0.0, 0.0);
        for i in call.block_items(b) {
            // normal_f64(seed, i, 0) with the inlined elementary functions.
            let z = fastmath::normal_pair_f64(seed, i, 0).0;
            let up = spot * fastmath::exp(drift + vol * z);
            let dn = spot * fastmath::exp(drift - vol * z);
            let y = half_discount * ((w * (up - strike)).max(0.0) + (w * (dn - strike)).max(0.0));
            sum += y;
            sum_sq += y * y;
        }
        // SAFETY: partials holds 2 * blocks values; block b writes its own pair.
        unsafe {
            *partials.add(2 * b as usize) = sum;
            *partials.add(2 * b as usize + 1) = sum_sq;
        }
    }
}
