//! Reference implementation of `mc_european` (see its kernel.toml).
//!
//! Pairs are processed in chunks of [`CHUNK`] Philox calls (`2 CHUNK` pairs), one stage at a
//! time over arrays (Philox words, radii, normals, exponentials, pair values), so that each
//! stage is a branch-free loop LLVM vectorises; the pair values are then added in pair order.
//! Every operation is an IEEE add, multiply, divide or square root (no fused multiply-add), so
//! the portable build and the AVX2 build chosen at run time give bitwise the same sums.
use std::ops::Range;

use crate::cpu::KernelCall;
use crate::fastmath;
use crate::philox::{counter, key, philox4x32_10, uniform_f64};

/// Philox calls per chunk: 2 CHUNK pairs.
const CHUNK: usize = 64;

/// The launch's scalars (one product's; `mc_european_batch` builds one per product).
#[derive(Clone, Copy)]
pub(crate) struct Params {
    seed: u64,
    spot: f64,
    strike: f64,
    w: f64,
    drift: f64,
    vol: f64,
    half_discount: f64,
}

/// Runs blocks `blocks` of the launch.
///
/// # Safety
/// See [`crate::cpu::CpuKernelFn`].
pub unsafe fn run(call: &KernelCall<'_>, blocks: Range<u64>) {
    let p = Params::new(call.u64(1), call.f64(3), call.f64(4), call.u32(5), call.f64(6), call.f64(7), call.f64(8));
    let partials = call.out::<f64>(0);
    for b in blocks {
        let (sum, sum_sq) = pair_sums(&p, call.block_items(b));
        partials.set(2 * b as usize, sum);
        partials.set(2 * b as usize + 1, sum_sq);
    }
}

impl Params {
    /// The parameters of one product, from the manifest's arguments (`vol` is `vol_sqrt_t`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        seed: u64,
        spot: f64,
        strike: f64,
        is_call: u32,
        drift: f64,
        vol: f64,
        discount: f64,
    ) -> Self {
        Self { seed, spot, strike, w: if is_call != 0 { 1.0 } else { -1.0 }, drift, vol, half_discount: 0.5 * discount }
    }
}

/// `(sum of Y, sum of Y^2)` over `pairs` (within one block), in pair order: the values
/// `mc_european` writes for a block, shared with `mc_european_batch` so that both are bitwise
/// the same.
pub(crate) fn pair_sums(p: &Params, pairs: Range<u64>) -> (f64, f64) {
    block_sums(p, pairs)
}

crate::simd::avx2_dispatch! {
    /// Sums of the pair values `Y` and `Y^2` over `pairs`, in pair order, on the best instruction
    /// set of this CPU (the same numbers on every one).
    fn block_sums, block_sums_avx2(p: &Params, pairs: Range<u64>) -> (f64, f64) = block_sums_portable
}

/// The pair values of `pairs`: pair `2j` uses the cosine normal of Philox call `j` (the counter
/// of path `j`, step 0), pair `2j + 1` its sine normal (step 1).
#[inline(always)]
fn block_sums_portable(p: &Params, pairs: Range<u64>) -> (f64, f64) {
    let (mut sum, mut sum_sq) = (0.0, 0.0);
    let k = key(p.seed);
    let mut j0 = pairs.start / 2;
    let j_end = pairs.end.div_ceil(2);
    let mut u1 = [0.0; CHUNK];
    let mut u2 = [0.0; CHUNK];
    let mut z = [0.0; 2 * CHUNK];
    let mut x = [0.0; 4 * CHUNK];
    let mut e = [0.0; 4 * CHUNK];
    let mut y = [0.0; 2 * CHUNK];
    while j0 < j_end {
        for (c, (a, b)) in u1.iter_mut().zip(u2.iter_mut()).enumerate() {
            let w = philox4x32_10(counter(j0 + c as u64, 0), k);
            *a = uniform_f64(w[0], w[1]);
            *b = uniform_f64(w[2], w[3]);
        }
        // Box-Muller, both outputs: z[2c] = r cos(2 pi u2), z[2c + 1] = r sin(2 pi u2).
        for (c, zz) in z.chunks_exact_mut(2).enumerate() {
            let r = (-2.0 * fastmath::ln_unit(u1[c])).sqrt();
            let (s, co) = fastmath::sincos_2pi(u2[c]);
            zz[0] = r * co;
            zz[1] = r * s;
        }
        for (xx, &zi) in x.chunks_exact_mut(2).zip(z.iter()) {
            xx[0] = p.drift + p.vol * zi;
            xx[1] = p.drift - p.vol * zi;
        }
        fastmath::exp_lanes(&x, &mut e);
        for (yy, ee) in y.iter_mut().zip(e.chunks_exact(2)) {
            let up = p.spot * ee[0];
            let dn = p.spot * ee[1];
            *yy = p.half_discount * (payoff(p.w * (up - p.strike)) + payoff(p.w * (dn - p.strike)));
        }
        // Pairs 2 j0 .. of this chunk that lie in the block, in order.
        let first = 2 * j0;
        let lo = pairs.start.saturating_sub(first) as usize;
        let hi = ((pairs.end - first) as usize).min(2 * CHUNK);
        for &v in &y[lo..hi] {
            sum += v;
            sum_sq += v * v;
        }
        j0 += CHUNK as u64;
    }
    (sum, sum_sq)
}

/// `max(v, 0)` as a select (vectorises to one max instruction).
#[inline(always)]
fn payoff(v: f64) -> f64 {
    if v > 0.0 {
        v
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same sums written one pair at a time with the scalar functions (`normal_pair_f64`,
    /// `exp`, `f64::max`).
    fn scalar_sums(p: &Params, pairs: Range<u64>) -> (f64, f64) {
        let (mut sum, mut sum_sq) = (0.0, 0.0);
        for i in pairs {
            let (c, s) = fastmath::normal_pair_f64(p.seed, i / 2, 0);
            let z = if i % 2 == 0 { c } else { s };
            let up = p.spot * fastmath::exp(p.drift + p.vol * z);
            let dn = p.spot * fastmath::exp(p.drift - p.vol * z);
            let y = p.half_discount * ((p.w * (up - p.strike)).max(0.0) + (p.w * (dn - p.strike)).max(0.0));
            sum += y;
            sum_sq += y * y;
        }
        (sum, sum_sq)
    }

    fn params(w: f64, vol: f64) -> Params {
        Params { seed: 11, spot: 100.0, strike: 95.0, w, drift: -0.02, vol, half_discount: 0.48 }
    }

    /// The chunked, vectorised code is bitwise the scalar loop, on the portable build and on
    /// AVX2 where the CPU has it, for odd starts and ends, and with exponents outside the
    /// polynomial's range (vol 120: the fallback lanes).
    #[test]
    fn chunked_lanes_are_bitwise_the_scalar_loop() {
        for (w, vol) in [(1.0, 0.2), (-1.0, 0.35), (1.0, 120.0), (-1.0, 120.0)] {
            let p = params(w, vol);
            for range in [0..4096u64, 1..130, 3..4, 4095..8193, 1_000_001..1_000_002, 0..1] {
                let want = scalar_sums(&p, range.clone());
                let got = block_sums_portable(&p, range.clone());
                assert_eq!(got.0.to_bits(), want.0.to_bits(), "{range:?} vol {vol}: {got:?} vs {want:?}");
                assert_eq!(got.1.to_bits(), want.1.to_bits(), "{range:?} vol {vol}");
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2.
                    let avx2 = unsafe { block_sums_avx2(&p, range.clone()) };
                    assert_eq!(avx2.0.to_bits(), want.0.to_bits(), "avx2 {range:?} vol {vol}");
                    assert_eq!(avx2.1.to_bits(), want.1.to_bits(), "avx2 {range:?} vol {vol}");
                }
            }
        }
    }
}
