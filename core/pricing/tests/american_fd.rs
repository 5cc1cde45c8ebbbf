//! Finite-difference American engine against the shared oracle tables and edge cases with
//! independently obtained values (closed forms, no-arbitrage arguments).
use tenor_pricing::american::european::black_scholes;
use tenor_pricing::american::{
    american_fd, american_fd_greeks, american_fd_richardson, american_fd_with, AmericanError, FdGrid,
};
use tenor_pricing::types::{OptionType, Vanilla};

struct Row {
    v: Vanilla,
    expected: f64,
    truth: f64,
    line: String,
}

fn read(file: &str) -> Vec<Row> {
    let path = tenor_testdata::shared(file);
    let mut rdr = csv::Reader::from_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header = rdr.headers().expect("header").clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap_or_else(|| panic!("{file}: no column {name}"));
    let (ty, s, k, q, r, t, vol) = (col("type"), col("spot"), col("strike"), col("q"), col("r"), col("t"), col("v"));
    let (exp, tru, line) = (col("expected"), col("true_american_computed"), col("source_line"));
    rdr.records()
        .map(|rec| {
            let rec = rec.expect("record");
            let f = |i: usize| rec[i].parse::<f64>().unwrap_or_else(|e| panic!("{file}: {e}"));
            let option = if &rec[ty] == "call" { OptionType::Call } else { OptionType::Put };
            Row {
                v: Vanilla {
                    option,
                    spot: f(s),
                    strike: f(k),
                    maturity: f(t),
                    rate: f(r),
                    dividend: f(q),
                    vol: f(vol),
                },
                expected: f(exp),
                truth: f(tru),
                line: rec[line].to_owned(),
            }
        })
        .collect()
}

/// Every row within 1e-3 of `true_american_computed`, and the gap to the approximation's value
/// `expected` no larger than the gap the oracle README documents (+ the 1e-3 FD tolerance).
fn check_table(file: &str, documented_gap: impl Fn(&Row) -> f64) {
    let mut worst: f64 = 0.0;
    for row in read(file) {
        let fd = american_fd(&row.v).expect("fd");
        let err = (fd - row.truth).abs();
        worst = worst.max(err);
        assert!(err <= 1e-3, "{file} line {}: FD {fd} vs true {} (err {err:.2e})", row.line, row.truth);
        let gap = (fd - row.expected).abs();
        let allowed = documented_gap(&row) + 1e-3;
        assert!(
            gap <= allowed,
            "{file} line {}: FD {fd} vs approximation {} gap {gap} > {allowed}",
            row.line,
            row.expected
        );
        assert!(fd >= black_scholes(&row.v) - 1e-12, "{file} line {}: below European", row.line);
    }
    eprintln!("{file}: worst |FD - true| = {worst:.2e}");
}

#[test]
fn baw_table_within_1e3_of_true_american() {
    // README: BAW values are up to 0.037 from the true American price (line 116); the r = q = 0
    // row is the European price 4.2294 (BAW degenerates there).
    check_table("oracles/american_baw.csv", |_| 0.037);
}

#[test]
fn bjerksund_stensland_table_within_1e3_of_true_american() {
    // README: gap up to 0.039 on regular rows (line 191) and 4.08 on the v = 10 row (line 204,
    // where QuantLib's value is the European floor).
    check_table("oracles/american_bjerksund_stensland.csv", |r| if r.line == "204" { 4.081 } else { 0.039 });
}

#[test]
fn ju_table_within_1e3_of_true_american() {
    // README: Ju's approximation is up to 0.074 from the true American price (line 321).
    check_table("oracles/american_ju.csv", |_| 0.074);
}

#[test]
fn andersen_lake_premiums_within_1e5() {
    let path = tenor_testdata::shared("oracles/american_andersen_lake.csv");
    let mut rdr = csv::Reader::from_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut n = 0;
    for rec in rdr.records() {
        let rec = rec.expect("record");
        let f = |i: usize| rec[i].parse::<f64>().expect("number");
        // type,spot,strike,q,r,t,v,premium_fp_a,...
        let v = Vanilla {
            option: OptionType::Put,
            spot: f(1),
            strike: f(2),
            dividend: f(3),
            rate: f(4),
            maturity: f(5),
            vol: f(6),
        };
        let res = american_fd_richardson(&v, &FdGrid { space: 801, time: 200, ..FdGrid::default() }).expect("fd");
        let err = (res.premium - f(7)).abs();
        eprintln!("line {}: premium {:.9} vs {:.9} (err {err:.2e})", &rec[12], res.premium, f(7));
        assert!(err <= 1e-5, "line {}: premium {} vs {}", &rec[12], res.premium, f(7));
        // The European part is the closed form: check it against the table too.
        assert!((res.european - f(10)).abs() < 1e-6, "european {} vs {}", res.european, f(10));
        n += 1;
    }
    assert_eq!(n, 2);
}

fn vanilla(option: OptionType, spot: f64, strike: f64, maturity: f64, rate: f64, dividend: f64, vol: f64) -> Vanilla {
    Vanilla { option, spot, strike, maturity, rate, dividend, vol }
}

#[test]
fn zero_rate_call_without_dividends_is_european() {
    // No early exercise of a call without dividends (Merton 1973): American = European.
    for (s, k, t, vol) in [(100.0, 100.0, 1.0, 0.2), (80.0, 100.0, 2.0, 0.4), (130.0, 100.0, 0.5, 0.15)] {
        for r in [0.0, 0.05] {
            let v = vanilla(OptionType::Call, s, k, t, r, 0.0, vol);
            let (am, eu) = (american_fd(&v).expect("fd"), black_scholes(&v));
            // The grid may see an indifference region as a tiny premium: discretisation error only.
            assert!((am - eu).abs() < 1e-5, "{v:?}: {am} vs {eu}");
        }
    }
}

#[test]
fn put_with_non_positive_rate_and_non_negative_yield_is_european() {
    // With r <= 0 <= q the European put dominates K e^{-r tau} - S e^{-q tau} >= K - S, so
    // immediate exercise is never strictly better: American = European.
    for (r, q) in [(0.0, 0.0), (-0.01, 0.02), (-0.03, 0.0), (0.0, 0.05)] {
        let v = vanilla(OptionType::Put, 95.0, 100.0, 1.0, r, q, 0.3);
        let (am, eu) = (american_fd(&v).expect("fd"), black_scholes(&v));
        assert!((am - eu).abs() < 1e-5, "r {r} q {q}: {am} vs {eu}");
    }
}

#[test]
fn rate_below_yield_call_has_early_exercise_premium() {
    // r < q: call holders give up the dividend yield, early exercise has value (r = 0.04 <
    // q = 0.08 row of Haug p. 27 is in the Bjerksund-Stensland table); here the premium of a
    // deep ITM call with r = -0.01 < q = 0.10 is positive and the price is at least intrinsic.
    let v = vanilla(OptionType::Call, 150.0, 100.0, 1.0, -0.01, 0.10, 0.2);
    let am = american_fd(&v).expect("fd");
    let eu = black_scholes(&v);
    assert!(am > eu + 1.0, "{am} vs European {eu}");
    assert!(am >= 50.0 - 1e-12);
}

#[test]
fn deep_itm_put_with_huge_rate_is_intrinsic() {
    // r = 100 %: holding K - S costs r K dt while the optionality is worth ~nothing this deep.
    let v = vanilla(OptionType::Put, 40.0, 100.0, 1.0, 1.0, 0.0, 0.2);
    let g = american_fd_greeks(&v).expect("fd");
    assert!((g.price - 60.0).abs() < 1e-9, "{}", g.price);
    assert!((g.delta + 1.0).abs() < 1e-6, "delta {}", g.delta);
    assert!(g.gamma.abs() < 1e-6, "gamma {}", g.gamma);
}

#[test]
fn maturity_close_to_zero_gives_intrinsic() {
    for (opt, s, k) in
        [(OptionType::Put, 90.0, 100.0), (OptionType::Call, 110.0, 100.0), (OptionType::Put, 120.0, 100.0)]
    {
        let v = vanilla(opt, s, k, 1e-8, 0.05, 0.02, 0.3);
        let am = american_fd(&v).expect("fd");
        assert!((am - opt.payoff(s, k)).abs() < 1e-6, "{v:?}: {am}");
        let v0 = Vanilla { maturity: 0.0, ..v };
        assert_eq!(american_fd(&v0).expect("fd"), opt.payoff(s, k));
    }
    // At the money the value is the European one, about S vol sqrt(T / 2 pi).
    let v = vanilla(OptionType::Put, 100.0, 100.0, 1e-6, 0.05, 0.0, 0.2);
    let (am, eu) = (american_fd(&v).expect("fd"), black_scholes(&v));
    assert!(
        (am - eu).abs() < 1e-6 && (eu - 100.0 * 0.2 * (1e-6f64 / (2.0 * std::f64::consts::PI)).sqrt()).abs() < 1e-5
    );
}

/// The deterministic limit: with vol -> 0 the spot is `S e^{(r-q)t}` and the American value
/// is `max over t in [0, T] of e^{-rt} payoff(S e^{(r-q)t})`; the maximiser is an end point
/// or the root of the derivative, `t* = ln(qS / (rK)) / (q - r)`.
fn deterministic(v: &Vanilla) -> f64 {
    let f = |t: f64| (-v.rate * t).exp() * v.option.payoff(v.spot * ((v.rate - v.dividend) * t).exp(), v.strike);
    let mut best = f(0.0).max(f(v.maturity));
    let ratio = v.dividend * v.spot / (v.rate * v.strike);
    if ratio > 0.0 && v.dividend != v.rate {
        let t = ratio.ln() / (v.dividend - v.rate);
        if t > 0.0 && t < v.maturity {
            best = best.max(f(t));
        }
    }
    best
}

#[test]
fn vanishing_vol_gives_deterministic_forward_value() {
    let grid = FdGrid { space: 1601, time: 400, ..FdGrid::default() };
    for v in [
        vanilla(OptionType::Call, 100.0, 40.0, 1.0, 0.10, 0.05, 1e-4), // exercise now: 60
        vanilla(OptionType::Call, 100.0, 95.0, 20.0, 0.10, 0.05, 1e-4), // interior optimum t* = 12.8y
        vanilla(OptionType::Put, 100.0, 120.0, 30.0, 0.02, 0.04, 1e-4), // interior optimum t* = 25.5y
        vanilla(OptionType::Put, 100.0, 100.0, 1.0, 0.02, 0.06, 1e-4), // exercise at expiry
        vanilla(OptionType::Put, 100.0, 110.0, 1.0, 0.05, 0.0, 1e-4),  // exercise now: 10
    ] {
        let expected = deterministic(&v);
        let am = american_fd_richardson(&v, &grid).expect("fd").american;
        assert!((am - expected).abs() < 2e-3 * expected.max(1.0), "{v:?}: FD {am} vs deterministic {expected}");
    }
}

#[test]
fn premium_is_never_negative_on_the_raw_grid() {
    // The comparison principle of the discrete scheme: the American grid value dominates the
    // European one node by node, so the premium needs no flooring.
    let grid = FdGrid { space: 201, time: 50, ..FdGrid::default() };
    let mut n = 0;
    for opt in [OptionType::Call, OptionType::Put] {
        for &(r, q) in &[(0.05, 0.0), (0.0, 0.05), (-0.02, 0.01), (0.03, -0.01), (0.2, 0.1), (-0.01, -0.03)] {
            for &vol in &[0.01, 0.3, 1.5] {
                for &s in &[60.0, 100.0, 140.0] {
                    let v = vanilla(opt, s, 100.0, 0.75, r, q, vol);
                    let res = american_fd_with(&v, &grid).expect("fd");
                    assert!(res.american_grid - res.european_grid >= -1e-10, "{v:?}: {res:?}");
                    assert!(res.american >= res.european && res.american >= opt.payoff(s, 100.0));
                    n += 1;
                }
            }
        }
    }
    assert_eq!(n, 108);
}

#[test]
fn greeks_match_black_scholes_when_there_is_no_early_exercise() {
    // q = 0 call: American = European, so the bumped Greeks must match the closed-form ones:
    // delta N(d1), gamma n(d1) / (S vol sqrt T), vega S n(d1) sqrt T.
    let (s, k, t, r, vol) = (100.0, 105.0, 0.5, 0.03, 0.25);
    let v = vanilla(OptionType::Call, s, k, t, r, 0.0, vol);
    let g = american_fd_greeks(&v).expect("greeks");
    let d1 = ((s / k).ln() + (r + 0.5 * vol * vol) * t) / (vol * t.sqrt());
    let pdf = (-0.5 * d1 * d1).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let delta = tenor_pricing::analytic::normal::norm_cdf(d1);
    assert!((g.delta - delta).abs() < 1e-4, "delta {} vs {delta}", g.delta);
    assert!((g.gamma - pdf / (s * vol * t.sqrt())).abs() < 1e-4, "gamma {}", g.gamma);
    assert!((g.vega - s * pdf * t.sqrt()).abs() < 1e-3, "vega {}", g.vega);
}

#[test]
fn bad_input_is_a_typed_error() {
    let v = vanilla(OptionType::Put, 100.0, 100.0, 1.0, 0.05, 0.0, -0.2);
    assert!(matches!(american_fd(&v), Err(AmericanError::InvalidParameter { name: "vol", .. })));
    let v = vanilla(OptionType::Put, f64::NAN, 100.0, 1.0, 0.05, 0.0, 0.2);
    assert!(matches!(american_fd(&v), Err(AmericanError::InvalidParameter { name: "spot", .. })));
    let v = vanilla(OptionType::Put, 100.0, 100.0, 1.0, 0.05, 0.0, 0.2);
    let bad = FdGrid { time: 1, ..FdGrid::default() };
    assert!(matches!(american_fd_with(&v, &bad), Err(AmericanError::InvalidParameter { name: "grid.time", .. })));
}
