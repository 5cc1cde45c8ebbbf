//! The representative pricing workloads the pilot measures on every backend.
//!
//! Each workload is a built-in kernel (or gemm) with arguments sized by one number (`size`:
//! paths or rows) and a count of work units for throughput (path-steps, paths, FLOP). Inputs
//! are never zeros (METHOD: zeros hide unwritten outputs and can run faster than real data).

use tenor_kernels::typed::{CurveBuild, GbmPaths, McAsian, McAsianF32, McEuropean, McEuropeanF32, PayoffAsian};
use tenor_ports::{Compute, ComputeError, ComputeExt, DeviceBuffer, GemmDesc, Kernel, Precision, Stream, Transpose};

/// Steps of the path-generation and payoff workloads.
pub const PATH_STEPS: u32 = 64;
/// Fixings of the Asian workloads (daily over a year).
pub const ASIAN_STEPS: u32 = 252;
/// Basis functions in the LSM regression workload.
pub const LSM_BASIS: usize = 8;
/// Tenors of the curve-build workload (years): the Treasury CMT grid, 1 month to 30 years.
pub const CURVE_TENORS: [f64; 13] = [1. / 12., 2. / 12., 3. / 12., 4. / 12., 0.5, 1., 2., 3., 5., 7., 10., 20., 30.];
/// The base par curve of the curve-build workload (decimal, bond-equivalent): the US Treasury
/// par yields of 2025-07-11 at [`CURVE_TENORS`], the last row of
/// `shared/data/rates/us_treasury_par_yield_2025_h1.csv` (its 1.5-month point left out; a test
/// reads the file and compares).
pub const CURVE_BASE_2025_07_11: [f64; 13] =
    [0.0437, 0.0447, 0.0441, 0.0442, 0.0431, 0.0409, 0.039, 0.0386, 0.0399, 0.0419, 0.0443, 0.0496, 0.0496];
/// Philox seed of the curve-build scenario shocks.
pub const CURVE_SEED: u64 = 0x00C0_FFEE_2025_0711;

/// A workload kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Workload {
    /// GBM path generation (gbm_paths), 64 steps, stored step-major.
    PathGeneration,
    /// Arithmetic and geometric Asian payoffs over stored 64-step paths (payoff_asian): reads
    /// every step of every path.
    PayoffEvaluation,
    /// Fused Monte Carlo European call, fp64 (mc_european).
    McEuropean,
    /// Fused Monte Carlo European call, fp32 (mc_european_f32).
    McEuropeanF32,
    /// Fused Monte Carlo 252-step arithmetic Asian with geometric control variate, fp64.
    McAsian,
    /// The same in fp32 (mc_asian_f32).
    McAsianF32,
    /// The LSM regression's normal equations through gemm: X^T X, X of size rows x 8, fp64.
    LsmGemm,
    /// A batch of par-yield curve bootstraps (curve_build): `size` scenario curves of the 13
    /// Treasury CMT tenors from one real curve ([`curve_scenarios`]), tenor-major.
    CurveBuild,
}

impl Workload {
    /// All workloads.
    pub const ALL: [Workload; 8] = [
        Self::PathGeneration,
        Self::PayoffEvaluation,
        Self::McEuropean,
        Self::McEuropeanF32,
        Self::McAsian,
        Self::McAsianF32,
        Self::LsmGemm,
        Self::CurveBuild,
    ];

    /// Name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::PathGeneration => "path_generation",
            Self::PayoffEvaluation => "payoff_evaluation",
            Self::McEuropean => "mc_european_f64",
            Self::McEuropeanF32 => "mc_european_f32",
            Self::McAsian => "mc_asian_f64",
            Self::McAsianF32 => "mc_asian_f32",
            Self::LsmGemm => "lsm_gemm_f64",
            Self::CurveBuild => "curve_build",
        }
    }

    /// Unit of the throughput.
    pub fn unit(self) -> &'static str {
        match self {
            Self::PathGeneration | Self::PayoffEvaluation | Self::McAsian | Self::McAsianF32 => "path-steps/s",
            Self::McEuropean | Self::McEuropeanF32 => "paths/s",
            Self::LsmGemm => "FLOP/s",
            Self::CurveBuild => "curves/s",
        }
    }

    /// Work units done at `size`.
    pub fn work(self, size: u64) -> f64 {
        match self {
            Self::PathGeneration | Self::PayoffEvaluation => size as f64 * f64::from(PATH_STEPS),
            Self::McEuropean | Self::McEuropeanF32 => (size / 2 * 2) as f64,
            Self::McAsian | Self::McAsianF32 => (size / 2 * 2) as f64 * f64::from(ASIAN_STEPS),
            Self::LsmGemm => 2.0 * size as f64 * (LSM_BASIS * LSM_BASIS) as f64,
            Self::CurveBuild => size as f64,
        }
    }

    /// The kernel it launches (none for gemm).
    pub fn kernel(self) -> Option<&'static str> {
        match self {
            Self::PathGeneration => Some("gbm_paths"),
            Self::PayoffEvaluation => Some("payoff_asian"),
            Self::McEuropean => Some("mc_european"),
            Self::McEuropeanF32 => Some("mc_european_f32"),
            Self::McAsian => Some("mc_asian"),
            Self::McAsianF32 => Some("mc_asian_f32"),
            Self::LsmGemm => None,
            Self::CurveBuild => Some("curve_build"),
        }
    }

    /// Device bytes the workload allocates at `size` (to keep sweeps inside memory).
    pub fn bytes(self, size: u64) -> u64 {
        match self {
            Self::PathGeneration | Self::PayoffEvaluation => size * u64::from(PATH_STEPS) * 8 + size * 16,
            Self::McEuropean | Self::McEuropeanF32 => size.div_ceil(2 * 4096) * 16 + 64,
            Self::McAsian | Self::McAsianF32 => size.div_ceil(2 * 4096) * 40 + 64,
            Self::LsmGemm => size * LSM_BASIS as u64 * 8 + 1024,
            Self::CurveBuild => size * CURVE_TENORS.len() as u64 * 16 + 1024,
        }
    }
}

/// `n` scenario par curves (decimal yields), tenor-major (`[k * n + c]` is curve `c` at
/// [`CURVE_TENORS`]`[k]`, the `curve_build` layout): the 2025-07-11 Treasury curve
/// ([`CURVE_BASE_2025_07_11`]) moved by a parallel shift of 100 bp times a standard normal and
/// a twist of 50 bp times another, `y = base + shift + twist (ln T - ln 5) / ln 360` (pivot at
/// 5 years, about ±0.5 of the twist at the ends), floored at -1 %. The normals are Philox
/// normals ([`CURVE_SEED`], curve `c`, steps 0 and 1), so every run builds the same curves.
pub fn curve_scenarios(n: usize) -> Vec<f64> {
    let m = CURVE_TENORS.len();
    let mut par = vec![0.0; m * n];
    for c in 0..n {
        let shift = 0.01 * tenor_kernels::philox::normal_f64(CURVE_SEED, c as u64, 0);
        let twist = 0.005 * tenor_kernels::philox::normal_f64(CURVE_SEED, c as u64, 1);
        for (k, (t, base)) in CURVE_TENORS.iter().zip(CURVE_BASE_2025_07_11).enumerate() {
            let pivot = (t.ln() - 5.0f64.ln()) / 360.0f64.ln();
            par[k * n + c] = (base + shift + twist * pivot).max(-0.01);
        }
    }
    par
}

/// A workload prepared on one device and stream: buffers allocated and inputs written.
pub struct Prepared {
    workload: Workload,
    size: u64,
    kernel: Option<Kernel>,
    bufs: Vec<DeviceBuffer>,
}

fn kernel(dev: &dyn Compute, name: &str) -> Result<Kernel, ComputeError> {
    dev.load_kernel(tenor_kernels::get(name)?)
}

/// GBM parameters shared by the workloads: spot 100, r 3 %, q 1 %, vol 20 %, one year.
const SPOT: f64 = 100.0;
const STRIKE: f64 = 100.0;
const RATE: f64 = 0.03;
const DIV: f64 = 0.01;
const VOL: f64 = 0.2;

/// Prepares `w` at `size` on `stream`.
///
/// # Errors
/// Allocation, kernel loading or upload errors.
pub fn prepare(dev: &dyn Compute, stream: &Stream, w: Workload, size: u64) -> Result<Prepared, ComputeError> {
    let k = w.kernel().map(|n| kernel(dev, n)).transpose()?;
    let bufs = match w {
        Workload::PathGeneration => vec![dev.alloc_elems::<f64>(stream, (size * u64::from(PATH_STEPS)) as usize)?],
        Workload::PayoffEvaluation => {
            let paths = dev.alloc_elems::<f64>(stream, (size * u64::from(PATH_STEPS)) as usize)?;
            let dt = 1.0 / f64::from(PATH_STEPS);
            let mu = RATE - DIV - 0.5 * VOL * VOL;
            GbmPaths {
                out: &paths,
                seed: 7,
                paths: size,
                steps: PATH_STEPS,
                spot: SPOT,
                drift_first: mu * dt,
                vol_first: VOL * dt.sqrt(),
                drift_dt: mu * dt,
                vol_sqrt_dt: VOL * dt.sqrt(),
            }
            .launch(dev, stream)?;
            vec![paths, dev.alloc_elems::<f64>(stream, size as usize)?, dev.alloc_elems::<f64>(stream, size as usize)?]
        }
        Workload::McEuropean | Workload::McEuropeanF32 | Workload::McAsian | Workload::McAsianF32 => {
            let per_block = if matches!(w, Workload::McAsian | Workload::McAsianF32) { 5 } else { 2 };
            let blocks = (size / 2).div_ceil(4096).max(1);
            vec![dev.alloc_elems::<f64>(stream, per_block * blocks as usize)?]
        }
        Workload::LsmGemm => {
            // Basis values in (0.5, 1.5): a smooth deterministic fill, never zeros.
            let x: Vec<f64> = (0..size as usize * LSM_BASIS).map(|i| 1.0 + 0.5 * ((i as f64) * 0.618).sin()).collect();
            vec![dev.upload_slice(stream, &x)?, dev.alloc_elems::<f64>(stream, LSM_BASIS * LSM_BASIS)?]
        }
        Workload::CurveBuild => vec![
            dev.upload_slice(stream, &curve_scenarios(size as usize))?,
            dev.upload_slice(stream, &CURVE_TENORS)?,
            dev.alloc_elems::<f64>(stream, size as usize * CURVE_TENORS.len())?,
        ],
    };
    Ok(Prepared { workload: w, size, kernel: k, bufs })
}

impl Prepared {
    /// The values the last run wrote, downloaded and concatenated (paths, payoffs, per-block
    /// partial sums, the gemm product or the curves), for checksums in `tenor certify`.
    /// Synchronises `stream`.
    ///
    /// # Errors
    /// Download errors.
    pub fn output(&self, dev: &dyn Compute, stream: &Stream) -> Result<Vec<f64>, ComputeError> {
        let outputs: &[DeviceBuffer] = match self.workload {
            Workload::PathGeneration
            | Workload::McEuropean
            | Workload::McEuropeanF32
            | Workload::McAsian
            | Workload::McAsianF32 => &self.bufs[..1],
            Workload::PayoffEvaluation => &self.bufs[1..3],
            Workload::LsmGemm => &self.bufs[1..2],
            Workload::CurveBuild => &self.bufs[2..3],
        };
        let mut out = Vec::new();
        for b in outputs {
            out.extend(dev.download_vec::<f64>(stream, b)?);
        }
        Ok(out)
    }

    /// Enqueues one run on `stream` (no synchronisation).
    ///
    /// # Errors
    /// Launch errors.
    pub fn enqueue(&self, dev: &dyn Compute, stream: &Stream) -> Result<(), ComputeError> {
        let size = self.size;
        let b = &self.bufs;
        let t = 1.0f64;
        let dt = t / f64::from(PATH_STEPS);
        let mu = RATE - DIV - 0.5 * VOL * VOL;
        match (self.workload, &self.kernel) {
            (Workload::PathGeneration, Some(k)) => GbmPaths {
                out: &b[0],
                seed: 11,
                paths: size,
                steps: PATH_STEPS,
                spot: SPOT,
                drift_first: mu * dt,
                vol_first: VOL * dt.sqrt(),
                drift_dt: mu * dt,
                vol_sqrt_dt: VOL * dt.sqrt(),
            }
            .launch_loaded(dev, stream, k),
            (Workload::PayoffEvaluation, Some(k)) => PayoffAsian {
                paths_in: &b[0],
                out_arith: &b[1],
                out_geo: &b[2],
                paths: size,
                steps: PATH_STEPS,
                spot: SPOT,
                spot_fixing: 0,
                strike: STRIKE,
                is_call: 1,
                discount: (-RATE * t).exp(),
            }
            .launch_loaded(dev, stream, k),
            (Workload::McEuropean, Some(k)) => McEuropean {
                partials: &b[0],
                seed: 13,
                pairs: size / 2,
                spot: SPOT,
                strike: STRIKE,
                is_call: 1,
                drift: mu * t,
                vol_sqrt_t: VOL * t.sqrt(),
                discount: (-RATE * t).exp(),
            }
            .launch_loaded(dev, stream, k),
            (Workload::McEuropeanF32, Some(k)) => McEuropeanF32 {
                partials: &b[0],
                seed: 13,
                pairs: size / 2,
                spot: SPOT as f32,
                strike: STRIKE as f32,
                is_call: 1,
                drift: (mu * t) as f32,
                vol_sqrt_t: (VOL * t.sqrt()) as f32,
                discount: (-RATE * t).exp() as f32,
            }
            .launch_loaded(dev, stream, k),
            (Workload::McAsian, Some(k)) => {
                let dt = t / f64::from(ASIAN_STEPS);
                let (d, v) = (mu * dt, VOL * dt.sqrt());
                McAsian {
                    partials: &b[0],
                    seed: 17,
                    pairs: size / 2,
                    steps: ASIAN_STEPS,
                    spot: SPOT,
                    strike: STRIKE,
                    is_call: 1,
                    spot_fixing: 0,
                    drift_first: d,
                    vol_first: v,
                    drift_dt: d,
                    vol_sqrt_dt: v,
                    discount: (-RATE * t).exp(),
                }
                .launch_loaded(dev, stream, k)
            }
            (Workload::McAsianF32, Some(k)) => {
                let dt = t / f64::from(ASIAN_STEPS);
                let (d, v) = ((mu * dt) as f32, (VOL * dt.sqrt()) as f32);
                McAsianF32 {
                    partials: &b[0],
                    seed: 17,
                    pairs: size / 2,
                    steps: ASIAN_STEPS,
                    spot: SPOT as f32,
                    strike: STRIKE as f32,
                    is_call: 1,
                    spot_fixing: 0,
                    drift_first: d,
                    vol_first: v,
                    drift_dt: d,
                    vol_sqrt_dt: v,
                    discount: (-RATE * t).exp() as f32,
                }
                .launch_loaded(dev, stream, k)
            }
            (Workload::LsmGemm, _) => {
                // X is stored rows x 8 column-major (ld = rows): C = X^T X (8 x 8).
                let rows = size as usize;
                let mut d = GemmDesc::new(Precision::F64, Transpose::Yes, Transpose::No, LSM_BASIS, LSM_BASIS, rows);
                d.lda = rows;
                d.ldb = rows;
                dev.gemm(stream, &d, &b[0], &b[0], &b[1])
            }
            (Workload::CurveBuild, Some(k)) => {
                CurveBuild { par: &b[0], tenors: &b[1], log_df: &b[2], n: size, m: CURVE_TENORS.len() as u32 }
                    .launch_loaded(dev, stream, k)
            }
            (w, None) => Err(ComputeError::InvalidArgument(format!("workload {} has no kernel loaded", w.name()))),
        }
    }
}
