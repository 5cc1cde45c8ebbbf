//! Reference implementation of `implied_vol` (see its kernel.toml): one Black implied
//! volatility per item through [`crate::black::implied_vol`].
use std::ops::Range;

use crate::black::{implied_vol, IvStatus};
use crate::cpu::KernelCall;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`]: arguments 0..=5 hold `n` inputs each, 6 and 7 `n` outputs.
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let price = call.ptr::<f64>(0);
    let forward = call.ptr::<f64>(1);
    let strike = call.ptr::<f64>(2);
    let maturity = call.ptr::<f64>(3);
    let discount = call.ptr::<f64>(4);
    let is_call = call.ptr::<u32>(5);
    let vol = call.ptr::<f64>(6);
    let status = call.ptr::<u32>(7);
    for b in blocks {
        for i in call.block_items(b) {
            let i = i as usize;
            // SAFETY: every input holds n values; the block writes only its own items.
            unsafe {
                let d = *discount.add(i);
                let p = if d.is_finite() && d > 0.0 { *price.add(i) / d } else { f64::NAN };
                let r = implied_vol(p, *forward.add(i), *strike.add(i), *maturity.add(i), *is_call.add(i) == 1);
                let (v, st) = match r {
                    Ok(v) => (v, IvStatus::Ok),
                    Err(e) => (f64::NAN, e),
                };
                *vol.add(i) = v;
                *status.add(i) = st.code();
            }
        }
    }
}
