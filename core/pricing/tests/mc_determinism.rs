//! The same seed gives bitwise the same Monte Carlo results on 1, 2 and 4 threads, on 1 and 4
//! streams, and on the simulated device (delayed, reordered multi-stream execution) as on the
//! CPU backend.

use tenor_ports::Compute;
use tenor_pricing::mc::{self, AsianOption, BarrierOption, FixingSchedule, McConfig, McProduct, Monitoring};
use tenor_pricing::types::{BarrierType, OptionType, Vanilla};

fn book() -> Vec<McProduct> {
    let v =
        |option, strike| Vanilla { option, spot: 100.0, strike, maturity: 0.75, rate: 0.03, dividend: 0.01, vol: 0.25 };
    let barrier = |barrier_type, barrier, monitoring| {
        McProduct::Barrier(BarrierOption {
            vanilla: v(OptionType::Call, 100.0),
            barrier_type,
            barrier,
            rebate: 2.0,
            monitoring,
        })
    };
    let asian = AsianOption { vanilla: v(OptionType::Put, 98.0), schedule: FixingSchedule::uniform(0.75, 12) };
    vec![
        McProduct::European(v(OptionType::Call, 105.0)),
        McProduct::European(v(OptionType::Put, 95.0)),
        barrier(BarrierType::DownOut, 90.0, Monitoring::Continuous),
        barrier(BarrierType::UpIn, 115.0, Monitoring::Discrete(20)),
        barrier(BarrierType::DownIn, 100.0, Monitoring::Continuous), // breached: the vanilla
        McProduct::AsianGeometric(asian),
        McProduct::AsianArithmetic(asian),
    ]
}

fn cfg(streams: usize) -> McConfig {
    McConfig { paths: 20_000, seed: 99, steps: 16, streams, ..McConfig::default() }
}

/// Every number of every trade as bits.
fn run<C: Compute + ?Sized>(dev: &C, streams: usize) -> Vec<u64> {
    let out = mc::price_batch(dev, &book(), &cfg(streams), true).expect("batch");
    out.into_iter()
        .flat_map(|r| {
            let v = r.expect("trade");
            let g = v.greeks.expect("greeks");
            [v.price.price, v.price.stderr, g.delta, g.gamma, g.vega, g.theta, g.rho].map(f64::to_bits)
        })
        .collect()
}

#[test]
fn bitwise_equal_on_1_2_4_threads_and_1_4_streams() {
    let reference = run(&tenor_cpu::cpu_with_threads(1).expect("cpu x1"), 1);
    for threads in [2, 4] {
        let dev = tenor_cpu::cpu_with_threads(threads).expect("cpu");
        assert_eq!(run(&dev, 1), reference, "{threads} threads, 1 stream");
        assert_eq!(run(&dev, 4), reference, "{threads} threads, 4 streams");
    }
}

#[test]
fn simulated_device_gives_the_cpu_numbers() {
    let reference = run(&tenor_cpu::cpu().expect("cpu"), 1);
    for seed in [1, 2] {
        let dev = tenor_sim::sim(tenor_sim::SimConfig { seed, ..Default::default() }).expect("sim");
        assert_eq!(run(&dev, 1), reference, "sim seed {seed}, 1 stream");
        assert_eq!(run(&dev, 4), reference, "sim seed {seed}, 4 streams");
    }
}

#[test]
fn single_price_equals_the_batch_entry() {
    let dev = tenor_cpu::cpu().expect("cpu");
    let batch = mc::price_batch(&dev, &book(), &cfg(3), false).expect("batch");
    for (p, b) in book().iter().zip(batch) {
        let single = mc::price(&dev, p, &cfg(1)).expect("price");
        assert_eq!(single, b.expect("trade").price);
    }
}

#[test]
fn bad_inputs_are_typed_errors_naming_the_parameter() {
    let dev = tenor_cpu::cpu().expect("cpu");
    let mut v = Vanilla {
        option: OptionType::Call,
        spot: 100.0,
        strike: 100.0,
        maturity: 1.0,
        rate: 0.0,
        dividend: 0.0,
        vol: -0.2,
    };
    let e = mc::price(&dev, &McProduct::European(v), &cfg(1)).expect_err("negative vol");
    assert!(e.to_string().contains("vol"), "{e}");
    v.vol = 0.2;
    let e = mc::price(&dev, &McProduct::European(v), &McConfig { paths: 3, ..cfg(1) }).expect_err("odd paths");
    assert!(e.to_string().contains("paths"), "{e}");
    let late = AsianOption { vanilla: v, schedule: FixingSchedule::uniform(2.0, 4) };
    let e = mc::price(&dev, &McProduct::AsianArithmetic(late), &cfg(1)).expect_err("fixing after maturity");
    assert!(e.to_string().contains("fixings"), "{e}");
}
