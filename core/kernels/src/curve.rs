//! The par-yield bootstrap of one discount curve, as the `curve_build` kernel runs it per work
//! item (the reference its CUDA and SYCL sources follow step by step).
//!
//! # Method
//! The bootstrap of `tenor_market::curve::DiscountCurve::bootstrap_par`, node by node over the
//! tenors `T_1 < … < T_m` (years) with par yields `y_k` (decimal, bond-equivalent: the
//! Treasury's par-yield convention, semiannual compounding):
//! * bills (`T ≤ 1 + 1e-12`): zero-coupon on the quoted basis, `ln D(T) = -T · 2 ln(1 + y/2)`;
//! * notes and bonds (`T > 1`): par bonds paying `y/2` at `T, T - 0.5, …` (> 1e-9 years; the
//!   first period is shortened when `T` is not a whole number of half-years, accruing
//!   `min(t_1, 0.5)`): `1 = Σ_i y·a_i·D(t_i) + D(T)`. Coupon dates at or before the previous
//!   node `T_p` are read from the curve built so far; those after it depend on the unknown
//!   `z = ln D(T)` through the interpolation, `ln D(t) = ln D(T_p) + (z - ln D(T_p))·w`,
//!   `w = (t - T_p)/(T - T_p)`, so `z` is found by Newton's method from `z_0 = -T · 2 ln(1 + y/2)`
//!   (the price is increasing and convex in `z`, so Newton converges from any start).
//!
//! Interpolation between nodes is linear in `ln D` with `D(0) = 1` as the first node
//! (piecewise-constant forward rates; Hagan and West, "Interpolation methods for curve
//! construction", Applied Mathematical Finance 13(2), 2006, section 3.3).
//!
//! # Stopping rule
//! Newton stops after the first step with `|Δz| ≤ 1e-12` ([`NEWTON_TOL`]); convergence is
//! quadratic, so the iterate after that step is exact to rounding (the error left is of order
//! `Δz²`). A looser test than `bootstrap_par`'s (4 ulp of `z`) on purpose: near the root the
//! computed step is rounding noise of the price (a few 1e-16 over `∂P/∂z`), which a test at the
//! ulp level passes only when the noise happens to vanish, and the noise differs between the
//! math libraries of the backends; a test well above the noise stops every backend after the
//! same converged step, and the values agree to rounding (within 1e-12 relative of the CPU).
//! After [`NEWTON_MAX_ITERATIONS`] steps without stopping the node is NaN.
//!
//! # Invalid input
//! `m = 0` or `m >` [`MAX_TENORS`], or tenors that are not finite, positive and increasing:
//! every output of the curve is NaN. A yield that is not finite or not above -0.5 (where
//! `1 + y/2` is not positive), or a node whose Newton iteration does not stop: that node and
//! every later node of the curve are NaN (they are bootstrapped from it).

/// The largest number of tenors a curve may have (per-item arrays are sized by it).
pub const MAX_TENORS: usize = 32;
/// Newton stops after the first step of at most this size in `ln D(T)`.
pub const NEWTON_TOL: f64 = 1e-12;
/// Newton steps before a node is declared unsolved (NaN).
pub const NEWTON_MAX_ITERATIONS: u32 = 64;
/// Tenors up to `1 + BILL_EPS` years are bills.
pub const BILL_EPS: f64 = 1e-12;
/// Coupon dates are `T - 0.5 k` while above this (years).
pub const COUPON_EPS: f64 = 1e-9;

/// Bond-equivalent (semiannual) yield to continuous compounding: `2 ln(1 + y/2)`.
fn bey_to_continuous(y: f64) -> f64 {
    2.0 * (0.5 * y).ln_1p()
}

/// Whether `tenors` can be bootstrapped: 1 to [`MAX_TENORS`] finite, positive, increasing.
pub fn valid_tenors(tenors: &[f64]) -> bool {
    let mut prev = 0.0;
    for &t in tenors {
        if !(t.is_finite() && t > prev) {
            return false;
        }
        prev = t;
    }
    !tenors.is_empty() && tenors.len() <= MAX_TENORS
}

/// Bootstraps one curve: `par[k]` is the par yield at `tenors[k]` and `log_df[k]` receives
/// `ln D(tenors[k])`, for `k < tenors.len()` (see the module documentation for the method, the
/// stopping rule and the NaN cases). `par` and `log_df` must be at least as long as `tenors`.
pub fn bootstrap(tenors: &[f64], par: &[f64], log_df: &mut [f64]) {
    let m = tenors.len();
    if !valid_tenors(tenors) || par.len() < m || log_df.len() < m {
        log_df.iter_mut().take(m).for_each(|x| *x = f64::NAN);
        return;
    }
    // Nodes so far: times[0] = 0, ln D = 0, then the tenors solved.
    let mut times = [0.0f64; MAX_TENORS + 1];
    let mut logs = [0.0f64; MAX_TENORS + 1];
    let mut failed = false;
    for k in 0..m {
        let (tenor, y) = (tenors[k], par[k]);
        let z = if failed || !(y.is_finite() && y > -0.5) {
            f64::NAN
        } else if tenor <= 1.0 + BILL_EPS {
            -tenor * bey_to_continuous(y)
        } else {
            solve_par_bond(&times[..=k], &logs[..=k], tenor, y)
        };
        failed = z.is_nan();
        log_df[k] = z;
        times[k + 1] = tenor;
        logs[k + 1] = z;
    }
}

/// `ln D(tenor)` making a par bond of coupon `y` price to 1 on the nodes `(times, logs)` so far
/// (`times[0] = 0`), NaN if Newton does not stop.
fn solve_par_bond(times: &[f64], logs: &[f64], tenor: f64, y: f64) -> f64 {
    let last = times.len() - 1;
    let (t_prev, l_prev) = (times[last], logs[last]);
    let mut coupons = 0u32;
    while tenor - 0.5 * f64::from(coupons) > COUPON_EPS {
        coupons += 1;
    }
    let time = |i: u32| tenor - 0.5 * f64::from(coupons - 1 - i);
    let cash = |i: u32| y * if i == 0 { time(0).min(0.5) } else { 0.5 } + if i + 1 == coupons { 1.0 } else { 0.0 };
    // Coupons on the known part of the curve, in date order: a constant of the iteration.
    let mut known = 0.0;
    let mut first_unknown = 0;
    let mut seg = 1;
    while first_unknown < coupons && time(first_unknown) <= t_prev {
        let t = time(first_unknown);
        while times[seg] < t {
            seg += 1;
        }
        let (t0, t1, l0, l1) = (times[seg - 1], times[seg], logs[seg - 1], logs[seg]);
        known += cash(first_unknown) * (l0 + (l1 - l0) * (t - t0) / (t1 - t0)).exp();
        first_unknown += 1;
    }
    let mut z = -tenor * bey_to_continuous(y);
    for _ in 0..NEWTON_MAX_ITERATIONS {
        let mut price = known;
        let mut deriv = 0.0;
        for i in first_unknown..coupons {
            let w = (time(i) - t_prev) / (tenor - t_prev);
            let d = (l_prev + (z - l_prev) * w).exp();
            let cf = cash(i);
            price += cf * d;
            deriv += cf * d * w;
        }
        let step = (price - 1.0) / deriv;
        z -= step;
        if step.abs() <= NEWTON_TOL {
            return z;
        }
        if !z.is_finite() {
            break;
        }
    }
    f64::NAN
}
