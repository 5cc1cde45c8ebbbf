//! Finite-difference reference engine for American (and European) options.
//!
//! Method (Wilmott, Howison & Dewynne 1995; Rannacher 1984; Reisinger & Witte 2012, "On the
//! use of policy iteration as an easy way of pricing American options", SIAM J. Financial
//! Math. 3, for the LCP solve; Forsyth & Vetzal 2002, "Quadratic convergence for valuing
//! American options using a penalty method", for the time-step selection; Pooley, Vetzal &
//! Forsyth 2003, "Convergence remedies for non-smooth payoffs in option pricing" for payoff
//! cell averaging):
//!
//! * the Black-Scholes-Merton PDE in `x = ln S` and time to expiry `tau`,
//!   `V_tau = D V_xx + mu V_x - r V`, `D = vol^2 / 2`, `mu = r - q - vol^2 / 2`, on a uniform
//!   grid with the spot as a node (no interpolation) spanning
//!   `|ln(S/K)| + width_sd vol sqrt(T) + |mu| T` on each side, cut short where the perpetual put
//!   ([`perpetual_put`]) says nothing beyond matters: below at its exercise boundary `S*` (every
//!   American put is exercised there, whatever its maturity; `S*` is then node 0 exactly) and
//!   above where its premium falls to 1e-10 of the strike; both ends take the European closed
//!   form (at the low end at least the intrinsic value), and beyond one year the grid keeps the
//!   one-year spacing with more nodes (issue 29: a 1000-year put's grid spanned 162 units of
//!   `ln S` on 401 nodes);
//! * exponential fitting of the diffusion (Il'in 1969, Duffy 2006 ch. 11),
//!   `D~ = (mu h / 2) coth(mu h / (2 D))`, so the matrix stays an M-matrix when the
//!   volatility is tiny (upwind limit) and equals `D (1 + O(h^2))` otherwise;
//! * Crank-Nicolson in time, its first two steps replaced by four implicit-Euler half steps
//!   (Rannacher start-up), implicit Euler for steps longer than the relaxation time
//!   `1 / (r + mu^2 / (2 vol^2))`, and the put payoff averaged over each cell at expiry;
//! * early exercise: at every step the linear complementarity problem
//!   `min(A V - b, V - g) = 0` is solved exactly by policy iteration (each iteration a
//!   tridiagonal Thomas solve; finite convergence for an M-matrix), which also handles
//!   exercise regions that are not a single interval (for example `r < q < 0`);
//! * calls are priced as puts through the McDonald-Schroder (1998) symmetry
//!   `C(S, K, r, q, vol) = P(K, S, q, r, vol)`, exact for American options
//!   ([`super::symmetric`]);
//! * control variate: the engine returns `BS European + (FD American - FD European)` with
//!   both FD values on the same grid, so the discretisation error of the European part
//!   cancels; the early-exercise premium is floored at 0 (the true premium is never negative)
//!   and the price at the intrinsic value. Where the grid exercises at the spot node the
//!   price is `max(intrinsic, European)` with no correction: the European grid's error (large
//!   at low vol, where the fitted scheme is upwind) does not belong to a value that has none;
//! * no-arbitrage bounds (Merton 1973; Reiner and Rubinstein 1991): the put lies between the
//!   value of exercising at `S*` and the perpetual put, both closed forms (`no_arbitrage_bounds`);
//!   the price is held in that interval and, once it is narrower than 1e-9 of the strike (very
//!   long maturities), is the perpetual price with no grid. So prices rise with the maturity to
//!   the perpetual one (FinancePy#173: 100, 300 and 1000 years gave 26.8546, 26.8569, 26.7579
//!   against 26.8545).

use super::{symmetric, validate, AmericanError};
use crate::analytic::black_scholes_price as black_scholes;
use crate::types::{Greeks, OptionType, Vanilla};

/// Grid of the finite-difference engine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FdGrid {
    /// Space nodes (odd, >= 5; an even number is rounded up).
    pub space: usize,
    /// Time steps (>= 2).
    pub time: usize,
    /// Implicit-Euler half steps that replace the first Crank-Nicolson steps (Rannacher;
    /// even, 0 for pure Crank-Nicolson).
    pub rannacher: usize,
    /// Half-width of the grid in standard deviations `vol sqrt(T)` beyond the strike and the
    /// drift.
    pub width_sd: f64,
}

impl Default for FdGrid {
    /// 401 space nodes, 100 time steps, 4 Rannacher half steps, 7 standard deviations. Used
    /// with Richardson extrapolation by [`american_fd`] it is within 1.4e-4 of the converged
    /// values of the shared oracle tables (alone, within about 3e-3).
    fn default() -> Self {
        Self { space: 401, time: 100, rannacher: 4, width_sd: 7.0 }
    }
}

/// Result of one finite-difference valuation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FdResult {
    /// American price: Black-Scholes European + early-exercise premium, at least intrinsic.
    pub american: f64,
    /// Early-exercise premium `max(FD American - FD European, 0)` on one grid.
    pub premium: f64,
    /// European price from the closed form.
    pub european: f64,
    /// Raw FD American value (no control variate).
    pub american_grid: f64,
    /// Raw FD European value on the same grid.
    pub european_grid: f64,
    /// Whether the grid exercises at the spot node (the spot is in the exercise region): the
    /// price is then `max(intrinsic, European)`, with no control-variate correction.
    pub exercised: bool,
}

/// American price of `v`: [`american_fd_richardson`] on the default grid (401 x 100 and
/// 801 x 200).
///
/// # Errors
/// [`AmericanError::InvalidParameter`] for a bad contract; [`AmericanError::NoConvergence`]
/// if the exercise policy does not settle.
pub fn american_fd(v: &Vanilla) -> Result<f64, AmericanError> {
    Ok(american_fd_richardson(v, &FdGrid::default())?.american)
}

/// American price of `v` on `grid`, with the European value and the premium.
///
/// # Errors
/// [`AmericanError::InvalidParameter`] for a bad contract or grid;
/// [`AmericanError::NoConvergence`] if the exercise policy does not settle.
pub fn american_fd_with(v: &Vanilla, grid: &FdGrid) -> Result<FdResult, AmericanError> {
    validate(v)?;
    if grid.time < 2 {
        return Err(AmericanError::InvalidParameter {
            name: "grid.time",
            value: grid.time as f64,
            reason: "must be >= 2",
        });
    }
    if grid.space < 5 {
        return Err(AmericanError::InvalidParameter {
            name: "grid.space",
            value: grid.space as f64,
            reason: "must be >= 5",
        });
    }
    if !(grid.width_sd.is_finite() && grid.width_sd > 0.0) {
        return Err(AmericanError::InvalidParameter {
            name: "grid.width_sd",
            value: grid.width_sd,
            reason: "must be finite and > 0",
        });
    }
    let intrinsic = v.option.payoff(v.spot, v.strike);
    let european = black_scholes(v)?;
    if v.maturity == 0.0 {
        return Ok(FdResult {
            american: intrinsic,
            premium: 0.0,
            european: intrinsic,
            american_grid: intrinsic,
            european_grid: intrinsic,
            exercised: true,
        });
    }
    // Calls through the McDonald-Schroder symmetry.
    let p = match v.option {
        OptionType::Put => *v,
        OptionType::Call => symmetric(v),
    };
    let bounds = no_arbitrage_bounds(&p)?;
    if let Some((_, upper)) = bounds.filter(|(lower, upper)| upper - lower <= SETTLED * p.strike) {
        // Settled: the value is the perpetual one to within `upper - lower`; no grid.
        let american = upper.max(intrinsic);
        return Ok(FdResult {
            american,
            premium: (american - european).max(0.0),
            european,
            american_grid: american,
            european_grid: european,
            exercised: false,
        });
    }
    let put = PutProblem { spot: p.spot, strike: p.strike, rate: p.rate, div: p.dividend };
    let (am, exercised) = solve_put(&put, v.vol, v.maturity, grid, true)?;
    let (eu, _) = solve_put(&put, v.vol, v.maturity, grid, false)?;
    // Where the grid exercises at the spot, the value is the intrinsic one exactly: the
    // European control variate would carry the European grid's error (large at low vol, where
    // the fitted scheme is upwind) into a region where the American value has none.
    let premium = if exercised { (intrinsic - european).max(0.0) } else { (am - eu).max(0.0) };
    Ok(FdResult {
        american: within(bounds, (european + premium).max(intrinsic)),
        premium,
        european,
        american_grid: am,
        european_grid: eu,
        exercised,
    })
}

/// Richardson extrapolation of [`american_fd_with`]: `P(h/2, dt/2) + (P(h/2, dt/2) - P(h, dt)) / 3`
/// from `grid` and the grid with twice the space intervals and time steps (both errors are
/// second order with the Rannacher start-up, the cell-averaged payoff and the quadratic time
/// grid). Applied to the premium and the raw grid values; the European part is the closed form.
///
/// # Errors
/// As [`american_fd_with`].
pub fn american_fd_richardson(v: &Vanilla, grid: &FdGrid) -> Result<FdResult, AmericanError> {
    let coarse = american_fd_with(v, grid)?;
    let fine_grid = FdGrid { space: 2 * (grid.space | 1) - 1, time: 2 * grid.time, ..*grid };
    let fine = american_fd_with(v, &fine_grid)?;
    let ex = |f: f64, c: f64| f + (f - c) / 3.0;
    // Exercise at the spot on the fine grid: intrinsic, nothing to extrapolate.
    let premium = if fine.exercised { fine.premium } else { ex(fine.premium, coarse.premium).max(0.0) };
    let intrinsic = v.option.payoff(v.spot, v.strike);
    let p = match v.option {
        OptionType::Put => *v,
        OptionType::Call => symmetric(v),
    };
    Ok(FdResult {
        american: within(no_arbitrage_bounds(&p)?, (fine.european + premium).max(intrinsic)),
        premium,
        european: fine.european,
        american_grid: ex(fine.american_grid, coarse.american_grid),
        european_grid: ex(fine.european_grid, coarse.european_grid),
        exercised: fine.exercised,
    })
}

/// Price and Greeks of the American option `v` by bump and reprice on the default grid:
/// central differences with spot bumped by 0.5 %, vol by 0.001, rate by 1e-4, and maturity by
/// one day (one-sided when the maturity is shorter). Units as [`Greeks`].
///
/// # Errors
/// As [`american_fd`].
pub fn american_fd_greeks(v: &Vanilla) -> Result<Greeks, AmericanError> {
    let price = american_fd(v)?;
    let with = |f: &dyn Fn(&mut Vanilla)| {
        let mut b = *v;
        f(&mut b);
        american_fd(&b)
    };
    let ds = 0.005 * v.spot;
    let up = with(&|b| b.spot += ds)?;
    let dn = with(&|b| b.spot -= ds)?;
    let dv = 1e-3;
    let vega = if v.vol > dv {
        (with(&|b| b.vol += dv)? - with(&|b| b.vol -= dv)?) / (2.0 * dv)
    } else {
        (with(&|b| b.vol += dv)? - price) / dv
    };
    let dr = 1e-4;
    let rho = (with(&|b| b.rate += dr)? - with(&|b| b.rate -= dr)?) / (2.0 * dr);
    let dt = 1.0 / 365.0;
    let theta = if v.maturity > dt {
        -(with(&|b| b.maturity += dt)? - with(&|b| b.maturity -= dt)?) / (2.0 * dt)
    } else {
        -(with(&|b| b.maturity += dt)? - price) / dt
    };
    Ok(Greeks { price, delta: (up - dn) / (2.0 * ds), gamma: (up - 2.0 * price + dn) / (ds * ds), vega, theta, rho })
}

/// The perpetual American put under Black-Scholes-Merton (McKean 1965, appendix to Samuelson,
/// "Rational theory of warrant pricing", Industrial Management Review 6; Merton 1973, "Theory
/// of rational option pricing", section 8): with `beta < 0` the negative root of
/// `vol^2 / 2 beta (beta - 1) + (rate - dividend) beta - rate = 0`, the exercise boundary is
/// `S* = K beta / (beta - 1)` and the value `(K - S*) (S / S*)^beta` for `S > S*`, `K - S` at and
/// below it. It bounds every American put of the same contract from above, and `S*` lies below
/// every finite-maturity exercise boundary (the boundary falls as the maturity grows, towards
/// `S*`). Returns `(value at spot, S*)`; `None` without a finite boundary (`rate <= 0` or
/// `vol = 0`).
#[must_use]
pub fn perpetual_put(spot: f64, strike: f64, rate: f64, dividend: f64, vol: f64) -> Option<(f64, f64)> {
    let beta = perpetual_exponent(rate, dividend, vol)?;
    let boundary = strike * beta / (beta - 1.0);
    let value = if spot <= boundary { strike - spot } else { (strike - boundary) * (spot / boundary).powf(beta) };
    Some((value, boundary))
}

/// The negative root `beta` of `vol^2 / 2 beta (beta - 1) + (rate - dividend) beta - rate = 0`
/// ([`perpetual_put`]), without cancellation; `None` when `rate <= 0` or `vol = 0`.
fn perpetual_exponent(rate: f64, dividend: f64, vol: f64) -> Option<f64> {
    let d = 0.5 * vol * vol;
    if !(rate > 0.0 && d > 0.0) {
        return None;
    }
    // d beta^2 + (rate - dividend - d) beta - rate = 0.
    let b = rate - dividend - d;
    let disc = (b * b + 4.0 * d * rate).sqrt();
    // (-b - disc) / (2d), formed as -2 rate / (disc - b) where b < 0 would cancel in -b - disc.
    Some(if b > 0.0 { (-b - disc) / (2.0 * d) } else { -2.0 * rate / (disc - b) })
}

/// Width of the no-arbitrage interval, as a fraction of the strike, below which a put is
/// priced at its upper end, the perpetual value, without a grid ([`no_arbitrage_bounds`]).
const SETTLED: f64 = 1e-9;

/// The interval `[L(T), P_inf]` that holds the American put `p` (spot above the perpetual
/// boundary `S*`): `P_inf` the perpetual put ([`perpetual_put`]) and `L(T)` the value of one
/// exercise policy, exercising at the first touch of `S*` before expiry, which is a down-and-out
/// put with barrier `S*` and the rebate `K - S*` paid at the touch (Reiner and Rubinstein 1991,
/// [`crate::analytic::barrier_price`]). As the maturity grows both meet, exponentially fast
/// (a 300-year put at spot = strike 100, rate 0.05, dividend 0.02, vol 0.3: width 3.7e-8).
/// `None` without a perpetual boundary or with the spot at or below it (exercised now).
fn no_arbitrage_bounds(p: &Vanilla) -> Result<Option<(f64, f64)>, AmericanError> {
    let Some((upper, boundary)) = perpetual_put(p.spot, p.strike, p.rate, p.dividend, p.vol) else {
        return Ok(None);
    };
    if p.spot <= boundary || p.maturity == 0.0 {
        return Ok(None);
    }
    let lower = crate::analytic::barrier_price(&crate::types::BarrierSpec {
        vanilla: Vanilla { option: OptionType::Put, ..*p },
        barrier: boundary,
        barrier_type: crate::types::BarrierType::DownOut,
        rebate: p.strike - boundary,
    })?;
    Ok(Some((lower.min(upper), upper)))
}

/// `price` brought into `bounds` (both closed forms: a grid value outside them is off by more).
fn within(bounds: Option<(f64, f64)>, price: f64) -> f64 {
    bounds.map_or(price, |(lower, upper)| price.clamp(lower, upper))
}

/// Premium of the perpetual put at the far end of the grid, as a fraction of the strike, above
/// which the grid is not cut short (see [`solve_put`]).
const FAR_PREMIUM: f64 = 1e-10;

/// A put in the engine's own variables (after the call symmetry).
struct PutProblem {
    spot: f64,
    strike: f64,
    rate: f64,
    div: f64,
}

/// Exponentially fitted diffusion `(mu h / 2) coth(mu h / (2 d))`.
fn fitted_diffusion(d: f64, mu: f64, h: f64) -> f64 {
    let p = 0.5 * mu.abs() * h;
    if d <= 0.0 {
        return p;
    }
    let z = p / d;
    if z < 1e-4 {
        d * (1.0 + z * z / 3.0)
    } else {
        p / z.tanh()
    }
}

/// Average of `max(K - e^x, 0)` over `[a, b]`.
fn cell_average_put(a: f64, b: f64, strike: f64) -> f64 {
    let xk = strike.ln();
    if a >= xk {
        0.0
    } else if b <= xk {
        strike - (b.exp() - a.exp()) / (b - a)
    } else {
        (strike * (xk - a) - (strike - a.exp())) / (b - a)
    }
}

/// Solves the tridiagonal system `lo_i x_{i-1} + di_i x_i + up_i x_{i+1} = rhs_i` in place
/// (Thomas algorithm; `lo[0]` and `up[n-1]` unused). `work` has length n.
fn thomas(lo: &[f64], di: &[f64], up: &[f64], rhs: &mut [f64], work: &mut [f64]) {
    let n = di.len();
    let mut beta = di[0];
    rhs[0] /= beta;
    for i in 1..n {
        work[i] = up[i - 1] / beta;
        beta = di[i] - lo[i] * work[i];
        rhs[i] = (rhs[i] - lo[i] * rhs[i - 1]) / beta;
    }
    for i in (0..n - 1).rev() {
        rhs[i] -= work[i + 1] * rhs[i + 1];
    }
}

/// The (step length, theta) sequence from expiry: time to expiry `tau_j = T (j / N)^2`
/// (steps concentrated at expiry, where the exercise boundary moves like `sqrt(tau)`; this
/// restores second-order convergence in time, as the time-step selector of Forsyth &
/// Vetzal 2002 does adaptively), the first
/// `rannacher / 2` steps each split into two implicit-Euler half steps.
fn time_steps(maturity: f64, n: usize, rannacher: usize) -> Vec<(f64, f64)> {
    let tau = |j: usize| maturity * (j as f64 / n as f64).powi(2);
    let full = (rannacher / 2).min(n);
    let mut steps = Vec::with_capacity(n + full);
    for j in 0..n {
        let dt = tau(j + 1) - tau(j);
        if j < full {
            steps.push((0.5 * dt, 1.0));
            steps.push((0.5 * dt, 1.0));
        } else {
            steps.push((dt, 0.5));
        }
    }
    steps
}

/// Value at the spot node of the put (American when `exercise`), and whether the spot node is
/// in the exercise region after the last step.
fn solve_put(
    p: &PutProblem,
    vol: f64,
    maturity: f64,
    grid: &FdGrid,
    exercise: bool,
) -> Result<(f64, bool), AmericanError> {
    let n = grid.space | 1;
    let d = 0.5 * vol * vol;
    let mu = p.rate - p.div - d;
    let half_width =
        ((p.spot / p.strike).ln().abs() + grid.width_sd * vol * maturity.sqrt() + mu.abs() * maturity).max(1e-3);
    let x0 = p.spot.ln();
    // Below the perpetual boundary S* every American put is exercised, whatever its maturity
    // (K - S is its value exactly), and above S_far, where the perpetual premium is
    // FAR_PREMIUM K, what the American put is worth beyond the European is smaller still: the
    // grid ends there when that is nearer than `width_sd` standard deviations (long maturities,
    // where that many standard deviations of a 100-year log-spot spanned 80 units of ln S at
    // vol 0.3 and the spot's cell grew to 0.4).
    let (mut below, mut above) = (half_width, half_width);
    if let Some(beta) = perpetual_exponent(p.rate, p.div, vol) {
        let x_star = (p.strike * beta / (beta - 1.0)).ln();
        if x_star < x0 {
            below = below.min(x0 - x_star);
        }
        // (K - S*) (S_far / S*)^beta = FAR_PREMIUM K, with K - S* = K / (1 - beta).
        let far = x_star + (FAR_PREMIUM * (1.0 - beta)).ln() / beta;
        if far > x0 {
            above = above.min(far - x0);
        }
    }
    // Beyond one year the grid keeps the spacing it would have at one year, with more nodes
    // (a 100-year put on 401 nodes had a spot cell of 0.058 in ln S and priced 1.7e-3 below
    // its no-arbitrage lower bound).
    let one_year = (p.spot / p.strike).ln().abs() + grid.width_sd * vol + mu.abs();
    let h_max = one_year.max(1e-3) / ((n - 1) / 2) as f64;
    let intervals = ((below + above) / h_max).ceil();
    let n = if maturity > 1.0 && intervals.is_finite() && intervals > (n - 1) as f64 {
        (intervals as usize + 1) | 1
    } else {
        n
    };
    // The spot is node c. Where the grid ends at the perpetual boundary, that boundary is node
    // 0 exactly (h = below / c), so moving the maturity never moves the grid's lowest node
    // relative to it; the nodes above then run past x0 + above. Otherwise the grid is symmetric.
    let (h, c, n) = if below < half_width {
        let c = ((below / ((below + above) / (n - 1) as f64)).round() as usize).max(1);
        let h = below / c as f64;
        (h, c, (c + (above / h).ceil() as usize + 1).max(5))
    } else {
        let c = (n - 1) / 2;
        (half_width / c as f64, c, n)
    };
    let xs: Vec<f64> = (0..n).map(|i| x0 + (i as f64 - c as f64) * h).collect();
    let s: Vec<f64> = xs.iter().map(|x| x.exp()).collect();
    let g: Vec<f64> = s.iter().map(|&si| (p.strike - si).max(0.0)).collect();
    let mut v: Vec<f64> = xs.iter().map(|&x| cell_average_put(x - 0.5 * h, x + 0.5 * h, p.strike)).collect();

    // Implicit Euler (theta = 1) for the steps longer than the relaxation time of the slowest
    // mode, 1 / (r + mu^2 / (2 vol^2)) (Fourier modes of the operator decay at least that fast):
    // there Crank-Nicolson's stiff modes, renewed at every step by the exercise constraint, are
    // hardly damped (amplification near -1), and a 10,000-year put settled 2e-4 below its
    // limit; over such a step the solution is mostly relaxing to its steady state, where the
    // first-order error of the implicit step is small against what relaxes.
    let relaxation = if d > 0.0 { p.rate + mu * mu / (4.0 * d) } else { p.rate };
    let steps: Vec<(f64, f64)> = time_steps(maturity, grid.time, grid.rannacher)
        .into_iter()
        .map(|(dt, theta)| if relaxation > 0.0 && dt * relaxation > 1.0 { (dt, 1.0) } else { (dt, theta) })
        .collect();

    let dd = fitted_diffusion(d, mu, h);
    let l_lo = dd / (h * h) - mu / (2.0 * h);
    let l_di = -2.0 * dd / (h * h) - p.rate;
    let l_up = dd / (h * h) + mu / (2.0 * h);

    let (mut lo, mut di, mut up) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut rhs = vec![0.0; n];
    let mut b = vec![0.0; n];
    let mut work = vec![0.0; n];
    let mut active = vec![false; n];
    let scale = 1e-13 * p.strike.max(p.spot);
    let mut tau = 0.0;
    for (k, &(dt, theta)) in steps.iter().enumerate() {
        tau += dt;
        // Explicit part.
        for i in 1..n - 1 {
            b[i] = v[i] + (1.0 - theta) * dt * (l_lo * v[i - 1] + l_di * v[i] + l_up * v[i + 1]);
        }
        // Both ends: the European put in closed form (exact for the European grid); at the low
        // end the American is at least its intrinsic value, exactly that at or below the
        // perpetual boundary; at the high end it exceeds the European by less than the
        // perpetual premium there.
        let european_at = |spot: f64| {
            black_scholes(&Vanilla {
                option: OptionType::Put,
                spot,
                strike: p.strike,
                maturity: tau,
                rate: p.rate,
                dividend: p.div,
                vol,
            })
        };
        let eu_low = european_at(s[0])?;
        b[0] = if exercise { eu_low.max(g[0]) } else { eu_low };
        b[n - 1] = european_at(s[n - 1])?;
        let (a_lo, a_di, a_up) = (-theta * dt * l_lo, 1.0 - theta * dt * l_di, -theta * dt * l_up);
        let mut iterations = 0;
        loop {
            for i in 0..n {
                let boundary = i == 0 || i == n - 1;
                if boundary || (exercise && active[i]) {
                    lo[i] = 0.0;
                    di[i] = 1.0;
                    up[i] = 0.0;
                    rhs[i] = if boundary { b[i] } else { g[i] };
                } else {
                    lo[i] = a_lo;
                    di[i] = a_di;
                    up[i] = a_up;
                    rhs[i] = b[i];
                }
            }
            thomas(&lo, &di, &up, &mut rhs, &mut work);
            if !exercise {
                break;
            }
            let mut changed = false;
            for i in 1..n - 1 {
                if active[i] {
                    let res = a_lo * rhs[i - 1] + a_di * rhs[i] + a_up * rhs[i + 1] - b[i];
                    if res < -scale {
                        active[i] = false;
                        changed = true;
                    }
                } else if rhs[i] - g[i] < -scale {
                    active[i] = true;
                    changed = true;
                }
            }
            iterations += 1;
            if !changed {
                break;
            }
            if iterations > 4 * n {
                return Err(AmericanError::NoConvergence { step: k, iterations });
            }
        }
        std::mem::swap(&mut v, &mut rhs);
    }
    Ok((v[c], exercise && active[c]))
}
