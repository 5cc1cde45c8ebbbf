//! Philox4x32-10, the counter-based generator of Salmon, Moraes, Dror and Shaw, "Parallel
//! random numbers: as easy as 1, 2, 3" (SC'11), and Tenor's mapping of (seed, path, step) to
//! uniforms and standard normals. Every backend implements exactly this mapping (the CUDA,
//! SYCL and OpenCL preludes in `kernels/common/`), so the raw 32-bit outputs agree bitwise.
//!
//! Mapping (fp64): counter = (step / 2, 0, path mod 2^32, path / 2^32), key = (seed mod 2^32,
//! seed / 2^32). The four output words give two 52-bit uniforms in (0, 1),
//! `u = (k + 0.5) 2^-52` with `k = (x0 << 20) ^ (x1 >> 12)`, and the Box-Muller transform
//! (Box and Muller 1958) gives `r cos(2 pi u2)` for even steps and `r sin(2 pi u2)` for odd
//! steps, with `r = sqrt(-2 ln u1)`.
//!
//! Mapping (fp32): counter = (step / 4, 0, path mod 2^32, path / 2^32); word `i` gives the
//! 23-bit uniform `((x_i >> 9) + 0.5) 2^-23`; words (0, 1) give the normals of steps 4j and
//! 4j+1 (cos, sin), words (2, 3) those of steps 4j+2 and 4j+3.

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

#[inline(always)]
fn mulhilo(a: u32, b: u32) -> (u32, u32) {
    let p = u64::from(a) * u64::from(b);
    ((p >> 32) as u32, p as u32)
}

/// One Philox4x32 bijection with 10 rounds: `counter` under `key`.
#[inline(always)]
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let mut c = counter;
    let mut k = key;
    for round in 0..10 {
        if round > 0 {
            k[0] = k[0].wrapping_add(W0);
            k[1] = k[1].wrapping_add(W1);
        }
        let (hi0, lo0) = mulhilo(M0, c[0]);
        let (hi1, lo1) = mulhilo(M1, c[2]);
        c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0];
    }
    c
}

/// The key for a 64-bit seed.
#[inline(always)]
pub fn key(seed: u64) -> [u32; 2] {
    [seed as u32, (seed >> 32) as u32]
}

/// The counter for a block of normals of `path` (`block` is step/2 in fp64, step/4 in fp32).
#[inline(always)]
pub fn counter(path: u64, block: u32) -> [u32; 4] {
    [block, 0, path as u32, (path >> 32) as u32]
}

/// 52-bit uniform in (0, 1) from two words: `(k + 0.5) 2^-52` with
/// `k = (hi << 20) ^ (lo >> 12)`, exact in fp64 (a 53-bit version would round its largest
/// value to 1.0).
#[inline(always)]
pub fn uniform_f64(hi: u32, lo: u32) -> f64 {
    let k = (u64::from(hi) << 20) ^ (u64::from(lo) >> 12);
    // k + 0.5 without an integer-to-float conversion (which has no vector instruction before
    // AVX-512): the bits of 2^52 + k, minus 2^52 - 0.5, both steps exact since k < 2^52.
    (f64::from_bits(0x4330_0000_0000_0000 | k) - (4_503_599_627_370_496.0 - 0.5)) * (1.0 / 4_503_599_627_370_496.0)
}

/// 23-bit uniform in (0, 1) from one word: `((x >> 9) + 0.5) 2^-23`, exact in fp32 (a 24-bit
/// version would round its largest value to 1.0).
#[inline(always)]
pub fn uniform_f32(x: u32) -> f32 {
    ((x >> 9) as f32 + 0.5) * (1.0 / 8_388_608.0)
}

/// The two fp64 normals of steps `2 * pair` and `2 * pair + 1` of `path`.
#[inline(always)]
pub fn normal_pair_f64(seed: u64, path: u64, pair: u32) -> (f64, f64) {
    let x = philox4x32_10(counter(path, pair), key(seed));
    let u1 = uniform_f64(x[0], x[1]);
    let u2 = uniform_f64(x[2], x[3]);
    let r = (-2.0 * u1.ln()).sqrt();
    let (s, c) = (2.0 * std::f64::consts::PI * u2).sin_cos();
    (r * c, r * s)
}

/// The fp64 standard normal of (seed, path, step).
#[inline(always)]
pub fn normal_f64(seed: u64, path: u64, step: u32) -> f64 {
    let (a, b) = normal_pair_f64(seed, path, step >> 1);
    if step & 1 == 0 {
        a
    } else {
        b
    }
}

/// The four fp32 normals of steps `4 * quad .. 4 * quad + 4` of `path`.
#[inline(always)]
pub fn normal_quad_f32(seed: u64, path: u64, quad: u32) -> [f32; 4] {
    let x = philox4x32_10(counter(path, quad), key(seed));
    let bm = |a: u32, b: u32| {
        let r = (-2.0f32 * uniform_f32(a).ln()).sqrt();
        let (s, c) = (2.0f32 * std::f32::consts::PI * uniform_f32(b)).sin_cos();
        (r * c, r * s)
    };
    let (n0, n1) = bm(x[0], x[1]);
    let (n2, n3) = bm(x[2], x[3]);
    [n0, n1, n2, n3]
}

/// The fp32 standard normal of (seed, path, step).
#[inline(always)]
pub fn normal_f32(seed: u64, path: u64, step: u32) -> f32 {
    normal_quad_f32(seed, path, step >> 2)[(step & 3) as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known-answer vectors published with Random123 (`kat_vectors`, philox4x32_10).
    #[test]
    fn random123_known_answers() {
        assert_eq!(philox4x32_10([0, 0, 0, 0], [0, 0]), [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]);
        assert_eq!(philox4x32_10([u32::MAX; 4], [u32::MAX; 2]), [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]);
        assert_eq!(
            philox4x32_10([0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344], [0xa409_3822, 0x299f_31d0]),
            [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1]
        );
    }

    #[test]
    fn uniforms_stay_inside_the_open_interval() {
        assert!(uniform_f64(0, 0) > 0.0 && uniform_f64(u32::MAX, u32::MAX) < 1.0);
        // The bit construction is the documented (k + 0.5) 2^-52, exactly.
        for (hi, lo) in [(0u32, 0u32), (u32::MAX, u32::MAX), (0x1234_5678, 0x9abc_def0), (1, 4095), (0, 4096)] {
            let k = (u64::from(hi) << 20) ^ (u64::from(lo) >> 12);
            assert_eq!(uniform_f64(hi, lo), (k as f64 + 0.5) / 4_503_599_627_370_496.0);
        }
        assert!(uniform_f32(0) > 0.0 && uniform_f32(u32::MAX) < 1.0);
    }

    #[test]
    fn normals_have_unit_moments() {
        let n = 200_000u64;
        let (mut s1, mut s2) = (0.0, 0.0);
        for p in 0..n {
            let z = normal_f64(7, p, 3);
            s1 += z;
            s2 += z * z;
        }
        let mean = s1 / n as f64;
        let var = s2 / n as f64 - mean * mean;
        // standard errors: mean 1/sqrt(n) = 0.0022, variance sqrt(2/n) = 0.0032
        assert!(mean.abs() < 0.011, "mean {mean}");
        assert!((var - 1.0).abs() < 0.016, "variance {var}");
    }
}
