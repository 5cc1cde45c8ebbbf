//! One batch launch for the jobs of a batch that share a stream, a kernel, a seed and a pair
//! count (see [`super::engine`]): `mc_european_batch`, `mc_barrier_batch`, `mc_asian_batch` and
//! `heston_qe_batch` for the fp64 `mc_european`, `mc_barrier`, `mc_asian` and `heston_qe_mc` jobs.
//!
//! A batch kernel takes the single kernel's scalars after its seed and pairs as one array each
//! (in the single kernel's order), then `products`, `seed`, `pairs` and `items`, and writes for
//! each product exactly the per-block partials the single kernel writes for it alone
//! (kernels/mc_*_batch/kernel.toml), so a job finished from its slice of the batch's partials is
//! bitwise the job finished from its own launch: one upload per parameter array, one launch,
//! one output buffer and one download replace a launch, an allocation and a download per product.

use tenor_ports::{Access, Arg, Compute, ComputeExt, DeviceBuffer, Kernel, Pending, Stream};

use super::plan::{f64s, Launch, Scalar};
use super::McError;

/// The batch kernel of single kernel `single`, when it has one.
pub(crate) fn batch_kernel(single: &str) -> Option<&'static str> {
    match single {
        "mc_european" => Some("mc_european_batch"),
        "mc_barrier" => Some("mc_barrier_batch"),
        "mc_asian" => Some("mc_asian_batch"),
        "heston_qe_mc" => Some("heston_qe_batch"),
        _ => None,
    }
}

/// One single-kernel launch's arguments as a member of a batch.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Member {
    /// The batch kernel.
    pub kernel: &'static str,
    /// Philox seed.
    pub seed: u64,
    /// Antithetic pairs (the single launch's items).
    pub pairs: u64,
    /// Partial sums per block.
    pub width: usize,
    /// The single kernel's scalars after seed and pairs (u32 or f64 each).
    scalars: Vec<Scalar>,
}

impl Member {
    /// The member for `launch` when its kernel has a batch kernel and its scalars are
    /// `seed, pairs` followed by u32 and f64 values, else `None`.
    pub fn of(launch: &Launch) -> Option<Self> {
        let kernel = batch_kernel(launch.kernel)?;
        match launch.scalars.as_slice() {
            [Scalar::U64(seed), Scalar::U64(pairs), rest @ ..]
                if *pairs == launch.pairs && rest.iter().all(|s| matches!(s, Scalar::U32(_) | Scalar::F64(_))) =>
            {
                Some(Self { kernel, seed: *seed, pairs: *pairs, width: launch.width, scalars: rest.to_vec() })
            }
            _ => None,
        }
    }
}

/// An enqueued batch: its buffers (kept alive until the download is complete) and the download
/// of its partials.
pub(crate) type Enqueued = Result<(Vec<DeviceBuffer>, Pending<Vec<u8>>), McError>;

/// Uploads the members' parameters (one array per scalar), launches their batch kernel
/// (`kernel`, loaded) over all of them and enqueues the download of the partials (`width B`
/// values per member, `B` blocks per member, member after member), on `stream`. Every member
/// must have the same kernel, seed, pairs and scalar types (the engine groups them so).
pub(crate) fn enqueue<C: Compute + ?Sized>(dev: &C, stream: &Stream, kernel: &Kernel, members: &[Member]) -> Enqueued {
    let first = members.first().ok_or_else(|| McError::BadResult("empty batch".into()))?;
    let (seed, pairs, width) = (first.seed, first.pairs, first.width);
    let count = u32::try_from(members.len())
        .map_err(|_| McError::BadResult(format!("{} products in one batch", members.len())))?;
    let block = u64::from(kernel.def().launch.block);
    let per_product = pairs.div_ceil(block).max(1);
    let items = u64::from(count) * per_product * block;
    let mut bufs = Vec::with_capacity(first.scalars.len() + 1);
    bufs.push(dev.alloc_elems::<f64>(stream, width * (u64::from(count) * per_product) as usize)?);
    for (k, s) in first.scalars.iter().enumerate() {
        let mismatch =
            || McError::BadResult(format!("{}: argument {k} differs in type between products", first.kernel));
        let column = members.iter().map(|m| m.scalars.get(k).copied());
        bufs.push(match s {
            Scalar::U32(_) => {
                let v = column.map(|x| if let Some(Scalar::U32(v)) = x { Ok(v) } else { Err(mismatch()) });
                dev.upload_slice(stream, &v.collect::<Result<Vec<u32>, _>>()?)?
            }
            _ => {
                let v = column.map(|x| if let Some(Scalar::F64(v)) = x { Ok(v) } else { Err(mismatch()) });
                dev.upload_slice(stream, &v.collect::<Result<Vec<f64>, _>>()?)?
            }
        });
    }
    let mut args: Vec<Arg<'_>> = vec![Arg::Buf(&bufs[0], Access::Write)];
    args.extend(bufs[1..].iter().map(|b| Arg::Buf(b, Access::Read)));
    args.extend([Arg::U32(count), Arg::U64(seed), Arg::U64(pairs), Arg::U64(items)]);
    dev.launch(stream, kernel, items, &args)?;
    drop(args);
    let pending = dev.download(stream, &bufs[0], 0, bufs[0].len())?;
    Ok((bufs, pending))
}

/// A batch's partials: waited for the first time one of its jobs is collected, then shared.
pub(crate) enum Partials {
    /// Enqueued, not yet waited for; `width` values per product.
    Waiting { width: usize, enqueued: Enqueued },
    /// Downloaded (or the error that prevented it, reported for every job of the batch).
    Done { width: usize, partials: Result<Vec<f64>, McError> },
}

impl Partials {
    /// An enqueued batch of products with `blocks` blocks of `width` sums each.
    pub fn new(blocks: u64, width: usize, enqueued: Enqueued) -> Self {
        Self::Waiting { width: width * blocks as usize, enqueued }
    }

    /// Product `index`'s partials (`width B` values), waiting for the download the first time;
    /// `buffers` receives the batch's buffers, to be freed once the whole batch is collected.
    ///
    /// # Errors
    /// The batch's error (upload, launch, download), or [`McError::BadResult`] when the
    /// download holds no values for product `index`.
    pub fn product(&mut self, index: usize, buffers: &mut Vec<DeviceBuffer>) -> Result<&[f64], McError> {
        if let Self::Waiting { width, enqueued } = self {
            let taken = std::mem::replace(enqueued, Err(McError::BadResult("batch partials taken".into())));
            let partials = taken.and_then(|(bufs, pending)| {
                buffers.extend(bufs);
                Ok(f64s(&pending.wait()?)?)
            });
            *self = Self::Done { width: *width, partials };
        }
        match self {
            Self::Done { width, partials: Ok(all) } => all
                .get(index * *width..(index + 1) * *width)
                .ok_or_else(|| McError::BadResult(format!("{} batch partials hold no product {index}", all.len()))),
            Self::Done { partials: Err(e), .. } => Err(e.clone()),
            Self::Waiting { .. } => Err(McError::BadResult("batch partials not downloaded".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mc::plan::plan;
    use crate::mc::{AsianOption, BarrierOption, FixingSchedule, McConfig, McProduct, Monitoring};
    use crate::types::{BarrierType, OptionType, Vanilla};

    fn vanilla() -> Vanilla {
        Vanilla {
            option: OptionType::Call,
            spot: 100.0,
            strike: 100.0,
            maturity: 1.0,
            rate: 0.05,
            dividend: 0.01,
            vol: 0.2,
        }
    }

    /// Every fp64 kind with a batch kernel becomes a batch member carrying the single launch's
    /// scalars after seed and pairs; fp32 launches (no batch kernel) do not.
    #[test]
    fn fp64_european_barrier_and_asian_jobs_are_batch_members() {
        let cfg = McConfig::default();
        let barrier = |monitoring| BarrierOption {
            vanilla: vanilla(),
            barrier_type: BarrierType::DownOut,
            barrier: 90.0,
            rebate: 1.0,
            monitoring,
        };
        let asian = AsianOption { vanilla: vanilla(), schedule: FixingSchedule::uniform(1.0, 12) };
        for (p, kernel, width, scalars) in [
            (McProduct::European(vanilla()), "mc_european_batch", 2, 6),
            (McProduct::Barrier(barrier(Monitoring::Continuous)), "mc_barrier_batch", 2, 12),
            (McProduct::Barrier(barrier(Monitoring::Discrete(12))), "mc_barrier_batch", 2, 12),
            (McProduct::AsianGeometric(asian), "mc_asian_batch", 5, 10),
            (McProduct::AsianArithmetic(asian), "mc_asian_batch", 5, 10),
        ] {
            let job = plan(&p, &cfg).expect("plan");
            let launch = job.launch.as_ref().expect("a launch");
            let m = Member::of(launch).unwrap_or_else(|| panic!("{} is not batched", launch.kernel));
            assert_eq!((m.kernel, m.seed, m.pairs, m.width), (kernel, cfg.seed, cfg.pairs(), width));
            assert_eq!(m.scalars.len(), scalars);
            assert_eq!(m.scalars[..], launch.scalars[2..]);
            let def = tenor_kernels::get(kernel).expect("batch kernel");
            assert_eq!(def.args.len(), 1 + scalars + 4, "{kernel} arguments");
        }
        let f32_cfg = McConfig { precision: tenor_ports::Precision::F32, ..cfg };
        let job = plan(&McProduct::AsianArithmetic(asian), &f32_cfg).expect("plan");
        assert!(Member::of(job.launch.as_ref().expect("launch")).is_none());
    }
}
