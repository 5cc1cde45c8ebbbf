//! Cross-backend agreement with the CPU reference, and the run-time switch cost.

use std::time::Instant;

use serde::Serialize;
use tenor_kernels::typed::{CurveBuild, GbmPaths, McEuropean, McEuropeanF32, PhiloxBits};
use tenor_ports::{Compute, ComputeError, ComputeExt};
use tenor_pricing::analytic::black_scholes_price;
use tenor_pricing::types::{OptionType, Vanilla};

use super::SwitchRow;

/// One backend's agreement with the CPU reference on one seeded workload.
#[derive(Debug, Clone, Serialize)]
pub struct AgreementRow {
    /// Backend compared.
    pub backend: String,
    /// Workload.
    pub workload: String,
    /// `bitwise` (integers) or `tolerance` (floating point).
    pub kind: String,
    /// Largest difference relative to the reference's largest magnitude (0 when bitwise equal).
    pub max_rel_diff: f64,
    /// Tolerance applied (0 for bitwise).
    pub tolerance: f64,
    /// Whether it agrees.
    pub agrees: bool,
}

fn philox(dev: &dyn Compute) -> Result<Vec<u32>, ComputeError> {
    let s = dev.default_stream().clone();
    let n = 1u64 << 16;
    let out = dev.alloc_elems::<u32>(&s, 4 * n as usize)?;
    PhiloxBits { out: &out, seed: 99, n }.launch(dev, &s)?;
    dev.download_vec(&s, &out)
}

fn paths(dev: &dyn Compute) -> Result<Vec<f64>, ComputeError> {
    let s = dev.default_stream().clone();
    let (n, steps) = (4096u64, 16u32);
    let out = dev.alloc_elems::<f64>(&s, (n * u64::from(steps)) as usize)?;
    GbmPaths {
        out: &out,
        seed: 3,
        paths: n,
        steps,
        spot: 100.0,
        drift_first: 0.002,
        vol_first: 0.07,
        drift_dt: 0.001,
        vol_sqrt_dt: 0.05,
    }
    .launch(dev, &s)?;
    dev.download_vec(&s, &out)
}

/// Discounted Monte Carlo price and standard error of a European call (spot = strike = 100,
/// r = 3 %, q = 1 %, vol = 20 %, one year) from `pairs` antithetic pairs, fp64 or fp32.
fn mc_call(dev: &dyn Compute, pairs: u64, f32_kernel: bool) -> Result<(f64, f64), ComputeError> {
    let s = dev.default_stream().clone();
    let blocks = if f32_kernel { McEuropeanF32::blocks(pairs) } else { McEuropean::blocks(pairs) };
    let out = dev.alloc_elems::<f64>(&s, 2 * blocks as usize)?;
    let (r, q, v, t) = (0.03f64, 0.01f64, 0.2f64, 1.0f64);
    let drift = (r - q - 0.5 * v * v) * t;
    let disc = (-r * t).exp();
    if f32_kernel {
        McEuropeanF32 {
            partials: &out,
            seed: 21,
            pairs,
            spot: 100.0,
            strike: 100.0,
            is_call: 1,
            drift: drift as f32,
            vol_sqrt_t: (v * t.sqrt()) as f32,
            discount: disc as f32,
        }
        .launch(dev, &s)?;
    } else {
        McEuropean {
            partials: &out,
            seed: 21,
            pairs,
            spot: 100.0,
            strike: 100.0,
            is_call: 1,
            drift,
            vol_sqrt_t: v * t.sqrt(),
            discount: disc,
        }
        .launch(dev, &s)?;
    }
    let p: Vec<f64> = dev.download_vec(&s, &out)?;
    let (sum, sumsq) = p.chunks_exact(2).fold((0.0, 0.0), |(a, b), c| (a + c[0], b + c[1]));
    let est = tenor_pricing::mc::plain_estimate(sum, sumsq, pairs);
    Ok((est.price, est.stderr))
}

/// `ln D` of 4096 scenario curves ([`super::workloads::curve_scenarios`]) by `curve_build`.
fn curves(dev: &dyn Compute) -> Result<Vec<f64>, ComputeError> {
    use super::workloads::{curve_scenarios, CURVE_TENORS};
    let s = dev.default_stream().clone();
    let (n, m) = (4096usize, CURVE_TENORS.len());
    let par = dev.upload_slice(&s, &curve_scenarios(n))?;
    let tenors = dev.upload_slice(&s, &CURVE_TENORS)?;
    let out = dev.alloc_elems::<f64>(&s, n * m)?;
    CurveBuild { par: &par, tenors: &tenors, log_df: &out, n: n as u64, m: m as u32 }.launch(dev, &s)?;
    dev.download_vec(&s, &out)
}

/// Largest difference between `got` and the reference `want`, relative to the reference's
/// largest magnitude.
///
/// Infinity (so no tolerance accepts it) when the lengths differ, when either side is empty,
/// or when any value on either side is NaN or infinite: `f64::max` would silently drop a NaN,
/// and a zip would silently drop the tail of a longer result.
pub fn rel(got: &[f64], want: &[f64]) -> f64 {
    if got.len() != want.len() || got.is_empty() || got.iter().chain(want).any(|x| !x.is_finite()) {
        return f64::INFINITY;
    }
    let scale = want.iter().fold(0.0f64, |m, x| m.max(x.abs())).max(f64::MIN_POSITIVE);
    got.iter().zip(want).fold(0.0f64, |m, (x, y)| m.max((x - y).abs() / scale))
}

/// Compares `backend` with the CPU backend on seeded workloads.
///
/// # Errors
/// Backend errors.
pub fn against_cpu(backend: &str) -> Result<Vec<AgreementRow>, ComputeError> {
    let dev = tenor_registry::open(backend)?;
    let cpu = tenor_registry::open("cpu")?;
    let row = |w: &str, kind: &str, d: f64, tol: f64| AgreementRow {
        backend: backend.into(),
        workload: w.into(),
        kind: kind.into(),
        max_rel_diff: d,
        tolerance: tol,
        agrees: d <= tol,
    };
    let bits_equal = philox(&*dev)? == philox(&*cpu)?;
    let mut rows = vec![row("philox_bits", "bitwise", if bits_equal { 0.0 } else { 1.0 }, 0.0)];
    rows.push(row("gbm_paths", "tolerance", rel(&paths(&*dev)?, &paths(&*cpu)?), 1e-12));
    let (a, _) = mc_call(&*dev, 1 << 16, false)?;
    let (b, _) = mc_call(&*cpu, 1 << 16, false)?;
    rows.push(row("mc_european_f64", "tolerance", rel(&[a], &[b]), 1e-12));
    let (a, _) = mc_call(&*dev, 1 << 16, true)?;
    let (b, _) = mc_call(&*cpu, 1 << 16, true)?;
    rows.push(row("mc_european_f32", "tolerance", rel(&[a], &[b]), 1e-5));
    // Every scenario curve is solvable: a NaN (a node not solved) on either side disagrees.
    let (a, b) = (curves(&*dev)?, curves(&*cpu)?);
    let d = if a.iter().chain(&b).all(|x| x.is_finite()) { rel(&a, &b) } else { f64::INFINITY };
    rows.push(row("curve_build", "tolerance", d, 1e-12));
    Ok(rows)
}

/// The kernel the switch measurement prices with.
pub const SWITCH_KERNEL: &str = "mc_european";

/// Swap cost (2): completes the switch to `backend`, opened on `dev` `open_s` seconds after
/// `started`: prices a European call by Monte Carlo (2^17 antithetic pairs) and verifies it
/// against Black-Scholes (within 4 standard errors); `seconds` runs from `started` to the
/// verified price.
///
/// # Errors
/// Backend errors.
pub fn first_price(backend: &str, dev: &dyn Compute, started: Instant, open_s: f64) -> Result<SwitchRow, ComputeError> {
    let (price, stderr) = mc_call(dev, 1 << 17, false)?;
    let contract = Vanilla {
        option: OptionType::Call,
        spot: 100.0,
        strike: 100.0,
        maturity: 1.0,
        rate: 0.03,
        dividend: 0.01,
        vol: 0.2,
    };
    let reference = black_scholes_price(&contract).map_err(|e| ComputeError::InvalidArgument(e.to_string()))?;
    let correct = price.is_finite() && stderr.is_finite() && (price - reference).abs() <= 4.0 * stderr;
    let seconds = started.elapsed().as_secs_f64();
    Ok(SwitchRow { backend: backend.into(), seconds, open_s, price, reference, stderr, correct })
}

#[cfg(test)]
mod tests {
    use super::rel;

    #[test]
    fn rel_measures_against_the_largest_reference_magnitude() {
        // |2.5 - 2| / 4 = 0.125 beats |1.1 - 1| / 4 = 0.025.
        assert_eq!(rel(&[1.1, 2.5, 4.0], &[1.0, 2.0, 4.0]), 0.125);
        assert_eq!(rel(&[3.0, -7.0], &[3.0, -7.0]), 0.0);
    }

    #[test]
    fn rel_rejects_nan_inf_and_length_mismatch() {
        for (got, want) in [
            (vec![1.0, f64::NAN], vec![1.0, 2.0]),
            (vec![1.0, 2.0], vec![f64::NAN, 2.0]),
            (vec![f64::INFINITY, 2.0], vec![1.0, 2.0]),
            (vec![1.0, 2.0], vec![1.0, f64::NEG_INFINITY]),
            (vec![1.0], vec![1.0, 2.0]),
            (vec![1.0, 2.0, 3.0], vec![1.0, 2.0]),
            (vec![], vec![]),
        ] {
            let d = rel(&got, &want);
            assert_eq!(d, f64::INFINITY, "{got:?} vs {want:?}: {d}");
        }
    }
}
