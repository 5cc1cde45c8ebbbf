//! Swap cost (1): the port's overhead. The same launch through `&dyn Compute` (argument checks
//! against the manifest, hazard tracking, dynamic dispatch) against the adapter's `Driver::launch`
//! called directly with raw arguments, per launch at a tiny size and relative at a large size.

use serde::Serialize;
use tenor_backends::DeviceVisitor;
use tenor_core::{Access, Arg, Compute, ComputeError, ComputeExt, Device, Driver, RawArg};

use super::measure::{time, Stats};

/// Port overhead at one size.
#[derive(Debug, Clone, Serialize)]
pub struct OverheadRow {
    /// Backend.
    pub backend: String,
    /// Paths per launch.
    pub paths: u64,
    /// Through `dyn Compute`.
    pub port: Stats,
    /// Through the adapter's driver directly.
    pub direct: Stats,
    /// Median difference per launch in microseconds.
    pub overhead_us: f64,
    /// Median difference relative to the direct launch time.
    pub overhead_rel: f64,
    /// Both paths produced bitwise the same partial sums.
    pub same_results: bool,
}

/// Measures the overhead at each of `sizes` (paths per launch).
pub struct Measure {
    /// Paths per launch.
    pub sizes: Vec<u64>,
    /// Time budget per measurement (seconds).
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
        let k = dyn_dev.load_kernel(tenor_kernels::get("mc_european")?)?;
        let mut rows = Vec::new();
        for &paths in &self.sizes {
            let pairs = (paths / 2).max(1);
            let out_port = dyn_dev.alloc_elems::<f64>(&s, partials_len(pairs))?;
            let out_direct = dyn_dev.alloc_elems::<f64>(&s, partials_len(pairs))?;
            let scalars = |buf| {
                [
                    buf,
                    Arg::U64(5),
                    Arg::U64(pairs),
                    Arg::F64(100.0),
                    Arg::F64(100.0),
                    Arg::U32(1),
                    Arg::F64(0.0),
                    Arg::F64(0.2),
                    Arg::F64(0.97),
                ]
            };
            let port = time(2, 2000, self.budget_s, || {
                dyn_dev.launch(&s, &k, pairs, &scalars(Arg::Buf(&out_port, Access::Write)))?;
                dyn_dev.synchronize()
            })?;
            let raw: Vec<RawArg> = scalars(Arg::Buf(&out_direct, Access::Write))
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
            let drv = device.driver();
            let direct = time(2, 2000, self.budget_s, || {
                drv.launch(&s, &k, pairs, &raw)?;
                drv.synchronize()
            })?;
            let a: Vec<f64> = dyn_dev.download_vec(&s, &out_port)?;
            let b: Vec<f64> = dyn_dev.download_vec(&s, &out_direct)?;
            let same = a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits());
            let diff = port.median_s - direct.median_s;
            rows.push(OverheadRow {
                backend: dyn_dev.info().backend.clone(),
                paths: pairs * 2,
                overhead_us: diff * 1e6,
                overhead_rel: diff / direct.median_s,
                port,
                direct,
                same_results: same,
            });
        }
        Ok(rows)
    }
}
