//! Runs planned jobs on a device: one product, or a batch spread over several streams.
//!
//! A batch enqueues everything first (allocation of each job's partials buffer, the launch and
//! the download, all on the trade's stream `i mod streams`), then waits for the downloads in
//! trade order, adds each job's partials in block order and applies its estimator. Buffers stay
//! alive until every download is complete, so no memory is reused across streams during a batch;
//! the device is synchronised before (ordering earlier frees) and after (surfacing asynchronous
//! errors). Each job's numbers depend only on its arguments, so the results are bitwise the
//! same for any number of streams and threads.
//!
//! The fp64 European, barrier and Asian jobs of one stream with the same kernel, seed and pairs
//! (two or more of them; bumped copies for Greeks included, so common random numbers are kept)
//! run as one `mc_european_batch`, `mc_barrier_batch` or `mc_asian_batch` launch
//! ([`super::fused`]): one upload of their parameters, one launch, one partials buffer and one
//! download per stream and kernel; each job is finished from its slice of those partials, which
//! are bitwise what its own launch would give ([`McConfig::batch`] off gives those launches).

use std::collections::HashMap;

use tenor_ports::{Compute, ComputeExt, DeviceBuffer, Kernel, Pending, Stream};

use super::fused::{self, Member, Partials};
use super::greeks::Bumps;
use super::plan::{f64s, plan_routed, Job};
use super::{stats, McConfig, McError, McPayoff, McPrice, McValuation};

/// A trade's planned jobs (the product, then its bumped copies) and the bumps used.
type Planned = Result<(Vec<Job>, Option<Bumps>), McError>;
/// An enqueued job: its partials buffer (kept alive until the batch ends) and the download.
type Enqueued = Result<(DeviceBuffer, Pending<Vec<u8>>), McError>;

/// Where a job's partials come from.
enum Slot {
    /// Its own launch.
    Own(Enqueued),
    /// Product `index` of batch `batch`.
    Shared { batch: usize, index: usize },
}

/// Prices `product` on `dev` (default stream).
///
/// # Errors
/// [`McError::InvalidParameter`] for a bad contract or configuration; [`McError::Compute`]
/// when the device fails; [`McError::Unsupported`] for a barrier in fp32.
pub fn price<C: Compute + ?Sized, P: McPayoff>(dev: &C, product: &P, cfg: &McConfig) -> Result<McPrice, McError> {
    let cfg = McConfig { streams: 1, ..*cfg };
    let mut out = price_batch(dev, std::slice::from_ref(product), &cfg, false)?;
    out.pop().ok_or_else(|| McError::BadResult("empty batch result".into()))?.map(|v| v.price)
}

/// Prices `product` and its Greeks by bump-and-revalue with common random numbers
/// ([`super::greeks`] gives the bumps).
///
/// # Errors
/// As [`price`], for the product or any bumped copy.
pub fn price_with_greeks<C: Compute + ?Sized, P: McPayoff>(
    dev: &C,
    product: &P,
    cfg: &McConfig,
) -> Result<McValuation, McError> {
    let cfg = McConfig { streams: 1, ..*cfg };
    let mut out = price_batch(dev, std::slice::from_ref(product), &cfg, true)?;
    out.pop().ok_or_else(|| McError::BadResult("empty batch result".into()))?
}

/// Prices many products, trade `i` on stream `i mod cfg.streams`, with Greeks when `greeks`.
/// The outer error is a device failure that affects the whole batch; the inner ones belong to
/// single trades (bad parameters, a failed launch).
///
/// # Errors
/// [`McError::InvalidParameter`] for a bad configuration; [`McError::Compute`] when streams
/// cannot be created or the device reports an asynchronous error.
pub fn price_batch<C: Compute + ?Sized, P: McPayoff>(
    dev: &C,
    products: &[P],
    cfg: &McConfig,
    greeks: bool,
) -> Result<Vec<Result<McValuation, McError>>, McError> {
    price_batch_with_progress(dev, products, cfg, greeks, &mut |_| {})
}

/// [`price_batch`], calling `progress(i)` once trade `i`'s results are in (in trade order), for
/// progress bars.
///
/// # Errors
/// As [`price_batch`].
pub fn price_batch_with_progress<C: Compute + ?Sized, P: McPayoff>(
    dev: &C,
    products: &[P],
    cfg: &McConfig,
    greeks: bool,
    progress: &mut dyn FnMut(usize),
) -> Result<Vec<Result<McValuation, McError>>, McError> {
    cfg.validate()?;
    // Plan every trade: the product itself, then its bumped copies when Greeks are asked for.
    let planned: Vec<Planned> = products
        .iter()
        .map(|p| {
            let (list, bumps) = if greeks {
                let b = Bumps::for_product(p);
                (b.products(p), Some(b))
            } else {
                (vec![*p], None)
            };
            // The bumped copies take the product's route (common random numbers).
            let route = p.call_route();
            let jobs = list.iter().map(|q| plan_routed(q, cfg, route)).collect::<Result<Vec<_>, _>>()?;
            Ok((jobs, bumps))
        })
        .collect();

    dev.synchronize()?;
    let mut streams: Vec<Stream> = vec![dev.default_stream().clone()];
    for _ in 1..cfg.streams {
        streams.push(dev.create_stream()?);
    }
    let mut kernels: HashMap<&'static str, Kernel> = HashMap::new();

    // The jobs of each stream whose kernel has a batch kernel (fp64 mc_european, mc_barrier,
    // mc_asian), grouped by kernel, seed and pairs: groups of two or more become one batch
    // launch each, unless batching is off.
    let mut groups: Vec<(usize, Vec<Member>)> = Vec::new();
    let mut group_of: HashMap<(usize, &'static str, u64, u64), usize> = HashMap::new();
    let mut member: HashMap<(usize, usize), (usize, usize)> = HashMap::new();
    for (i, p) in planned.iter().enumerate() {
        let Ok((jobs, _)) = p else { continue };
        for (j, job) in jobs.iter().enumerate() {
            if let Some(m) = job.launch.as_ref().filter(|_| cfg.batch).and_then(Member::of) {
                let g = *group_of.entry((i % streams.len(), m.kernel, m.seed, m.pairs)).or_insert_with(|| {
                    groups.push((i % streams.len(), Vec::new()));
                    groups.len() - 1
                });
                member.insert((i, j), (g, groups[g].1.len()));
                groups[g].1.push(m);
            }
        }
    }
    let mut batch_of: HashMap<usize, usize> = HashMap::new();
    let mut batches: Vec<Partials> = Vec::new();
    for (g, (stream, members)) in groups.iter().enumerate() {
        let Some(first) = members.first().filter(|_| members.len() >= 2) else { continue };
        let enqueued = load(first.kernel, &mut kernels, || fused::load(dev, members))
            .map(|k| (k.def().blocks(first.pairs), fused::enqueue(dev, &streams[*stream], &k, members)));
        batch_of.insert(g, batches.len());
        batches.push(match enqueued {
            Ok((blocks, e)) => Partials::new(blocks, first.width, e),
            Err(e) => Partials::new(0, first.width, Err(e)),
        });
    }

    // Enqueue everything else.
    let mut slots: Vec<Vec<Option<Slot>>> = Vec::with_capacity(products.len());
    for (i, p) in planned.iter().enumerate() {
        let stream = &streams[i % streams.len()];
        let trade_slots = match p {
            Ok((jobs, _)) => jobs
                .iter()
                .enumerate()
                .map(|(j, job)| match member.get(&(i, j)).and_then(|(g, index)| Some((*batch_of.get(g)?, *index))) {
                    Some((batch, index)) => Some(Slot::Shared { batch, index }),
                    None => enqueue(dev, stream, job, &mut kernels).map(Slot::Own),
                })
                .collect(),
            Err(_) => Vec::new(),
        };
        slots.push(trade_slots);
    }

    // Collect in trade order.
    let mut results = Vec::with_capacity(products.len());
    let mut buffers = Vec::new();
    for (i, (p, trade_slots)) in planned.into_iter().zip(slots).enumerate() {
        let r = p.and_then(|(jobs, bumps)| {
            let mut prices = Vec::with_capacity(jobs.len());
            for (job, slot) in jobs.iter().zip(trade_slots) {
                let width = job.launch.as_ref().map_or(1, |l| l.width());
                let sums = match slot {
                    None => None,
                    Some(Slot::Own(enqueued)) => {
                        let (buf, pending) = enqueued?;
                        buffers.push(buf);
                        let partials = f64s(&pending.wait()?)?;
                        Some(stats::reduce(&partials, width)?)
                    }
                    Some(Slot::Shared { batch, index }) => {
                        let partials = batches
                            .get_mut(batch)
                            .ok_or_else(|| McError::BadResult(format!("no batch {batch}")))?
                            .product(index, &mut buffers)?;
                        Some(stats::reduce(partials, width)?)
                    }
                };
                prices.push(job.finish(sums.as_deref())?);
            }
            let base = *prices.first().ok_or_else(|| McError::BadResult("no job for a trade".into()))?;
            Ok(McValuation { price: base, greeks: bumps.map(|b| b.greeks(&prices)) })
        });
        results.push(r);
        progress(i);
    }
    drop(buffers);
    drop(batches);
    dev.synchronize()?;
    Ok(results)
}

/// Allocates the job's partials, launches its kernel and enqueues the download, on `stream`.
fn enqueue<C: Compute + ?Sized>(
    dev: &C,
    stream: &Stream,
    job: &Job,
    kernels: &mut HashMap<&'static str, Kernel>,
) -> Option<Enqueued> {
    let launch = job.launch.as_ref()?;
    Some((|| {
        let kernel = load(launch.kernel(), kernels, || Ok(launch.load(dev)?))?;
        let blocks = kernel.def().blocks(launch.pairs()) as usize;
        let partials = dev.alloc_elems::<f64>(stream, blocks * launch.width())?;
        launch.enqueue(dev, stream, &kernel, &partials)?;
        let pending = dev.download(stream, &partials, 0, partials.len())?;
        Ok((partials, pending))
    })())
}

/// Kernel `name`, loaded by `open` once per batch.
fn load(
    name: &'static str,
    kernels: &mut HashMap<&'static str, Kernel>,
    open: impl FnOnce() -> Result<Kernel, McError>,
) -> Result<Kernel, McError> {
    if let Some(k) = kernels.get(name) {
        return Ok(k.clone());
    }
    let k = open()?;
    kernels.insert(name, k.clone());
    Ok(k)
}
