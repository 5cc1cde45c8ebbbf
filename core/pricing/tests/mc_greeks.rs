//! Bump-and-revalue Greeks with common random numbers against the Black-Scholes-Merton closed
//! form written out here by hand (Hull, *Options, Futures and Other Derivatives*, ch. 19), and
//! the put-call parity of the Monte Carlo prices on common random numbers.

use tenor_pricing::analytic::normal::norm_cdf;
use tenor_pricing::mc::{self, McConfig, McProduct};
use tenor_pricing::types::{Greeks, OptionType, Vanilla};

fn bsm(v: &Vanilla) -> Greeks {
    let (s, k, t, r, q, sig) = (v.spot, v.strike, v.maturity, v.rate, v.dividend, v.vol);
    let st = sig * t.sqrt();
    let d1 = ((s / k).ln() + (r - q + 0.5 * sig * sig) * t) / st;
    let d2 = d1 - st;
    let pdf = (-0.5 * d1 * d1).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let (dq, dr) = ((-q * t).exp(), (-r * t).exp());
    let w = v.option.sign();
    let price = w * (s * dq * norm_cdf(w * d1) - k * dr * norm_cdf(w * d2));
    Greeks {
        price,
        delta: w * dq * norm_cdf(w * d1),
        gamma: dq * pdf / (s * st),
        vega: s * dq * pdf * t.sqrt(),
        theta: -s * dq * pdf * sig / (2.0 * t.sqrt())
            + w * (q * s * dq * norm_cdf(w * d1) - r * k * dr * norm_cdf(w * d2)),
        rho: w * k * t * dr * norm_cdf(w * d2),
    }
}

#[test]
fn european_greeks_match_the_closed_form() {
    let dev = tenor_cpu::cpu().expect("cpu");
    let cfg = McConfig { paths: 400_000, seed: 17, ..McConfig::default() };
    for option in [OptionType::Call, OptionType::Put] {
        let v = Vanilla { option, spot: 100.0, strike: 105.0, maturity: 0.8, rate: 0.04, dividend: 0.01, vol: 0.25 };
        let got = mc::price_with_greeks(&dev, &McProduct::European(v), &cfg).expect("price");
        let g = got.greeks.expect("greeks");
        let want = bsm(&v);
        // Tolerances: MC noise of the CRN differences at 4e5 paths plus the O(h^2) bias of the
        // central differences (1 % spot, 0.01 vol, 10 bp rate, one day).
        let checks = [
            ("price", g.price, want.price, 3.0 * got.price.stderr),
            ("delta", g.delta, want.delta, 0.005),
            ("gamma", g.gamma, want.gamma, 0.1 * want.gamma),
            ("vega", g.vega, want.vega, 0.02 * want.vega),
            ("theta", g.theta, want.theta, 0.05 * want.theta.abs()),
            ("rho", g.rho, want.rho, 0.02 * want.rho.abs()),
        ];
        for (name, got, want, tol) in checks {
            assert!((got - want).abs() <= tol, "{option:?} {name}: MC {got} vs closed form {want} (tol {tol})");
        }
    }
}

#[test]
fn low_vol_greeks_match_the_closed_form() {
    // A vol below one vol point: the vol bump shrinks to vol / 2 (0.0025 here) so the down bump
    // stays a valid vol. The strike sits near the forward so vega is large enough to measure.
    let dev = tenor_cpu::cpu().expect("cpu");
    let cfg = McConfig { paths: 400_000, seed: 29, ..McConfig::default() };
    let v = Vanilla {
        option: OptionType::Call,
        spot: 100.0,
        strike: 100.5,
        maturity: 0.5,
        rate: 0.02,
        dividend: 0.01,
        vol: 0.005,
    };
    let got = mc::price_with_greeks(&dev, &McProduct::European(v), &cfg).expect("greeks at vol 0.005");
    let g = got.greeks.expect("greeks");
    let want = bsm(&v);
    assert!((g.vega - want.vega).abs() <= 0.03 * want.vega, "vega: MC {} vs closed form {}", g.vega, want.vega);
    assert!((g.delta - want.delta).abs() <= 0.02, "delta: MC {} vs closed form {}", g.delta, want.delta);
}

#[test]
fn put_call_parity_holds_on_common_random_numbers() {
    // With the same normals, C - P = e^{-rT} (S_T - K) averaged over the paths, whose mean
    // is S e^{-qT} - K e^{-rT} up to MC noise of a linear (low-variance) payoff.
    let dev = tenor_cpu::cpu().expect("cpu");
    let cfg = McConfig { paths: 200_000, seed: 23, ..McConfig::default() };
    let v = Vanilla {
        option: OptionType::Call,
        spot: 50.0,
        strike: 48.0,
        maturity: 1.5,
        rate: 0.03,
        dividend: 0.02,
        vol: 0.3,
    };
    let c = mc::price(&dev, &McProduct::European(v), &cfg).expect("call");
    let p = mc::price(&dev, &McProduct::European(Vanilla { option: OptionType::Put, ..v }), &cfg).expect("put");
    let forward = v.spot * (-v.dividend * v.maturity).exp() - v.strike * (-v.rate * v.maturity).exp();
    assert!(
        (c.price - p.price - forward).abs() < 3.0 * (c.stderr + p.stderr),
        "{} - {} vs {forward}",
        c.price,
        p.price
    );
}

#[test]
fn in_out_parity_for_discrete_and_continuous_barriers() {
    // Without rebate, knock-in + knock-out = the European on every path (the kernel values the
    // in option with 1 - P(survive)); summed estimates must match Black-Scholes within 3 SE.
    use tenor_pricing::mc::{BarrierOption, Monitoring};
    use tenor_pricing::types::BarrierType;
    let dev = tenor_cpu::cpu().expect("cpu");
    let cfg = McConfig { paths: 100_000, seed: 31, steps: 50, ..McConfig::default() };
    let v = Vanilla {
        option: OptionType::Put,
        spot: 100.0,
        strike: 100.0,
        maturity: 0.5,
        rate: 0.05,
        dividend: 0.0,
        vol: 0.3,
    };
    let want = bsm(&v).price;
    for monitoring in [Monitoring::Continuous, Monitoring::Discrete(12)] {
        for (out_type, in_type, barrier) in
            [(BarrierType::DownOut, BarrierType::DownIn, 90.0), (BarrierType::UpOut, BarrierType::UpIn, 110.0)]
        {
            let b = |barrier_type| {
                McProduct::Barrier(BarrierOption { vanilla: v, barrier_type, barrier, rebate: 0.0, monitoring })
            };
            let o = mc::price(&dev, &b(out_type), &cfg).expect("out");
            let i = mc::price(&dev, &b(in_type), &cfg).expect("in");
            assert!(o.price > 0.0 && i.price > 0.0);
            let sum = o.price + i.price;
            assert!(
                (sum - want).abs() < 3.0 * (o.stderr + i.stderr),
                "{monitoring:?} {out_type:?}: {} + {} vs {want}",
                o.price,
                i.price
            );
        }
    }
}

#[test]
fn discrete_monitoring_knocks_out_less_than_continuous() {
    // Fewer monitoring dates can only let more paths survive: a down-and-out is worth more
    // monitored monthly than continuously, and a daily grid sits between them.
    use tenor_pricing::mc::{BarrierOption, Monitoring};
    use tenor_pricing::types::BarrierType;
    let dev = tenor_cpu::cpu().expect("cpu");
    let cfg = McConfig { paths: 100_000, seed: 37, steps: 64, ..McConfig::default() };
    let v = Vanilla {
        option: OptionType::Call,
        spot: 100.0,
        strike: 100.0,
        maturity: 1.0,
        rate: 0.03,
        dividend: 0.0,
        vol: 0.25,
    };
    let price = |monitoring| {
        let b =
            BarrierOption { vanilla: v, barrier_type: BarrierType::DownOut, barrier: 90.0, rebate: 0.0, monitoring };
        mc::price(&dev, &McProduct::Barrier(b), &cfg).expect("price")
    };
    let (monthly, daily, continuous) =
        (price(Monitoring::Discrete(12)), price(Monitoring::Discrete(252)), price(Monitoring::Continuous));
    assert!(monthly.price > daily.price && daily.price > continuous.price, "{monthly:?} {daily:?} {continuous:?}");
}
