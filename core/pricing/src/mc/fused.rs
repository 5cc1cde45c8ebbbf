//! One `mc_european_batch` launch for the fp64 European jobs of a batch that share a stream,
//! a seed and a pair count (see [`super::engine`]).
//!
//! The kernel writes, for each product, exactly the per-block partials `mc_european` writes for
//! it alone (kernels/mc_european_batch/kernel.toml), so a job finished from its slice of the
//! batch's partials is bitwise the job finished from its own launch: one upload of the six
//! parameter arrays, one launch, one output buffer and one download replace a launch, an
//! allocation and a download per product.

use tenor_core::{Access, Arg, Compute, ComputeExt, DeviceBuffer, Kernel, Pending, Stream};

use super::plan::{f64s, Launch, Scalar};
use super::McError;

/// The kernel whose jobs are batched (kernels/mc_european).
pub(crate) const SINGLE: &str = "mc_european";
/// The batch kernel (kernels/mc_european_batch).
pub(crate) const BATCH: &str = "mc_european_batch";

/// One `mc_european` launch's arguments, in manifest order after the partials.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct European {
    /// Philox seed.
    pub seed: u64,
    /// Antithetic pairs (the launch's items).
    pub pairs: u64,
    /// spot, strike, drift, vol_sqrt_t, discount.
    reals: [f64; 5],
    /// 1 for a call, 0 for a put.
    is_call: u32,
}

impl European {
    /// The arguments of `launch` when it is an fp64 `mc_european` launch, else `None`.
    pub fn of(launch: &Launch) -> Option<Self> {
        use Scalar::{F64, U32, U64};
        match (launch.kernel, launch.scalars.as_slice()) {
            (
                SINGLE,
                &[U64(seed), U64(pairs), F64(spot), F64(strike), U32(is_call), F64(drift), F64(vol), F64(discount)],
            ) if pairs == launch.pairs => {
                Some(Self { seed, pairs, reals: [spot, strike, drift, vol, discount], is_call })
            }
            _ => None,
        }
    }
}

/// An enqueued batch: its buffers (kept alive until the download is complete) and the download
/// of its partials.
pub(crate) type Enqueued = Result<(Vec<DeviceBuffer>, Pending<Vec<u8>>), McError>;

/// Uploads the products' parameters, launches `mc_european_batch` over all of them and enqueues
/// the download of the partials (`2 B` values per product, `B` blocks per product, product
/// after product), on `stream`. `kernel` is the loaded `mc_european_batch`.
pub(crate) fn enqueue<C: Compute + ?Sized>(
    dev: &C,
    stream: &Stream,
    kernel: &Kernel,
    products: &[European],
) -> Enqueued {
    let first = products.first().ok_or_else(|| McError::BadResult("empty European batch".into()))?;
    let (seed, pairs) = (first.seed, first.pairs);
    let count = u32::try_from(products.len())
        .map_err(|_| McError::BadResult(format!("{} products in one European batch", products.len())))?;
    let block = u64::from(kernel.def().launch.block);
    let per_product = pairs.div_ceil(block);
    let items = u64::from(count) * per_product * block;
    let mut bufs = Vec::with_capacity(7);
    bufs.push(dev.alloc_elems::<f64>(stream, 2 * (u64::from(count) * per_product) as usize)?);
    for k in 0..2 {
        bufs.push(dev.upload_slice(stream, &products.iter().map(|p| p.reals[k]).collect::<Vec<f64>>())?);
    }
    bufs.push(dev.upload_slice(stream, &products.iter().map(|p| p.is_call).collect::<Vec<u32>>())?);
    for k in 2..5 {
        bufs.push(dev.upload_slice(stream, &products.iter().map(|p| p.reals[k]).collect::<Vec<f64>>())?);
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
    /// An enqueued batch of products with `blocks` blocks each.
    pub fn new(blocks: u64, enqueued: Enqueued) -> Self {
        Self::Waiting { width: 2 * blocks as usize, enqueued }
    }

    /// Product `index`'s partials (`2 B` values), waiting for the download the first time;
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
