//! Reference implementation of `payoff_barrier` (see its kernel.toml).
use std::ops::Range;

use crate::barrier::{BarrierParams, BarrierPath};
use crate::cpu::KernelCall;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let (paths_in, out) = (call.slice::<f64>(0), call.out::<f64>(1));
    let (paths, steps, spot) = (call.u64(2), call.u32(3), call.f64(4));
    let prm = BarrierParams::new(
        call.f64(5),
        call.f64(6),
        call.f64(7),
        call.u32(8),
        call.u32(9),
        call.u32(10),
        call.f64(11),
        call.f64(12),
        call.f64(13),
    );
    let x0 = spot.ln();
    for b in blocks {
        for p in call.block_items(b) {
            let mut path = BarrierPath::new(x0);
            for k in 0..steps {
                let s = paths_in[(u64::from(k) * paths + p) as usize];
                path.step(&prm, k, s.ln());
            }
            out.set(p as usize, path.value(&prm));
        }
    }
}
