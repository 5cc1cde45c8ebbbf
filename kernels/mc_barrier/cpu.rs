//! Reference implementation of `mc_barrier` (see its kernel.toml).
use std::ops::Range;

use crate::barrier::{BarrierParams, BarrierPath};
use crate::cpu::KernelCall;
use crate::fastmath;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let partials = call.out::<f64>(0);
    let (seed, steps, spot) = (call.u64(1), call.u32(3), call.f64(4));
    let (drift, vol) = (call.f64(11), call.f64(12));
    let prm = BarrierParams::new(
        call.f64(5),
        call.f64(6),
        call.f64(7),
        call.u32(8),
        call.u32(9),
        call.u32(10),
        vol,
        call.f64(13),
        call.f64(14),
    );
    let x0 = spot.ln();
    for b in blocks {
        let (mut sum, mut sum_sq) = (0.0, 0.0);
        for i in call.block_items(b) {
            let (mut up, mut dn) = (BarrierPath::new(x0), BarrierPath::new(x0));
            let (mut xu, mut xd) = (x0, x0);
            let mut k = 0u32;
            while k < steps {
                let (z0, z1) = fastmath::normal_pair_f64(seed, i, k >> 1);
                xu += drift + vol * z0;
                xd += drift - vol * z0;
                up.step(&prm, k, xu);
                dn.step(&prm, k, xd);
                if k + 1 < steps {
                    xu += drift + vol * z1;
                    xd += drift - vol * z1;
                    up.step(&prm, k + 1, xu);
                    dn.step(&prm, k + 1, xd);
                }
                k += 2;
            }
            let y = 0.5 * (up.value(&prm) + dn.value(&prm));
            sum += y;
            sum_sq += y * y;
        }
        partials.set(2 * b as usize, sum);
        partials.set(2 * b as usize + 1, sum_sq);
    }
}
