//! CPU Monte Carlo throughput in fp64: a European call (paths/s) and a 252-step arithmetic
//! Asian call with the geometric control variate (path-steps/s), through the pricing engine on
//! the CPU backend (antithetic pairs; the timed region includes allocation, the launch, the
//! download of the partial sums and the host reduction). `benches/numpy_mc.py` times numpy's
//! vectorised version of the same problems; `benches/run-vs-numpy.sh` runs both.
#![allow(missing_docs)] // criterion_group! generates undocumented functions
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tenor_pricing::mc::{self, AsianOption, FixingSchedule, McConfig, McProduct};
use tenor_pricing::types::{OptionType, Vanilla};

/// Paths of the European problem (numpy_mc.py uses the same).
pub const EUROPEAN_PATHS: u64 = 1 << 21;
/// Paths of the Asian problem.
pub const ASIAN_PATHS: u64 = 1 << 16;
/// Fixings (time steps) of the Asian problem.
pub const ASIAN_STEPS: u32 = 252;

fn contract() -> Vanilla {
    Vanilla {
        option: OptionType::Call,
        spot: 100.0,
        strike: 100.0,
        maturity: 1.0,
        rate: 0.05,
        dividend: 0.02,
        vol: 0.2,
    }
}

fn mc_cpu(c: &mut Criterion) {
    // All threads of the machine (the CPU backend as shipped), and one thread (per-core speed).
    for (label, threads) in [("all_threads", None), ("1_thread", Some(1))] {
        let dev = match threads {
            None => tenor_cpu::cpu(),
            Some(n) => tenor_cpu::cpu_with_threads(n),
        }
        .expect("cpu backend");
        run(c, &format!("mc_cpu_f64_{label}"), &dev);
    }
}

fn run(c: &mut Criterion, group: &str, dev: &tenor_cpu::CpuCompute) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10);

    let cfg = McConfig { paths: EUROPEAN_PATHS, seed: 1, ..McConfig::default() };
    let european = McProduct::European(contract());
    g.throughput(Throughput::Elements(EUROPEAN_PATHS));
    g.bench_function("european_call_paths", |b| {
        b.iter(|| mc::price(dev, &european, &cfg).expect("price"));
    });

    let cfg = McConfig { paths: ASIAN_PATHS, seed: 1, ..McConfig::default() };
    let asian = McProduct::AsianArithmetic(AsianOption {
        vanilla: contract(),
        schedule: FixingSchedule::uniform(1.0, ASIAN_STEPS),
    });
    g.throughput(Throughput::Elements(ASIAN_PATHS * u64::from(ASIAN_STEPS)));
    g.bench_function("asian_arith_252_path_steps", |b| {
        b.iter(|| mc::price(dev, &asian, &cfg).expect("price"));
    });
    g.finish();
}

criterion_group!(benches, mc_cpu);
criterion_main!(benches);
