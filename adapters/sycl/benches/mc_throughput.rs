//! Monte Carlo European and Asian throughput on SYCL (the OpenCL CPU device) against the
//! native CPU backend, in one run, with the first-call cost of SYCL (runtime start and kernel
//! compilation) reported apart from the warm throughput.
//!
//! `cargo bench -p tenor-sycl --features runtime --bench mc_throughput`
//! Set `SYCL_CACHE_PERSISTENT=0` (or leave it unset) to measure a cold compilation; with
//! `SYCL_CACHE_PERSISTENT=1` the compile figure is a load from DPC++'s on-disk cache.
//! Timed regions include the download of the partial sums (a full synchronisation).

use std::time::{Duration, Instant};

use tenor_ports::{Access, Arg, Compute, ComputeExt, Kernel};

const SEED: u64 = 0x5eed;

struct Work {
    name: &'static str,
    kernel: &'static str,
    pairs: u64,
    steps: u32,
}

const EUROPEAN: Work = Work { name: "European", kernel: "mc_european", pairs: 1 << 22, steps: 1 };
const ASIAN: Work = Work { name: "Asian (252 fixings)", kernel: "mc_asian", pairs: 1 << 15, steps: 252 };

fn args(w: &Work) -> Vec<Arg<'static>> {
    let (spot, strike, r, q, v, t) = (100.0, 100.0, 0.05, 0.02, 0.2, 1.0);
    match w.kernel {
        "mc_european" => vec![
            Arg::U64(SEED),
            Arg::U64(w.pairs),
            Arg::F64(spot),
            Arg::F64(strike),
            Arg::U32(1),
            Arg::F64((r - q - 0.5 * v * v) * t),
            Arg::F64(v * f64::sqrt(t)),
            Arg::F64(f64::exp(-r * t)),
        ],
        _ => {
            let dt = t / f64::from(w.steps);
            let (d, vol) = ((r - q - 0.5 * v * v) * dt, v * dt.sqrt());
            vec![
                Arg::U64(SEED),
                Arg::U64(w.pairs),
                Arg::U32(w.steps),
                Arg::F64(spot),
                Arg::F64(strike),
                Arg::U32(1),
                Arg::U32(0),
                Arg::F64(d),
                Arg::F64(vol),
                Arg::F64(d),
                Arg::F64(vol),
                Arg::F64(f64::exp(-r * t)),
            ]
        }
    }
}

fn stride(w: &Work) -> usize {
    if w.kernel == "mc_european" {
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
    let mut all = vec![Arg::Buf(&partials, Access::Write)];
    all.extend(args(w));
    dev.launch(&s, k, w.pairs, &all).expect("launch");
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
    let k = dev.load_kernel(tenor_kernels::get(w.kernel).expect("kernel")).expect("load");
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
        let k = sycl.load_kernel(tenor_kernels::get(w.kernel).expect("kernel")).expect("compile");
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
