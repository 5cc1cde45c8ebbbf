//! Monte Carlo European and Asian throughput on SYCL (the OpenCL CPU device) against the
//! native CPU backend, in one run, with the first-call cost of SYCL (runtime start and kernel
//! compilation) reported apart from the warm throughput.
//!
//! `cargo bench -p tenor-sycl --features runtime --bench mc_throughput`
//! Set `SYCL_CACHE_PERSISTENT=0` (or leave it unset) to measure a cold compilation; with
//! `SYCL_CACHE_PERSISTENT=1` the compile figure is a load from DPC++'s on-disk cache.
//! Timed regions include the download of the partial sums (a full synchronisation).

use std::time::{Duration, Instant};

use tenor_kernels::typed::{McAsian, McEuropean};
use tenor_ports::{Compute, ComputeError, ComputeExt, DeviceBuffer, Kernel, Stream};

const SEED: u64 = 0x5eed;

struct Work {
    name: &'static str,
    kernel: &'static str,
    pairs: u64,
    steps: u32,
}

const EUROPEAN: Work = Work { name: "European", kernel: McEuropean::NAME, pairs: 1 << 22, steps: 1 };
const ASIAN: Work = Work { name: "Asian (252 fixings)", kernel: McAsian::NAME, pairs: 1 << 15, steps: 252 };

fn load(dev: &dyn Compute, w: &Work) -> Result<Kernel, ComputeError> {
    if w.kernel == McEuropean::NAME {
        McEuropean::load(dev)
    } else {
        McAsian::load(dev)
    }
}

/// Launches `w` with `k` (its kernel, loaded) writing `partials`: spot 100, strike 100, r 5 %,
/// q 2 %, vol 20 %, one year, calls.
fn launch(dev: &dyn Compute, s: &Stream, k: &Kernel, partials: &DeviceBuffer, w: &Work) -> Result<(), ComputeError> {
    let (spot, strike, r, q, v, t) = (100.0, 100.0, 0.05, 0.02, 0.2, 1.0);
    if w.kernel == McEuropean::NAME {
        McEuropean {
            partials,
            seed: SEED,
            pairs: w.pairs,
            spot,
            strike,
            is_call: 1,
            drift: (r - q - 0.5 * v * v) * t,
            vol_sqrt_t: v * f64::sqrt(t),
            discount: f64::exp(-r * t),
        }
        .launch_loaded(dev, s, k)
    } else {
        let dt = t / f64::from(w.steps);
        let (d, vol) = ((r - q - 0.5 * v * v) * dt, v * dt.sqrt());
        McAsian {
            partials,
            seed: SEED,
            pairs: w.pairs,
            steps: w.steps,
            spot,
            strike,
            is_call: 1,
            spot_fixing: 0,
            drift_first: d,
            vol_first: vol,
            drift_dt: d,
            vol_sqrt_dt: vol,
            discount: f64::exp(-r * t),
        }
        .launch_loaded(dev, s, k)
    }
}

fn stride(w: &Work) -> usize {
    if w.kernel == McEuropean::NAME {
        2
    } else {
        5
    }
}

/// One launch with the download of its partials; returns the price and the time.
fn run_once(dev: &dyn Compute, k: &Kernel, w: &Work) -> (f64, Duration) {
    let s = dev.default_stream().clone();
    let t = Instant::now();
    let partials = dev.alloc_elems::<f64>(&s, stride(w) * w.pairs.div_ceil(4096) as usize).expect("alloc");
    launch(dev, &s, k, &partials, w).expect("launch");
    let p: Vec<f64> = dev.download_vec(&s, &partials).expect("download");
    let el = t.elapsed();
    let price = p.chunks(stride(w)).map(|c| c[0]).sum::<f64>() / w.pairs as f64;
    (price, el)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn warm(dev: &dyn Compute, w: &Work, reps: usize) -> (f64, Duration) {
    let k = load(dev, w).expect("load");
    let (price, _) = run_once(dev, &k, w); // warm-up
    (price, median((0..reps).map(|_| run_once(dev, &k, w).1).collect()))
}

fn main() {
    let persistent = std::env::var("SYCL_CACHE_PERSISTENT").unwrap_or_else(|_| "unset".into());
    println!("SYCL first-call cost (SYCL_CACHE_PERSISTENT={persistent})");
    let t = Instant::now();
    let sycl = tenor_sycl::sycl("cpu").expect("the OpenCL CPU device (scripts/install-sycl-runtime)");
    println!("  runtime start + device open          {:>9.3} s", t.elapsed().as_secs_f64());
    println!("  device: {} ({} compute units)", sycl.info().name, sycl.info().compute_units);
    for w in [&EUROPEAN, &ASIAN] {
        let t = Instant::now();
        let k = load(&sycl, w).expect("compile");
        let compile = t.elapsed();
        let (_, first) = run_once(&sycl, &k, w);
        println!(
            "  {:<14} compile {:>7.3} s, first launch {:>7.3} s",
            w.kernel,
            compile.as_secs_f64(),
            first.as_secs_f64()
        );
    }
    let cpu = tenor_cpu::cpu().expect("cpu");
    println!("\nWarm throughput (median of 5 launches, antithetic pairs count as 2 paths)");
    println!("  {:<22} {:<6} {:>12} {:>14} {:>16}  price", "workload", "backend", "time", "paths/s", "path-steps/s");
    for w in [&EUROPEAN, &ASIAN] {
        for (name, dev) in [("sycl", &sycl as &dyn Compute), ("cpu", &cpu as &dyn Compute)] {
            let (price, el) = warm(dev, w, 5);
            let paths = 2.0 * w.pairs as f64 / el.as_secs_f64();
            println!(
                "  {:<22} {:<6} {:>10.2} ms {:>14.3e} {:>16.3e}  {price:.6}",
                w.name,
                name,
                el.as_secs_f64() * 1e3,
                paths,
                paths * f64::from(w.steps)
            );
        }
    }
}
