//! Issue 17: the American PDE priced a deep in-the-money put at low vol above its exact value
//! (`put S=100 K=200 T=5 r=0.10 q=0 vol=0.001`: 100.0506 against 100), with delta below -1
//! and negative vega at vol 0.01: the European control variate carried the European grid's
//! error into the exercise region. Checked against independent values: the intrinsic value
//! (immediate exercise is optimal: `K - S > K e^{-rt} - S e^{-qt}` for every `t` when `q = 0`),
//! a Jarrow-Rudd binomial tree (`common::tree`), and no-arbitrage bounds on the Greeks.

mod common;

use common::tree;
use proptest::prelude::*;
use tenor_pricing::american::{american_fd, american_fd_greeks};
use tenor_pricing::types::{OptionType, Vanilla};

/// The Black-Scholes-Merton closed form ([`tenor_pricing::analytic::black_scholes_price`]) of a
/// valid contract.
fn black_scholes(v: &tenor_pricing::types::Vanilla) -> f64 {
    tenor_pricing::analytic::black_scholes_price(v).expect("a valid contract")
}

fn put(spot: f64, strike: f64, maturity: f64, rate: f64, dividend: f64, vol: f64) -> Vanilla {
    Vanilla { option: OptionType::Put, spot, strike, maturity, rate, dividend, vol }
}

#[test]
fn deep_itm_put_at_low_vol_is_its_intrinsic_value() {
    let v = put(100.0, 200.0, 5.0, 0.10, 0.0, 0.001);
    let price = american_fd(&v).expect("fd");
    assert!((price - 100.0).abs() < 1e-9, "price {price} vs exact 100");
    assert!((tree(&v, 4000) - 100.0).abs() < 1e-9, "tree {}", tree(&v, 4000));
    let g = american_fd_greeks(&v).expect("fd");
    assert!((-1.0 - 1e-9..=1e-9).contains(&g.delta), "delta {}", g.delta);
    // The call sibling (priced through the McDonald-Schroder symmetry): S=200 K=100 r=0
    // q=0.10 is the same problem, exercised now, worth 100.
    let call = Vanilla { option: OptionType::Call, spot: 200.0, strike: 100.0, rate: 0.0, dividend: 0.10, ..v };
    let c = american_fd_greeks(&call).expect("fd");
    assert!((c.price - 100.0).abs() < 1e-9 && (0.0..=1.0 + 1e-9).contains(&c.delta), "call {c:?}");
    let g = american_fd_greeks(&put(100.0, 200.0, 5.0, 0.10, 0.0, 0.01)).expect("fd");
    assert!((-1.0 - 1e-9..=1e-9).contains(&g.delta), "delta {} at vol 0.01", g.delta);
    assert!(g.vega >= -1e-9, "vega {} at vol 0.01", g.vega);
}

/// A sweep of spots across the exercise boundary at low vols (the boundary crosses the grid
/// nodes at a different place for each spot): every price and Greek in bounds.
#[test]
fn sweep_across_the_exercise_boundary_stays_in_bounds() {
    for vol in [0.001, 0.01, 0.05] {
        for i in 0..24 {
            let spot = 150.0 + 2.29 * f64::from(i);
            let v = put(spot, 200.0, 5.0, 0.10, 0.0, vol);
            let g = american_fd_greeks(&v).expect("fd");
            let intrinsic = (200.0 - spot).max(0.0);
            let label = format!("spot {spot} vol {vol}: {g:?}");
            assert!(g.price >= intrinsic - 1e-12, "{label}");
            // The default grid's own error near the strike at vol 0.05 reaches 0.019 (S = 198.09:
            // 1.98797 on 401 x 100 with Richardson; 1.96848 on 801 x 200 and 1601 x 400, 1.96973
            // on 3201 x 800; this tree 1.96398 at 2000 steps, 1.96766 at 8000).
            let reference = tree(&v, 2000);
            assert!((g.price - reference).abs() <= 0.03 + 2e-4 * g.price, "{label}: tree {reference}");
            assert!(g.delta >= -1.0 - 1e-6 && g.delta <= 1e-6, "{label}");
            assert!(g.gamma >= -1e-6 && g.vega >= -1e-6, "{label}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Everywhere, and in particular as the spot moves across the exercise boundary between
    /// grid nodes: price at least intrinsic and the European value, within the tree's
    /// accuracy of the binomial tree, delta in [-1, 0], vega not negative, gamma not negative
    /// beyond the grids' noise.
    #[test]
    fn early_exercise_holds_price_and_greeks_in_bounds(
        spot in 60.0..240.0f64,
        maturity in 0.25..5.0f64,
        rate in 0.0..0.15f64,
        dividend in 0.0..0.05f64,
        vol in prop_oneof![0.001..0.01f64, 0.01..0.1f64, 0.1..0.6f64],
    ) {
        let v = put(spot, 200.0, maturity, rate, dividend, vol);
        let g = american_fd_greeks(&v).expect("fd");
        let intrinsic = (200.0 - spot).max(0.0);
        prop_assert!(g.price >= intrinsic - 1e-12, "price {} below intrinsic {intrinsic}", g.price);
        prop_assert!(g.price >= black_scholes(&v) - 1e-9, "price {} below European", g.price);
        let reference = tree(&v, 2000);
        let tol = 0.03 + 2e-4 * reference; // the default grid near the strike at low vol: see the sweep
        prop_assert!((g.price - reference).abs() <= tol, "price {} vs tree {reference}", g.price);
        prop_assert!(g.delta >= -1.0 - 1e-6 && g.delta <= 1e-6, "delta {}", g.delta);
        // Gamma is a second difference of prices on three grids, each centred on its own spot:
        // their noise (about 1e-3 deep in the money at vol 0.5, more where Richardson
        // extrapolation straddles the exercise boundary) over the squared bump (0.5 % of spot)
        // leaves small negative values there (-0.018 before and after issue 17's change at
        // S=124.1, T=3.2, r=0.127, vol=0.43); bounded here, exact at low vol in the sweep.
        prop_assert!(g.gamma >= -0.05, "gamma {}", g.gamma);
        // Vega is a difference over a vol bump of 1e-3 of prices accurate to about 1e-5.
        prop_assert!(g.vega >= -0.02, "vega {}", g.vega);
    }
}
