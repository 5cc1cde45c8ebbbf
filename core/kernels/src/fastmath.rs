//! Inlined elementary functions for the CPU reference kernels' inner loops.
//!
//! [`exp`] is the classic argument reduction of Cody and Waite (1980) with the split `ln 2` of
//! fdlibm (Sun Microsystems, `e_exp.c`): `x = k ln 2 + r`, `|r| <= ln 2 / 2`, `exp(r)` by its
//! Taylor polynomial of degree 13 in Horner form (truncation error below 2e-17 relative), then
//! scaling by `2^k` through the exponent bits. It is inlined into the loops (no libm call) and
//! stays within 2 ulp of the correctly rounded value on its fast range (tested against `std`),
//! which is far inside the conformance tolerance between backends (`FP64_RTOL` = 1e-12).
//!
//! [`ln_unit`] is fdlibm's reduction `u = m 2^e`, `m` in `(sqrt(1/2), sqrt(2)]`, and
//! `ln m = 2 atanh(s)`, `s = (m - 1) / (m + 1)`, by its odd series up to `s^21`.
//! [`sincos_2pi`] reduces `2 pi u` exactly through `4u = q + f` (q the nearest integer) and
//! evaluates sine and cosine of `f pi / 2` (`|f pi / 2| <= pi / 4`) by their Taylor polynomials
//! of degree 17 and 18, then rotates by the quadrant `q`. [`normal_pair_f64`] is
//! `philox::normal_pair_f64` (the same Philox words and Box-Muller transform) computed with
//! these, for the Monte Carlo inner loops.
//!
//! All of them are branch-free apart from [`exp`]'s range check (quadrant and mantissa choices
//! are selects, integer/float conversions go through exponent bits), so a loop applying them to
//! arrays vectorises; [`exp_core`] and [`exp_lanes`] give [`exp`] in that form. They use only
//! IEEE additions, multiplications, divisions and square roots (no fused multiply-add), so
//! scalar, SSE2 and AVX2 code give bitwise the same values.

const LOG2_E: f64 = std::f64::consts::LOG2_E;
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000); // 6.93147180369123816490e-01, 32 trailing zero bits
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76); // 1.90821492927058770002e-10
const ROUND: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52: adding and subtracting rounds to an integer

/// `e^x`. Arguments outside `(-708, 709)` (and NaN) go to `f64::exp`.
#[inline(always)]
pub fn exp(x: f64) -> f64 {
    if !exp_in_range(x) {
        return x.exp();
    }
    exp_core(x)
}

/// Whether `x` lies in `(-708, 709)`, the range where [`exp_core`] is [`exp`] (false for NaN).
#[inline(always)]
pub fn exp_in_range(x: f64) -> bool {
    x > -708.0 && x < 709.0
}

/// [`exp`] without its range check, branch-free so that loops over lanes vectorise: equal to
/// [`exp`] bit for bit on `(-708, 709)`; any other argument gives a meaningless (but defined)
/// value, which [`exp_lanes`] replaces. `2^k` is built from the bits of the rounded
/// `x log2(e) + 1.5 2^52` (whose low mantissa bits hold `k`), so no float-to-integer conversion
/// is needed.
#[inline(always)]
pub fn exp_core(x: f64) -> f64 {
    let t = x * LOG2_E + ROUND;
    let kf = t - ROUND;
    let r = (x - kf * LN2_HI) - kf * LN2_LO;
    let mut p = 1.0 / 6_227_020_800.0; // 1/13!
    p = p * r + 1.0 / 479_001_600.0;
    p = p * r + 1.0 / 39_916_800.0;
    p = p * r + 1.0 / 3_628_800.0;
    p = p * r + 1.0 / 362_880.0;
    p = p * r + 1.0 / 40_320.0;
    p = p * r + 1.0 / 5_040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    // 2^k, k in [-1022, 1023] on this range: the bits of t are those of 1.5 2^52 plus k, and the
    // shift drops everything above k + 1023.
    let scale = f64::from_bits(t.to_bits().wrapping_add(1023) << 52);
    p * scale
}

/// [`exp`] of every element of `x` into `out` (the shorter length): [`exp_core`] on all lanes
/// (a loop that vectorises), then [`exp`] again on the rare lanes outside its range. Bitwise the
/// same as calling [`exp`] on each element.
#[inline(always)]
pub fn exp_lanes(x: &[f64], out: &mut [f64]) {
    let mut outside = false;
    for (o, &v) in out.iter_mut().zip(x) {
        *o = exp_core(v);
        outside |= !exp_in_range(v);
    }
    if outside {
        for (o, &v) in out.iter_mut().zip(x) {
            *o = exp(v);
        }
    }
}

/// `ln u` for a positive normal `u` (the Philox uniforms lie in `[2^-53, 1)`).
#[inline(always)]
pub fn ln_unit(u: f64) -> f64 {
    // Branch-free (selects only), so that loops over lanes vectorise; the exponent becomes a
    // double through the bits of 2^52 + e (exact), not a conversion instruction.
    let bits = u.to_bits();
    let m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    let big = m > std::f64::consts::SQRT_2;
    let m = if big { m * 0.5 } else { m };
    let biased = (bits >> 52) + u64::from(big);
    let ef = f64::from_bits(0x4330_0000_0000_0000 | biased) - (4_503_599_627_370_496.0 + 1023.0);
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let mut p = 1.0 / 21.0;
    p = p * z + 1.0 / 19.0;
    p = p * z + 1.0 / 17.0;
    p = p * z + 1.0 / 15.0;
    p = p * z + 1.0 / 13.0;
    p = p * z + 1.0 / 11.0;
    p = p * z + 1.0 / 9.0;
    p = p * z + 1.0 / 7.0;
    p = p * z + 1.0 / 5.0;
    p = p * z + 1.0 / 3.0;
    // ln m = 2 atanh(s) = 2 s + 2 s z p(z).
    let ln_m = 2.0 * s + 2.0 * s * z * p;
    ef * LN2_HI + (ln_m + ef * LN2_LO)
}

/// `(sin 2 pi u, cos 2 pi u)` for `u` in `[0, 1]`.
#[inline(always)]
pub fn sincos_2pi(u: f64) -> (f64, f64) {
    let t = 4.0 * u;
    let tq = t + ROUND;
    let q = tq - ROUND;
    // The quadrant q mod 4: the low bits of tq's mantissa (those of 2^51 + q).
    let quadrant = tq.to_bits() & 3;
    let x = (t - q) * std::f64::consts::FRAC_PI_2;
    let x2 = x * x;
    let mut sp = -1.0 / 355_687_428_096_000.0; // -1/17!
    sp = sp * x2 + 1.0 / 1_307_674_368_000.0;
    sp = sp * x2 - 1.0 / 6_227_020_800.0;
    sp = sp * x2 + 1.0 / 39_916_800.0;
    sp = sp * x2 - 1.0 / 362_880.0;
    sp = sp * x2 + 1.0 / 5_040.0;
    sp = sp * x2 - 1.0 / 120.0;
    sp = sp * x2 + 1.0 / 6.0;
    let sin = x - x * x2 * sp;
    let mut cp = 1.0 / 6_402_373_705_728_000.0; // 1/18!
    cp = cp * x2 - 1.0 / 20_922_789_888_000.0;
    cp = cp * x2 + 1.0 / 87_178_291_200.0;
    cp = cp * x2 - 1.0 / 479_001_600.0;
    cp = cp * x2 + 1.0 / 3_628_800.0;
    cp = cp * x2 - 1.0 / 40_320.0;
    cp = cp * x2 + 1.0 / 720.0;
    cp = cp * x2 - 1.0 / 24.0;
    cp = cp * x2 + 0.5;
    let cos = 1.0 - x2 * cp;
    // Rotation by q quarter turns, branch-free: (sin, cos) for q = 0, (cos, -sin), (-sin, -cos),
    // (-cos, sin) for q = 1, 2, 3 (negation is a flip of the sign bit).
    let odd = quadrant & 1 == 1;
    let (a, b) = if odd { (cos, sin) } else { (sin, cos) };
    let flip_sin = (quadrant >> 1) << 63;
    let flip_cos = ((quadrant ^ (quadrant >> 1)) & 1) << 63;
    (f64::from_bits(a.to_bits() ^ flip_sin), f64::from_bits(b.to_bits() ^ flip_cos))
}

/// The two fp64 normals of steps `2 pair` and `2 pair + 1` of `path`: Tenor's Philox mapping
/// (`crate::philox`) with [`ln_unit`] and [`sincos_2pi`].
#[inline(always)]
pub fn normal_pair_f64(seed: u64, path: u64, pair: u32) -> (f64, f64) {
    use crate::philox::{counter, key, philox4x32_10, uniform_f64};
    let x = philox4x32_10(counter(path, pair), key(seed));
    let r = (-2.0 * ln_unit(uniform_f64(x[0], x[1]))).sqrt();
    let (s, c) = sincos_2pi(uniform_f64(x[2], x[3]));
    (r * c, r * s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_and_sincos_within_a_few_ulp_of_std() {
        let mut worst_ln = 0.0f64;
        let mut worst_trig = 0.0f64;
        for i in 0..1_000_000u64 {
            let u = crate::philox::uniform_f64((i * 2_654_435_761) as u32, (i * 40_503) as u32);
            for v in [u, (i as f64 + 0.5) / 1e6, 1.0 - 1e-9 * i as f64, 1e-15 * (i + 1) as f64] {
                let want = v.ln();
                if want != 0.0 {
                    worst_ln = worst_ln.max((ln_unit(v) - want).abs() / (want.abs() * f64::EPSILON));
                }
            }
            // Absolute error against std (std's argument 2 pi u is itself rounded).
            let (s, c) = sincos_2pi(u);
            let a = 2.0 * std::f64::consts::PI * u;
            worst_trig = worst_trig.max((s - a.sin()).abs().max((c - a.cos()).abs()) / f64::EPSILON);
        }
        assert!(worst_ln <= 2.0, "ln: {worst_ln} ulp");
        assert!(worst_trig <= 8.0, "sincos: {worst_trig} eps absolute");
        assert_eq!(sincos_2pi(0.0), (0.0, 1.0));
        assert_eq!(ln_unit(1.0), 0.0);
    }

    #[test]
    fn normals_agree_with_the_philox_mapping() {
        for path in 0..10_000u64 {
            let (a, b) = normal_pair_f64(3, path, 7);
            let (x, y) = crate::philox::normal_pair_f64(3, path, 7);
            assert!((a - x).abs() < 1e-14 * (1.0 + x.abs()) && (b - y).abs() < 1e-14 * (1.0 + y.abs()), "path {path}");
        }
    }

    #[test]
    fn exp_lanes_is_exp_on_every_lane() {
        let x: Vec<f64> = (0..1000)
            .map(|i| -760.0 + 1.53 * f64::from(i))
            .chain([f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -708.0, 709.0, 0.0, -0.0])
            .collect();
        let mut out = vec![0.0; x.len()];
        exp_lanes(&x, &mut out);
        for (v, o) in x.iter().zip(&out) {
            assert_eq!(o.to_bits(), exp(*v).to_bits(), "exp({v})");
        }
        // Inside the range, the branch-free core is the function.
        assert_eq!(exp_core(-1.25).to_bits(), exp(-1.25).to_bits());
        assert!(!exp_in_range(f64::NAN) && exp_in_range(708.9) && !exp_in_range(-708.0));
    }

    #[test]
    fn exp_within_two_ulp_of_std() {
        let mut worst = 0.0f64;
        for i in 0..2_000_001 {
            for x in [-700.0 + 1400.0 * f64::from(i) / 2e6, -2.0 + 4.0 * f64::from(i) / 2e6] {
                let (got, want) = (exp(x), x.exp());
                let ulp = want * f64::EPSILON;
                worst = worst.max((got - want).abs() / ulp);
            }
        }
        assert!(worst <= 2.0, "worst error {worst} ulp");
        assert_eq!(exp(0.0), 1.0);
        assert!(exp(f64::NAN).is_nan());
        assert_eq!(exp(-1000.0), 0.0);
        assert_eq!(exp(1000.0), f64::INFINITY);
    }
}
