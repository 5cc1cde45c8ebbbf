//! Inlined elementary functions for the CPU reference kernels' inner loops.
//!
//! [`exp`] is the classic argument reduction of Cody and Waite (1980) with the split `ln 2` of
//! fdlibm (Sun Microsystems, `e_exp.c`): `x = k ln 2 + r`, `|r| <= ln 2 / 2`, `exp(r)` by its
//! Taylor polynomial of degree 13 in Horner form (truncation error below 2e-17 relative), then
//! scaling by `2^k` through the exponent bits. It is inlined into the loops (no libm call) and
//! stays within 2 ulp of the correctly rounded value on its fast range (tested against `std`),
//! which is far inside the conformance tolerance between backends (`FP64_RTOL` = 1e-12).

const LOG2_E: f64 = std::f64::consts::LOG2_E;
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000); // 6.93147180369123816490e-01, 32 trailing zero bits
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76); // 1.90821492927058770002e-10
const ROUND: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52: adding and subtracting rounds to an integer

/// `e^x`. Arguments outside `(-708, 709)` (and NaN) go to `f64::exp`.
#[inline(always)]
pub fn exp(x: f64) -> f64 {
    if !(x > -708.0 && x < 709.0) {
        return x.exp();
    }
    let kf = (x * LOG2_E + ROUND) - ROUND;
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
    // 2^k, k in [-1022, 1023] on this range.
    let scale = f64::from_bits(((kf as i64 + 1023) as u64) << 52);
    p * scale
}

#[cfg(test)]
mod tests {
    use super::*;

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
