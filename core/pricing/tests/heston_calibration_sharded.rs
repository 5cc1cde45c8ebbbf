//! Heston calibration with every iteration's pricings split over several simulated devices
//! (ADR 0020): the same parameters, per-quote fits and iteration counts, bitwise, as one device
//! and as the CPU reference, and still the generating parameters of a synthetic chain.
use std::sync::Arc;

use tenor_ports::{Compute, Devices};
use tenor_pricing::heston::{
    calibrate_heston, calibrate_heston_sharded, heston_price, CalibrationConfig, CalibrationResult, HestonOption,
    HestonParams, Quote,
};
use tenor_pricing::types::OptionType;

fn chain(truth: &HestonParams) -> Vec<Quote> {
    let mut quotes = Vec::new();
    for &t in &[1.0 / 12.0, 0.5, 2.0] {
        for &k in &[80.0, 90.0, 100.0, 110.0, 120.0] {
            let option = if k < 100.0 { OptionType::Put } else { OptionType::Call };
            let o = HestonOption { option, spot: 100.0, strike: k, maturity: t, rate: 0.02, dividend: 0.01 };
            let price = heston_price(truth, &o).expect("price");
            quotes.push(Quote { contract: o, price, weight: 1.0 });
        }
    }
    quotes
}

fn sims(n: usize) -> Devices {
    let devices: Vec<Arc<dyn Compute>> = (0..n)
        .map(|i| {
            let d = tenor_sim::sim(tenor_sim::SimConfig { seed: i as u64 + 1, ..tenor_sim::SimConfig::default() })
                .expect("sim");
            Arc::new(d) as Arc<dyn Compute>
        })
        .collect();
    Devices::new(devices, (0..n).map(|i| format!("sim:{i}")).collect()).expect("devices")
}

fn bits(r: &CalibrationResult) -> (Vec<u64>, Vec<(u64, u64)>, usize, usize, usize) {
    let p = r.params;
    (
        [p.v0, p.kappa, p.theta, p.sigma, p.rho, r.rmse].iter().map(|x| x.to_bits()).collect(),
        r.fits.iter().map(|f| (f.model.to_bits(), f.error.to_bits())).collect(),
        r.iterations,
        r.pricings,
        r.batches,
    )
}

#[test]
fn sharded_calibration_is_bitwise_one_device_and_the_cpu_reference() {
    let truth = HestonParams { v0: 0.03, kappa: 2.0, theta: 0.05, sigma: 0.6, rho: -0.65 };
    let quotes = chain(&truth);
    let cfg = CalibrationConfig {
        initial: HestonParams { v0: 0.06, kappa: 1.0, theta: 0.03, sigma: 0.3, rho: -0.2 },
        max_iterations: 40,
        tolerance: 1e-14,
        ..CalibrationConfig::default()
    };
    let cpu = tenor_cpu::cpu().expect("cpu");
    let reference = calibrate_heston(&cpu, &quotes, &cfg).expect("cpu calibration");
    // Still a real fit: the generating parameters to 1e-5 relative.
    for (got, want) in [(reference.params.v0, truth.v0), (reference.params.rho, truth.rho)] {
        assert!((got - want).abs() <= 1e-5 * want.abs(), "{got} vs {want}");
    }
    for n in [1, 2, 3] {
        let mut steps = 0;
        let got = calibrate_heston_sharded(&sims(n), &quotes, &cfg, &mut |_, _| steps += 1).expect("sharded");
        assert!(steps > 0, "observer never called");
        assert_eq!(bits(&got), bits(&reference), "{n} devices differ from the CPU reference");
    }
}
