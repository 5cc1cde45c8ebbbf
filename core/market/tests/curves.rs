//! Par-to-continuous conversion, the par curve of a snapshot date (interpolated in tenor), the
//! par-yield bootstrap (repricing the input instruments), interpolation, and parity forwards on
//! the Cboe SPX snapshot compared with the Treasury curve.
use chrono::NaiveDate;
use tenor_market::cboe::load_cboe_dir;
use tenor_market::curve::DiscountCurve;
use tenor_market::parity::parity_forwards;
use tenor_market::treasury::{bey_to_continuous, load_par_curve, load_treasury};
use tenor_market::MarketError;

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).expect("date")
}

#[test]
fn bond_equivalent_to_continuous() {
    // (1 + 0.04 / 2)^2 = e^r  =>  r = 2 ln 1.02 = 0.039605...
    assert!((bey_to_continuous(0.04) - 2.0 * 1.02_f64.ln()).abs() < 1e-15);
    assert!((bey_to_continuous(0.04) - 0.039_605_255_1).abs() < 1e-9);
    assert_eq!(bey_to_continuous(0.0), 0.0);
}

#[test]
fn treasury_curve_on_or_before_the_snapshot() {
    let path = tenor_testdata::shared("data/rates/us_treasury_par_yield_2025_h1.csv");
    // The file ends on 2025-07-11, before the snapshot: that row is the one used.
    let c = load_par_curve(&path, date(2025, 10, 1)).expect("curve");
    assert_eq!(c.date, date(2025, 7, 11));
    // Row of 2025-07-11: 6 Mo 4.31, 1 Yr 4.09, 2 Yr 3.9 (percent).
    assert!((c.par_yield(0.5) - 0.0431).abs() < 1e-12);
    assert!((c.par_yield(1.0) - 0.0409).abs() < 1e-12);
    assert!((c.par_yield(1.5) - 0.5 * (0.0409 + 0.039)).abs() < 1e-12);
    assert!((c.par_yield(0.75) - 0.5 * (0.0431 + 0.0409)).abs() < 1e-12);
    // An earlier date picks that day's row (2025-07-10: 1 Yr 4.07).
    let c = load_par_curve(&path, date(2025, 7, 10)).expect("curve");
    assert!((c.par_yield(1.0) - 0.0407).abs() < 1e-12);
    // Before the first row: an error, not a guess.
    assert!(matches!(load_par_curve(&path, date(2024, 12, 31)), Err(MarketError::Insufficient(_))));
}

/// Every input instrument reprices: bills as semiannual-basis zeros, notes and bonds at par.
fn assert_reprices(points: &[(f64, f64)], curve: &DiscountCurve) {
    for &(t, y) in points {
        if t <= 1.0 {
            let want = (1.0 + y / 2.0).powf(-2.0 * t);
            assert!((curve.discount(t) - want).abs() < 1e-14, "bill {t}: {} vs {want}", curve.discount(t));
        } else {
            let p = curve.bond_price(t, y);
            assert!((p - 1.0).abs() < 1e-10, "par bond {t}y at {y}: price {p}");
        }
    }
}

#[test]
fn bootstrap_reprices_par_bonds_on_real_curves() {
    let y25 = load_treasury(&tenor_testdata::shared("data/rates/us_treasury_par_yield_2025_h1.csv")).expect("2025");
    let old = load_treasury(&tenor_testdata::shared("data/rates/us_treasury_par_yield_1990_2023.csv")).expect("old");
    for row in [
        y25.on(date(2025, 7, 11)).expect("row"),
        old.on(date(1990, 1, 2)).expect("row"),   // no 20y, inverted short end
        old.on(date(2008, 12, 10)).expect("row"), // 3 mo missing, near-zero bills
        old.on(date(2005, 6, 1)).expect("row"),   // no 30y
        old.on(date(2020, 4, 9)).expect("row"),   // zero yields
    ] {
        let curve = DiscountCurve::bootstrap_par(&row.points).expect("bootstraps");
        assert_reprices(&row.points, &curve);
    }
}

#[test]
fn flat_par_curve_gives_flat_semiannual_zero_rates() {
    // Independent closed form: if every par yield is y, D(t) = (1 + y/2)^(-2t) at the coupon
    // dates, so the continuously compounded zero rate is 2 ln(1 + y/2) everywhere.
    let y = 0.05;
    let points: Vec<(f64, f64)> = [0.5, 1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 20.0, 30.0].iter().map(|&t| (t, y)).collect();
    let curve = DiscountCurve::bootstrap_par(&points).expect("bootstraps");
    let z = 2.0 * (1.0 + y / 2.0f64).ln();
    for t in [0.5, 1.0, 2.0, 4.5, 10.0, 25.0, 30.0] {
        assert!((curve.zero_rate(t) - z).abs() < 1e-13, "t {t}: {} vs {z}", curve.zero_rate(t));
    }
}

#[test]
fn log_linear_interpolation_between_nodes() {
    let c = DiscountCurve::from_nodes(&[(1.0, 0.96), (3.0, 0.85)]).expect("curve");
    // halfway between nodes the discount factor is the geometric mean
    assert!((c.discount(2.0) - (0.96f64 * 0.85).sqrt()).abs() < 1e-15);
    // first segment from D(0) = 1
    assert!((c.discount(0.5) - 0.96f64.sqrt()).abs() < 1e-15);
    // flat forward beyond the last node
    let f = (0.96f64 / 0.85).ln() / 2.0;
    assert!((c.discount(5.0) - 0.85 * (-2.0 * f).exp()).abs() < 1e-15);
    assert!(DiscountCurve::from_nodes(&[(1.0, 0.9), (1.0, 0.8)]).is_err());
    assert!(DiscountCurve::bootstrap_par(&[]).is_err());
}

#[test]
fn spx_parity_forwards_and_rates_match_the_readme_and_the_treasury_curve() {
    let chain = load_cboe_dir(&tenor_testdata::shared("data/options/spx_cboe_2025-10-01")).expect("chain");
    let (fwds, errs) = parity_forwards(&chain);
    assert!(errs.is_empty(), "{errs:?}");
    assert_eq!(fwds.len(), 12);
    // Treasury data ends 2025-07-11, 82 days before the snapshot: the latest curve is used.
    let y25 = load_treasury(&tenor_testdata::shared("data/rates/us_treasury_par_yield_2025_h1.csv")).expect("2025");
    let row = y25.latest_on_or_before(chain.as_of.date()).expect("row");
    assert_eq!(row.date, date(2025, 7, 11));
    let curve = DiscountCurve::bootstrap_par(&row.points).expect("curve");
    let spot = chain.spot.expect("spot");
    let mut prev = 0.0;
    for f in &fwds {
        let treasury = curve.zero_rate(f.maturity);
        eprintln!(
            "{} {} T {:.4} forward {:.3} discount {:.6} parity rate {:.4}% treasury zero {:.4}% pairs {} rms {:.3}",
            f.slice.0,
            f.slice.1.as_str(),
            f.maturity,
            f.forward,
            f.discount,
            100.0 * f.rate,
            100.0 * treasury,
            f.pairs_used,
            f.residual_rms
        );
        // README: forwards rise smoothly from about 6830 to 7155, implied rates 3.6-4.1 %
        assert!(f.forward > prev && (6800.0..7200.0).contains(&f.forward), "{f:?}");
        assert!((0.035..0.042).contains(&f.rate), "{f:?}");
        // cost of carry: F = S exp((r - q) T) with a dividend yield of 0.5-2 %
        let carry = (f.forward / spot).ln() / f.maturity;
        assert!((f.rate - carry) > 0.005 && (f.rate - carry) < 0.02, "implied dividend yield {}", f.rate - carry);
        // SPX box rates sit within 60 bp of Treasury zero rates
        assert!((f.rate - treasury).abs() < 0.006, "{} vs treasury {treasury}", f.rate);
        prev = f.forward;
    }
    // README: 6830 for Apr-26. Its "7155 (Dec-27)" cannot be checked: the last expiry in the data
    // is 2027-06-17, whose forward (about 7057) gives a carry of 2.9 % a year, in line with the
    // shorter expiries; 7155 would need a zero dividend yield.
    assert!((fwds[0].forward - 6830.0).abs() < 5.0, "{}", fwds[0].forward);
}
