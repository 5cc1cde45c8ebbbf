//! Heston semi-analytic pricing (prices/s: the adaptive host pricer, and the `heston_price`
//! kernel on the CPU backend) and Levenberg-Marquardt calibration wall time on a synthetic
//! 8-expiry x 15-strike chain generated from known parameters, with the pricings on the host
//! (rayon, adaptive) and batched on the port (CPU backend). The SPX snapshot is timed through
//! `tenor calibrate heston` (docs/results/heston_calibration.md).
#![allow(missing_docs)] // criterion_group! generates undocumented functions
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tenor_pricing::heston::{
    calibrate_heston, calibrate_heston_host, heston_price, heston_prices_batch, CalibrationConfig, HestonOption,
    HestonParams, Quote, DEFAULT_NODES,
};
use tenor_pricing::types::OptionType;

fn chain(truth: &HestonParams) -> Vec<Quote> {
    let mut quotes = Vec::new();
    for &t in &[1.0 / 52.0, 1.0 / 12.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0] {
        for i in 0..15 {
            let k = 70.0 + 4.0 * f64::from(i);
            let option = if k < 100.0 { OptionType::Put } else { OptionType::Call };
            let o = HestonOption { option, spot: 100.0, strike: k, maturity: t, rate: 0.02, dividend: 0.01 };
            let price = heston_price(truth, &o).expect("price");
            quotes.push(Quote { contract: o, price, weight: 1.0 });
        }
    }
    quotes
}

fn heston(c: &mut Criterion) {
    let truth = HestonParams { v0: 0.03, kappa: 2.0, theta: 0.05, sigma: 0.6, rho: -0.65 };
    let quotes = chain(&truth);
    let mut g = c.benchmark_group("heston");
    g.sample_size(10);
    g.throughput(Throughput::Elements(quotes.len() as u64));
    g.bench_function("semi_analytic_120_quotes", |b| {
        b.iter(|| quotes.iter().map(|q| heston_price(&truth, &q.contract).expect("price")).sum::<f64>());
    });
    let dev = tenor_cpu::cpu().expect("cpu backend");
    let options: Vec<HestonOption> = quotes.iter().map(|q| q.contract).collect();
    g.bench_function("kernel_cpu_120_quotes", |b| {
        b.iter(|| heston_prices_batch(&dev, &options, &[truth], DEFAULT_NODES).expect("prices"));
    });
    let cfg = CalibrationConfig {
        initial: HestonParams { v0: 0.06, kappa: 1.0, theta: 0.03, sigma: 0.3, rho: -0.2 },
        ..CalibrationConfig::default()
    };
    g.bench_function("calibrate_120_quotes_host", |b| {
        b.iter(|| calibrate_heston_host(&quotes, &cfg).expect("calibration"));
    });
    g.bench_function("calibrate_120_quotes_port_cpu", |b| {
        b.iter(|| calibrate_heston(&dev, &quotes, &cfg).expect("calibration"));
    });
    g.finish();
}

criterion_group!(benches, heston);
criterion_main!(benches);
