//! American calls under Longstaff-Schwartz through the put-call symmetry of American options
//! (McDonald and Schroder 1998: `C(S, K, T, r, q, vol) = P(K, S, T, q, r, vol)`). The break test
//! of issue 20 priced the call S = K = 100, T 1, r 5 %, q 2 %, vol 5 at the European floor
//! (96.82 +/- 1.41 at 100,000 paths against the finite differences' 97.77): LSM on the call's
//! unbounded payoff. Checked here: the identity itself against a binomial tree that prices the
//! call as a call (independent of the finite differences, which use the identity too); the
//! engine simulates the symmetric put; the calls' prices within 3 standard errors of the
//! finite differences on a fine grid; delta and rho of the book's rows (bumped copies of the
//! call, each mapped to its put) against the finite differences' Greeks within 3 standard errors
//! of their mean over independent seeds; batched and unbatched rows bitwise equal.
mod common;

use tenor_pricing::american::{
    american_fd, american_fd_greeks, american_fd_richardson, lsm_as_symmetric_put, lsm_price, symmetric, FdGrid,
    LsmConfig,
};
use tenor_pricing::portfolio::{
    price_book, price_book_with, priced_as_symmetric_put, BookConfig, BookRun, Engine, PricedRow,
};
use tenor_pricing::types::{OptionType, Vanilla};

/// The Black-Scholes-Merton closed form ([`tenor_pricing::analytic::black_scholes_price`]) of a
/// valid contract.
fn black_scholes(v: &tenor_pricing::types::Vanilla) -> f64 {
    tenor_pricing::analytic::black_scholes_price(v).expect("a valid contract")
}

fn call(spot: f64, strike: f64, maturity: f64, rate: f64, dividend: f64, vol: f64) -> Vanilla {
    Vanilla { option: OptionType::Call, spot, strike, maturity, rate, dividend, vol }
}

/// The break test's call: vol 5, dividend yield 2 %.
fn wild() -> Vanilla {
    call(100.0, 100.0, 1.0, 0.05, 0.02, 5.0)
}

/// An ordinary call with a dividend.
fn ordinary() -> Vanilla {
    call(100.0, 100.0, 1.0, 0.05, 0.03, 0.3)
}

/// The finite differences on a grid four times the default's in each direction (1601 x 400
/// and 3201 x 800, Richardson-extrapolated).
fn fd_fine(v: &Vanilla) -> f64 {
    american_fd_richardson(v, &FdGrid { space: 1601, time: 400, ..FdGrid::default() }).expect("fd").american
}

/// `tenor price`'s defaults: 100,000 paths, 64 exercise dates, four basis functions, seed 42.
fn cli_config() -> LsmConfig {
    LsmConfig { paths: 100_000, exercise_dates: 64, nbasis: 4, seed: 42, out_of_sample: true }
}

/// A call with a sizeable early-exercise premium (dividend yield above the rate): 10.04 against
/// the European 9.54.
fn early() -> Vanilla {
    call(100.0, 100.0, 1.0, 0.03, 0.07, 0.3)
}

#[test]
fn the_symmetry_holds_on_a_tree_that_prices_the_call_as_a_call() {
    // The tree exercises the call's own payoff on a lattice in S; the finite differences (which
    // price every call through the symmetry, so they are no independent check of it alone) and
    // a second tree price the symmetric put (spot K, strike S, rate q, dividend r). Tolerance:
    // the tree's last refinement (its error estimate; 0.0095 at vol 5) plus 2e-3 for the
    // lattices' oscillation near the money (measured: at most 1.1e-3, Ju's row).
    for v in [
        wild(),
        ordinary(),
        early(),
        call(42.0, 40.0, 0.75, 0.04, 0.08, 0.35), // Haug (1998) p. 27
        call(120.0, 100.0, 3.0, 0.03, 0.07, 0.4), // Ju (1999) exhibit 6
        call(80.0, 100.0, 3.0, 0.07, 0.03, 0.3),  // Ju (1999) exhibit 6, r > q
    ] {
        let put = symmetric(&v);
        assert_eq!(
            (put.option, put.spot, put.strike, put.maturity, put.rate, put.dividend, put.vol),
            (OptionType::Put, v.strike, v.spot, v.maturity, v.dividend, v.rate, v.vol)
        );
        assert_eq!(symmetric(&put), v, "the map is its own inverse");
        let (c, c_half) = (common::tree(&v, 4000), common::tree(&v, 2000));
        let tol = 2e-3 + (c - c_half).abs();
        let (fd_put, tree_put) = (american_fd(&put).expect("fd"), common::tree(&put, 4000));
        eprintln!("{v:?}: call tree {c:.6} (2000 steps {c_half:.6}), put: tree {tree_put:.6}, FD {fd_put:.6}");
        assert!((c - fd_put).abs() <= tol, "{v:?}: call tree {c} vs FD of the symmetric put {fd_put} (tol {tol})");
        assert!((c - tree_put).abs() <= tol, "{v:?}: call tree {c} vs tree of the symmetric put {tree_put}");
    }
}

#[test]
fn the_engine_simulates_a_call_with_a_dividend_as_its_symmetric_put() {
    let dev = tenor_cpu::cpu().expect("cpu");
    let cfg = LsmConfig { paths: 2_000, exercise_dates: 8, nbasis: 4, seed: 3, out_of_sample: true };
    for v in [wild(), ordinary(), early()] {
        assert!(lsm_as_symmetric_put(&v));
        let (c, p) = (lsm_price(&dev, &v, &cfg).expect("call"), lsm_price(&dev, &symmetric(&v), &cfg).expect("put"));
        // The same simulation (bitwise the same flows); the prices differ at most where the
        // European floor binds (the call's closed form and the put's agree to rounding).
        assert_eq!(c.std_error.to_bits(), p.std_error.to_bits(), "{v:?}: {c:?} vs {p:?}");
        assert!((c.price - p.price).abs() <= 1e-13 * c.price, "{v:?}: {c:?} vs {p:?}");
    }
    // Puts and Merton's calls (no dividend) are not mapped.
    assert!(!lsm_as_symmetric_put(&symmetric(&ordinary())));
    assert!(!lsm_as_symmetric_put(&Vanilla { dividend: 0.0, ..ordinary() }));
    // In the book: the call with a dividend under `--engine mc` only.
    let book =
        common::american_book(&[ordinary(), Vanilla { dividend: 0.0, ..ordinary() }, symmetric(&ordinary())], "");
    let mapped = |engine| book.iter().map(|t| priced_as_symmetric_put(t, engine)).collect::<Vec<_>>();
    assert_eq!(mapped(Engine::Mc), [true, false, false]);
    assert_eq!(mapped(Engine::Auto), [false, false, false]);
}

#[test]
fn calls_with_a_dividend_price_within_three_standard_errors_of_the_finite_differences() {
    // `tenor price --engine mc`'s defaults. Before the symmetry the vol-5 call was the European
    // floor, 96.82 +/- 1.41; the ordinary call's premium (0.005) is a tenth of its standard
    // error, the early one's (0.50) ten times it.
    let dev = tenor_cpu::cpu().expect("cpu");
    for v in [wild(), ordinary(), early()] {
        let r = lsm_price(&dev, &v, &cli_config()).expect("lsm");
        let (fd, fine) = (american_fd(&v).expect("fd"), fd_fine(&v));
        let european = black_scholes(&v);
        eprintln!(
            "{v:?}: LSM {:.6} +- {:.6}, FD {fd:.6}, FD fine {fine:.6}, European {european:.6}",
            r.price, r.std_error
        );
        assert!((fd - fine).abs() <= 1e-3, "{v:?}: the finite differences converged: {fd} vs {fine}");
        assert!((r.price - fine).abs() <= 3.0 * r.std_error, "{v:?}: LSM {r:?} vs FD {fine}");
    }
    // The premium is priced, not the floor.
    let r = lsm_price(&dev, &wild(), &cli_config()).expect("lsm");
    assert!(r.price > black_scholes(&wild()) + 3.0 * r.std_error, "{r:?}");
}

/// Mean and standard error of the mean of `x`.
fn mean_se(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|y| (y - m) * (y - m)).sum::<f64>() / (n - 1.0);
    (m, (var / n).sqrt())
}

#[test]
fn delta_and_rho_of_calls_with_a_dividend_are_the_finite_differences_within_three_standard_errors() {
    // The book's rows: bumped copies of the call (spot, rate, ...), each simulated as its own
    // symmetric put, so the spot bump moves the put's strike and the rate bump its dividend
    // yield. A Greek's standard error is measured over 24 independent seeds (the row reports the
    // price's only). The Bermudan's Greeks (32 dates) differ from the American's by at most
    // 7e-4 in delta and 0.22 in rho on a tree, under 0.4 of these standard errors. Not the
    // ordinary call: its premium (0.005) is under the price's noise, so most seeds price it at
    // the European floor and its Greeks mix the European's in (ADR 0022).
    let dev = tenor_cpu::cpu().expect("cpu");
    for v in [early(), wild()] {
        let trades = common::american_book(&[v], "");
        let (mut deltas, mut rhos) = (Vec::new(), Vec::new());
        for seed in 1..=24 {
            let cfg = BookConfig { engine: Engine::Mc, paths: 20_000, seed, steps: 32, streams: 1, greeks: true };
            let r = price_book(&dev, &trades, &cfg, &mut |_| {}).remove(0).expect("row");
            assert_eq!(r.method, "lsm");
            deltas.push(r.delta.expect("delta"));
            rhos.push(r.rho.expect("rho"));
        }
        let ((delta, delta_se), (rho, rho_se)) = (mean_se(&deltas), mean_se(&rhos));
        let fd = american_fd_greeks(&v).expect("fd");
        eprintln!(
            "{v:?}: delta {delta:.5} +- {delta_se:.5} (FD {:.5}), rho {rho:.4} +- {rho_se:.4} (FD {:.4})",
            fd.delta, fd.rho
        );
        assert!((delta - fd.delta).abs() <= 3.0 * delta_se, "{v:?}: delta {delta} +- {delta_se} vs FD {}", fd.delta);
        assert!((rho - fd.rho).abs() <= 3.0 * rho_se, "{v:?}: rho {rho} +- {rho_se} vs FD {}", fd.rho);
    }
}

fn bits(r: &PricedRow) -> [Option<u64>; 7] {
    [Some(r.price), r.stderr, r.delta, r.gamma, r.vega, r.theta, r.rho].map(|x| x.map(f64::to_bits))
}

#[test]
fn book_call_rows_batched_equal_unbatched() {
    // The symmetry is applied in `lsm_price_batch`, which both routes call (`lsm_price` is its
    // batch of one): batched on the CPU backend, one valuation per call on the simulated device.
    let trades = common::american_book(&[wild(), ordinary(), early(), symmetric(&ordinary())], "");
    let cfg = BookConfig { engine: Engine::Mc, paths: 4_000, seed: 5, steps: 16, streams: 1, greeks: true };
    let cpu = tenor_cpu::cpu().expect("cpu");
    let sim = tenor_sim::sim(tenor_sim::SimConfig::default()).expect("sim");
    let batched = price_book_with(&cpu, &trades, &cfg, &BookRun { batch: true }, &mut |_| {});
    let unbatched = price_book_with(&sim, &trades, &cfg, &BookRun { batch: false }, &mut |_| {});
    for (i, (a, b)) in batched.iter().zip(&unbatched).enumerate() {
        let (a, b) = (a.as_ref().expect("batched"), b.as_ref().expect("unbatched"));
        assert_eq!(a.method, "lsm");
        assert_eq!(bits(a), bits(b), "row {i}");
    }
}
