//! Heston: semi-analytic prices against closed-form limits, put-call parity across two
//! independent integration contours, no-arbitrage shape, and QE Monte Carlo on the CPU backend.
use tenor_pricing::heston::qe::heston_qe_terminal;
use tenor_pricing::heston::{
    heston_price, heston_price_with_alpha, heston_qe_price, HestonError, HestonOption, HestonParams, QeConfig,
};
use tenor_pricing::types::{OptionType, Vanilla};

/// The Black-Scholes-Merton closed form ([`tenor_pricing::analytic::black_scholes_price`]) of a
/// valid contract.
fn black_scholes(v: &tenor_pricing::types::Vanilla) -> f64 {
    tenor_pricing::analytic::black_scholes_price(v).expect("a valid contract")
}

fn opt(option: OptionType, strike: f64, maturity: f64) -> HestonOption {
    HestonOption { option, spot: 100.0, strike, maturity, rate: 0.03, dividend: 0.01 }
}

fn hp(v0: f64, kappa: f64, theta: f64, sigma: f64, rho: f64) -> HestonParams {
    HestonParams { v0, kappa, theta, sigma, rho }
}

const WEEK: f64 = 1.0 / 52.0;

#[test]
fn put_call_parity_across_the_call_and_put_contours() {
    // The call is integrated on a contour with alpha > 0 and the put on one with alpha < -1:
    // two different integrals, which must satisfy C - P = e^{-rT}(F - K).
    let sets = [
        (hp(0.04, 1.5, 0.04, 0.5, -0.7), 1.0),
        (hp(0.09, 1.0, 0.06, 1.5, -0.9), WEEK),
        (hp(0.01, 0.5, 0.04, 1.0, 0.3), 0.5),
        (hp(0.2, 3.0, 0.1, 2.0, -0.5), 1.0 / 365.0),
        (hp(0.04, 0.3, 0.09, 0.2, 0.0), 3.0),
    ];
    for (p, t) in sets {
        for k in [70.0, 95.0, 100.0, 105.0, 140.0] {
            let c = heston_price_with_alpha(&p, &opt(OptionType::Call, k, t), 0.75).expect("call");
            let pu = heston_price_with_alpha(&p, &opt(OptionType::Put, k, t), -1.75).expect("put");
            let o = opt(OptionType::Call, k, t);
            let parity = o.discount() * (o.forward() - k);
            assert!((c - pu - parity).abs() < 1e-8, "{p:?} T {t} K {k}: C {c} P {pu} parity {parity}");
            // The optimal-damping price agrees with both.
            let best = heston_price(&p, &o).expect("optimal");
            assert!((best - c).abs() < 1e-8, "{p:?} T {t} K {k}: {best} vs {c}");
        }
    }
}

#[test]
fn vanishing_vol_of_variance_gives_black_scholes() {
    // sigma -> 0 with rho = 0: the variance is deterministic, v(t) = theta + (v0 - theta)
    // e^{-kappa t}, and the price is Black-Scholes with the average variance
    // (theta T + (v0 - theta)(1 - e^{-kappa T}) / kappa) / T (error O(sigma^2)).
    for (v0, theta, kappa) in [(0.04, 0.04, 1.5), (0.09, 0.03, 2.0), (0.01, 0.06, 0.7)] {
        let p = hp(v0, kappa, theta, 1e-4, 0.0);
        for t in [WEEK, 0.5, 2.0] {
            let var = (theta * t + (v0 - theta) * (1.0 - (-kappa * t).exp()) / kappa) / t;
            for k in [80.0, 100.0, 125.0] {
                for option in [OptionType::Call, OptionType::Put] {
                    let h = heston_price(&p, &opt(option, k, t)).expect("heston");
                    let v = Vanilla {
                        option,
                        spot: 100.0,
                        strike: k,
                        maturity: t,
                        rate: 0.03,
                        dividend: 0.01,
                        vol: var.sqrt(),
                    };
                    let bs = black_scholes(&v);
                    assert!((h - bs).abs() < 1e-7, "v0 {v0} T {t} K {k} {option:?}: {h} vs {bs}");
                }
            }
        }
    }
}

#[test]
fn prices_are_arbitrage_free_in_strike_at_extreme_parameters() {
    // Calls decrease and are convex in strike, and lie between the forward bounds, even for
    // 1-day and 1-week maturities with vol of variance 2 and |rho| = 0.95.
    for (p, t) in [
        (hp(0.09, 1.0, 0.06, 2.0, -0.95), 1.0 / 365.0),
        (hp(0.04, 0.5, 0.04, 2.0, 0.95), WEEK),
        (hp(0.5, 5.0, 0.2, 1.8, -0.3), WEEK),
        (hp(0.02, 0.2, 0.3, 1.0, -0.8), 10.0),
    ] {
        let strikes: Vec<f64> = (0..41).map(|i| 60.0 + 2.0 * f64::from(i)).collect();
        let c: Vec<f64> =
            strikes.iter().map(|&k| heston_price(&p, &opt(OptionType::Call, k, t)).expect("price")).collect();
        let o = opt(OptionType::Call, 100.0, t);
        for i in 0..c.len() {
            let lower = (o.discount() * (o.forward() - strikes[i])).max(0.0);
            assert!(c[i] >= lower - 1e-9 && c[i] <= o.discount() * o.forward() + 1e-9, "{p:?} T {t} K {}", strikes[i]);
            if i + 2 < c.len() {
                assert!(c[i + 1] <= c[i] + 1e-10, "not decreasing at K {}", strikes[i + 1]);
                assert!(c[i] - 2.0 * c[i + 1] + c[i + 2] >= -1e-9, "not convex at K {}", strikes[i + 1]);
            }
        }
    }
}

#[test]
fn qe_monte_carlo_within_three_standard_errors_on_twenty_parameter_sets() {
    let dev = tenor_cpu::cpu().expect("cpu backend");
    // (v0, kappa, theta, sigma, rho, maturity): Feller satisfied and violated, 1-week
    // maturities, vol of variance up to 2.
    let sets = [
        (0.04, 1.5, 0.04, 0.3, -0.7, 1.0),
        (0.04, 1.5, 0.04, 1.0, -0.7, 0.5),
        (0.09, 1.0, 0.06, 1.5, -0.9, WEEK),
        (0.09, 1.0, 0.06, 1.5, -0.9, 1.0),
        (0.01, 0.5, 0.04, 1.0, 0.3, 0.5),
        (0.2, 3.0, 0.1, 2.0, -0.5, WEEK),
        (0.04, 0.3, 0.09, 0.2, 0.0, 2.0),
        (0.0225, 2.0, 0.0225, 0.6, -0.5, 0.25),
        (0.16, 0.8, 0.09, 1.2, -0.3, WEEK),
        (0.05, 4.0, 0.05, 2.0, -0.8, 0.25),
        (0.03, 1.0, 0.05, 0.8, 0.5, 1.0),
        (0.1, 2.0, 0.04, 0.5, -0.95, 0.5),
        (0.04, 6.0, 0.04, 1.8, 0.0, WEEK),
        (0.06, 0.5, 0.02, 0.4, -0.6, 1.5),
        (0.3, 1.0, 0.1, 1.0, -0.7, 2.0 * WEEK),
        (0.02, 1.0, 0.02, 0.1, -0.2, 1.0),
        (0.04, 2.0, 0.06, 1.5, -0.99, 0.75),
        (0.08, 0.2, 0.08, 0.7, 0.7, 0.5),
        (0.01, 3.0, 0.09, 1.0, -0.4, WEEK),
        (0.12, 1.2, 0.05, 0.9, -0.6, 0.1),
    ];
    let cfg = QeConfig { paths: 40_000, steps_per_year: 32.0, min_steps: 8, seed: 20_260_101 };
    let mut worst: f64 = 0.0;
    for (i, &(v0, kappa, theta, sigma, rho, t)) in sets.iter().enumerate() {
        let p = hp(v0, kappa, theta, sigma, rho);
        // An out-of-the-money put and call half a standard deviation either side of the forward.
        let sd = 100.0 * (v0.max(theta) * t).sqrt();
        for (option, k) in [(OptionType::Put, 100.0 - 0.5 * sd), (OptionType::Call, 100.0 + 0.5 * sd)] {
            let o = opt(option, k, t);
            let exact = heston_price(&p, &o).expect("analytic");
            let mc = heston_qe_price(&dev, &p, &o, &QeConfig { seed: cfg.seed + i as u64, ..cfg }).expect("qe");
            let z = (mc.price - exact) / mc.std_error;
            worst = worst.max(z.abs());
            assert!(
                z.abs() <= 3.0,
                "set {i} {p:?} T {t} {option:?} K {k}: MC {} +- {} vs {exact}",
                mc.price,
                mc.std_error
            );
        }
    }
    eprintln!("worst |z| = {worst:.2}");
}

#[test]
fn bad_parameters_are_typed_errors() {
    let o = opt(OptionType::Call, 100.0, 1.0);
    let e = heston_price(&hp(0.04, 1.0, 0.04, 0.5, 1.0), &o);
    assert!(matches!(e, Err(HestonError::InvalidParameter { name: "rho", .. })), "{e:?}");
    let e = heston_price(&hp(-0.04, 1.0, 0.04, 0.5, 0.0), &o);
    assert!(matches!(e, Err(HestonError::InvalidParameter { name: "v0", .. })), "{e:?}");
    let e = heston_price(&hp(0.04, 1.0, 0.04, 0.5, 0.0), &opt(OptionType::Call, 100.0, 0.0));
    assert!(matches!(e, Err(HestonError::InvalidParameter { name: "maturity", .. })), "{e:?}");
    let e = heston_price_with_alpha(&hp(0.04, 1.0, 0.04, 0.5, 0.0), &o, -0.5);
    assert!(matches!(e, Err(HestonError::InvalidParameter { name: "alpha", .. })), "{e:?}");
}

#[test]
fn qe_terminal_spot_is_a_martingale_with_extreme_parameters() {
    // E[S_T] = F (Andersen's martingale correction) with vol of variance up to 2, |rho| up to
    // 0.95, the Feller condition violated and coarse steps. (At these parameters the
    // uncorrected scheme's drift is also within the noise, so this checks the kernel's
    // forward, not the correction's size; both cases have finite second moments of S_T.)
    let dev = tenor_cpu::cpu().expect("cpu backend");
    for (p, t) in [(hp(0.09, 0.5, 0.04, 2.0, -0.95), 2.0), (hp(0.04, 3.0, 0.04, 1.5, 0.9), 0.5)] {
        let o = opt(OptionType::Call, 100.0, t);
        let cfg = QeConfig { paths: 40_000, steps_per_year: 4.0, min_steps: 2, seed: 99 };
        let (s, _) = heston_qe_terminal(&dev, &p, &o, &cfg).expect("qe");
        let n = s.len() as f64;
        let mean = s.iter().sum::<f64>() / n;
        let var = s.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let se = (var / n).sqrt();
        assert!((mean - o.forward()).abs() <= 3.0 * se, "{p:?}: E[S_T] {mean} +- {se} vs F {}", o.forward());
    }
}

/// The small vol-of-variance expansion of Heston prices to first order (Bergomi & Guyon 2012,
/// "Stochastic volatility's orderly smiles", Risk, section 2; Lewis 2000, ch. 3):
/// `P = BS(w) + rho xi J d2 BS / (dx dw) + O(xi^2)`, with `x = ln S`, `w` the integrated
/// variance, and `J = int_0^T vbar(t) (1 - e^{-kappa (T - t)}) / kappa dt` the covariance of
/// `ln S_T` and the integrated variance per unit `rho xi` (`vbar(t) = theta + (v0 - theta)
/// e^{-kappa t}`, integrated here by Simpson's rule); `d2 BS / (dx dw) = e^{-qT} S phi(d1)
/// (1 - d1 / sqrt(w)) / (2 sqrt(w))` for calls and puts alike.
fn first_order_in_xi(option: OptionType, k: f64, t: f64, p: &HestonParams) -> f64 {
    let HestonParams { v0, kappa, theta, sigma: xi, rho } = *p;
    let w = theta * t + (v0 - theta) * (1.0 - (-kappa * t).exp()) / kappa;
    let n = 2000;
    let h = t / f64::from(n);
    let f = |s: f64| (theta + (v0 - theta) * (-kappa * s).exp()) * (1.0 - (-kappa * (t - s)).exp()) / kappa;
    let j: f64 = (0..=n)
        .map(|i| {
            let c = if i == 0 || i == n {
                1.0
            } else if i % 2 == 1 {
                4.0
            } else {
                2.0
            };
            c * f(h * f64::from(i))
        })
        .sum::<f64>()
        * h
        / 3.0;
    let o = opt(option, k, t);
    let d1 = ((o.forward() / k).ln() + 0.5 * w) / w.sqrt();
    let pdf = (-0.5 * d1 * d1).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let cross = (-o.dividend * t).exp() * o.spot * pdf * (1.0 - d1 / w.sqrt()) / (2.0 * w.sqrt());
    let v = Vanilla { option, spot: 100.0, strike: k, maturity: t, rate: 0.03, dividend: 0.01, vol: (w / t).sqrt() };
    black_scholes(&v) + rho * xi * j * cross
}

#[test]
fn small_vol_of_variance_tends_to_black_scholes_with_the_integrated_variance() {
    // finmath-lib#42 / issue 29: at xi = 1e-8 the at-the-money call of maturity 2 priced 3.84
    // (the limit is 12.836) and xi in about [3e-8, 3e-5] was refused as "did not converge":
    // the characteristic function lost every digit of `xi - d` to cancellation. Every xi > 0
    // is valid input; the price must tend to the first-order expansion, within O(xi^2).
    let (v0, kappa, theta, rho) = (0.04, 1.5, 0.04, -0.5);
    let mut worst: f64 = 0.0;
    for xi in [1e-300, 1e-160, 1e-12, 1e-10, 1e-9, 1e-8, 3e-8, 1e-7, 1e-6, 3e-6, 1e-5, 3e-5, 1e-4, 1e-3] {
        let p = hp(v0, kappa, theta, xi, rho);
        for t in [WEEK, 2.0, 10.0] {
            for k in [70.0, 100.0, 130.0] {
                for option in [OptionType::Call, OptionType::Put] {
                    let h = heston_price(&p, &opt(option, k, t))
                        .unwrap_or_else(|e| panic!("xi {xi:e} T {t} K {k} {option:?}: {e}"));
                    let limit = first_order_in_xi(option, k, t, &p);
                    // Second-order terms: at most 4.4 xi^2 here (4.4e-6 at xi = 1e-3).
                    let tol = 1e-9 + 10.0 * xi * xi;
                    assert!((h - limit).abs() < tol, "xi {xi:e} T {t} K {k} {option:?}: {h} vs {limit}");
                    worst = worst.max((h - limit).abs());
                }
            }
        }
    }
    eprintln!("largest |Heston - expansion| {worst:e}");
    // The case, against the limit it names.
    let p = hp(0.04, 1.5, 0.04, 1e-8, -0.5);
    let h = heston_price(&p, &opt(OptionType::Call, 100.0, 2.0)).expect("xi 1e-8");
    assert!((h - 12.836_346_110_43).abs() < 1e-9, "{h}");
}
