//! Heston Monte Carlo calls and the second moment of their payoff (issue 29, pfhedge#203): the
//! explosion time of `E[S_T^2]` against Andersen and Piterbarg's closed form computed by hand; the
//! payoffs' second moments against the lognormal closed form in the vanishing vol-of-variance
//! limit and against second-moment parity `E[C^2] + E[P^2] = E[(S_T - K)^2]` (two contours, one
//! identity); a call past the explosion time simulated through its put and within 3 standard
//! errors of the semi-analytic price; and Greeks whose bumped copies follow the product's route.
use tenor_pricing::analytic::normal::norm_cdf;
use tenor_pricing::heston::cf::log_cf;
use tenor_pricing::heston::moments::{call_variance_explosion_time, payoff_second_moment, payoff_variance};
use tenor_pricing::heston::{heston_price, HestonOption, HestonParams};
use tenor_pricing::mc::{self, call_route, CallRoute, HestonMcOption, McConfig, McProduct};
use tenor_pricing::types::{OptionType, Vanilla};

/// pfhedge#203: a far out-of-the-money call at vol of variance 2 with rho 0.9.
fn pfhedge() -> (HestonParams, HestonOption) {
    let p = HestonParams { v0: 0.04, kappa: 0.5, theta: 0.04, sigma: 2.0, rho: 0.9 };
    let o =
        HestonOption { option: OptionType::Call, spot: 100.0, strike: 200.0, maturity: 1.0, rate: 0.0, dividend: 0.0 };
    (p, o)
}

fn product(o: &HestonOption, p: HestonParams) -> McProduct {
    let vanilla = Vanilla {
        option: o.option,
        spot: o.spot,
        strike: o.strike,
        maturity: o.maturity,
        rate: o.rate,
        dividend: o.dividend,
        vol: f64::NAN,
    };
    McProduct::Heston(HestonMcOption::new(vanilla, p))
}

#[test]
fn the_second_moment_explodes_at_andersen_and_piterbarg_s_time() {
    // Prop. 3.1 for omega = 2 by hand: b = kappa - 2 rho sigma = 0.5 - 3.6 = -3.1,
    // D = b^2 - 2 sigma^2 = 9.61 - 8 = 1.61, T* = ln((b - sqrt D) / (b + sqrt D)) / sqrt D
    // = ln(4.368858 / 1.831142) / 1.268858 = 0.869562 / 1.268858 = 0.685311 years.
    let (p, o) = pfhedge();
    let t_star = call_variance_explosion_time(&p);
    assert!((t_star - 0.685_311).abs() < 2e-6, "{t_star}");
    // E[S_T^2] from the characteristic function: finite before, growing without bound towards it.
    let m2 = |t: f64| log_cf(&p, t, nalgebra::Complex::new(0.0, -2.0)).re.exp();
    assert!(m2(0.6).is_finite() && m2(0.685) > 100.0 * m2(0.6), "{} {}", m2(0.6), m2(0.685));
    assert_eq!(payoff_second_moment(&p, &o), Ok(f64::INFINITY));
    assert!(payoff_second_moment(&p, &HestonOption { option: OptionType::Put, ..o }).expect("put").is_finite());
}

#[test]
fn second_moments_meet_the_lognormal_limit_and_second_moment_parity() {
    let o =
        |option, strike, maturity| HestonOption { option, spot: 100.0, strike, maturity, rate: 0.03, dividend: 0.01 };
    // Vanishing vol of variance: the lognormal partial moments, E[S^n 1{S > K}] =
    // F^n e^{n(n-1) w / 2} N(d_n), d_n = (ln(F/K) + (n - 1/2) w) / sqrt(w).
    let (v0, kappa, theta) = (0.04, 1.5, 0.09);
    let p = HestonParams { v0, kappa, theta, sigma: 1e-9, rho: -0.5 };
    for t in [0.25, 2.0] {
        let w = theta * t + (v0 - theta) * (1.0 - (-kappa * t).exp()) / kappa;
        for k in [70.0, 100.0, 140.0] {
            let f = o(OptionType::Call, k, t).forward();
            let up = |n: i32| {
                let nf = f64::from(n);
                f.powi(n) * (0.5 * nf * (nf - 1.0) * w).exp() * norm_cdf(((f / k).ln() + (nf - 0.5) * w) / w.sqrt())
            };
            let call2 = up(2) - 2.0 * k * up(1) + k * k * up(0);
            let total = f * f * w.exp() - 2.0 * k * f + k * k;
            let put2 = total - call2;
            let c = payoff_second_moment(&p, &o(OptionType::Call, k, t)).expect("call");
            let q = payoff_second_moment(&p, &o(OptionType::Put, k, t)).expect("put");
            assert!((c - call2).abs() < 1e-7 * total, "T {t} K {k}: call {c} vs {call2}");
            assert!((q - put2).abs() < 1e-7 * total, "T {t} K {k}: put {q} vs {put2}");
        }
    }
    // Stochastic variance: E[C^2] + E[P^2] = E[S^2] - 2 K F + K^2 with E[S^2] = F^2 phi(-2i),
    // the call on the contour Im z = beta > 2, the put on beta < 0.
    for p in [
        HestonParams { v0: 0.04, kappa: 1.5, theta: 0.04, sigma: 0.5, rho: -0.7 },
        HestonParams { v0: 0.09, kappa: 1.0, theta: 0.06, sigma: 1.0, rho: 0.3 },
        HestonParams { v0: 0.04, kappa: 0.5, theta: 0.04, sigma: 2.0, rho: 0.9 },
    ] {
        for t in [0.1, 0.5] {
            for k in [60.0, 100.0, 150.0] {
                let call = o(OptionType::Call, k, t);
                let f = call.forward();
                let s2 = f * f * log_cf(&p, t, nalgebra::Complex::new(0.0, -2.0)).re.exp();
                let total = s2 - 2.0 * k * f + k * k;
                let c = payoff_second_moment(&p, &call).expect("call");
                let q = payoff_second_moment(&p, &o(OptionType::Put, k, t)).expect("put");
                assert!((c + q - total).abs() < 1e-8 * total, "{p:?} T {t} K {k}: {c} + {q} vs {total}");
            }
        }
    }
}

#[test]
fn a_call_past_the_explosion_time_is_simulated_through_its_put() {
    // pfhedge#203 / issue 29: 1.092 +/- 0.110 against 1.807 (6.5 standard errors low), the call
    // simulated as it is because a geometric-Brownian proxy, blind to xi and rho, preferred it.
    let (p, o) = pfhedge();
    let q = product(&o, p);
    assert_eq!(call_route(&q), CallRoute::PastMomentExplosion);
    let truth = heston_price(&p, &o).expect("semi-analytic");
    let cfg = McConfig { paths: 50_000, seed: 7, ..McConfig::default() };
    let r = mc::price(&tenor_cpu::cpu().expect("cpu"), &q, &cfg).expect("priced");
    eprintln!("past the explosion time: {:.4} +- {:.4} against {truth:.4}", r.price, r.stderr);
    assert!((r.price - truth).abs() < 3.0 * r.stderr, "{} +- {} vs {truth}", r.price, r.stderr);
    // Before it the route follows the exact Heston variances: at T = 0.5 here the put's is the
    // smaller (the call's tail is fat), though the proxy's lognormal says the call's is.
    let half = HestonOption { maturity: 0.5, ..o };
    let call_var = payoff_variance(&p, &half).expect("call");
    let put_var = payoff_variance(&p, &HestonOption { option: OptionType::Put, ..half }).expect("put");
    let expected = if put_var < call_var { CallRoute::Identity } else { CallRoute::AsIs };
    assert_eq!(call_route(&product(&half, p)), expected, "call var {call_var}, put var {put_var}");
}

#[test]
fn greeks_of_a_call_through_its_put_are_the_put_s_plus_the_forward_s() {
    // Every bumped copy takes the product's route: with the call priced as the put plus
    // S e^{-qT} - K e^{-rT} on every copy, vega (the forward does not move with v0) equals the
    // put's exactly, and delta the put's plus the bumped forward's difference e^{-qT}. A copy
    // that chose its own side (the maturity bumps straddle the explosion time here) would
    // difference a simulated call with a simulated put.
    let (p, base) = pfhedge();
    let t_star = call_variance_explosion_time(&p);
    let o = HestonOption { maturity: t_star + 0.5 / 365.0, rate: 0.02, dividend: 0.01, strike: 120.0, ..base };
    let dev = tenor_cpu::cpu().expect("cpu");
    let cfg = McConfig { paths: 20_000, seed: 3, ..McConfig::default() };
    let c = mc::price_with_greeks(&dev, &product(&o, p), &cfg).expect("call").greeks.expect("greeks");
    let put = HestonOption { option: OptionType::Put, ..o };
    let g = mc::price_with_greeks(&dev, &product(&put, p), &cfg).expect("put").greeks.expect("greeks");
    assert!((c.vega - g.vega).abs() < 1e-9 * g.vega.abs().max(1.0), "call {c:?} put {g:?}");
    let df_q = (-o.dividend * o.maturity).exp();
    assert!((c.delta - g.delta - df_q).abs() < 1e-9, "call {c:?} put {g:?}");
    assert!((c.gamma - g.gamma).abs() < 1e-9 * g.gamma.abs().max(1.0), "call {c:?} put {g:?}");
}
