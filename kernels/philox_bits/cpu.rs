//! Reference implementation of `philox_bits` (see its kernel.toml).
use std::ops::Range;

use crate::cpu::KernelCall;
use crate::philox::{key, philox4x32_10};

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let out = call.out::<u32>(0);
    let k = key(call.u64(1));
    for b in blocks {
        for i in call.block_items(b) {
            let x = philox4x32_10([i as u32, (i >> 32) as u32, 0, 0], k);
            for (j, w) in x.iter().enumerate() {
                out.set(4 * i as usize + j, *w);
            }
        }
    }
}
