//! Reference implementation of `mc_european_f32` (see its kernel.toml).
use std::ops::Range;

use crate::cpu::KernelCall;
use crate::philox::normal_f32;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let partials = call.out::<f64>(0);
    let (seed, spot, strike) = (call.u64(1), call.f32(3), call.f32(4));
    let w: f32 = if call.u32(5) != 0 { 1.0 } else { -1.0 };
    let (drift, vol, discount) = (call.f32(6), call.f32(7), call.f32(8));
    for b in blocks {
        let (mut sum, mut sum_sq) = (0.0f64, 0.0f64);
        for i in call.block_items(b) {
            let z = normal_f32(seed, i, 0);
            let up = spot * (drift + vol * z).exp();
            let dn = spot * (drift - vol * z).exp();
            let y = f64::from(discount * ((w * (up - strike)).max(0.0) + (w * (dn - strike)).max(0.0)) * 0.5);
            sum += y;
            sum_sq += y * y;
        }
        partials.set(2 * b as usize, sum);
        partials.set(2 * b as usize + 1, sum_sq);
    }
}
