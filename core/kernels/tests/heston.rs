//! The quadrature rule of the `heston_price` kernel and its input checks, against closed
//! forms: Gauss-Legendre integrates polynomials of degree `2n - 1` exactly on (0, 1); the
//! control variate's Black price satisfies put-call parity and its closed-form limits; invalid
//! inputs give NaN as the manifest states.
use tenor_kernels::heston::{black_otm, expected_total_variance, gauss_legendre_unit, price, Contract};

#[test]
fn gauss_legendre_is_exact_to_degree_2n_minus_1() {
    for n in [1usize, 2, 7, 64, 256] {
        let (x, w) = gauss_legendre_unit(n);
        assert_eq!((x.len(), w.len()), (n, n));
        assert!(x.windows(2).all(|p| p[0] < p[1]) && x[0] > 0.0 && x[n - 1] < 1.0, "n {n}: nodes not in (0, 1)");
        // int_0^1 x^j dx = 1 / (j + 1) for j <= 2n - 1 (up to degree 40 for the larger rules).
        for j in 0..(2 * n).min(41) {
            let q: f64 = x.iter().zip(&w).map(|(xi, wi)| wi * xi.powi(j as i32)).sum();
            assert!((q - 1.0 / (j as f64 + 1.0)).abs() < 5e-15, "n {n} degree {j}: {q}");
        }
    }
    assert!(gauss_legendre_unit(0).0.is_empty());
}

#[test]
fn black_control_variate_meets_parity_and_limits() {
    let (f, s) = (100.0, 0.2);
    for k in [50.0, 90.0, 100.0, 110.0, 200.0] {
        let c = black_otm(f, k, s, true);
        let p = black_otm(f, k, s, false);
        assert!((c - p - (f - k)).abs() < 1e-12 * f, "K {k}: {c} {p}");
    }
    // At the money: F (2 Phi(s/2) - 1) = F erf(s / (2 sqrt 2)); s = 0.2 gives 7.965567455405796
    // (Python's math.erf(0.1 / sqrt(2)) * 100).
    assert!((black_otm(f, f, s, true) - 7.965_567_455_405_796).abs() < 1e-12);
    // Expected integrated variance: kappa -> 0 gives v0 T; v0 = theta gives theta T.
    assert!((expected_total_variance(&[0.04, 1e-12, 0.09, 0.5, 0.0], 2.0) - 0.08).abs() < 1e-12);
    assert!((expected_total_variance(&[0.04, 3.0, 0.04, 0.5, 0.0], 2.0) - 0.08).abs() < 1e-15);
}

#[test]
fn invalid_inputs_give_nan() {
    let (x, w) = gauss_legendre_unit(32);
    let p = [0.04, 1.5, 0.04, 0.5, -0.7];
    assert!(price(
        &p,
        &Contract { forward: 100.0, strike: 100.0, maturity: 0.5, discount: 0.99, is_call: true },
        &x,
        &w
    )
    .is_finite());
    for bad in [
        [0.0, 1.5, 0.04, 0.5, -0.7],
        [0.04, -1.0, 0.04, 0.5, -0.7],
        [0.04, 1.5, f64::NAN, 0.5, -0.7],
        [0.04, 1.5, 0.04, 0.0, -0.7],
        [0.04, 1.5, 0.04, 0.5, 1.0],
    ] {
        assert!(
            price(
                &bad,
                &Contract { forward: 100.0, strike: 100.0, maturity: 0.5, discount: 0.99, is_call: true },
                &x,
                &w
            )
            .is_nan(),
            "{bad:?}"
        );
    }
    assert!(price(
        &p,
        &Contract { forward: 100.0, strike: -1.0, maturity: 0.5, discount: 0.99, is_call: true },
        &x,
        &w
    )
    .is_nan());
    assert!(price(
        &p,
        &Contract { forward: 100.0, strike: 100.0, maturity: 0.0, discount: 0.99, is_call: true },
        &x,
        &w
    )
    .is_nan());
    assert!(price(
        &p,
        &Contract { forward: f64::INFINITY, strike: 100.0, maturity: 0.5, discount: 0.99, is_call: true },
        &x,
        &w
    )
    .is_nan());
    assert!(price(
        &p,
        &Contract { forward: 100.0, strike: 100.0, maturity: 0.5, discount: 0.0, is_call: false },
        &x,
        &w
    )
    .is_nan());
}
