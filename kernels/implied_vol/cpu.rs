//! Reference implementation of `implied_vol` (see its kernel.toml): one Black implied
//! volatility per item through [`crate::black::implied_vol`].
use std::ops::Range;

use crate::black::{implied_vol, IvStatus};
use crate::cpu::KernelCall;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let price = call.slice::<f64>(0);
    let forward = call.slice::<f64>(1);
    let strike = call.slice::<f64>(2);
    let maturity = call.slice::<f64>(3);
    let discount = call.slice::<f64>(4);
    let is_call = call.slice::<u32>(5);
    let vol = call.out::<f64>(6);
    let status = call.out::<u32>(7);
    for b in blocks {
        for i in call.block_items(b) {
            let i = i as usize;
            let d = discount[i];
            let p = if d.is_finite() && d > 0.0 { price[i] / d } else { f64::NAN };
            let r = implied_vol(p, forward[i], strike[i], maturity[i], is_call[i] == 1);
            let (v, st) = match r {
                Ok(v) => (v, IvStatus::Ok),
                Err(e) => (f64::NAN, e),
            };
            vol.set(i, v);
            status.set(i, st.code());
        }
    }
}
