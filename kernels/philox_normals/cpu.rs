//! Reference implementation of `philox_normals` (see its kernel.toml).
use std::ops::Range;

use crate::cpu::KernelCall;
use crate::philox::normal_pair_f64;

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let out = call.out::<f64>(0);
    let (seed, offset, paths, steps) = (call.u64(1), call.u64(2), call.u64(3), call.u32(4));
    for b in blocks {
        for p in call.block_items(b) {
            let mut s = 0u32;
            while s < steps {
                let (z0, z1) = normal_pair_f64(seed, offset + p, s >> 1);
                out.set((u64::from(s) * paths + p) as usize, z0);
                if s + 1 < steps {
                    out.set((u64::from(s + 1) * paths + p) as usize, z1);
                }
                s += 2;
            }
        }
    }
}
