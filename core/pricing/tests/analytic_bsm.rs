//! Black-Scholes-Merton closed form: Haug's published values, put-call parity, analytic Greeks
//! against finite differences, degenerate limits and input validation.

use proptest::prelude::*;
use serde::Deserialize;
use tenor_pricing::analytic::{black_scholes, black_scholes_price, greeks_by_bump, BumpSteps};
use tenor_pricing::error::PricingError;
use tenor_pricing::types::{OptionType, Vanilla};

#[derive(Debug, Deserialize)]
struct EuropeanRow {
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

fn option_type(s: &str) -> OptionType {
    match s {
        "call" => OptionType::Call,
        "put" => OptionType::Put,
        other => panic!("unknown option type {other:?}"),
    }
}

fn vanilla(option: OptionType, spot: f64, strike: f64, maturity: f64, rate: f64, dividend: f64, vol: f64) -> Vanilla {
    Vanilla { option, spot, strike, maturity, rate, dividend, vol }
}

/// Every row of shared/oracles/european_haug.csv (Haug 1998 pp. 2-8, 24, 27) within its
/// `tolerance` column.
#[test]
fn european_haug_oracle() {
    let path = tenor_testdata::shared("oracles/european_haug.csv");
    let mut reader = csv::Reader::from_path(&path).expect("open european_haug.csv");
    let mut count = 0;
    let mut worst = 0.0f64;
    for row in reader.deserialize::<EuropeanRow>() {
        let row = row.expect("european_haug.csv row");
        let v = vanilla(option_type(&row.kind), row.spot, row.strike, row.t, row.r, row.q, row.v);
        let price = black_scholes_price(&v).expect("valid oracle row");
        let err = (price - row.expected).abs();
        worst = worst.max(err);
        assert!(
            err <= row.tolerance,
            "line {}: {v:?} priced {price:.6}, Haug {} (tolerance {})",
            row.source_line,
            row.expected,
            row.tolerance
        );
        count += 1;
    }
    assert_eq!(count, 43, "{}: expected 43 rows", path.display());
    eprintln!("european_haug: {count} rows, worst |error| {worst:e}");
}

fn parity_gap(s: f64, k: f64, t: f64, r: f64, q: f64, vol: f64) -> f64 {
    let call = black_scholes_price(&vanilla(OptionType::Call, s, k, t, r, q, vol)).expect("valid");
    let put = black_scholes_price(&vanilla(OptionType::Put, s, k, t, r, q, vol)).expect("valid");
    (call - put - (s * (-q * t).exp() - k * (-r * t).exp())).abs() / s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// C - P = S e^{-qT} - K e^{-rT} to 1e-12 of spot, negative rates and r < q included.
    #[test]
    fn put_call_parity(
        s in 1.0f64..1000.0,
        log_k in -1.5f64..1.5,
        t in 0.0f64..10.0,
        r in -0.05f64..0.20,
        q in -0.05f64..0.20,
        vol in 0.0f64..2.0,
    ) {
        let gap = parity_gap(s, s * log_k.exp(), t, r, q, vol);
        prop_assert!(gap <= 1e-12, "relative parity gap {gap:e}");
    }

    /// Analytic Greeks against central finite differences of the closed-form price
    /// (`greeks_by_bump`, relative steps 1e-4). Truncation error is about `h^2 f'''/6`, i.e.
    /// ~1e-8 relative for these smooth, not-too-short-dated contracts. Rounding: a price carries
    /// a few ulp (`~1e-15 S`), divided by `2h` for first derivatives (~1e-11 of scale) but by
    /// `h^2 = 1e-8 S^2` for gamma (`~1e-7 / S`). Tolerance: 1e-6 relative plus 1e-7 of each
    /// Greek's natural scale (1 for delta, S for vega/theta/rho) and 1e-6/S for gamma: a
    /// margin of ~10-100 over those errors that still catches any sign or factor error.
    #[test]
    fn greeks_match_finite_differences(
        call in any::<bool>(),
        s in 10.0f64..500.0,
        log_k in -0.7f64..0.7,
        t in 0.05f64..5.0,
        r in -0.03f64..0.15,
        q in -0.03f64..0.15,
        vol in 0.05f64..1.0,
    ) {
        let option = if call { OptionType::Call } else { OptionType::Put };
        let v = vanilla(option, s, s * log_k.exp(), t, r, q, vol);
        let an = black_scholes(&v).expect("valid");
        let fd = greeks_by_bump(black_scholes_price, &v, &BumpSteps::default()).expect("valid");
        prop_assert_eq!(an.price, fd.price);
        for (name, a, f, scale) in [
            ("delta", an.delta, fd.delta, 1.0),
            ("gamma", an.gamma, fd.gamma, 10.0 / s),
            ("vega", an.vega, fd.vega, s),
            ("theta", an.theta, fd.theta, s),
            ("rho", an.rho, fd.rho, s),
        ] {
            let tol = 1e-6 * a.abs() + 1e-7 * scale;
            prop_assert!((a - f).abs() <= tol, "{}: analytic {} vs finite difference {} (tol {:e})", name, a, f, tol);
        }
    }
}

proptest! {
    /// No NaN anywhere on wide ranges: vol log-uniform from 1e-300 to 5, maturity to 50 years,
    /// strikes 1e-3..1e3 times spot; the price stays within its no-arbitrage bounds
    /// `max(w (S e^{-qT} - K e^{-rT}), 0) <= V <= S e^{-qT}` (call) / `K e^{-rT}` (put).
    #[test]
    fn greeks_never_nan_and_price_bounded(
        call in any::<bool>(),
        log_k in -7.0f64..7.0,
        t in 0.0f64..50.0,
        r in -0.10f64..0.30,
        q in -0.10f64..0.30,
        log_vol in -690.0f64..1.6,
    ) {
        let option = if call { OptionType::Call } else { OptionType::Put };
        let v = vanilla(option, 100.0, 100.0 * log_k.exp(), t, r, q, log_vol.exp());
        let g = black_scholes(&v).expect("valid");
        for x in [g.price, g.delta, g.gamma, g.vega, g.theta, g.rho] {
            prop_assert!(!x.is_nan(), "NaN in {:?} for {:?}", g, v);
        }
        let (sq, kr) = (v.spot * (-q * t).exp(), v.strike * (-r * t).exp());
        let lower = (option.sign() * (sq - kr)).max(0.0);
        let upper = if call { sq } else { kr };
        let slack = 1e-12 * (sq + kr);
        prop_assert!(g.price >= lower - slack && g.price <= upper + slack, "{} outside [{}, {}] for {:?}", g.price, lower, upper, v);
    }
}

/// Parity also holds at extreme but valid points (tiny vol, zero maturity, deep moneyness).
#[test]
fn put_call_parity_edges() {
    for &(k, t, vol) in &[(100.0, 0.0, 0.2), (100.0, 1.0, 0.0), (1e-3, 1.0, 0.2), (1e5, 1.0, 0.2), (100.0, 30.0, 3.0)] {
        let gap = parity_gap(100.0, k, t, -0.01, 0.03, vol);
        assert!(gap <= 1e-12, "k {k} t {t} vol {vol}: gap {gap:e}");
    }
}

/// maturity -> 0 and vol -> 0: the discounted intrinsic value on the forward, no NaN, and
/// continuity with tiny positive values.
#[test]
fn degenerate_limits_are_discounted_intrinsic_on_the_forward() {
    let (s, r, q) = (100.0, 0.05, 0.02);
    for option in [OptionType::Call, OptionType::Put] {
        for k in [80.0, 100.0, 120.0] {
            // Zero maturity: intrinsic on spot.
            let g = black_scholes(&vanilla(option, s, k, 0.0, r, q, 0.3)).expect("valid");
            assert_eq!(g.price, option.payoff(s, k), "{option:?} k {k} at expiry");
            // Zero vol, T = 1: e^{-rT} max(w (F - K), 0).
            let t = 1.0;
            let f = s * ((r - q) * t).exp();
            let want = (-r * t).exp() * option.payoff(f, k);
            let g0 = black_scholes(&vanilla(option, s, k, t, r, q, 0.0)).expect("valid");
            assert!((g0.price - want).abs() <= 1e-12 * s, "{option:?} k {k}: {} vs {want}", g0.price);
            let tiny = black_scholes(&vanilla(option, s, k, t, r, q, 1e-9)).expect("valid");
            assert!(
                (tiny.price - g0.price).abs() <= 1e-6,
                "{option:?} k {k}: vol 1e-9 {} vs vol 0 {}",
                tiny.price,
                g0.price
            );
            assert!((tiny.delta - g0.delta).abs() <= 1e-9, "{option:?} k {k}: delta {} vs {}", tiny.delta, g0.delta);
            for g in [g, g0, tiny] {
                for x in [g.price, g.delta, g.gamma, g.vega, g.theta, g.rho] {
                    assert!(!x.is_nan(), "{option:?} k {k}: NaN in {g:?}");
                }
            }
        }
    }
    // At the kink (F = K exactly, here r = q and K = S) with zero vol: half delta, gamma +inf.
    let g = black_scholes(&vanilla(OptionType::Call, 100.0, 100.0, 1.0, 0.03, 0.03, 0.0)).expect("valid");
    assert_eq!(g.price, 0.0);
    assert!((g.delta - 0.5 * (-0.03f64).exp()).abs() <= 1e-15);
    assert_eq!(g.gamma, f64::INFINITY);
}

fn expect_invalid(v: Vanilla, name: &str) {
    match black_scholes(&v) {
        Err(PricingError::InvalidParameter { name: got, value, .. }) => {
            assert_eq!(got, name, "{v:?}: wrong parameter named (value {value})");
            let msg = black_scholes(&v).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(msg.contains(name), "message {msg:?} does not name {name}");
        }
        other => panic!("{v:?}: expected InvalidParameter({name}), got {other:?}"),
    }
}

/// Bad inputs give the typed error naming the parameter.
#[test]
fn bad_inputs_name_the_parameter() {
    let ok = vanilla(OptionType::Call, 100.0, 100.0, 1.0, 0.05, 0.0, 0.2);
    assert!(black_scholes(&ok).is_ok());
    expect_invalid(Vanilla { vol: -0.2, ..ok }, "vol");
    expect_invalid(Vanilla { vol: f64::NAN, ..ok }, "vol");
    expect_invalid(Vanilla { vol: f64::INFINITY, ..ok }, "vol");
    expect_invalid(Vanilla { maturity: -1.0, ..ok }, "maturity");
    expect_invalid(Vanilla { maturity: f64::NAN, ..ok }, "maturity");
    expect_invalid(Vanilla { strike: 0.0, ..ok }, "strike");
    expect_invalid(Vanilla { strike: -5.0, ..ok }, "strike");
    expect_invalid(Vanilla { strike: f64::NAN, ..ok }, "strike");
    expect_invalid(Vanilla { spot: 0.0, ..ok }, "spot");
    expect_invalid(Vanilla { spot: f64::NAN, ..ok }, "spot");
    expect_invalid(Vanilla { rate: f64::NAN, ..ok }, "rate");
    expect_invalid(Vanilla { dividend: f64::NEG_INFINITY, ..ok }, "dividend");
}

/// Haug's published Greek examples (Haug 1998, pp. 11-16, as tabulated in QuantLib's
/// `test-suite/europeanoption.cpp`, `testGreekValues`), each to the 1e-4 the source uses.
/// Tuple: (greek, type, spot, strike, q, r, t, vol, published value).
#[test]
fn haug_published_greeks() {
    use OptionType::{Call, Put};
    type Row = (&'static str, OptionType, f64, f64, f64, f64, f64, f64, f64);
    let rows: [Row; 9] = [
        ("delta", Call, 105.0, 100.0, 0.10, 0.10, 0.5, 0.36, 0.5946),
        ("delta", Put, 105.0, 100.0, 0.10, 0.10, 0.5, 0.36, -0.3566),
        ("elasticity", Put, 105.0, 100.0, 0.10, 0.10, 0.5, 0.36, -4.8775),
        ("gamma", Call, 55.0, 60.0, 0.0, 0.10, 0.75, 0.30, 0.0278),
        ("gamma", Put, 55.0, 60.0, 0.0, 0.10, 0.75, 0.30, 0.0278),
        ("vega", Call, 55.0, 60.0, 0.0, 0.10, 0.75, 0.30, 18.9358),
        ("vega", Put, 55.0, 60.0, 0.0, 0.10, 0.75, 0.30, 18.9358),
        ("theta", Put, 430.0, 405.0, 0.05, 0.07, 1.0 / 12.0, 0.20, -31.1924),
        ("rho", Call, 72.0, 75.0, 0.0, 0.09, 1.0, 0.19, 38.7325),
    ];
    for (greek, option, s, k, q, r, t, vol, want) in rows {
        let g = black_scholes(&vanilla(option, s, k, t, r, q, vol)).expect("valid");
        let got = match greek {
            "delta" => g.delta,
            "elasticity" => g.delta * s / g.price,
            "gamma" => g.gamma,
            "vega" => g.vega,
            "theta" => g.theta,
            "rho" => g.rho,
            other => panic!("unknown greek {other}"),
        };
        assert!((got - want).abs() <= 1e-4, "{greek} {option:?} S {s} K {k}: {got} vs Haug {want}");
    }
}
