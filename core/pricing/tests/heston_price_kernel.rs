//! The `heston_price` kernel (fixed-node Lewis quadrature with a Black-Scholes control variate)
//! on the CPU backend against independent values: the adaptive host integrator
//! (`heston_price`: Carr-Madan contour with optimal damping, adaptive Gauss-Kronrod) over a grid
//! of maturities from 1 day to 10 years, moneyness to ±4 standard deviations and extreme
//! parameters; put-call parity; the Black-Scholes limit of vanishing vol of variance; and
//! batches of several parameter sets in one launch equal to one launch per set.
use tenor_pricing::heston::{
    heston_price, heston_prices_batch, HestonError, HestonOption, HestonParams, DEFAULT_NODES,
};
use tenor_pricing::types::{OptionType, Vanilla};

/// The Black-Scholes-Merton closed form ([`tenor_pricing::analytic::black_scholes_price`]) of a
/// valid contract.
fn black_scholes(v: &tenor_pricing::types::Vanilla) -> f64 {
    tenor_pricing::analytic::black_scholes_price(v).expect("a valid contract")
}

fn hp(v0: f64, kappa: f64, theta: f64, sigma: f64, rho: f64) -> HestonParams {
    HestonParams { v0, kappa, theta, sigma, rho }
}

fn opt(option: OptionType, strike: f64, maturity: f64) -> HestonOption {
    HestonOption { option, spot: 100.0, strike, maturity, rate: 0.03, dividend: 0.01 }
}

const DAY: f64 = 1.0 / 365.0;
const WEEK: f64 = 1.0 / 52.0;

/// Parameter sets: moderate, Feller violated, vol of variance up to 2, |rho| up to 0.95.
fn sets() -> Vec<HestonParams> {
    vec![
        hp(0.04, 1.5, 0.04, 0.5, -0.7),
        hp(0.09, 1.0, 0.06, 1.5, -0.9),
        hp(0.01, 0.5, 0.04, 1.0, 0.3),
        hp(0.2, 3.0, 0.1, 2.0, -0.5),
        hp(0.04, 0.3, 0.09, 0.2, 0.0),
        hp(0.5, 5.0, 0.2, 1.8, -0.3),
        hp(0.02, 0.2, 0.3, 1.0, -0.8),
        hp(0.01, 8.0, 0.02, 0.1, -0.5),
        hp(0.09, 1.0, 0.06, 2.0, -0.95),
        hp(0.04, 0.5, 0.04, 2.0, 0.95),
    ]
}

/// Vol of variance 2 with |rho| = 0.95: the fixed contour leaves a slowly decaying
/// oscillatory integrand there (see `tenor_kernels::heston`).
fn extreme(p: &HestonParams) -> bool {
    p.sigma >= 2.0 && p.rho.abs() >= 0.95
}

#[test]
fn kernel_matches_the_adaptive_host_integrator_on_a_grid() {
    let dev = tenor_cpu::cpu().expect("cpu backend");
    let maturities = [DAY, WEEK, 1.0 / 12.0, 0.25, 1.0, 3.0, 10.0];
    // Worst absolute errors (spot 100): [regular, extreme] x [|z| <= 2, |z| <= 4], z the
    // log-moneyness in expected standard deviations.
    let mut worst = [[0.0f64; 2]; 2];
    let mut worst512 = worst;
    let mut points = 0;
    for p in sets() {
        let mut options = Vec::new();
        let mut meta = Vec::new();
        for &t in &maturities {
            let f = opt(OptionType::Call, 100.0, t).forward();
            let w = p.theta * t + (p.v0 - p.theta) * (1.0 - (-p.kappa * t).exp()) / p.kappa;
            for z in -4i32..=4 {
                let strike = f * (f64::from(z) * w.sqrt().max(0.02)).exp();
                // The out-of-the-money option (host) and both options (kernel, parity below).
                let otm = if z < 0 { OptionType::Put } else { OptionType::Call };
                options.push(opt(otm, strike, t));
                meta.push((t, z));
            }
        }
        let got = heston_prices_batch(&dev, &options, &[p], DEFAULT_NODES).expect("kernel prices");
        let got512 = heston_prices_batch(&dev, &options, &[p], 512).expect("kernel prices, 512 nodes");
        for (((o, &(t, z)), g), g512) in options.iter().zip(&meta).zip(&got).zip(&got512) {
            let want = heston_price(&p, o).expect("host price");
            let (ext, wing) = (extreme(&p), z.abs() > 2);
            for (nodes, g, table) in [(DEFAULT_NODES, g, &mut worst), (512, g512, &mut worst512)] {
                let e = (g - want).abs();
                let cell = &mut table[usize::from(ext)][usize::from(wing)];
                *cell = cell.max(e);
                // Measured with 256 nodes: 1.2e-9, 8.3e-7, 5.1e-5, 3.9e-3; with 512: 3.9e-11,
                // 9.1e-11, 4.3e-7, 7.2e-5 (tenor_kernels::heston states them).
                let bound = match (nodes, ext, wing) {
                    (512, false, _) => 2e-10,
                    (512, true, false) => 1e-6,
                    (512, true, true) => 2e-4,
                    (_, false, false) => 2e-9,
                    (_, false, true) => 2e-6,
                    (_, true, false) => 1e-4,
                    (_, true, true) => 1e-2,
                };
                assert!(
                    e <= bound,
                    "{nodes} nodes, {p:?} T {t} z {z} {:?} K {}: kernel {g} host {want}",
                    o.option,
                    o.strike
                );
            }
            points += 1;
        }
    }
    eprintln!("{points} points; worst |kernel - host| (|z| <= 2, |z| <= 4), regular and extreme:");
    eprintln!("  {DEFAULT_NODES} nodes {worst:?}; 512 nodes {worst512:?}");
}

#[test]
fn put_call_parity_holds_for_every_item() {
    // C - P = D (F - K): the kernel computes both from one integral plus the out-of-the-money
    // Black price, so parity holds to rounding on the whole grid.
    let dev = tenor_cpu::cpu().expect("cpu backend");
    let mut options = Vec::new();
    for &t in &[DAY, WEEK, 0.5, 5.0] {
        for k in [50.0, 80.0, 95.0, 100.0, 103.0, 120.0, 200.0] {
            options.push(opt(OptionType::Call, k, t));
            options.push(opt(OptionType::Put, k, t));
        }
    }
    let sets = sets();
    let prices = heston_prices_batch(&dev, &options, &sets, DEFAULT_NODES).expect("prices");
    for (s, p) in sets.iter().enumerate() {
        for pair in 0..options.len() / 2 {
            let c = prices[s * options.len() + 2 * pair];
            let pu = prices[s * options.len() + 2 * pair + 1];
            let o = options[2 * pair];
            let parity = o.discount() * (o.forward() - o.strike);
            // Both prices are clamped at 0, so parity holds where neither is a rounding residue.
            if c > 1e-12 && pu > 1e-12 {
                assert!((c - pu - parity).abs() < 1e-9 * o.strike, "{p:?} {o:?}: C {c} P {pu} parity {parity}");
            }
        }
    }
}

#[test]
fn vanishing_vol_of_variance_gives_black_scholes() {
    // sigma -> 0: the variance follows v(t) = theta + (v0 - theta) e^{-kappa t}, and the price
    // is Black-Scholes with the average variance. The error is O(sigma^2) for rho = 0 and
    // O(rho sigma) otherwise (the implied-vol skew is about rho sigma / (4 sqrt(v0)) per unit
    // log-moneyness), so sigma = 1e-5 with rho = 0 and 1e-10 with rho != 0 keep it below 1e-9.
    // Below sigma = 1e-154 sigma^2 underflows to 0, where the kernel's `log1p(..) / sigma^2`
    // is 0 / 0: such a sigma priced 0 for every option (issue 29's sibling of the host
    // pricer's small-sigma defect).
    let dev = tenor_cpu::cpu().expect("cpu backend");
    for (v0, theta, kappa, sigma, rho) in [
        (0.04, 0.04, 1.5, 1e-5, 0.0),
        (0.09, 0.03, 2.0, 1e-5, 0.0),
        (0.09, 0.03, 2.0, 1e-10, -0.7),
        (0.01, 0.06, 0.7, 1e-10, 0.5),
        (0.09, 0.03, 2.0, 1e-160, -0.7),
        (0.04, 0.04, 1.5, 1e-300, 0.5),
        (0.04, 0.04, 1.5, f64::MIN_POSITIVE * f64::EPSILON, 0.0),
    ] {
        let p = hp(v0, kappa, theta, sigma, rho);
        let mut options = Vec::new();
        for t in [DAY, WEEK, 0.5, 2.0] {
            for k in [80.0, 97.0, 100.0, 125.0] {
                for option in [OptionType::Call, OptionType::Put] {
                    options.push(opt(option, k, t));
                }
            }
        }
        let got = heston_prices_batch(&dev, &options, &[p], DEFAULT_NODES).expect("prices");
        for (o, g) in options.iter().zip(&got) {
            let t = o.maturity;
            let var = (theta * t + (v0 - theta) * (1.0 - (-kappa * t).exp()) / kappa) / t;
            let v = Vanilla {
                option: o.option,
                spot: 100.0,
                strike: o.strike,
                maturity: t,
                rate: 0.03,
                dividend: 0.01,
                vol: var.sqrt(),
            };
            let bs = black_scholes(&v);
            assert!((g - bs).abs() < 1e-8, "{p:?} {o:?}: kernel {g} Black-Scholes {bs}");
        }
    }
}

#[test]
fn several_sets_in_one_launch_equal_one_launch_per_set() {
    let dev = tenor_cpu::cpu().expect("cpu backend");
    let options: Vec<HestonOption> = [80.0, 100.0, 120.0].iter().map(|&k| opt(OptionType::Call, k, 0.5)).collect();
    let sets = sets();
    let all = heston_prices_batch(&dev, &options, &sets, 64).expect("batch");
    for (s, p) in sets.iter().enumerate() {
        let one = heston_prices_batch(&dev, &options, &[*p], 64).expect("one set");
        assert_eq!(&all[s * options.len()..(s + 1) * options.len()], &one[..], "set {s}");
    }
}

#[test]
fn bad_inputs_are_refused_with_their_names() {
    let dev = tenor_cpu::cpu().expect("cpu backend");
    let o = opt(OptionType::Call, 100.0, 0.5);
    let p = hp(0.04, 1.5, 0.04, 0.5, -0.7);
    let e = heston_prices_batch(&dev, &[o], &[HestonParams { rho: 1.0, ..p }], DEFAULT_NODES);
    assert!(matches!(e, Err(HestonError::InvalidParameter { name: "rho", .. })), "{e:?}");
    let e = heston_prices_batch(&dev, &[HestonOption { maturity: 0.0, ..o }], &[p], DEFAULT_NODES);
    assert!(matches!(e, Err(HestonError::InvalidParameter { name: "maturity", .. })), "{e:?}");
    let e = heston_prices_batch(&dev, &[HestonOption { rate: 1e4, dividend: 1e4, ..o }], &[p], DEFAULT_NODES);
    assert!(matches!(e, Err(HestonError::InvalidParameter { name: "discount", .. })), "{e:?}");
    let e = heston_prices_batch(&dev, &[o], &[p], 0);
    assert!(matches!(e, Err(HestonError::InvalidParameter { name: "nodes", .. })), "{e:?}");
    assert_eq!(heston_prices_batch(&dev, &[], &[p], DEFAULT_NODES).expect("empty"), Vec::<f64>::new());
}
