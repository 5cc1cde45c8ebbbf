//! Swap cost (1): the port's overhead. The same launch through `&dyn Compute` (the typed
//! `McEuropean` launch generated from its manifest, argument checks
//! against the manifest, hazard tracking, dynamic dispatch) against the adapter's `Driver::launch`
//! called directly with raw arguments, at sizes from tiny (the fixed cost per launch) to large
//! (the cost relative to kernel time).
//!
//! Method: the two calls are timed in interleaved pairs with alternating order
//! ([`super::measure::time_pairs`]); the overhead per launch is the median of the per-pair
//! differences (port minus direct), and the relative overhead is that median over the direct
//! call's median. Timing the two in sequence let order and drift show up as overhead (a first
//! CPU+SYCL report showed -19 % and 966 µs).

use serde::Serialize;
use tenor_kernels::typed::McEuropean;
use tenor_ports::{Arg, Compute, ComputeError, ComputeExt, Device, Driver, RawArg};
use tenor_registry::DeviceVisitor;

use super::measure::{time_pairs, Stats};

/// Port overhead at one size.
#[derive(Debug, Clone, Serialize)]
pub struct OverheadRow {
    /// Backend.
    pub backend: String,
    /// Paths per launch.
    pub paths: u64,
    /// Interleaved pairs timed.
    pub pairs: usize,
    /// Through `dyn Compute` (launch and synchronisation), over the pairs.
    pub port: Stats,
    /// Through the adapter's driver directly (launch and synchronisation), over the pairs.
    pub direct: Stats,
    /// Median over pairs of (port - direct), microseconds per launch.
    pub overhead_us: f64,
    /// First and third quartiles of the per-pair differences, microseconds.
    pub overhead_iqr_us: (f64, f64),
    /// `overhead_us` relative to the direct call's median time.
    pub overhead_rel: f64,
    /// Both paths produced bitwise the same partial sums (and as many of them).
    pub same_results: bool,
}

/// Sizes (paths per launch) the pilot measures the overhead at: 2, 2^10, 2^16 and 2^20.
pub const SIZES: [u64; 4] = [2, 1 << 10, 1 << 16, 1 << 20];

/// Measures the overhead at each of `sizes` (paths per launch), `budget_s` seconds of pairs per
/// size (at least 5 pairs, at most 5000).
pub struct Measure {
    /// Paths per launch.
    pub sizes: Vec<u64>,
    /// Time budget per size (seconds).
    pub budget_s: f64,
}

fn partials_len(pairs: u64) -> usize {
    2 * pairs.div_ceil(4096).max(1) as usize
}

impl DeviceVisitor for Measure {
    type Output = Result<Vec<OverheadRow>, ComputeError>;

    fn visit<D: Driver>(self, device: &Device<D>) -> Self::Output {
        let dyn_dev: &dyn Compute = device;
        let s = dyn_dev.default_stream().clone();
        let k = McEuropean::load(dyn_dev)?;
        let mut rows = Vec::new();
        for &paths in &self.sizes {
            let pairs = (paths / 2).max(1);
            let out_port = dyn_dev.alloc_elems::<f64>(&s, partials_len(pairs))?;
            let out_direct = dyn_dev.alloc_elems::<f64>(&s, partials_len(pairs))?;
            let launch = |partials| McEuropean {
                partials,
                seed: 5,
                pairs,
                spot: 100.0,
                strike: 100.0,
                is_call: 1,
                drift: 0.0,
                vol_sqrt_t: 0.2,
                discount: 0.97,
            };
            let raw: Vec<RawArg> = launch(&out_direct)
                .args()
                .iter()
                .map(|a| match a {
                    Arg::Buf(b, _) => RawArg::Ptr(b.ptr(), b.len() as u64),
                    Arg::U32(v) => RawArg::U32(*v),
                    Arg::I32(v) => RawArg::I32(*v),
                    Arg::U64(v) => RawArg::U64(*v),
                    Arg::F32(v) => RawArg::F32(*v),
                    Arg::F64(v) => RawArg::F64(*v),
                })
                .collect();
            // SAFETY: the direct path launches on this device's default stream into
            // `out_direct`, a live buffer of this device sized for the launch (partials_len, the
            // manifest's 2*blocks), which no other argument aliases and only this stream uses;
            // every launch is followed by a device synchronisation before the next.
            let drv = unsafe { device.driver() };
            let p = time_pairs(
                2,
                5,
                5000,
                self.budget_s,
                || {
                    launch(&out_port).launch_loaded(dyn_dev, &s, &k)?;
                    dyn_dev.synchronize()
                },
                || {
                    // SAFETY: as above: `raw` is `out_direct` and the scalars of a checked launch.
                    unsafe { drv.launch(&s, &k, pairs, &raw)? };
                    drv.synchronize()
                },
            )?;
            let a: Vec<f64> = dyn_dev.download_vec(&s, &out_port)?;
            let b: Vec<f64> = dyn_dev.download_vec(&s, &out_direct)?;
            let same = a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits());
            rows.push(OverheadRow {
                backend: dyn_dev.info().backend.clone(),
                paths: pairs * 2,
                pairs: p.pairs,
                overhead_us: p.diff_median_s * 1e6,
                overhead_iqr_us: (p.diff_q1_s * 1e6, p.diff_q3_s * 1e6),
                overhead_rel: p.diff_median_s / p.b.median_s,
                port: p.a,
                direct: p.b,
                same_results: same,
            });
        }
        Ok(rows)
    }
}
