//! Reiner-Rubinstein barrier closed forms: Haug's published values, in-out parity, limits,
//! the negative-rate rebate, bump Greeks and input validation.

use proptest::prelude::*;
use serde::Deserialize;
use tenor_pricing::analytic::{barrier_greeks, barrier_price, black_scholes, black_scholes_price};
use tenor_pricing::error::PricingError;
use tenor_pricing::types::{BarrierSpec, BarrierType, OptionType, Vanilla};

#[derive(Debug, Deserialize)]
struct BarrierRow {
    barrier_type: String,
    barrier: f64,
    rebate: f64,
    #[serde(rename = "type")]
    kind: String,
    spot: f64,
    strike: f64,
    q: f64,
    r: f64,
    t: f64,
    v: f64,
    expected: f64,
    tolerance: f64,
    source_line: u32,
}

const ALL_TYPES: [BarrierType; 4] = [BarrierType::DownOut, BarrierType::DownIn, BarrierType::UpOut, BarrierType::UpIn];

fn barrier_type(s: &str) -> BarrierType {
    match s {
        "down_out" => BarrierType::DownOut,
        "down_in" => BarrierType::DownIn,
        "up_out" => BarrierType::UpOut,
        "up_in" => BarrierType::UpIn,
        other => panic!("unknown barrier type {other:?}"),
    }
}

fn option_type(s: &str) -> OptionType {
    match s {
        "call" => OptionType::Call,
        "put" => OptionType::Put,
        other => panic!("unknown option type {other:?}"),
    }
}

/// A barrier contract from its ten scalars.
#[allow(clippy::too_many_arguments)]
fn spec(
    option: OptionType,
    ty: BarrierType,
    s: f64,
    k: f64,
    h: f64,
    rebate: f64,
    t: f64,
    r: f64,
    q: f64,
    vol: f64,
) -> BarrierSpec {
    BarrierSpec {
        vanilla: Vanilla { option, spot: s, strike: k, maturity: t, rate: r, dividend: q, vol },
        barrier: h,
        barrier_type: ty,
        rebate,
    }
}

/// Every row of shared/oracles/barrier_haug.csv (Haug 1998 p. 72) within its tolerance (1e-4),
/// including the rows with H = S, which the spot-on-the-barrier rule prices as rebate (out) or
/// vanilla (in), as the oracle README says they must be.
#[test]
fn barrier_haug_oracle() {
    let path = tenor_testdata::shared("oracles/barrier_haug.csv");
    let mut reader = csv::Reader::from_path(&path).expect("open barrier_haug.csv");
    let (mut count, mut on_barrier) = (0, 0);
    let mut worst = 0.0f64;
    for row in reader.deserialize::<BarrierRow>() {
        let row = row.expect("barrier_haug.csv row");
        let b = spec(
            option_type(&row.kind),
            barrier_type(&row.barrier_type),
            row.spot,
            row.strike,
            row.barrier,
            row.rebate,
            row.t,
            row.r,
            row.q,
            row.v,
        );
        let price = barrier_price(&b).expect("valid oracle row");
        let err = (price - row.expected).abs();
        worst = worst.max(err);
        assert!(
            err <= row.tolerance,
            "line {}: {b:?} priced {price:.6}, Haug {} (tolerance {})",
            row.source_line,
            row.expected,
            row.tolerance
        );
        if row.barrier == row.spot {
            on_barrier += 1;
        }
        count += 1;
    }
    assert_eq!(count, 72, "{}: expected 72 rows", path.display());
    assert_eq!(on_barrier, 24, "expected 24 rows with H = S");
    eprintln!("barrier_haug: {count} rows ({on_barrier} with H = S), worst |error| {worst:e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Without rebate, knock-in + knock-out = vanilla for all four call/put x down/up pairs
    /// (negative rates and r < q included).
    #[test]
    fn in_out_parity_without_rebate(
        call in any::<bool>(),
        down in any::<bool>(),
        s in 10.0f64..500.0,
        log_k in -0.7f64..0.7,
        log_h in 0.001f64..0.7,
        t in 0.01f64..5.0,
        r in -0.05f64..0.15,
        q in -0.05f64..0.15,
        vol in 0.02f64..1.0,
    ) {
        let option = if call { OptionType::Call } else { OptionType::Put };
        let h = if down { s * (-log_h).exp() } else { s * log_h.exp() };
        let (out_ty, in_ty) = if down { (BarrierType::DownOut, BarrierType::DownIn) } else { (BarrierType::UpOut, BarrierType::UpIn) };
        let k = s * log_k.exp();
        let out = barrier_price(&spec(option, out_ty, s, k, h, 0.0, t, r, q, vol)).expect("valid");
        let knock_in = barrier_price(&spec(option, in_ty, s, k, h, 0.0, t, r, q, vol)).expect("valid");
        let van = black_scholes_price(&Vanilla { option, spot: s, strike: k, maturity: t, rate: r, dividend: q, vol }).expect("valid");
        prop_assert!(out >= 0.0 && knock_in >= 0.0);
        prop_assert!((out + knock_in - van).abs() <= 1e-10 * s, "out {} + in {} != vanilla {}", out, knock_in, van);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// On wide parameter ranges (vols from 1e-12 to 5, maturities to 50 years, rates of either
    /// sign) every price is finite, non-negative and within the no-arbitrage bound
    /// `vanilla + rebate * max(1, e^{-rT})` (the payoff never exceeds the vanilla's plus the
    /// rebate, discounted at worst over [0, T]).
    #[test]
    fn prices_are_finite_and_bounded(
        call in any::<bool>(),
        type_index in 0usize..4,
        log_k in -2.0f64..2.0,
        log_h in -1.0f64..1.0,
        t in 0.0f64..50.0,
        r in -0.10f64..0.30,
        q in -0.10f64..0.30,
        log_vol in -27.6f64..1.6,
        rebate in 0.0f64..20.0,
    ) {
        let option = if call { OptionType::Call } else { OptionType::Put };
        let (s, vol) = (100.0, log_vol.exp());
        let b = spec(option, ALL_TYPES[type_index], s, s * log_k.exp(), s * log_h.exp(), rebate, t, r, q, vol);
        let p = barrier_price(&b).expect("valid");
        let van = black_scholes_price(&b.vanilla).expect("valid");
        let bound = van + rebate * (-r * t).exp().max(1.0);
        prop_assert!(p.is_finite() && p >= 0.0, "{:?}: {}", b, p);
        prop_assert!(p <= bound * (1.0 + 1e-9) + 1e-9, "{:?}: {} above bound {}", b, p, bound);
    }
}

/// Spot on or beyond the barrier: knock-out worth its rebate now, knock-in worth the vanilla.
#[test]
fn breached_barrier() {
    let van = Vanilla {
        option: OptionType::Put,
        spot: 100.0,
        strike: 105.0,
        maturity: 0.5,
        rate: 0.03,
        dividend: 0.01,
        vol: 0.25,
    };
    let vanilla_price = black_scholes_price(&van).expect("valid");
    for (ty, h) in [(BarrierType::DownOut, 101.0), (BarrierType::UpOut, 99.0), (BarrierType::DownOut, 100.0)] {
        let b = BarrierSpec { vanilla: van, barrier: h, barrier_type: ty, rebate: 2.5 };
        assert_eq!(barrier_price(&b).expect("valid"), 2.5, "{ty:?} H {h}");
    }
    for (ty, h) in [(BarrierType::DownIn, 101.0), (BarrierType::UpIn, 99.0), (BarrierType::UpIn, 100.0)] {
        let b = BarrierSpec { vanilla: van, barrier: h, barrier_type: ty, rebate: 2.5 };
        assert_eq!(barrier_price(&b).expect("valid"), vanilla_price, "{ty:?} H {h}");
    }
}

/// Limits with known values: a barrier out of reach leaves the vanilla (out) or the rebate at
/// expiry (in); a barrier a hair away is hit at once (out: the rebate, in: the vanilla).
#[test]
fn far_and_near_barriers() {
    let (s, k, t, r, q, vol, rebate) = (100.0, 100.0, 1.0, 0.05, 0.02, 0.2, 3.0);
    for option in [OptionType::Call, OptionType::Put] {
        let van = black_scholes_price(&Vanilla { option, spot: s, strike: k, maturity: t, rate: r, dividend: q, vol })
            .expect("valid");
        for (ty, h) in [(BarrierType::DownOut, 1.0), (BarrierType::UpOut, 1e4)] {
            let p = barrier_price(&spec(option, ty, s, k, h, rebate, t, r, q, vol)).expect("valid");
            assert!((p - van).abs() <= 1e-10, "{option:?} {ty:?} far: {p} vs vanilla {van}");
        }
        for (ty, h) in [(BarrierType::DownIn, 1.0), (BarrierType::UpIn, 1e4)] {
            let p = barrier_price(&spec(option, ty, s, k, h, rebate, t, r, q, vol)).expect("valid");
            let want = rebate * (-r * t).exp();
            assert!((p - want).abs() <= 1e-10, "{option:?} {ty:?} far: {p} vs discounted rebate {want}");
        }
        for (ty, h) in [(BarrierType::DownOut, s * (1.0 - 1e-9)), (BarrierType::UpOut, s * (1.0 + 1e-9))] {
            let p = barrier_price(&spec(option, ty, s, k, h, rebate, t, r, q, vol)).expect("valid");
            assert!((p - rebate).abs() <= 1e-6, "{option:?} {ty:?} near: {p} vs rebate {rebate}");
        }
        for (ty, h) in [(BarrierType::DownIn, s * (1.0 - 1e-9)), (BarrierType::UpIn, s * (1.0 + 1e-9))] {
            let p = barrier_price(&spec(option, ty, s, k, h, rebate, t, r, q, vol)).expect("valid");
            assert!((p - van).abs() <= 1e-6, "{option:?} {ty:?} near: {p} vs vanilla {van}");
        }
    }
}

/// Zero vol (deterministic path S e^{(r-q)t}) and zero maturity, and continuity with tiny vol.
#[test]
fn degenerate_vol_and_maturity() {
    let (s, k, r, t) = (100.0, 95.0, 0.05, 1.0);
    // q = 0.10 > r: the path falls, hitting H = 97 at tau = ln(0.97)/(-0.05) = 0.609 years.
    let q = 0.10;
    let tau = (97.0f64 / 100.0).ln() / (r - q);
    let out =
        barrier_price(&spec(OptionType::Call, BarrierType::DownOut, s, k, 97.0, 2.0, t, r, q, 0.0)).expect("valid");
    assert!((out - 2.0 * (-r * tau).exp()).abs() <= 1e-12, "deterministic out-rebate at the hit: {out}");
    // Knocked in on the way down to the forward 100 e^{-0.05} = 95.12, below the strike 100.
    let knock_in =
        barrier_price(&spec(OptionType::Put, BarrierType::DownIn, s, 100.0, 97.0, 2.0, t, r, q, 0.0)).expect("valid");
    let fwd = s * ((r - q) * t).exp();
    assert!((knock_in - (-r * t).exp() * (100.0 - fwd)).abs() <= 1e-12, "deterministic knock-in: {knock_in}");
    for ty in ALL_TYPES {
        for option in [OptionType::Call, OptionType::Put] {
            let h = if ty.is_down() { 97.0 } else { 104.0 };
            let p0 = barrier_price(&spec(option, ty, s, k, h, 2.0, t, r, q, 0.0)).expect("valid");
            let p_tiny = barrier_price(&spec(option, ty, s, k, h, 2.0, t, r, q, 1e-6)).expect("valid");
            assert!(p0.is_finite() && p_tiny.is_finite());
            assert!((p0 - p_tiny).abs() <= 1e-3, "{option:?} {ty:?}: vol 0 {p0} vs vol 1e-6 {p_tiny}");
            // At expiry: out = intrinsic, in = rebate (never hit, paid now).
            let p_t0 = barrier_price(&spec(option, ty, s, k, h, 2.0, 0.0, r, q, 0.2)).expect("valid");
            let want = if ty.is_out() { option.payoff(s, k) } else { 2.0 };
            assert_eq!(p_t0, want, "{option:?} {ty:?} at expiry");
        }
    }
}

/// Negative rate with a rebate where mu^2 + 2r/sigma^2 < 0 (lambda imaginary): the out-rebate
/// is integrated numerically. Its value must join the closed form continuously across the
/// boundary mu^2 + 2r/sigma^2 = 0 and stay between 0 and the undiscounted rebate bound.
#[test]
fn negative_rate_rebate_is_continuous_across_imaginary_lambda() {
    let (s, h, k, t, vol) = (100.0, 90.0, 100.0, 2.0, 0.1);
    let q = -0.01;
    let sig2: f64 = vol * vol;
    // mu^2 + 2r/sigma^2 as a function of r (q fixed); find its root by bisection.
    let disc = |r: f64| {
        let mu = (r - q - 0.5 * sig2) / sig2;
        mu * mu + 2.0 * r / sig2
    };
    let (mut lo, mut hi) = (-0.015, 0.0);
    assert!(disc(lo) < 0.0 && disc(hi) > 0.0, "test set-up: no sign change");
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if disc(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    for ty in [BarrierType::DownOut, BarrierType::UpOut] {
        let hh = if ty.is_down() { h } else { 1.0e4 / h };
        let below = barrier_price(&spec(OptionType::Call, ty, s, k, hh, 5.0, t, lo - 1e-9, q, vol)).expect("valid");
        let above = barrier_price(&spec(OptionType::Call, ty, s, k, hh, 5.0, t, hi + 1e-9, q, vol)).expect("valid");
        assert!(below.is_finite() && above.is_finite());
        assert!((below - above).abs() <= 1e-6, "{ty:?}: {below} (imaginary lambda) vs {above} (closed form)");
        let deep = barrier_price(&spec(OptionType::Call, ty, s, k, hh, 5.0, t, -0.015, q, vol)).expect("valid");
        let bound = 5.0 * (0.015f64 * t).exp()
            + black_scholes_price(&spec(OptionType::Call, ty, s, k, hh, 0.0, t, -0.015, q, vol).vanilla)
                .expect("valid");
        assert!(deep > 0.0 && deep < bound, "{ty:?} r = -1.5%: {deep}");
    }
}

/// Bump Greeks of a barrier that cannot be reached equal the vanilla's analytic Greeks.
#[test]
fn barrier_greeks_reduce_to_vanilla_greeks() {
    for option in [OptionType::Call, OptionType::Put] {
        let b = spec(option, BarrierType::DownOut, 100.0, 105.0, 1e-3, 0.0, 0.75, 0.04, 0.01, 0.3);
        let g = barrier_greeks(&b).expect("valid");
        let v = black_scholes(&b.vanilla).expect("valid");
        for (name, a, f, scale) in [
            ("price", v.price, g.price, 100.0),
            ("delta", v.delta, g.delta, 1.0),
            ("gamma", v.gamma, g.gamma, 0.1),
            ("vega", v.vega, g.vega, 100.0),
            ("theta", v.theta, g.theta, 100.0),
            ("rho", v.rho, g.rho, 100.0),
        ] {
            assert!(
                (a - f).abs() <= 1e-6 * a.abs() + 1e-7 * scale,
                "{option:?} {name}: vanilla {a} vs barrier bump {f}"
            );
        }
    }
}

/// Bump Greeks of a live barrier agree with a coarser independent finite difference and have
/// the sign the payoff dictates (a down-and-out call gains from a higher spot).
#[test]
fn barrier_greeks_of_a_live_barrier() {
    let b = spec(OptionType::Call, BarrierType::DownOut, 100.0, 100.0, 95.0, 3.0, 0.5, 0.08, 0.04, 0.25);
    let g = barrier_greeks(&b).expect("valid");
    let at = |s: f64| barrier_price(&BarrierSpec { vanilla: Vanilla { spot: s, ..b.vanilla }, ..b }).expect("valid");
    let h = 0.05;
    let delta = (at(100.0 + h) - at(100.0 - h)) / (2.0 * h);
    let gamma = (at(100.0 + h) - 2.0 * at(100.0) + at(100.0 - h)) / (h * h);
    assert!((g.delta - delta).abs() <= 1e-5, "delta {} vs {delta}", g.delta);
    assert!((g.gamma - gamma).abs() <= 1e-4, "gamma {} vs {gamma}", g.gamma);
    assert!(g.delta > 0.0);
}

fn expect_invalid(b: BarrierSpec, name: &str) {
    match barrier_price(&b) {
        Err(PricingError::InvalidParameter { name: got, .. }) => assert_eq!(got, name, "{b:?}"),
        other => panic!("{b:?}: expected InvalidParameter({name}), got {other:?}"),
    }
}

/// Bad inputs give the typed error naming the parameter.
#[test]
fn bad_inputs_name_the_parameter() {
    let ok = spec(OptionType::Call, BarrierType::UpOut, 100.0, 100.0, 120.0, 1.0, 1.0, 0.05, 0.0, 0.2);
    assert!(barrier_price(&ok).is_ok());
    expect_invalid(BarrierSpec { barrier: 0.0, ..ok }, "barrier");
    expect_invalid(BarrierSpec { barrier: -10.0, ..ok }, "barrier");
    expect_invalid(BarrierSpec { barrier: f64::NAN, ..ok }, "barrier");
    expect_invalid(BarrierSpec { rebate: -1.0, ..ok }, "rebate");
    expect_invalid(BarrierSpec { rebate: f64::NAN, ..ok }, "rebate");
    expect_invalid(BarrierSpec { vanilla: Vanilla { vol: -0.1, ..ok.vanilla }, ..ok }, "vol");
    expect_invalid(BarrierSpec { vanilla: Vanilla { maturity: -0.5, ..ok.vanilla }, ..ok }, "maturity");
    expect_invalid(BarrierSpec { vanilla: Vanilla { strike: 0.0, ..ok.vanilla }, ..ok }, "strike");
    expect_invalid(BarrierSpec { vanilla: Vanilla { spot: f64::NAN, ..ok.vanilla }, ..ok }, "spot");
    assert!(matches!(
        barrier_greeks(&BarrierSpec { barrier: 0.0, ..ok }),
        Err(PricingError::InvalidParameter { name: "barrier", .. })
    ));
}
