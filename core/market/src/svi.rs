//! Raw SVI slices (Gatheral 2004), calibrated by the quasi-explicit method of Zeliade Systems
//! ("Quasi-explicit calibration of Gatheral's SVI model", Zeliade white paper, 2009), with the
//! no-arbitrage checks of Gatheral and Jacquier ("Arbitrage-free SVI volatility surfaces",
//! Quantitative Finance 14, 2014).
//!
//! Raw SVI total implied variance at log-moneyness `k = ln(K / F)`:
//! `w(k) = a + b (ρ (k - m) + √((k - m)² + σ²))`.
//!
//! # Calibration
//! With `y = (k - m) / σ`, `w = a + d y + c √(y² + 1)` where `c = b σ`, `d = ρ b σ`: for fixed
//! `(m, σ)` the fit is a least-squares problem in `(a, d, c)` on the convex set
//! `0 ≤ c ≤ 4σ`, `|d| ≤ ρ_max c`, `|d| ≤ 4σ - c`, `-max w ≤ a ≤ max w` and
//! `a + √(c² - d²) ≥ w_floor` (the `4σ` bound is Lee's moment bound `b (1 + |ρ|) ≤ 4`; the last
//! is `a + b σ √(1 - ρ²) ≥ w_floor`, the minimum of `w` over every `k` (Gatheral and Jacquier
//! 2014, section 3) kept above [`VARIANCE_FLOOR`] times the smallest quoted `w`: the paper's
//! `a ≥ 0` is relaxed to it, as SPX smiles over a wide strike range need a negative level, but
//! never to a negative or zero total variance; [`RHO_MAX`] keeps `|ρ| < 1`).
//! Squared errors are weighted by `1 / w`, so the fit minimises, to first order, errors in
//! implied volatility (`dσ = dw / (2 √(w T))`). Without the last constraint the problem is a
//! convex quadratic over a polytope, solved exactly: its minimiser is the equality-constrained
//! minimiser on one of its faces, so every set of at most three active constraints is solved (a
//! 3 to 6 unknown KKT system) and the best feasible point kept. When that point has a minimum
//! of `w` below the floor (issue 29: on the Yahoo SPX chain of 2026-01-30 slices fitted `a < 0` with
//! `ρ = -1`, and quotes of market vol 1.07 got a model vol of 0), the minimiser of the convex
//! problem lies on the surface `a = w_floor - c √(1 - ρ²)`, where
//! `w = w_floor + c (ρ y + √(y² + 1) - √(1 - ρ²))` is linear in `c` for fixed `ρ`: `c` is a bounded one-dimensional least-squares solution and
//! `ρ` is found by a grid of 81 points over `[-ρ_max, ρ_max]` refined by golden section. The outer problem in `(m, σ)` is minimised by Nelder-Mead (Nelder and Mead 1965) from
//! the three best points of a 15 × 10 grid (`m` over the data range and half beyond,
//! `σ` from 0.01 to 2 geometrically).
//!
//! # Checks
//! * Butterfly: `g(k) = (1 - k w'/(2w))² - w'²/4 (1/w + 1/4) + w''/2 ≥ 0` (Gatheral-Jacquier
//!   2014, lemma 2.2), evaluated on a grid, together with `w > 0`.
//! * Calendar: total variance non-decreasing in maturity at every `k` of a grid
//!   (Gatheral-Jacquier 2014, lemma 2.1).

/// Smallest total variance a fit allows anywhere, as a fraction of the smallest quoted one: a
/// model vol of at least 10 % of the lowest quoted vol, so `w > 0` everywhere and
/// Gatheral-Jacquier's `g`, which divides by `w`, stays defined (a fit with a zero variance at
/// some `k` has no density there).
pub const VARIANCE_FLOOR: f64 = 0.01;

/// Largest `|ρ|` a fit returns (`|ρ| < 1`: at `|ρ| = 1` a wing is flat and the minimum of `w`
/// is only approached as `k` goes to infinity).
pub const RHO_MAX: f64 = 0.999;

/// Raw SVI parameters of one slice (total variance).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SviParams {
    /// Level `a`.
    pub a: f64,
    /// Slope `b ≥ 0`.
    pub b: f64,
    /// Rotation `ρ ∈ [-1, 1]`.
    pub rho: f64,
    /// Translation `m`.
    pub m: f64,
    /// Smoothness `σ > 0`.
    pub sigma: f64,
}

impl SviParams {
    /// Total implied variance `w(k)`.
    pub fn total_variance(&self, k: f64) -> f64 {
        let u = k - self.m;
        self.a + self.b * (self.rho * u + (u * u + self.sigma * self.sigma).sqrt())
    }
    /// The model's Black implied volatility `√(w(k) / T)` at log-moneyness `k` for maturity
    /// `maturity` years; `None` where `w(k) < 0` (no volatility: never hidden as 0) or the
    /// maturity is not positive.
    pub fn implied_vol(&self, k: f64, maturity: f64) -> Option<f64> {
        let w = self.total_variance(k);
        (w >= 0.0 && maturity > 0.0).then(|| (w / maturity).sqrt())
    }
    /// The smallest total variance over every `k`: `a + b σ √(1 - ρ²)`, at
    /// `k = m - ρ σ / √(1 - ρ²)` (for `|ρ| = 1`, `a`, approached in the flat wing).
    pub fn min_total_variance(&self) -> f64 {
        self.a + self.b * self.sigma * (1.0 - self.rho * self.rho).max(0.0).sqrt()
    }
    /// `(w, w', w'')` at `k`.
    pub fn derivatives(&self, k: f64) -> (f64, f64, f64) {
        let u = k - self.m;
        let r = (u * u + self.sigma * self.sigma).sqrt();
        let w = self.a + self.b * (self.rho * u + r);
        let w1 = self.b * (self.rho + u / r);
        let w2 = self.b * self.sigma * self.sigma / (r * r * r);
        (w, w1, w2)
    }
    /// Gatheral-Jacquier's butterfly function `g(k)` (density is `g(k) φ(d₋) / √w`).
    pub fn butterfly_g(&self, k: f64) -> f64 {
        let (w, w1, w2) = self.derivatives(k);
        let t = 1.0 - k * w1 / (2.0 * w);
        t * t - 0.25 * w1 * w1 * (1.0 / w + 0.25) + 0.5 * w2
    }
    /// Minimum of `g` over `n` evenly spaced points of `[lo, hi]`, with its `k`, and the minimum
    /// of `w` over those points and the whole line ([`SviParams::min_total_variance`]): the
    /// slice is free of butterfly arbitrage on `[lo, hi]` when `g ≥ 0` there and its variance
    /// is positive everywhere (a negative variance anywhere is no model).
    pub fn butterfly_check(&self, lo: f64, hi: f64, n: usize) -> ButterflyCheck {
        let mut out = ButterflyCheck { min_g: f64::INFINITY, at: lo, min_w: self.min_total_variance() };
        for i in 0..n.max(2) {
            let k = lo + (hi - lo) * i as f64 / (n.max(2) - 1) as f64;
            let g = self.butterfly_g(k);
            if g < out.min_g {
                out.min_g = g;
                out.at = k;
            }
            out.min_w = out.min_w.min(self.total_variance(k));
        }
        out
    }
}

/// Result of [`SviParams::butterfly_check`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ButterflyCheck {
    /// Smallest `g(k)` on the grid.
    pub min_g: f64,
    /// Where it is attained.
    pub at: f64,
    /// Smallest total variance on the grid and over the whole line.
    pub min_w: f64,
}

impl ButterflyCheck {
    /// `min g ≥ 0` and `min w > 0`.
    pub fn is_free(&self) -> bool {
        self.min_g >= 0.0 && self.min_w > 0.0
    }
}

/// A fitted slice and its errors.
#[derive(Debug, Clone, PartialEq)]
pub struct SviFit {
    /// Parameters.
    pub params: SviParams,
    /// Root mean square error in total variance, weighted by `1 / w` (the calibration's
    /// objective): `√(Σ (w_fit - w)² / w / n)`.
    pub rmse_w: f64,
    /// Root mean square error in implied volatility (`√(w/T)`), for maturity `T`.
    pub rmse_vol: f64,
    /// Largest absolute error in implied volatility.
    pub max_vol_error: f64,
    /// Number of points fitted.
    pub points: usize,
}

/// Fits raw SVI to points `(k, w)` of one slice of maturity `maturity` years (see the module
/// docs).
///
/// # Errors
/// A message when there are fewer than 5 points, non-finite points or a non-positive maturity.
pub fn fit_svi(points: &[(f64, f64)], maturity: f64) -> Result<SviFit, String> {
    if points.len() < 5 {
        return Err(format!("{} points, need at least 5", points.len()));
    }
    if maturity.is_nan() || maturity <= 0.0 || points.iter().any(|p| !(p.0.is_finite() && p.1.is_finite() && p.1 > 0.0))
    {
        return Err("maturity and total variances must be positive and finite".into());
    }
    let kmin = points.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let kmax = points.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let wmax = points.iter().map(|p| p.1).fold(0.0, f64::max);
    let floor = VARIANCE_FLOOR * points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let span = (kmax - kmin).max(1e-3);
    // outer variables: (m, ln σ)
    let objective = |v: &[f64; 2]| -> f64 {
        let sigma = v[1].exp();
        if !(1e-4..=10.0).contains(&sigma) {
            return f64::INFINITY;
        }
        inner_fit(points, v[0], sigma, wmax, floor).1
    };
    // coarse grid over (m, ln σ), then Nelder-Mead from the three best grid points
    let mut grid: Vec<([f64; 2], f64)> = Vec::new();
    for i in 0..15 {
        let m0 = kmin + (1.5 * span) * f64::from(i) / 14.0;
        for j in 0..10 {
            let ls = (1e-2f64).ln() + (200f64).ln() * f64::from(j) / 9.0;
            let x = [m0, ls];
            grid.push((x, objective(&x)));
        }
    }
    grid.sort_by(|a, b| a.1.total_cmp(&b.1));
    let mut best: Option<([f64; 2], f64)> = None;
    for (x0, _) in grid.iter().take(3) {
        let (x, f) = nelder_mead(&objective, *x0, [0.1 * span, 0.5]);
        if best.as_ref().is_none_or(|b| f < b.1) {
            best = Some((x, f));
        }
    }
    let (x, _) = best.ok_or("no starting point")?;
    let sigma = x[1].exp();
    let (p, sse) = inner_fit(points, x[0], sigma, wmax, floor);
    let (a, d, c) = (p[0], p[1], p[2]);
    let b = c / sigma;
    let rho = if c > 0.0 { (d / c).clamp(-RHO_MAX, RHO_MAX) } else { 0.0 };
    let params = SviParams { a, b, rho, m: x[0], sigma };
    let n = points.len() as f64;
    let mut se_vol = 0.0;
    let mut max_vol: f64 = 0.0;
    for &(k, w) in points {
        // The fit keeps w >= 0 (up to rounding); a negative one would show as NaN, not as 0.
        let model = params.implied_vol(k, maturity).unwrap_or(f64::NAN);
        let e = model - (w / maturity).sqrt();
        se_vol += e * e;
        max_vol = if e.is_nan() { f64::NAN } else { max_vol.max(e.abs()) };
    }
    Ok(SviFit {
        params,
        rmse_w: (sse / n).sqrt(),
        rmse_vol: (se_vol / n).sqrt(),
        max_vol_error: max_vol,
        points: points.len(),
    })
}

/// The inner problem: best `(a, d, c)` for fixed `(m, σ)` on the Zeliade polytope with the
/// minimum of `w` at least `floor`, with its sum of squared errors.
#[allow(clippy::needless_range_loop)] // dense 3x3 and KKT algebra reads best with indices
fn inner_fit(points: &[(f64, f64)], m: f64, sigma: f64, wmax: f64, floor: f64) -> ([f64; 3], f64) {
    // normal equations of min |A p - w|² with rows (1, y, √(y²+1))
    let mut ata = [[0.0f64; 3]; 3];
    let mut atw = [0.0f64; 3];
    let mut ww = 0.0;
    for &(k, w) in points {
        let y = (k - m) / sigma;
        let row = [1.0, y, (y * y + 1.0).sqrt()];
        let weight = 1.0 / w; // a variance error dw is a vol error dw / (2 sqrt(w T))
        for i in 0..3 {
            for j in 0..3 {
                ata[i][j] += weight * row[i] * row[j];
            }
            atw[i] += weight * row[i] * w;
        }
        ww += weight * w * w;
    }
    // constraints G p ≤ h, p = (a, d, c)
    let s4 = 4.0 * sigma;
    let g: [([f64; 3], f64); 8] = [
        ([0.0, 0.0, -1.0], 0.0),
        ([0.0, 0.0, 1.0], s4),
        ([0.0, 1.0, -RHO_MAX], 0.0),
        ([0.0, -1.0, -RHO_MAX], 0.0),
        ([0.0, 1.0, 1.0], s4),
        ([0.0, -1.0, 1.0], s4),
        ([-1.0, 0.0, 0.0], wmax),
        ([1.0, 0.0, 0.0], wmax),
    ];
    let sse = |p: &[f64; 3]| {
        let mut q = ww;
        for i in 0..3 {
            q -= 2.0 * p[i] * atw[i];
            for j in 0..3 {
                q += p[i] * ata[i][j] * p[j];
            }
        }
        q.max(0.0)
    };
    let feasible = |p: &[f64; 3]| g.iter().all(|(gi, hi)| gi[0] * p[0] + gi[1] * p[1] + gi[2] * p[2] <= hi + 1e-12);
    let mut best = ([0.0, 0.0, 0.0], sse(&[0.0, 0.0, 0.0]));
    let mut consider = |active: &[usize]| {
        let n = 3 + active.len();
        let mut mat = [[0.0f64; 7]; 6];
        for i in 0..3 {
            for j in 0..3 {
                mat[i][j] = ata[i][j];
            }
            mat[i][6] = atw[i];
        }
        for (r, &ci) in active.iter().enumerate() {
            for j in 0..3 {
                mat[3 + r][j] = g[ci].0[j];
                mat[j][3 + r] = g[ci].0[j];
            }
            mat[3 + r][6] = g[ci].1;
        }
        if let Some(sol) = solve_dense(&mut mat, n) {
            let p = [sol[0], sol[1], sol[2]];
            if p.iter().all(|v| v.is_finite()) && feasible(&p) {
                let e = sse(&p);
                if e < best.1 {
                    best = (p, e);
                }
            }
        }
    };
    consider(&[]);
    for i in 0..8 {
        consider(&[i]);
        for j in i + 1..8 {
            consider(&[i, j]);
            for k in j + 1..8 {
                consider(&[i, j, k]);
            }
        }
    }
    let [a, d, c] = best.0;
    if a + (c * c - d * d).max(0.0).sqrt() >= floor {
        return best;
    }
    // The minimum of w is below the floor: the minimiser is on the surface
    // a = floor - c sqrt(1 - rho^2).
    on_variance_floor(&ata, &atw, ww, sigma, wmax, floor)
}

/// The best `(a, d, c)` on the surface `a = floor - c √(1 - ρ²)`, `d = ρ c` (minimum of `w`
/// equal to `floor`) for the normal equations `ata`, `atw`, `ww` of [`inner_fit`]: for fixed
/// `ρ`, `w - floor` is `c` times the row combination `v = (-√(1 - ρ²), ρ, 1)`, so `c` is the
/// least-squares solution for the targets `w - floor`, clamped to
/// `[0, min(4σ / (1 + |ρ|), (max w + floor) / √(1 - ρ²))]`; `ρ` over `[-ρ_max, ρ_max]` by an
/// 81-point grid and golden-section refinement around the best point.
#[allow(clippy::needless_range_loop)] // a 3x3 quadratic form
fn on_variance_floor(
    ata: &[[f64; 3]; 3],
    atw: &[f64; 3],
    ww: f64,
    sigma: f64,
    wmax: f64,
    floor: f64,
) -> ([f64; 3], f64) {
    // Sums for the shifted targets (the first row entry is 1, so ata[0] holds the weighted rows).
    let ww_shifted = ww - 2.0 * floor * atw[0] + floor * floor * ata[0][0];
    let at = |rho: f64| -> ([f64; 3], f64) {
        let root = (1.0 - rho * rho).sqrt();
        let v = [-root, rho, 1.0];
        let mut vav = 0.0;
        let mut vaw = 0.0;
        for i in 0..3 {
            vaw += v[i] * (atw[i] - floor * ata[0][i]);
            for j in 0..3 {
                vav += v[i] * ata[i][j] * v[j];
            }
        }
        let c_max = (4.0 * sigma / (1.0 + rho.abs())).min((wmax + floor) / root.max(1e-300));
        let c = if vav > 0.0 { (vaw / vav).clamp(0.0, c_max) } else { 0.0 };
        ([floor - c * root, rho * c, c], (ww_shifted - 2.0 * c * vaw + c * c * vav).max(0.0))
    };
    let n = 80;
    let grid: Vec<f64> = (0..=n).map(|i| -RHO_MAX + 2.0 * RHO_MAX * f64::from(i) / f64::from(n)).collect();
    let i = (0..grid.len()).min_by(|&x, &y| at(grid[x]).1.total_cmp(&at(grid[y]).1)).unwrap_or(0);
    let (mut lo, mut hi) = (grid[i.saturating_sub(1)], grid[(i + 1).min(n as usize)]);
    let r = 0.5 * (5f64.sqrt() - 1.0);
    for _ in 0..40 {
        let (x1, x2) = (hi - r * (hi - lo), lo + r * (hi - lo));
        if at(x1).1 <= at(x2).1 {
            hi = x2;
        } else {
            lo = x1;
        }
    }
    let refined = at(0.5 * (lo + hi));
    let coarse = at(grid[i]);
    if refined.1 <= coarse.1 {
        refined
    } else {
        coarse
    }
}

/// Gaussian elimination with partial pivoting on the `n × n` system stored in `mat[..n][..n]`
/// with right-hand side in column 6; `None` when singular.
#[allow(clippy::needless_range_loop)]
fn solve_dense(mat: &mut [[f64; 7]; 6], n: usize) -> Option<[f64; 6]> {
    for col in 0..n {
        let piv = (col..n).max_by(|&a, &b| mat[a][col].abs().total_cmp(&mat[b][col].abs()))?;
        if mat[piv][col].abs() < 1e-12 {
            return None;
        }
        mat.swap(col, piv);
        for r in col + 1..n {
            let f = mat[r][col] / mat[col][col];
            if f != 0.0 {
                for c in col..n {
                    mat[r][c] -= f * mat[col][c];
                }
                mat[r][6] -= f * mat[col][6];
            }
        }
    }
    let mut x = [0.0; 6];
    for r in (0..n).rev() {
        let mut s = mat[r][6];
        for c in r + 1..n {
            s -= mat[r][c] * x[c];
        }
        x[r] = s / mat[r][r];
    }
    Some(x)
}

/// Nelder-Mead simplex minimisation in two dimensions (standard coefficients 1, 2, 0.5, 0.5),
/// from `x0` with initial steps `step`; stops after 400 evaluations or when the simplex values
/// agree to 1e-16 relative.
fn nelder_mead(f: &dyn Fn(&[f64; 2]) -> f64, x0: [f64; 2], step: [f64; 2]) -> ([f64; 2], f64) {
    let mut pts = [x0, [x0[0] + step[0], x0[1]], [x0[0], x0[1] + step[1]]];
    let mut vals = [f(&pts[0]), f(&pts[1]), f(&pts[2])];
    let mut evals = 3;
    while evals < 400 {
        let mut idx = [0usize, 1, 2];
        idx.sort_by(|&a, &b| vals[a].total_cmp(&vals[b]));
        let (bi, mi, wi) = (idx[0], idx[1], idx[2]);
        if (vals[wi] - vals[bi]).abs() <= 1e-16 * vals[bi].abs().max(1e-300) {
            break;
        }
        let c = [(pts[bi][0] + pts[mi][0]) / 2.0, (pts[bi][1] + pts[mi][1]) / 2.0];
        let at = |t: f64| [c[0] + t * (pts[wi][0] - c[0]), c[1] + t * (pts[wi][1] - c[1])];
        let xr = at(-1.0);
        let fr = f(&xr);
        evals += 1;
        if fr < vals[bi] {
            let xe = at(-2.0);
            let fe = f(&xe);
            evals += 1;
            if fe < fr {
                pts[wi] = xe;
                vals[wi] = fe;
            } else {
                pts[wi] = xr;
                vals[wi] = fr;
            }
        } else if fr < vals[mi] {
            pts[wi] = xr;
            vals[wi] = fr;
        } else {
            let xc = if fr < vals[wi] { at(-0.5) } else { at(0.5) };
            let fc = f(&xc);
            evals += 1;
            if fc < vals[wi].min(fr) {
                pts[wi] = xc;
                vals[wi] = fc;
            } else {
                for i in [mi, wi] {
                    pts[i] = [(pts[i][0] + pts[bi][0]) / 2.0, (pts[i][1] + pts[bi][1]) / 2.0];
                    vals[i] = f(&pts[i]);
                    evals += 1;
                }
            }
        }
    }
    let b = (0..3).min_by(|&a, &b| vals[a].total_cmp(&vals[b])).unwrap_or(0);
    (pts[b], vals[b])
}
