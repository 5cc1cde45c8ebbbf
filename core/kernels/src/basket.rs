//! The multi-asset Heston basket of the STAC-A2 job (`tenor_pricing::basket`): the per-path
//! arithmetic that the `basket_*` kernels' CPU references share, performed operation for
//! operation as `kernels/common/shared.h`'s `tenor_basket_*` functions do on the GPU backends.
//!
//! **Model.** N assets (at most [`MAX_ASSETS`]), each a Heston process simulated by Andersen's
//! (2008) quadratic-exponential scheme ("Simple and efficient simulation of the Heston
//! stochastic volatility model", J. Comp. Finance 11(3): section 3.2.4 for the variance,
//! section 4.2 with gamma1 = gamma2 = 0.5 and 4.2.1's martingale correction for the log-price).
//! The 2N Brownian motions are correlated by a lower-triangular factor `A` (2N x 2N, row-major)
//! built on the host from the job's correlation matrix in the factor order
//! `(W_v1..W_vN, W_S1..W_SN)`: per step the 2N independent normals `eps` become `z = A eps`;
//! row `i < N` gives the variance normal `Z_v,i`, row `N + i` the normal of the part of
//! `W_S,i` independent of `W_v,i`, `(Z_S,i - rho_i Z_v,i) / sqrt(1 - rho_i^2)`, which is
//! Andersen's `Z` of the log-price step. The exponential branch takes its uniform as
//! `U_v = Phi(Z_v,i)` (his inversion of the normal), so every factor is a function of the
//! correlated normals.
//!
//! **Numbers.** Philox4x32-10 (ADR 0003) with key = seed and counter `(step, set 2^31 + j,
//! path mod 2^32, path / 2^32)` gives the fp64 normals of factors `2j` and `2j + 1` at that
//! step by ADR 0003's Box-Muller (`r cos`, `r sin`); `set` is 0 for the regression paths and 1
//! for the valuation paths (independent sets: the out-of-sample estimator, ADR 0031).
//!
//! **Asset records.** Each asset's constants are one record of [`RECORD`] f64 ([`slot`]),
//! computed on the host (`tenor_pricing::basket`): the base records (`assets`), and for the
//! Greeks, per asset, the derivatives of its record by each of [`TANGENTS`] parameters
//! (`tangents`: sqrt(v0), kappa, theta, xi, maturity; [`tangent_records`]), which the tangent
//! QE step ([`qe_tangent`]) takes (ADR 0038).
//!
//! **Exercise.** The basket `B = sum_i w_i S_i`; at exercise date `s` (time `dt (s + 1)`), an
//! in-the-money path exercises when its payoff exceeds the regression's continuation value
//! `sum_j beta_j phi_j` over the basis [`basis`] of `xi = B / K - 1` and
//! `nu = sum_i w_i S_i v_i / K`; at the last date every in-the-money path does. A coefficient
//! vector whose first entry is `+inf` never exercises (a European, or too few in-the-money
//! paths to fit).

use crate::philox::{philox4x32_10, uniform_f64};

/// Most assets the kernels take (their per-path arrays have this many entries).
pub const MAX_ASSETS: usize = 16;
/// Most factors (2 per asset).
pub const MAX_FACTORS: usize = 2 * MAX_ASSETS;
/// f64 values per asset record.
pub const RECORD: usize = 16;
/// Most regression basis functions.
pub const MAX_BASIS: usize = 6;
/// Tangent records per asset ([`tangent_records`]): by sqrt(v0), kappa, theta, xi, maturity.
pub const TANGENTS: usize = 5;
/// Andersen's switching level psi_c between the quadratic and the exponential branch.
pub const PSI_C: f64 = 1.5;
/// Pivot of the regression's Cholesky factorisation relative to its diagonal entry below which
/// a basis function is dropped as numerically dependent on those before it (as
/// `tenor_pricing::american::LSM_PIVOT_TOLERANCE`).
pub const PIVOT_TOLERANCE: f64 = 1e-10;
/// `branch` value asking [`qe_step`] to choose its branches itself.
pub const FREE: u32 = 4;

/// Slots of an asset record.
pub mod slot {
    /// ln(spot).
    pub const X0: usize = 0;
    /// Initial variance v0.
    pub const V0: usize = 1;
    /// Basket weight.
    pub const WEIGHT: usize = 2;
    /// Log-drift per step, `(r - q) dt`.
    pub const DRIFT_DT: usize = 3;
    /// Long-run variance theta.
    pub const THETA: usize = 4;
    /// `exp(-kappa dt)`.
    pub const E: usize = 5;
    /// Conditional variance of v: `s2 = v s2a + s2b`, `s2a = xi^2 e (1 - e) / kappa`.
    pub const S2A: usize = 6;
    /// `s2b = theta xi^2 (1 - e)^2 / (2 kappa)`.
    pub const S2B: usize = 7;
    /// Andersen's K1 (gamma1 = 0.5).
    pub const K1: usize = 8;
    /// Andersen's K2 (gamma2 = 0.5).
    pub const K2: usize = 9;
    /// Andersen's K3 (= K4 with gamma1 = gamma2).
    pub const K3: usize = 10;
    /// Andersen's A = K2 + K4 / 2 of the martingale correction.
    pub const A: usize = 11;
    /// K0 without the martingale correction, `-rho kappa theta dt / xi`.
    pub const K0_PLAIN: usize = 12;
    /// Spot S(0).
    pub const SPOT: usize = 13;
}

/// The 2N independent fp64 normals of `step` of `path` in path set `set` (see the module).
#[inline(always)]
pub fn normals(seed: u64, set: u32, path: u64, step: u32, factors: usize, eps: &mut [f64; MAX_FACTORS]) {
    let key = [seed as u32, (seed >> 32) as u32];
    for j in 0..factors.div_ceil(2) {
        let x = philox4x32_10([step, (set << 31) | j as u32, path as u32, (path >> 32) as u32], key);
        let u1 = uniform_f64(x[0], x[1]);
        let u2 = uniform_f64(x[2], x[3]);
        let r = (-2.0 * u1.ln()).sqrt();
        let (s, c) = (2.0 * std::f64::consts::PI * u2).sin_cos();
        eps[2 * j] = r * c;
        if 2 * j + 1 < factors {
            eps[2 * j + 1] = r * s;
        }
    }
}

/// `z = A eps` for the lower-triangular row-major `factor` (factors x factors), each row summed
/// from column 0 up.
#[inline(always)]
pub fn correlate(factor: &[f64], eps: &[f64; MAX_FACTORS], factors: usize, z: &mut [f64; MAX_FACTORS]) {
    for r in 0..factors {
        let row = &factor[r * factors..r * factors + r + 1];
        let mut acc = 0.0;
        for (a, e) in row.iter().zip(eps) {
            acc += a * e;
        }
        z[r] = acc;
    }
}

/// The values of one QE step that its tangents reuse ([`qe_jet`]): the step's intermediates,
/// as [`qe_step_parts`] computes them, quadratic branch (`r` .. `q`) or exponential branch
/// (`ie` .. `y`; zero in the other branch).
#[derive(Clone, Copy, Debug, Default)]
pub struct QeParts {
    /// The variance's conditional mean `m`.
    pub m: f64,
    /// Its conditional variance `s2`.
    pub s2: f64,
    /// `r = 2 m^2 / s2` (quadratic).
    pub r: f64,
    /// `sqrt(r (r - 1))` (quadratic).
    pub sg: f64,
    /// `b^2` (quadratic).
    pub b2: f64,
    /// `b = sqrt(b^2)` (quadratic).
    pub sb: f64,
    /// `d = 1 + b^2` (quadratic).
    pub d: f64,
    /// `u = d - 2 A m`, or 1 without the martingale correction (quadratic).
    pub up: f64,
    /// `1 / (d up)` (quadratic).
    pub inv: f64,
    /// `a = m / d` (quadratic).
    pub a: f64,
    /// `b + zv` (quadratic).
    pub q: f64,
    /// `1 / (s2 + m^2)` (exponential).
    pub ie: f64,
    /// `p` (exponential).
    pub p0: f64,
    /// `beta` (exponential).
    pub beta: f64,
    /// Whether the next variance is 0 (exponential, `U_v <= p`).
    pub zero: bool,
    /// `Y = p + beta (1 - p) / (beta - A)`, the martingale correction's argument (exponential).
    pub y: f64,
}

/// One QE step of an asset with record `c` from variance `vc`: the variance normal `zv`, the
/// log-price normal `zx`. `branch` is [`FREE`] (choose: bit 0 set for the exponential branch,
/// psi > [`PSI_C`]; bit 1 set for K0 without the martingale correction, where Andersen's
/// condition fails) or such bits to follow. Returns the next variance, the log-price
/// increment, the branches taken, and `sqrt(K3 vc + K4 vn)`, the increment's coefficient of
/// `zx`.
///
/// Andersen (2008), eqs. (23)-(33), with psi = s2 / m^2 never formed (ADR 0037): the branch test
/// is s2 > psi_c m^2; the quadratic branch's 2 / psi = 2 m^2 / s2, b^2 = r - 1 + sqrt(r (r - 1)),
/// and a = m / (1 + b^2) and the martingale correction's 1 / (1 - 2 A a) from one reciprocal
/// 1 / (d u) (d = 1 + b^2, u = d - 2 A m = d (1 - 2 A a)); the exponential branch's p and beta
/// from one reciprocal 1 / (s2 + m^2). Two divisions and one square root per step fewer than
/// the textbook form.
#[inline(always)]
pub fn qe_step(c: &[f64], vc: f64, zv: f64, zx: f64, branch: u32) -> (f64, f64, u32, f64) {
    let (vn, dx, br, sq, _) = qe_step_parts(c, vc, zv, zx, branch);
    (vn, dx, br, sq)
}

/// [`qe_step`] and its intermediates ([`QeParts`]), the same operations in the same order.
#[inline(always)]
pub fn qe_step_parts(c: &[f64], vc: f64, zv: f64, zx: f64, branch: u32) -> (f64, f64, u32, f64, QeParts) {
    let theta = c[slot::THETA];
    let m = theta + (vc - theta) * c[slot::E];
    let s2 = vc * c[slot::S2A] + c[slot::S2B];
    let mm = m * m;
    let a_coef = c[slot::A];
    let (k1, k3) = (c[slot::K1], c[slot::K3]);
    let exponential = if branch == FREE { s2 > PSI_C * mm } else { branch & 1 != 0 };
    let mut parts = QeParts { m, s2, ..QeParts::default() };
    let (vn, plain, k0) = if !exponential {
        let r = 2.0 * mm / s2;
        let sg = (r * (r - 1.0).max(0.0)).sqrt();
        let b2 = r - 1.0 + sg;
        let d = 1.0 + b2;
        let sb = b2.sqrt();
        let q = sb + zv;
        let u = d - 2.0 * a_coef * m;
        let plain = if branch == FREE { u <= 0.0 } else { branch & 2 != 0 };
        let up = if plain { 1.0 } else { u };
        let inv = 1.0 / (d * up);
        let a = m * up * inv;
        let vn = a * (q * q);
        let k0 = if plain {
            c[slot::K0_PLAIN]
        } else {
            -a_coef * b2 * m * d * inv + 0.5 * (up * up * inv).ln() - (k1 + 0.5 * k3) * vc
        };
        parts = QeParts { r, sg, b2, sb, d, up, inv, a, q, ..parts };
        (vn, plain, k0)
    } else {
        let inv = 1.0 / (s2 + mm);
        let p0 = (s2 - mm) * inv;
        let beta = 2.0 * m * inv;
        // 1 - U_v = Phi(-zv), computed directly (no cancellation for U_v near 1).
        let om = 0.5 * libm::erfc(zv * std::f64::consts::FRAC_1_SQRT_2);
        let zero = om >= 1.0 - p0;
        let vn = if zero { 0.0 } else { ((1.0 - p0) / om).ln() / beta };
        let plain = if branch == FREE { a_coef >= beta } else { branch & 2 != 0 };
        let (k0, y) = if plain {
            (c[slot::K0_PLAIN], 0.0)
        } else {
            let y = p0 + beta * (1.0 - p0) / (beta - a_coef);
            (-y.ln() - (k1 + 0.5 * k3) * vc, y)
        };
        parts = QeParts { ie: inv, p0, beta, zero, y, ..parts };
        (vn, plain, k0)
    };
    let sq = (k3 * (vc + vn)).sqrt();
    let dx = c[slot::DRIFT_DT] + k0 + k1 * vc + c[slot::K2] * vn + sq * zx;
    (vn, dx, u32::from(exponential) | (u32::from(plain) << 1), sq, parts)
}

/// What the tangents of one QE step share ([`qe_tangent`]): the step's values and the
/// reciprocals the chain rule needs, computed once per asset and step (ADR 0038).
#[derive(Clone, Copy, Debug, Default)]
pub struct QeJet {
    /// The step's branches ([`qe_step`]).
    pub branch: u32,
    /// The variance before the step.
    pub vc: f64,
    /// The next variance.
    pub vn: f64,
    /// `m`.
    pub m: f64,
    /// Quadratic: `1 / s2`; exponential: `1 / (s2 + m^2)`.
    pub is: f64,
    /// Quadratic: `r`; exponential: `p`.
    pub r: f64,
    /// Quadratic: `db^2 / dr = 1 + (2 r - 1) / (2 sqrt(r (r - 1)))`; exponential: `beta`.
    pub kb: f64,
    /// Quadratic: `1 / (2 b)`; exponential: `-1 / beta`, or 0 where the next variance is 0.
    pub hb: f64,
    /// Quadratic: `1 / d`; exponential: `1 / (1 - p)`.
    pub rd: f64,
    /// Quadratic: `1 / up`; exponential: `1 / (beta - A)`.
    pub rup: f64,
    /// Quadratic: `a`; exponential: `Y - p`.
    pub a: f64,
    /// Quadratic: `b + zv`; exponential: `1 / Y`.
    pub q: f64,
    /// Quadratic: `b^2`.
    pub b2: f64,
    /// Quadratic: `P = A b^2 m / up`, the martingale correction's first term.
    pub pp: f64,
    /// `1 / (2 sqrt(K3 (vc + vn)))`, or 0 where that is 0.
    pub hs: f64,
}

/// The jet of a QE step of record `c` from `vc` ([`qe_step_parts`]'s results `vn`, `branch`,
/// `sq`, `p`), shared by every tangent of the step. Quadratic branch: the four reciprocals
/// `1 / s2`, `1 / (2 sqrt(r (r - 1)))`, `1 / (2 b)`, `1 / (2 sq)` from one division of their
/// denominators' product (separately where one is 0); exponential branch: `1 / beta`,
/// `1 / (2 sq)`, and with the martingale correction `1 / (beta - A)` and `1 / Y`.
#[inline(always)]
pub fn qe_jet(c: &[f64], vc: f64, vn: f64, branch: u32, sq: f64, p: &QeParts) -> QeJet {
    let mut j = QeJet { branch, vc, vn, m: p.m, ..QeJet::default() };
    if branch & 1 == 0 {
        let hg;
        if p.sg > 0.0 && p.sb > 0.0 && sq > 0.0 {
            let (p1, p2) = (p.s2 * p.sg, p.sb * sq);
            let x = 1.0 / (p1 * p2);
            j.is = x * (p.sg * p2);
            hg = 0.5 * x * (p.s2 * p2);
            j.hb = 0.5 * x * (p1 * sq);
            j.hs = 0.5 * x * (p1 * p.sb);
        } else {
            j.is = 1.0 / p.s2;
            hg = if p.sg > 0.0 { 0.5 / p.sg } else { 0.0 };
            j.hb = if p.sb > 0.0 { 0.5 / p.sb } else { 0.0 };
            j.hs = if sq > 0.0 { 0.5 / sq } else { 0.0 };
        }
        j.r = p.r;
        j.kb = 1.0 + (2.0 * p.r - 1.0) * hg;
        j.rd = p.up * p.inv;
        j.rup = p.d * p.inv;
        j.a = p.a;
        j.q = p.q;
        j.b2 = p.b2;
        j.pp = c[slot::A] * p.b2 * p.m * j.rup;
    } else {
        let rb = 0.5 / (p.m * p.ie);
        j.hs = if sq > 0.0 { 0.5 / sq } else { 0.0 };
        j.is = p.ie;
        j.r = p.p0;
        j.kb = p.beta;
        j.hb = if p.zero { 0.0 } else { -rb };
        j.rd = rb / p.m;
        if branch & 2 == 0 {
            j.rup = 1.0 / (p.beta - c[slot::A]);
            j.a = p.y - p.p0;
            j.q = 1.0 / p.y;
        }
    }
    j
}

/// The tangent of a QE step (its forward-mode derivative along one parameter): `t` the
/// derivative of the record by the parameter ([`tangent_records`]), `tv` that of the variance
/// before the step; the branches are the base step's (`j`, [`qe_jet`]), the normals the same.
/// Returns the derivatives of the next variance and of the log-price increment: the exact
/// derivatives of [`qe_step`] with its branches held (ADR 0038), about 45 fp64 operations and
/// no division, square root or logarithm.
#[inline(always)]
pub fn qe_tangent(c: &[f64], t: &[f64], j: &QeJet, tv: f64, zx: f64) -> (f64, f64) {
    let vc = j.vc;
    let tm = t[slot::THETA] + (tv - t[slot::THETA]) * c[slot::E] + (vc - c[slot::THETA]) * t[slot::E];
    let ts2 = tv * c[slot::S2A] + vc * t[slot::S2A] + t[slot::S2B];
    let plain = j.branch & 2 != 0;
    // d(k1 + k3 / 2) vc, the correction's last term.
    let tkv = (t[slot::K1] + 0.5 * t[slot::K3]) * vc + (c[slot::K1] + 0.5 * c[slot::K3]) * tv;
    let (tvn, tk0) = if j.branch & 1 == 0 {
        let tb2 = j.kb * (j.is * (4.0 * j.m * tm - j.r * ts2));
        let ta = (tm - j.a * tb2) * j.rd;
        let tvn = j.q * (ta * j.q + 2.0 * j.a * (j.hb * tb2));
        let tk0 = if plain {
            t[slot::K0_PLAIN]
        } else {
            let tu = tb2 - 2.0 * (t[slot::A] * j.m + c[slot::A] * tm);
            let tp = j.rup * (t[slot::A] * j.b2 * j.m + c[slot::A] * (tb2 * j.m + j.b2 * tm) - j.pp * tu);
            -tp + 0.5 * (tu * j.rup - tb2 * j.rd) - tkv
        };
        (tvn, tk0)
    } else {
        let tmm = 2.0 * j.m * tm;
        let tw = ts2 + tmm;
        let tp0 = (ts2 - tmm - j.r * tw) * j.is;
        let tbeta = (2.0 * tm - j.kb * tw) * j.is;
        let tvn = j.hb * (tp0 * j.rd + j.vn * tbeta);
        let tk0 = if plain {
            t[slot::K0_PLAIN]
        } else {
            let ty = tp0 + j.rup * (tbeta * (1.0 - j.r) - j.kb * tp0 - j.a * (tbeta - t[slot::A]));
            -ty * j.q - tkv
        };
        (tvn, tk0)
    };
    let tsq = j.hs * (t[slot::K3] * (vc + j.vn) + c[slot::K3] * (tv + tvn));
    let tdx = t[slot::DRIFT_DT]
        + tk0
        + t[slot::K1] * vc
        + c[slot::K1] * tv
        + t[slot::K2] * j.vn
        + c[slot::K2] * tvn
        + tsq * zx;
    (tvn, tdx)
}

/// The regression basis at `xi = B / K - 1`, `nu = sum_i w_i S_i v_i / K`: `1, xi, xi^2, nu,
/// xi nu, xi^3`, the first `nb` of them.
#[inline(always)]
pub fn basis(xi: f64, nu: f64, nb: usize, phi: &mut [f64; MAX_BASIS]) {
    let all = [1.0, xi, xi * xi, nu, xi * nu, xi * xi * xi];
    phi[..nb].copy_from_slice(&all[..nb]);
}

/// The continuation value `sum_j coef[j] phi[j]` (summed from j = 0 up).
#[inline(always)]
#[allow(clippy::needless_range_loop)]
pub fn continuation(coef: &[f64], phi: &[f64; MAX_BASIS], nb: usize) -> f64 {
    let mut c = 0.0;
    for j in 0..nb {
        c += coef[j] * phi[j];
    }
    c
}

/// Values of one date's packed Gram matrix `X^T X` for `nb` basis functions: its upper
/// triangle row by row ([`packed`]).
pub fn gram_width(nb: usize) -> usize {
    nb * (nb + 1) / 2
}

/// Index of `(X^T X)_{ab}`, `a <= b`, in the packed Gram matrix.
#[inline(always)]
pub fn packed(a: usize, b: usize, nb: usize) -> usize {
    a * (2 * nb - a + 1) / 2 + (b - a)
}

/// Values of `X^T X` for the most basis functions ([`MAX_BASIS`]): `basket_gram`'s sums.
pub const GRAM: usize = MAX_BASIS * (MAX_BASIS + 1) / 2;

/// f64 values per date of `basket_gram`'s output, the Cholesky factor `L` of the date's
/// `X^T X` ([`factor`]): `L`'s lower triangle row by row (`L[r][k]`, `k <= r`, at
/// [`tri`]`(r, k)`; [`GRAM`] values for the layout of [`MAX_BASIS`] functions whatever `nb`),
/// then the reciprocals of its diagonal ([`FACTOR_INV`]` + r`), then the number `m` of basis
/// functions the fit uses ([`FACTOR_USED`], 0: never exercise at that date).
pub const FACTOR_RECORD: usize = GRAM + MAX_BASIS + 1;
/// Offset of the reciprocals `1 / L[r][r]` in a factor record.
pub const FACTOR_INV: usize = GRAM;
/// Offset of the count of basis functions used in a factor record.
pub const FACTOR_USED: usize = GRAM + MAX_BASIS;

/// Index of `L[r][k]`, `k <= r`, in a factor record: the lower triangle row by row.
#[inline(always)]
pub fn tri(r: usize, k: usize) -> usize {
    r * (r + 1) / 2 + k
}

/// Adds the row `phi` to the packed Gram matrix `acc` ([`gram_width`] values).
#[inline(always)]
pub fn accumulate_gram(acc: &mut [f64], phi: &[f64; MAX_BASIS], nb: usize) {
    let mut k = 0;
    for a in 0..nb {
        for b in a..nb {
            acc[k] += phi[a] * phi[b];
            k += 1;
        }
    }
}

/// Adds the row `phi` with target `y` to `X^T y` (`acc[..nb]`).
#[inline(always)]
pub fn accumulate_target(acc: &mut [f64], phi: &[f64; MAX_BASIS], y: f64, nb: usize) {
    for a in 0..nb {
        acc[a] += phi[a] * y;
    }
}

/// The Cholesky factor of a date's packed `X^T X` (`xtx`, [`gram_width`] values) as a factor
/// record ([`FACTOR_RECORD`]): the factorisation stops at the first basis function whose
/// pivot is under [`PIVOT_TOLERANCE`] times its diagonal entry (the fit uses the functions
/// before it, `m` of them); fewer than `2 nb` in-the-money rows (`(X^T X)_00` counts them) or
/// no usable function: `m = 0`, never exercise at that date. Entries past `m` are 0. Golub and
/// Van Loan, Matrix Computations (4th ed.), algorithm 4.2.2 (the outer-product order).
// Index loops: the device code (`tenor_basket_factor`) performs the same operations in this order.
#[allow(clippy::needless_range_loop)]
pub fn factor(xtx: &[f64], nb: usize, rec: &mut [f64; FACTOR_RECORD]) {
    let mut l = [[0.0f64; MAX_BASIS]; MAX_BASIS];
    let mut m = 0;
    if xtx[0] >= (2 * nb) as f64 {
        for k in 0..nb {
            let akk = xtx[packed(k, k, nb)];
            let mut d = akk;
            for j in 0..k {
                d -= l[k][j] * l[k][j];
            }
            if !(d.is_finite() && d > PIVOT_TOLERANCE * akk) {
                break;
            }
            let lkk = d.sqrt();
            l[k][k] = lkk;
            for r in k + 1..nb {
                let mut s = xtx[packed(k, r, nb)];
                for j in 0..k {
                    s -= l[r][j] * l[k][j];
                }
                l[r][k] = s / lkk;
            }
            m = k + 1;
        }
    }
    rec.fill(0.0);
    for r in 0..m {
        for k in 0..=r {
            rec[tri(r, k)] = l[r][k];
        }
        rec[FACTOR_INV + r] = 1.0 / l[r][r];
    }
    rec[FACTOR_USED] = m as f64;
}

/// The regression coefficients `coef[..nb]` of a date from its factor record `rec`
/// ([`factor`]) and `X^T y` (`xty[..nb]`): `L z = X^T y` forwards, then `L^T beta = z`
/// backwards, over the `m` functions the factor uses (each division a product with the
/// record's reciprocal); the others get 0. `m = 0` or a non-finite fit: `(+inf, 0, ..)`, never
/// exercise.
// Index loops: the device code (`tenor_basket_substitute`) performs the same operations in this order.
#[allow(clippy::needless_range_loop)]
pub fn substitute(rec: &[f64], xty: &[f64], nb: usize, coef: &mut [f64]) {
    let m = (rec[FACTOR_USED] as usize).min(nb);
    let mut z = [0.0f64; MAX_BASIS];
    for r in 0..m {
        let mut s = xty[r];
        for j in 0..r {
            s -= rec[tri(r, j)] * z[j];
        }
        z[r] = s * rec[FACTOR_INV + r];
    }
    let mut beta = [0.0f64; MAX_BASIS];
    for r in (0..m).rev() {
        let mut s = z[r];
        for j in r + 1..m {
            s -= rec[tri(j, r)] * beta[j];
        }
        beta[r] = s * rec[FACTOR_INV + r];
    }
    let finite = (0..m).all(|j| beta[j].is_finite());
    for j in 0..nb {
        coef[j] = if m == 0 || !finite {
            if j == 0 {
                f64::INFINITY
            } else {
                0.0
            }
        } else {
            beta[j]
        };
    }
}

/// Rows of `basket_value`'s output with Greeks for `n` assets: price, delta (n), gamma (n),
/// cross gamma (n (n - 1) / 2, pairs i < j in row-major order), rho.
pub fn value_rows(n: usize) -> usize {
    2 + 2 * n + n * (n.saturating_sub(1)) / 2
}

/// Rows of `basket_sens`'s output for `n` assets: vega, kappa, theta and xi vegas (n each),
/// correlation vega (pairs i < j), theta (maturity).
pub fn sens_rows(n: usize) -> usize {
    4 * n + n * (n.saturating_sub(1)) / 2 + 1
}

/// Work items of a `basket_paths`, `basket_value` or `basket_sens` launch over `paths` paths of
/// `n` assets (1 to 16): `ceil(paths / (32 / n))` warps of 32, the CUDA layout of one lane per
/// asset (`floor(32 / n)` paths per warp; ADR 0035). The CPU reference, SYCL and OpenCL take work
/// item `p < paths` as path `p` and leave the others idle. `n` outside 1 to 16 gives `paths`.
pub fn lane_items(paths: u64, n: usize) -> u64 {
    if n == 0 || n > MAX_ASSETS {
        return paths;
    }
    let per_warp = (32 / n) as u64;
    paths.div_ceil(per_warp).saturating_mul(32)
}

/// The paths among work items `items` (a block's range): those below `paths`.
pub fn path_items(items: std::ops::Range<u64>, paths: u64) -> std::ops::Range<u64> {
    items.start.min(paths)..items.end.min(paths)
}

/// Index of the pair `(i, j)`, `i < j < n`, in row-major order of the strict upper triangle.
#[inline(always)]
pub fn pair(i: usize, j: usize, n: usize) -> usize {
    i * (2 * n - i - 1) / 2 + (j - i - 1)
}

/// One path's simulation state: the log-prices and variances of its assets.
#[derive(Clone, Copy)]
pub struct PathState {
    /// ln S_i.
    pub x: [f64; MAX_ASSETS],
    /// v_i.
    pub v: [f64; MAX_ASSETS],
}

impl PathState {
    /// Today's state from the records.
    pub fn new(records: &[f64], n: usize) -> Self {
        let mut s = Self { x: [0.0; MAX_ASSETS], v: [0.0; MAX_ASSETS] };
        for i in 0..n {
            s.x[i] = records[i * RECORD + slot::X0];
            s.v[i] = records[i * RECORD + slot::V0];
        }
        s
    }

    /// One step of every asset with the correlated normals `z`; `branches[i]` and `coefs[i]`
    /// receive asset i's branches and `zx` coefficient ([`qe_step`]).
    #[inline(always)]
    pub fn step(
        &mut self,
        records: &[f64],
        n: usize,
        z: &[f64; MAX_FACTORS],
        branches: &mut [u32; MAX_ASSETS],
        coefs: &mut [f64; MAX_ASSETS],
    ) {
        for i in 0..n {
            let (vn, dx, b, sq) = qe_step(&records[i * RECORD..(i + 1) * RECORD], self.v[i], z[i], z[n + i], FREE);
            self.v[i] = vn;
            self.x[i] += dx;
            branches[i] = b;
            coefs[i] = sq;
        }
    }
}

/// The spots `S_i = exp(x_i)`, the basket `B` and `nu = sum_i w_i S_i v_i / K` of a state.
#[inline(always)]
pub fn observe(records: &[f64], n: usize, st: &PathState, strike: f64, spots: &mut [f64; MAX_ASSETS]) -> (f64, f64) {
    let (mut b, mut wv) = (0.0, 0.0);
    for i in 0..n {
        let s = st.x[i].exp();
        spots[i] = s;
        let ws = records[i * RECORD + slot::WEIGHT] * s;
        b += ws;
        wv += ws * st.v[i];
    }
    (b, wv / strike)
}

/// Whether a path with basket `b` and feature `nu` exercises at a date with coefficients
/// `coef` (`last`: the final date), and its payoff `max(sign (b - K), 0)`.
#[inline(always)]
pub fn exercise(b: f64, nu: f64, strike: f64, sign: f64, coef: &[f64], nb: usize, last: bool) -> (bool, f64) {
    let e = (sign * (b - strike)).max(0.0);
    if e <= 0.0 {
        return (false, 0.0);
    }
    if last {
        return (true, e);
    }
    let mut phi = [0.0; MAX_BASIS];
    basis(b / strike - 1.0, nu, nb, &mut phi);
    (e > continuation(coef, &phi, nb), e)
}

/// Andersen's QE record of one asset ([`slot`]) for a step of `dt` years: spot, basket
/// weight, log-drift rate `r - q`, and the Heston parameters (`v0`, `kappa`, `theta`, `xi`,
/// `rho`); slot 15 is 0. Andersen (2008), sections 3.2.4 (the moments of v: `e`, `s2a`, `s2b`)
/// and 4.2-4.2.1 (K1 to K4 with gamma1 = gamma2 = 0.5, A and the uncorrected K0).
#[allow(clippy::too_many_arguments)]
pub fn record(
    spot: f64,
    weight: f64,
    drift: f64,
    v0: f64,
    kappa: f64,
    theta: f64,
    xi: f64,
    rho: f64,
    dt: f64,
) -> [f64; RECORD] {
    let r = record_of([spot, weight, drift, v0, kappa, theta, xi, rho, dt].map(Dual::constant));
    r.map(|x| x.value)
}

/// The inputs of [`record`] by which [`tangent_records`] differentiates, numbered by their
/// position in its argument list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RecordInput {
    V0 = 3,
    Kappa = 4,
    Theta = 5,
    Xi = 6,
    Dt = 8,
}

/// The derivative of [`record`] (its arguments in order in `inputs`) by the input `by`, exact:
/// forward-mode dual numbers through the same formulas.
fn record_tangent(inputs: [f64; 9], by: RecordInput) -> [f64; RECORD] {
    let mut d = inputs.map(Dual::constant);
    d[by as usize].dot = 1.0;
    record_of(d).map(|x| x.dot)
}

/// An asset's [`TANGENTS`] tangent records, the layout of `basket_sens`'s `tangents` (per
/// asset, in this order): [`record`] differentiated by `sqrt(v0)` (`2 sqrt(v0)` times its
/// derivative by `v0`), kappa, theta, xi, and the maturity `steps dt` (its derivative by the
/// step over `steps`), each exact (dual numbers through [`record`]'s formulas): the tangent
/// QE step's `t` ([`qe_tangent`]). Arguments as [`record`].
#[allow(clippy::too_many_arguments)]
pub fn tangent_records(
    spot: f64,
    weight: f64,
    drift: f64,
    v0: f64,
    kappa: f64,
    theta: f64,
    xi: f64,
    rho: f64,
    dt: f64,
    steps: u32,
) -> [[f64; RECORD]; TANGENTS] {
    let by = |p| record_tangent([spot, weight, drift, v0, kappa, theta, xi, rho, dt], p);
    [
        by(RecordInput::V0).map(|x| x * 2.0 * v0.sqrt()),
        by(RecordInput::Kappa),
        by(RecordInput::Theta),
        by(RecordInput::Xi),
        by(RecordInput::Dt).map(|x| x / f64::from(steps)),
    ]
}

/// A number and its derivative along one direction (forward-mode automatic differentiation).
#[derive(Clone, Copy, Debug)]
struct Dual {
    value: f64,
    dot: f64,
}

impl Dual {
    fn constant(value: f64) -> Self {
        Self { value, dot: 0.0 }
    }
    fn exp(self) -> Self {
        let e = self.value.exp();
        Self { value: e, dot: e * self.dot }
    }
    fn ln(self) -> Self {
        Self { value: self.value.ln(), dot: self.dot / self.value }
    }
}

impl std::ops::Add for Dual {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Self { value: self.value + o.value, dot: self.dot + o.dot }
    }
}
impl std::ops::Sub for Dual {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        Self { value: self.value - o.value, dot: self.dot - o.dot }
    }
}
impl std::ops::Mul for Dual {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        Self { value: self.value * o.value, dot: self.dot * o.value + self.value * o.dot }
    }
}
impl std::ops::Div for Dual {
    type Output = Self;
    fn div(self, o: Self) -> Self {
        let q = self.value / o.value;
        Self { value: q, dot: (self.dot - q * o.dot) / o.value }
    }
}
impl std::ops::Neg for Dual {
    type Output = Self;
    fn neg(self) -> Self {
        Self { value: -self.value, dot: -self.dot }
    }
}

/// [`record`]'s formulas on dual numbers: `[spot, weight, drift, v0, kappa, theta, xi, rho, dt]`.
fn record_of(inputs: [Dual; 9]) -> [Dual; RECORD] {
    let [spot, weight, drift, v0, kappa, theta, xi, rho, dt] = inputs;
    let k = Dual::constant;
    let e = (-kappa * dt).exp();
    let k1 = k(0.5) * dt * (kappa * rho / xi - k(0.5)) - rho / xi;
    let k2 = k(0.5) * dt * (kappa * rho / xi - k(0.5)) + rho / xi;
    let k3 = k(0.5) * dt * (k(1.0) - rho * rho);
    let mut r = [k(0.0); RECORD];
    r[slot::X0] = spot.ln();
    r[slot::V0] = v0;
    r[slot::WEIGHT] = weight;
    r[slot::DRIFT_DT] = drift * dt;
    r[slot::THETA] = theta;
    r[slot::E] = e;
    r[slot::S2A] = xi * xi * e * (k(1.0) - e) / kappa;
    r[slot::S2B] = theta * xi * xi * (k(1.0) - e) * (k(1.0) - e) / (k(2.0) * kappa);
    r[slot::K1] = k1;
    r[slot::K2] = k2;
    r[slot::K3] = k3;
    r[slot::A] = k2 + k(0.5) * k3;
    r[slot::K0_PLAIN] = -rho * kappa * theta * dt / xi;
    r[slot::SPOT] = spot;
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// E[f(v_next)] over the variance normal zv ~ N(0, 1): the trapezoid rule on [-12, 12] with
    /// `nodes` points (exact to rounding for the quadratic branch's smooth integrands).
    fn expect_over_zv(nodes: usize, f: impl Fn(f64) -> f64) -> f64 {
        let h = 24.0 / (nodes - 1) as f64;
        let mut acc = 0.0;
        for k in 0..nodes {
            let z = -12.0 + h * k as f64;
            let w = if k == 0 || k == nodes - 1 { 0.5 } else { 1.0 };
            acc += w * f(z) * (-0.5 * z * z).exp();
        }
        acc * h / (2.0 * std::f64::consts::PI).sqrt()
    }

    /// Andersen's (2008) conditions, independent of how qe_step writes its algebra: the next
    /// variance has the conditional mean m = theta + (v - theta) e^{-kappa dt} and variance
    /// s^2 (his eqs. 17-18) in both branches, and with the martingale correction
    /// E[exp(dx - (r - q) dt)] = 1 (eq. 33; the log-price normal integrated in closed form:
    /// E[exp(sq zx)] = exp(sq^2 / 2)).
    #[test]
    fn qe_step_matches_the_moments_and_is_a_martingale() {
        let dt = 1.0 / 252.0;
        // (v0, kappa, theta, xi, rho, vc, exponential expected, tolerance)
        let cases = [
            (0.04, 1.5, 0.04, 0.3, -0.7, 0.04, false, 1e-11),
            (0.05, 2.0, 0.045, 0.4, -0.6, 0.01, false, 1e-11),
            (0.04, 1.0, 0.04, 1.0, -0.9, 1e-4, true, 1e-6),
            (0.04, 0.5, 0.04, 2.0, 0.3, 1e-5, true, 1e-6),
        ];
        for (v0, kappa, theta, xi, rho, vc, expo, tol) in cases {
            let c = record(100.0, 1.0, 0.01, v0, kappa, theta, xi, rho, dt);
            let e = (-kappa * dt).exp();
            let m = theta + (vc - theta) * e;
            let s2 = vc * xi * xi * e * (1.0 - e) / kappa + theta * xi * xi * (1.0 - e).powi(2) / (2.0 * kappa);
            let (_, _, br, _) = qe_step(&c, vc, 0.0, 0.0, FREE);
            assert_eq!(br & 1 != 0, expo, "branch for psi = {}", s2 / (m * m));
            assert_eq!(br & 2, 0, "the martingale correction applies");
            let nodes = if expo { 400_001 } else { 4001 };
            let mean = expect_over_zv(nodes, |z| qe_step(&c, vc, z, 0.0, FREE).0);
            let second = expect_over_zv(nodes, |z| qe_step(&c, vc, z, 0.0, FREE).0.powi(2));
            let mart = expect_over_zv(nodes, |z| {
                let (_, dx, b, sq) = qe_step(&c, vc, z, 0.0, FREE);
                assert_eq!(b, br, "one branch for every zv");
                (dx - 0.01 * dt + 0.5 * sq * sq).exp()
            });
            assert!((mean - m).abs() <= tol * m, "mean {mean} against m {m}");
            assert!((second - mean * mean - s2).abs() <= tol * s2.max(m * m), "variance against s2 {s2}");
            assert!((mart - 1.0).abs() <= tol, "E[exp(dx - drift dt)] = {mart}");
        }
    }

    /// The record's tangent against central differences of the record.
    #[test]
    fn record_tangent_is_the_derivative_of_the_record() {
        let p = [100.0, 0.3, 0.02, 0.04, 1.5, 0.05, 0.6, -0.7, 1.0 / 52.0];
        let rec = |p: [f64; 9]| record(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8]);
        let inputs = [
            (RecordInput::V0, 3),
            (RecordInput::Kappa, 4),
            (RecordInput::Theta, 5),
            (RecordInput::Xi, 6),
            (RecordInput::Dt, 8),
        ];
        for (by, k) in inputs {
            let t = record_tangent(p, by);
            let h = 1e-6 * p[k];
            let (mut up, mut dn) = (p, p);
            up[k] += h;
            dn[k] -= h;
            let (ru, rd) = (rec(up), rec(dn));
            for s in 0..RECORD {
                let fd = (ru[s] - rd[s]) / (2.0 * h);
                assert!((fd - t[s]).abs() <= 1e-6 * fd.abs().max(1e-9), "{by:?}, slot {s}: {} against {fd}", t[s]);
            }
        }
    }

    /// The tangent records' parameters as the Greeks are quoted: by sqrt(v0) and by the
    /// maturity `steps dt`, against central differences of the record in those parameters.
    #[test]
    fn tangent_records_differentiate_by_sqrt_v0_and_the_maturity() {
        let (v0, steps, maturity) = (0.04, 52u32, 1.0);
        let rec = |sd: f64, t: f64| record(100.0, 0.3, 0.02, sd * sd, 1.5, 0.05, 0.6, -0.7, t / f64::from(steps));
        let t = tangent_records(100.0, 0.3, 0.02, v0, 1.5, 0.05, 0.6, -0.7, maturity / f64::from(steps), steps);
        let (sd, h) = (v0.sqrt(), 1e-6);
        let by_sd: Vec<f64> =
            rec(sd + h, maturity).iter().zip(rec(sd - h, maturity)).map(|(u, d)| (u - d) / (2.0 * h)).collect();
        let by_t: Vec<f64> =
            rec(sd, maturity + h).iter().zip(rec(sd, maturity - h)).map(|(u, d)| (u - d) / (2.0 * h)).collect();
        for s in 0..RECORD {
            for (q, fd) in [(0, by_sd[s]), (4, by_t[s])] {
                assert!(
                    (fd - t[q][s]).abs() <= 1e-6 * fd.abs().max(1e-9),
                    "tangent {q}, slot {s}: {} against {fd}",
                    t[q][s]
                );
            }
        }
        assert!(t[0][slot::V0] > 0.0 && t[4][slot::E] != 0.0, "the fixture moves the slots it checks");
    }

    /// The tangent QE step against central differences of qe_step with its branches held, in
    /// every branch: quadratic and exponential, with and without the martingale correction,
    /// and the exponential branch's zero variance.
    #[test]
    fn qe_tangent_is_the_derivative_of_the_step() {
        let dt = 1.0 / 52.0;
        // (v0, kappa, theta, xi, rho, vc, zv, exponential); each state with both K0 forms
        // (the form without the martingale correction forced where the correction exists).
        let cases = [
            (0.04, 1.5, 0.04, 0.3, -0.7, 0.04, 0.3, false),
            (0.04, 1.5, 0.04, 0.3, -0.7, 0.04, -1.7, false),
            (0.09, 2.0, 0.09, 0.1, 0.9, 0.09, 0.4, false),
            (0.04, 1.0, 0.04, 1.0, -0.9, 1e-3, 1.5, true),
            (0.04, 1.0, 0.04, 1.0, -0.9, 1e-3, -1.5, true),
            (0.04, 0.5, 0.04, 2.0, 0.6, 1e-3, 1.2, true),
        ];
        let ins = [RecordInput::V0, RecordInput::Kappa, RecordInput::Theta, RecordInput::Xi, RecordInput::Dt];
        for ((v0, kappa, theta, xi, rho, vc, zv, expo), plain) in
            cases.into_iter().flat_map(|c| [(c, false), (c, true)])
        {
            let c = record(100.0, 1.0, 0.01, v0, kappa, theta, xi, rho, dt);
            let zx = 0.8;
            let free = qe_step(&c, vc, zv, zx, FREE).2;
            assert_eq!(free & 1 != 0, expo, "branch of case v0 {v0} xi {xi} zv {zv}");
            assert_eq!(free & 2, 0, "the martingale correction exists for v0 {v0} xi {xi} zv {zv}");
            let br = (free & 1) | (u32::from(plain) << 1);
            let (vn, _, _, sq, parts) = qe_step_parts(&c, vc, zv, zx, br);
            let jet = qe_jet(&c, vc, vn, br, sq, &parts);
            for (k, by) in ins.iter().enumerate() {
                let t = record_tangent([100.0, 1.0, 0.01, v0, kappa, theta, xi, rho, dt], *by);
                // A tangent of the variance before the step too (the path's earlier steps).
                let tv = 0.3 * vc * (k as f64 - 1.5);
                let (tvn, tdx) = qe_tangent(&c, &t, &jet, tv, zx);
                let scale = c.iter().zip(&t).fold(vc.abs() / tv.abs().max(1e-300), |m, (x, d)| {
                    if *d != 0.0 {
                        m.min(x.abs() / d.abs())
                    } else {
                        m
                    }
                });
                let h = 1e-6 * scale;
                let at = |h: f64| {
                    let ch: Vec<f64> = c.iter().zip(&t).map(|(x, d)| x + h * d).collect();
                    qe_step(&ch, vc + h * tv, zv, zx, br)
                };
                let (u, d) = (at(h), at(-h));
                let (fv, fx) = ((u.0 - d.0) / (2.0 * h), (u.1 - d.1) / (2.0 * h));
                let close = |a: f64, b: f64, what: &str| {
                    assert!(
                        (a - b).abs() <= 1e-5 * b.abs().max(1e-6),
                        "{by:?}, branch {br}, zv {zv}: {what} {a} against {b}"
                    );
                };
                close(tvn, fv, "dv");
                close(tdx, fx, "dx");
            }
        }
    }

    /// The packed index enumerates the upper triangle row by row.
    #[test]
    fn packed_index_is_row_major_upper() {
        let nb = 5;
        let mut k = 0;
        for a in 0..nb {
            for b in a..nb {
                assert_eq!(packed(a, b, nb), k);
                k += 1;
            }
        }
        assert_eq!(k, gram_width(nb));
        let mut k = 0;
        for r in 0..MAX_BASIS {
            for c in 0..=r {
                assert_eq!(tri(r, c), k);
                k += 1;
            }
        }
        assert_eq!(k, GRAM);
        let mut k = 0;
        for i in 0..6 {
            for j in i + 1..6 {
                assert_eq!(pair(i, j, 6), k);
                k += 1;
            }
        }
    }

    /// The factor and the substitution reproduce a least-squares fit computed by hand:
    /// y = 2 - 3 xi on exact data.
    #[test]
    fn fit_reproduces_exact_line() {
        let nb = 2;
        let (mut xtx, mut xty) = (vec![0.0; gram_width(nb)], vec![0.0; nb]);
        for k in 0..10 {
            let xi = -0.05 * f64::from(k);
            let mut phi = [0.0; MAX_BASIS];
            basis(xi, 0.0, nb, &mut phi);
            accumulate_gram(&mut xtx, &phi, nb);
            accumulate_target(&mut xty, &phi, 2.0 - 3.0 * xi, nb);
        }
        let mut rec = [0.0; FACTOR_RECORD];
        factor(&xtx, nb, &mut rec);
        assert_eq!(rec[FACTOR_USED], 2.0);
        let mut coef = [0.0; 2];
        substitute(&rec, &xty, nb, &mut coef);
        assert!((coef[0] - 2.0).abs() < 1e-12 && (coef[1] + 3.0).abs() < 1e-12, "{coef:?}");
        // Too few rows: never exercise.
        let mut few = vec![0.0; gram_width(nb)];
        few[0] = 3.0;
        factor(&few, nb, &mut rec);
        assert_eq!(rec[FACTOR_USED], 0.0);
        substitute(&rec, &xty, nb, &mut coef);
        assert_eq!(coef, [f64::INFINITY, 0.0]);
    }

    /// A dependent basis function (here xi^2 = xi on data xi in {0, 1}) stops the factor at it:
    /// the fit uses the functions before it and gives the others 0.
    #[test]
    fn dependent_function_is_dropped() {
        let nb = 3;
        let (mut xtx, mut xty) = (vec![0.0; gram_width(nb)], vec![0.0; nb]);
        for k in 0..8 {
            let xi = f64::from(k % 2);
            let mut phi = [0.0; MAX_BASIS];
            basis(xi, 0.0, nb, &mut phi);
            accumulate_gram(&mut xtx, &phi, nb);
            accumulate_target(&mut xty, &phi, 1.0 + 4.0 * xi, nb);
        }
        let mut rec = [0.0; FACTOR_RECORD];
        factor(&xtx, nb, &mut rec);
        assert_eq!(rec[FACTOR_USED], 2.0);
        let mut coef = [0.0; 3];
        substitute(&rec, &xty, nb, &mut coef);
        assert!((coef[0] - 1.0).abs() < 1e-12 && (coef[1] - 4.0).abs() < 1e-12 && coef[2] == 0.0, "{coef:?}");
    }

    /// Factors 2j and 2j + 1 are ADR 0003's Box-Muller pair of the counter (step, j, path).
    #[test]
    fn normals_follow_the_counter_mapping() {
        let mut eps = [0.0; MAX_FACTORS];
        normals(9, 0, 5, 3, 3, &mut eps);
        let x = philox4x32_10([3, 1, 5, 0], [9, 0]);
        let r = (-2.0 * uniform_f64(x[0], x[1]).ln()).sqrt();
        let c = (2.0 * std::f64::consts::PI * uniform_f64(x[2], x[3])).cos();
        assert_eq!(eps[2], r * c);
        let mut other = [0.0; MAX_FACTORS];
        normals(9, 1, 5, 3, 3, &mut other);
        assert_ne!(eps[0], other[0]);
    }
}
