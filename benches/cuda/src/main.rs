//! `tenor-benches-cuda`: the CUDA backend's checks and benchmarks on a GPU machine, each writing
//! a JSON record (run by `scripts/gpu-check run`, rendered by `scripts/gpu-check report`).
//!
//! * `book`: the example book priced by the library's book pricer with every row on the Monte
//!   Carlo engines (`tenor price --engine mc`, Greeks off) on CUDA and on the CPU reference
//!   backend, same seed; each row's two prices must agree within the fp64 tolerance (1e-12).
//! * `determinism`: a multi-stream pricing job run twice on the default pool in deterministic
//!   mode; the prices must be bitwise identical.
//! * `alloc`: host latency of an alloc + free pair per size and allocator, stream-ordered (a batch
//!   of pairs, one synchronisation at its end) and with a synchronisation after every pair; the
//!   toolkit's strategies (tenor-alloc) over the default pool are among the allocators. The
//!   `cuMemAlloc` baseline is measured first on a bare context, alone and beside one resident
//!   small block (two states of the driver with 20-30x different costs below 4 MiB).
//! * `loop`: a bursty multi-stream pricing loop (path generation and payoff evaluation on
//!   different streams, per-job scratch) timed end to end with each allocator.
//! * `mc`: Monte Carlo throughput of the fused kernels (fp32/fp64 European, fp32 Asian).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context as _, Result};
use clap::{Parser, Subcommand};
use serde_json::{json, Value};
use tenor_alloc as ta;
use tenor_cuda::alloc::{
    DefaultPool, ExplicitPool, ExplicitPoolConfig, PlainAllocator, PoolConfig, ReusePolicy, Sharing,
};
use tenor_cuda::{cuda_stream, cuda_with_allocator, CudaCompute};
use tenor_kernels::typed::{GbmPaths, McAsianF32, McEuropean, McEuropeanF32, PayoffAsian, ReduceSumSumsq};
use tenor_ports::{Allocator, Compute, ComputeExt, Stream};
use tenor_pricing::engines::{Engine, ANALYTIC};
use tenor_pricing::portfolio::{price_book, read_portfolio, BookConfig};
use tenor_pricing::types::{OptionType, Vanilla};

/// CUDA backend checks and benchmarks.
#[derive(Debug, Parser)]
struct Cli {
    /// Where to write the JSON record.
    #[arg(long, global = true)]
    out: Option<PathBuf>,
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Device, driver and library versions.
    Info,
    /// Price a portfolio CSV on CUDA and on the CPU backend and compare.
    Book {
        /// The portfolio CSV.
        book: PathBuf,
        /// Antithetic pairs per trade.
        #[arg(long, default_value_t = 1 << 17)]
        pairs: u64,
    },
    /// Two runs of a multi-stream job in deterministic mode, compared bitwise.
    Determinism,
    /// Alloc + free latency per size and allocator.
    Alloc {
        /// Pairs per size and allocator with a synchronisation after each.
        #[arg(long, default_value_t = 200)]
        iters: usize,
        /// Stream-ordered batches per size and allocator (median reported).
        #[arg(long, default_value_t = 15)]
        batches: usize,
        /// Pairs per stream-ordered batch.
        #[arg(long, default_value_t = 1000)]
        batch: usize,
    },
    /// Bursty multi-stream pricing loop per allocator.
    Loop {
        /// Jobs per run.
        #[arg(long, default_value_t = 256)]
        jobs: usize,
    },
    /// Monte Carlo throughput.
    Mc {
        /// Timed repetitions (median reported).
        #[arg(long, default_value_t = 5)]
        reps: usize,
        /// Folder of kernel variants `<kernel>.<tag>.cu` to time beside the built-in sources
        /// (same manifest; for tuning).
        #[arg(long)]
        variants: Option<PathBuf>,
    },
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Cmd::Info => info(),
        Cmd::Book { book, pairs } => run_book(book, *pairs),
        Cmd::Determinism => determinism(),
        Cmd::Alloc { iters, batches, batch } => alloc_bench(*iters, *batches, *batch),
        Cmd::Loop { jobs } => loop_bench(*jobs),
        Cmd::Mc { reps, variants } => mc_bench(*reps, variants.as_deref()),
    };
    match result {
        Ok((value, ok)) => {
            let text = serde_json::to_string_pretty(&value).unwrap_or_default();
            println!("{text}");
            if let Some(p) = &cli.out {
                if let Err(e) = std::fs::write(p, &text) {
                    eprintln!("error: writing {}: {e}", p.display());
                    return std::process::ExitCode::FAILURE;
                }
            }
            if ok {
                std::process::ExitCode::SUCCESS
            } else {
                eprintln!("error: check failed (see the record)");
                std::process::ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

type Make = Box<dyn Fn(&Arc<tenor_cuda::Context>) -> Result<Arc<dyn Allocator>, tenor_ports::ComputeError>>;

fn pool(sharing: Sharing, reuse: ReusePolicy) -> Make {
    Box::new(move |ctx| {
        Ok(Arc::new(DefaultPool::new(ctx.clone(), PoolConfig { sharing, reuse })?) as Arc<dyn Allocator>)
    })
}

/// A toolkit strategy over the driver's default pool with release threshold 0 (what a process gets
/// by default): the strategy caches on the host, the pool orders reuse across streams.
fn toolkit(build: fn(Arc<dyn Allocator>) -> Arc<dyn Allocator>) -> Make {
    Box::new(move |ctx| {
        let cfg = PoolConfig { sharing: Sharing::Unknown, reuse: ReusePolicy::driver_default() };
        Ok(build(Arc::new(DefaultPool::new(ctx.clone(), cfg)?)))
    })
}

/// The allocators compared, by report name (the first is the baseline of the ratios).
fn allocators() -> Vec<(&'static str, Make)> {
    vec![
        ("cuMemAlloc/cuMemFree", Box::new(|ctx| Ok(Arc::new(PlainAllocator::new(ctx.clone())) as Arc<dyn Allocator>))),
        ("default pool, threshold 0", pool(Sharing::Unknown, ReusePolicy::driver_default())),
        ("default pool, threshold max", pool(Sharing::Exclusive, ReusePolicy::driver_default())),
        ("default pool, threshold max, deterministic", pool(Sharing::Exclusive, ReusePolicy::deterministic())),
        (
            "explicit pool, threshold max",
            Box::new(|ctx| {
                let cfg = ExplicitPoolConfig {
                    pool: PoolConfig { sharing: Sharing::Exclusive, reuse: ReusePolicy::driver_default() },
                    ..Default::default()
                };
                Ok(Arc::new(ExplicitPool::new(ctx.clone(), cfg)?) as Arc<dyn Allocator>)
            }),
        ),
        (
            "toolkit pool over default pool",
            toolkit(|up| {
                let cfg = ta::PoolConfig { initial_bytes: 256 << 20, upstream_ordered: true, ..Default::default() };
                Arc::new(ta::Pool::new(up, cfg))
            }),
        ),
        (
            "toolkit binning over default pool",
            toolkit(|up| {
                let cfg = ta::BinningConfig { upstream_ordered: true, ..Default::default() };
                Arc::new(ta::Binning::new(up, cfg))
            }),
        ),
        (
            "toolkit caching over default pool",
            toolkit(|up| {
                let cfg = ta::CachingConfig { upstream_ordered: true, ..Default::default() };
                Arc::new(ta::Caching::new(up, cfg))
            }),
        ),
        (
            "toolkit slab over default pool",
            toolkit(|up| {
                let cfg = ta::SlabConfig { upstream_ordered: true, release_threshold: 256 << 20, ..Default::default() };
                Arc::new(ta::Slab::new(up, cfg))
            }),
        ),
        (
            "toolkit arena over default pool",
            toolkit(|up| {
                let pool = ta::PoolConfig { initial_bytes: 256 << 20, upstream_ordered: true, ..Default::default() };
                Arc::new(ta::Arena::new(up, ta::ArenaConfig { pool, ..Default::default() }))
            }),
        ),
    ]
}

fn device(make: &Make) -> Result<CudaCompute> {
    cuda_with_allocator(0, |ctx| make(ctx)).context("opening CUDA")
}

fn info() -> Result<(Value, bool)> {
    let dev = tenor_cuda::cuda().context("opening CUDA")?;
    let i = dev.info();
    Ok((
        json!({
            "name": i.name, "memory_bytes": i.memory_bytes, "multiprocessors": i.compute_units,
            "driver": i.driver_version, "versions": i.versions.iter().cloned().collect::<std::collections::BTreeMap<_, _>>(),
        }),
        true,
    ))
}

fn run_book(path: &std::path::Path, pairs: u64) -> Result<(Value, bool)> {
    let gpu = tenor_cuda::cuda().context("opening CUDA")?;
    let cpu = tenor_cpu::cpu()?;
    compare_book(&gpu, &cpu, path, pairs)
}

/// The book at `path` priced by [`price_book`] with every row on the Monte Carlo engines
/// (`--engine mc`, `2 pairs` paths, Greeks off) on `dev` and on the reference `reference`: each
/// row's relative difference (0 when bitwise equal) against the fp64 tolerance 1e-12, beside
/// the product's closed form where it has one (`--engine auto`, on the host) as a sanity
/// column. A row either backend could not price is listed as skipped with the reason.
fn compare_book(
    dev: &dyn Compute,
    reference: &dyn Compute,
    path: &std::path::Path,
    pairs: u64,
) -> Result<(Value, bool)> {
    let parsed = read_portfolio(path)?;
    if let Some(e) = parsed.errors.first() {
        bail!("{e}");
    }
    let trades = &parsed.trades;
    let config = BookConfig { engine: Engine::Mc, paths: 2 * pairs, greeks: false, ..BookConfig::default() };
    config.check().map_err(|e| anyhow::anyhow!("--pairs: {e}"))?;
    let t0 = Instant::now();
    let on_dev = price_book(dev, trades, &config, &mut |_| {});
    let dev_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let on_ref = price_book(reference, trades, &config, &mut |_| {});
    let ref_s = t1.elapsed().as_secs_f64();
    let closed = price_book(reference, trades, &BookConfig { engine: Engine::Auto, ..config }, &mut |_| {});
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    let mut worst = 0.0f64;
    for (((t, g), h), c) in trades.iter().zip(on_dev).zip(on_ref).zip(closed) {
        let (g, h) = match (g, h) {
            (Ok(g), Ok(h)) => (g, h),
            (Err(e), _) | (_, Err(e)) => {
                skipped.push(json!([t.id, e.to_string()]));
                continue;
            }
        };
        let rel = if g.price == h.price { 0.0 } else { (g.price - h.price).abs() / h.price.abs().max(1e-300) };
        worst = worst.max(rel);
        let closed_form = c.ok().filter(|r| r.method == ANALYTIC.method).map(|r| r.price);
        rows.push(json!({
            "id": t.id, "kind": t.kind().as_str(), "method": g.method, "cuda": g.price, "cpu": h.price,
            "stderr": g.stderr, "rel_diff": rel, "closed_form": closed_form,
        }));
    }
    let tol = 1e-12;
    Ok((
        json!({"book": path.display().to_string(), "pairs": pairs, "tolerance": tol, "max_rel_diff": worst,
               "rows": rows, "skipped": skipped, "cuda_s": dev_s, "cpu_s": ref_s, "pass": worst <= tol}),
        worst <= tol,
    ))
}

/// One bursty multi-stream job batch: per job, GBM paths on one stream, Asian payoffs and the
/// reduction on another (the tracker orders them with an event), per-job scratch buffers freed
/// at the end of the job; the host synchronises after every `burst` jobs. Returns the per-job
/// sums of the arithmetic payoffs.
fn pricing_loop<C: Compute + ?Sized>(dev: &C, streams: &[Stream], jobs: usize, burst: usize) -> Result<Vec<f64>> {
    let gbm = GbmPaths::load(dev)?;
    let pay = PayoffAsian::load(dev)?;
    let red = ReduceSumSumsq::load(dev)?;
    let (paths, steps) = (1u64 << 14, 64u32);
    let (dt, vol, r) = (1.0 / 64.0, 0.2, 0.03);
    let (d, v) = ((r - 0.5 * vol * vol) * dt, vol * f64::sqrt(dt));
    let mut sums = Vec::with_capacity(jobs);
    let mut pending = Vec::new();
    for j in 0..jobs {
        let gen = &streams[j % streams.len()];
        let eval = &streams[(j + 1) % streams.len()];
        let p = dev.alloc_elems::<f64>(gen, (paths * u64::from(steps)) as usize)?;
        GbmPaths {
            out: &p,
            seed: 7 + j as u64,
            paths,
            steps,
            spot: 100.0,
            drift_first: d,
            vol_first: v,
            drift_dt: d,
            vol_sqrt_dt: v,
        }
        .launch_loaded(dev, gen, &gbm)?;
        let a = dev.alloc_elems::<f64>(eval, paths as usize)?;
        let g = dev.alloc_elems::<f64>(eval, paths as usize)?;
        PayoffAsian {
            paths_in: &p,
            out_arith: &a,
            out_geo: &g,
            paths,
            steps,
            spot: 100.0,
            spot_fixing: 0,
            strike: 90.0 + (j % 20) as f64,
            is_call: 1,
            discount: (-r).exp(),
        }
        .launch_loaded(dev, eval, &pay)?;
        let part = dev.alloc_elems::<f64>(eval, 2 * ReduceSumSumsq::blocks(paths) as usize)?;
        ReduceSumSumsq { x: &a, partials: &part, n: paths }.launch_loaded(dev, eval, &red)?;
        pending.push(dev.download(eval, &part, 0, part.len())?);
        if (j + 1) % burst == 0 || j + 1 == jobs {
            for pnd in pending.drain(..) {
                let bytes = pnd.wait()?;
                let s: f64 =
                    bytes.chunks_exact(16).map(|c| f64::from_le_bytes(c[..8].try_into().unwrap_or([0; 8]))).sum();
                sums.push(s);
            }
            dev.synchronize()?;
        }
    }
    Ok(sums)
}

fn determinism() -> Result<(Value, bool)> {
    let make = pool(Sharing::Exclusive, ReusePolicy::deterministic());
    let run = || -> Result<Vec<f64>> {
        let dev = device(&make)?;
        let streams: Vec<Stream> = (0..4).map(|_| dev.create_stream()).collect::<Result<_, _>>()?;
        pricing_loop(&dev, &streams, 64, 8)
    };
    let (a, b) = (run()?, run()?);
    let same = a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits());
    Ok((json!({"jobs": a.len(), "streams": 4, "bitwise_identical": same, "first_sums": &a[..4.min(a.len())]}), same))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Repetitions of the allocation benchmark.
#[derive(Debug, Clone, Copy)]
struct Reps {
    /// Pairs, each followed by a synchronise (median reported).
    iters: usize,
    /// Stream-ordered batches (median reported).
    batches: usize,
    /// Pairs per stream-ordered batch.
    batch: usize,
}

/// Host latency of one allocator at every size: the stream-ordered pair (`batch` pairs on one
/// stream, one synchronise at the end, time / `batch`; median of `batches`) and the pair followed
/// by a synchronise (median of `iters`). Microseconds.
fn measure(alloc: &dyn Allocator, s: &Stream, sizes: &[usize], reps: Reps) -> Result<Vec<Value>> {
    let Reps { iters, batches, batch } = reps;
    let mut per_size = Vec::new();
    for &size in sizes {
        let mut ordered = Vec::with_capacity(batches);
        for i in 0..batches + 2 {
            let t0 = Instant::now();
            for _ in 0..batch {
                let b = alloc.allocate(size, s)?;
                // SAFETY: `b` was allocated just above and nothing else holds it.
                unsafe { alloc.deallocate(b, s) }?;
            }
            s.synchronize()?;
            if i >= 2 {
                ordered.push(t0.elapsed().as_secs_f64() * 1e6 / batch as f64);
            }
        }
        let mut synced = Vec::with_capacity(iters);
        for i in 0..iters + 10 {
            let t0 = Instant::now();
            let b = alloc.allocate(size, s)?;
            // SAFETY: `b` was allocated just above and nothing else holds it.
            unsafe { alloc.deallocate(b, s) }?;
            s.synchronize()?;
            if i >= 10 {
                synced.push(t0.elapsed().as_secs_f64() * 1e6);
            }
        }
        per_size.push(json!({"bytes": size, "pair_us": median(ordered), "median_us": median(synced)}));
    }
    Ok(per_size)
}

/// The `cuMemAlloc`/`cuMemFree` baselines, measured on a bare context before anything else in
/// the process allocates device memory (no backend, so no cuBLAS handle):
///
/// * alone: no other `cuMemAlloc` block is live, so the driver gives back the memory behind a
///   small block when it is freed, and the next `cuMemAlloc` maps it again;
/// * beside a resident 256 B block: one small block stays live for the whole measurement, which
///   keeps that memory mapped, the state of any process that holds a small buffer (an open
///   backend does: the row measured through it below matches this one).
///
/// Both are real states of the same driver; the report gives the speed-ups against each.
fn plain_baselines(sizes: &[usize], reps: Reps) -> Result<Vec<Value>> {
    let ctx = tenor_cuda::Context::open(0).context("opening CUDA")?;
    let s = tenor_cuda::CudaStream::create(&ctx)?;
    let plain = PlainAllocator::new(ctx.clone());
    let alone = measure(&plain, &s, sizes, reps)?;
    eprintln!("alloc: cuMemAlloc alone done");
    let resident = plain.allocate(256, &s)?;
    let beside = measure(&plain, &s, sizes, reps);
    // SAFETY: `resident` was allocated above, only kept live, and nothing else holds it.
    unsafe { plain.deallocate(resident, &s) }?;
    eprintln!("alloc: cuMemAlloc beside a resident block done");
    Ok(vec![
        json!({"allocator": "cuMemAlloc/cuMemFree, alone", "baseline": true, "sizes": alone}),
        json!({"allocator": "cuMemAlloc/cuMemFree, beside a resident 256 B block", "baseline": true, "sizes": beside?}),
    ])
}

/// Per size and allocator: [`measure`] on the two bare-context baselines ([`plain_baselines`]),
/// then on every allocator of [`allocators`] inside an open CUDA backend.
fn alloc_bench(iters: usize, batches: usize, batch: usize) -> Result<(Value, bool)> {
    let sizes: Vec<usize> = (0..10).map(|i| 256usize << (2 * i)).collect(); // 256 B .. 64 MiB
                                                                            // First, while nothing else in this process holds device memory.
    let reps = Reps { iters, batches, batch };
    let mut rows = plain_baselines(&sizes, reps)?;
    for (name, make) in allocators() {
        let dev = device(&make)?;
        let alloc = dev.allocator().clone();
        let s = dev.create_stream()?;
        let per_size = measure(alloc.as_ref(), &s, &sizes, reps)?;
        alloc.trim(0)?;
        let label = if name == "cuMemAlloc/cuMemFree" { "cuMemAlloc/cuMemFree in an open backend" } else { name };
        rows.push(json!({"allocator": label, "sizes": per_size}));
        eprintln!("alloc: {name} done");
    }
    Ok((
        json!({"what": "host latency of allocate + deallocate on one stream", "iters": iters,
               "batches": batches, "batch": batch, "rows": rows}),
        true,
    ))
}

fn loop_bench(jobs: usize) -> Result<(Value, bool)> {
    // The CPU reference backend runs the warm-up batch (16 jobs, same seeds); every allocator's
    // warm-up must agree with it within the fp64 tolerance, and every timed run must give the same
    // sums, bitwise, as the first allocator's: a block reused while a stream still used it would
    // show as a difference.
    let cpu = tenor_cpu::cpu()?;
    let cpu_streams: Vec<Stream> = (0..4).map(|_| cpu.create_stream()).collect::<Result<_, _>>()?;
    let reference = pricing_loop(&cpu, &cpu_streams, 16, 8)?;
    let tol = tenor_conformance::FP64_RTOL;
    let mut first: Option<Vec<f64>> = None;
    let mut rows = Vec::new();
    let mut all_ok = true;
    for (name, make) in allocators() {
        let dev = device(&make)?;
        let streams: Vec<Stream> = (0..4).map(|_| dev.create_stream()).collect::<Result<_, _>>()?;
        let warm = pricing_loop(&dev, &streams, 16, 8)?; // also loads the kernels and primes the pool
        let worst = warm.iter().zip(&reference).map(|(g, c)| (g - c).abs() / c.abs().max(1e-300)).fold(0.0, f64::max);
        let agrees = warm.len() == reference.len() && worst <= tol && worst.is_finite();
        let mut times = Vec::new();
        let mut identical = true;
        for _ in 0..3 {
            let t0 = Instant::now();
            let sums = pricing_loop(&dev, &streams, jobs, 8)?;
            times.push(t0.elapsed().as_secs_f64());
            match &first {
                None => first = Some(sums),
                Some(f) => identical &= f.iter().map(|x| x.to_bits()).eq(sums.iter().map(|x| x.to_bits())),
            }
        }
        all_ok &= agrees && identical;
        let t = median(times);
        rows.push(json!({"allocator": name, "seconds": t, "jobs_per_s": jobs as f64 / t,
                         "warmup_max_rel_diff_vs_cpu": worst, "same_sums_as_first": identical}));
        eprintln!("loop: {name} {t:.4} s, warm-up vs CPU {worst:.1e}, sums identical to the first: {identical}");
    }
    Ok((
        json!({"what": "bursty 4-stream pricing loop: per job GBM paths (2^14 x 64 steps, 8 MiB) on one stream, Asian payoffs + reduction on the next, scratch freed per job, host sync every 8 jobs",
               "jobs": jobs, "tolerance": tol, "rows": rows, "pass": all_ok}),
        all_ok,
    ))
}

fn time_kernel(dev: &CudaCompute, reps: usize, mut launch: impl FnMut() -> Result<()>) -> Result<f64> {
    let raw = cuda_stream(dev.default_stream())?;
    launch()?; // warm-up
    dev.synchronize()?;
    let mut times = Vec::new();
    for _ in 0..reps {
        let a = raw.record_timed()?;
        launch()?;
        let b = raw.record_timed()?;
        dev.synchronize()?;
        times.push(f64::from(b.elapsed_ms_since(&a)?) * 1e-3);
    }
    Ok(median(times))
}

/// The built-in source of `name`, then each variant `<name>.<tag>.cu` in `dir`.
fn sources(name: &str, dir: Option<&std::path::Path>) -> Result<Vec<(String, tenor_ports::KernelDef)>> {
    let def = tenor_kernels::get(name)?;
    let mut out = vec![("built-in".to_owned(), def.clone())];
    if let Some(dir) = dir {
        let mut files: Vec<_> = std::fs::read_dir(dir)?.flatten().map(|e| e.path()).collect();
        files.sort();
        for f in files {
            let fname = f.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
            if let Some(tag) = fname.strip_prefix(&format!("{name}.")).and_then(|r| r.strip_suffix(".cu")) {
                let text = std::fs::read_to_string(&f)?;
                out.push((tag.to_owned(), def.clone().with_source("cuda", text)));
            }
        }
    }
    Ok(out)
}

fn mc_bench(reps: usize, variants: Option<&std::path::Path>) -> Result<(Value, bool)> {
    let dev = tenor_cuda::cuda().context("opening CUDA")?;
    let s = dev.default_stream().clone();
    let (spot, strike, t, r, vol) = (100.0f64, 100.0f64, 1.0f64, 0.05f64, 0.2f64);
    let drift = (r - 0.5 * vol * vol) * t;
    let disc = (-r * t).exp();
    let contract = Vanilla { option: OptionType::Call, spot, strike, maturity: t, rate: r, dividend: 0.0, vol };
    let bs = tenor_pricing::analytic::black_scholes(&contract).map_err(|e| anyhow::anyhow!("{e}"))?.price;
    let mut rows = Vec::new();
    for (name, pairs, (variant, def)) in [("mc_european_f32", 1u64 << 31), ("mc_european", 1u64 << 30)]
        .into_iter()
        .flat_map(|(n, p)| sources(n, variants).unwrap_or_default().into_iter().map(move |v| (n, p, v)))
    {
        let def = &def;
        let k = dev.load_kernel(def)?;
        let out = dev.alloc_elems::<f64>(&s, 2 * def.blocks(pairs) as usize)?;
        let (seed, vol_sqrt_t) = (11, vol * t.sqrt());
        let launch = || -> Result<()> {
            if name.ends_with("f32") {
                McEuropeanF32 {
                    partials: &out,
                    seed,
                    pairs,
                    spot: spot as f32,
                    strike: strike as f32,
                    is_call: 1,
                    drift: drift as f32,
                    vol_sqrt_t: vol_sqrt_t as f32,
                    discount: disc as f32,
                }
                .launch_loaded(&dev, &s, &k)?;
            } else {
                McEuropean { partials: &out, seed, pairs, spot, strike, is_call: 1, drift, vol_sqrt_t, discount: disc }
                    .launch_loaded(&dev, &s, &k)?;
            }
            Ok(())
        };
        let secs = time_kernel(&dev, reps, launch)?;
        let p: Vec<f64> = dev.download_vec(&s, &out)?;
        let n = pairs as f64;
        let (sum, sq) = p.chunks_exact(2).fold((0.0, 0.0), |(a, b), c| (a + c[0], b + c[1]));
        let mean = sum / n;
        let se = ((sq / n - mean * mean).max(0.0) / n).sqrt();
        rows.push(json!({"kernel": name, "variant": variant, "pairs": pairs, "paths": 2 * pairs, "seconds": secs,
                         "paths_per_s": 2.0 * n / secs, "price": mean, "stderr": se, "black_scholes": bs}));
    }
    for (variant, def) in sources("mc_asian_f32", variants)? {
        let name = "mc_asian_f32";
        let def = &def;
        let (pairs, steps) = (1u64 << 23, 252u32);
        let k = dev.load_kernel(def)?;
        let out = dev.alloc_elems::<f64>(&s, 5 * def.blocks(pairs) as usize)?;
        let dt = t / f64::from(steps);
        let (d, v) = (((r - 0.5 * vol * vol) * dt) as f32, (vol * dt.sqrt()) as f32);
        let launch = McAsianF32 {
            partials: &out,
            seed: 13,
            pairs,
            steps,
            spot: spot as f32,
            strike: strike as f32,
            is_call: 1,
            spot_fixing: 0,
            drift_first: d,
            vol_first: v,
            drift_dt: d,
            vol_sqrt_dt: v,
            discount: disc as f32,
        };
        let secs = time_kernel(&dev, reps, || Ok(launch.launch_loaded(&dev, &s, &k)?))?;
        let p: Vec<f64> = dev.download_vec(&s, &out)?;
        let n = pairs as f64;
        let mean = p.chunks_exact(5).map(|c| c[0]).sum::<f64>() / n;
        let path_steps = 2.0 * n * f64::from(steps);
        rows.push(json!({"kernel": name, "variant": variant, "pairs": pairs, "paths": 2 * pairs, "steps": steps, "seconds": secs,
                         "path_steps_per_s": path_steps / secs, "price_arith": mean}));
    }
    if rows.is_empty() {
        bail!("no kernel timed");
    }
    Ok((
        json!({"what": "fused Monte Carlo kernels, Philox4x32-10, antithetic pairs (2 paths each), CUDA events, median", "reps": reps, "rows": rows}),
        true,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The book check on two backends that run the same reference arithmetic (the CPU backend and
    /// the simulated device): every row of the example CUDA book is priced on both, the two agree
    /// bitwise, and the rows with a closed form carry it.
    #[test]
    fn the_book_check_passes_on_two_reference_backends() {
        let cpu = tenor_cpu::cpu().expect("cpu");
        let sim = tenor_sim::sim(tenor_sim::SimConfig::default()).expect("sim");
        let book = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/cuda_book.csv");
        let (record, pass) = compare_book(&sim, &cpu, &book, 512).expect("book priced");
        assert!(pass, "{record}");
        assert_eq!(record["max_rel_diff"], 0.0, "{record}");
        let rows = record["rows"].as_array().expect("rows");
        assert_eq!(rows.len(), 8, "every row of the book: {record}");
        let with_closed_form = rows.iter().filter(|r| r["closed_form"].is_number()).count();
        // Three Europeans, the geometric Asian and two continuous barriers have one.
        assert_eq!(with_closed_form, 6, "{record}");
    }
}
