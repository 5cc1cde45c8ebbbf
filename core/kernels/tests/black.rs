//! The normalised Black function against mpmath (scripts/normalised_black_reference.py), and
//! the implied-volatility round trip across moneyness and total volatility.
use tenor_kernels::black::{black_price, implied_total_vol_otm, implied_vol, normalised_black_otm, IvStatus};

fn reference() -> Vec<(f64, f64, f64)> {
    let text = include_str!("data/normalised_black_mpmath.csv");
    text.lines()
        .skip(1)
        .map(|l| {
            let v: Vec<f64> = l.split(',').map(|c| c.parse().expect("number")).collect();
            (v[0], v[1], v[2])
        })
        .collect()
}

#[test]
fn normalised_black_matches_mpmath_in_every_region() {
    let rows = reference();
    assert!(rows.len() > 100);
    let mut worst = 0.0f64;
    for (x, s, want) in rows {
        let got = normalised_black_otm(x, s);
        let h = x / s;
        // rounding of h = x / s moves exp(-h^2/2) by about h^2 ulp; allow 8 ulp on top
        let tol = f64::EPSILON * (8.0 + 2.0 * h * h);
        let rel = ((got - want) / want).abs();
        worst = worst.max(rel / tol);
        assert!(rel <= tol, "b({x}, {s}) = {got:e}, mpmath {want:e}, relative error {rel:e} > {tol:e}");
    }
    eprintln!("worst error / tolerance = {worst:.3}");
}

#[test]
fn total_vol_round_trip_is_exact_to_1e14_across_moneyness_and_maturity() {
    let mut worst = 0.0f64;
    let mut count = 0;
    for &x in &[0.0, -1e-10, -1e-5, -1e-3, -0.01, -0.05, -0.1, -0.3, -0.7, -1.5, -3.0, -8.0, -20.0] {
        for i in 0..60 {
            // s from 1e-4 to about 3 (logarithmic grid)
            let s = 1e-4 * 10f64.powf(i as f64 * 4.5 / 59.0);
            let beta = normalised_black_otm(x, s);
            if beta < 1e-280 || beta >= (0.5 * x).exp() * (1.0 - 1e-4) {
                continue; // price indistinguishable from its bounds: no finite-precision inverse
            }
            let back = implied_total_vol_otm(beta, x).expect("inside the bounds");
            let rel = ((back - s) / s).abs();
            worst = worst.max(rel);
            count += 1;
            assert!(rel <= 1e-14, "x {x}, s {s}: round trip {back}, relative error {rel:e}");
        }
    }
    assert!(count > 500, "{count}");
    eprintln!("{count} points, worst relative error {worst:e}");
}

#[test]
fn price_round_trip_for_calls_and_puts_in_and_out_of_the_money() {
    for &(f, k) in &[(100.0, 100.0), (100.0, 60.0), (100.0, 150.0), (6900.0, 7400.0), (6900.0, 3000.0)] {
        for &t in &[1.0 / 365.0, 0.1, 1.0, 5.0] {
            for &vol in &[0.05, 0.15, 0.4, 1.2] {
                for is_call in [true, false] {
                    let p = black_price(f, k, vol, t, is_call);
                    match implied_vol(p, f, k, t, is_call) {
                        Ok(v) => {
                            let back = black_price(f, k, v, t, is_call);
                            // a price's relative sensitivity to the volatility (vega elasticity) is
                            // about 1 + h^2, h = ln(F/K) / (vol sqrt T): a 1-ulp vol error moves it so much
                            let h = (f / k).ln() / (vol * t.sqrt());
                            let tol = 8.0 * f64::EPSILON * (1.0 + h * h);
                            assert!(((back - p) / p).abs() <= tol, "{f} {k} {t} {vol} {is_call}: {back} vs {p}");
                        }
                        Err(e) => {
                            // deep in the money with negligible time value: the price is its intrinsic value
                            let intrinsic = if is_call { (f - k).max(0.0) } else { (k - f).max(0.0) };
                            assert_eq!(e, IvStatus::BelowIntrinsic, "{f} {k} {t} {vol} {is_call}");
                            assert_eq!(p, intrinsic);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn black_price_satisfies_put_call_parity() {
    for &(f, k, vol, t) in &[(100.0, 80.0, 0.2, 1.0), (100.0, 130.0, 0.5, 0.25), (7000.0, 7000.0, 0.15, 2.0)] {
        let c = black_price(f, k, vol, t, true);
        let p = black_price(f, k, vol, t, false);
        assert!((c - p - (f - k)).abs() <= 1e-12 * f, "{c} - {p} != {}", f - k);
    }
}

#[test]
fn atm_price_has_the_closed_form_erf() {
    // b(0, s) = 2 Phi(s/2) - 1 = 1 - erfc(s / (2 sqrt 2)); for s = 2 sqrt(2) z: erf(z)
    // erf(0.5) = 0.5204998778130465 (Abramowitz and Stegun, table 7.1)
    let s = 2.0 * 2f64.sqrt() * 0.5;
    assert!((normalised_black_otm(0.0, s) - 0.520_499_877_813_046_5).abs() < 4e-16);
}

#[test]
fn quotes_outside_the_bounds_get_their_reason() {
    assert_eq!(implied_vol(10.0, 100.0, 90.0, 1.0, true), Err(IvStatus::BelowIntrinsic));
    assert_eq!(implied_vol(9.0, 100.0, 90.0, 1.0, true), Err(IvStatus::BelowIntrinsic));
    assert_eq!(implied_vol(100.0, 100.0, 90.0, 1.0, true), Err(IvStatus::AboveUpperBound));
    assert_eq!(implied_vol(95.0, 100.0, 95.0, 1.0, false), Err(IvStatus::AboveUpperBound));
    assert_eq!(implied_vol(0.0, 100.0, 120.0, 1.0, true), Err(IvStatus::BelowIntrinsic));
    assert_eq!(implied_vol(1.0, -100.0, 120.0, 1.0, true), Err(IvStatus::InvalidInput));
    assert_eq!(implied_vol(1.0, 100.0, 120.0, 0.0, true), Err(IvStatus::InvalidInput));
    assert_eq!(implied_vol(f64::NAN, 100.0, 120.0, 1.0, true), Err(IvStatus::InvalidInput));
}
