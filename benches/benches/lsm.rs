//! Longstaff-Schwartz American put on the CPU backend (paths/s): regression and
//! out-of-sample valuation passes, 50 exercise dates, 4 Laguerre basis functions.
#![allow(missing_docs)] // criterion_group! generates undocumented functions
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tenor_pricing::american::{lsm_price, LsmConfig};
use tenor_pricing::types::{OptionType, Vanilla};

fn lsm(c: &mut Criterion) {
    let dev = tenor_cpu::cpu().expect("cpu backend");
    let v = Vanilla {
        option: OptionType::Put,
        spot: 36.0,
        strike: 40.0,
        maturity: 1.0,
        rate: 0.06,
        dividend: 0.0,
        vol: 0.2,
    };
    let paths = 1u64 << 16;
    let cfg = LsmConfig { paths, exercise_dates: 50, nbasis: 4, seed: 1, out_of_sample: true };
    let mut g = c.benchmark_group("lsm_american_put");
    g.sample_size(10);
    g.throughput(Throughput::Elements(paths));
    g.bench_function("cpu_65536_paths_50_dates", |b| {
        b.iter(|| lsm_price(&dev, &v, &cfg).expect("lsm"));
    });
    g.finish();
}

criterion_group!(benches, lsm);
criterion_main!(benches);
