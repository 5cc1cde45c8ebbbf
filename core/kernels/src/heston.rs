//! Heston European prices by a fixed-node quadrature: the math of the `heston_price` kernel,
//! written once in Rust (the CPU reference calls [`price`]; `cuda.cu` and `sycl.cpp` repeat the
//! same operations in the same order).
//!
//! # Method
//! Lewis (2001), "A simple option formula for general jump-diffusion and other exponential
//! Lévy processes": with forward `F`, strike `K`, `k = ln(K / F)` and `φ` the characteristic
//! function of `ln(S_T / F)`, the undiscounted call is
//! `F - √(F K) / π ∫_0^∞ Re[e^{-iuk} φ(u - i/2)] / (u² + 1/4) du`; the contour `Im z = -1/2`
//! lies inside the strip where every Heston moment of order in `[0, 1]` is finite, so no
//! moment explosion can occur. A Black-Scholes control variate (Andersen & Piterbarg,
//! "Interest Rate Modeling" vol. I, 2010, §8.4; Le Floc'h 2014) with total variance `w` equal
//! to the expected integrated variance `θ T + (v0 - θ)(1 - e^{-κT}) / κ` is added and
//! subtracted: `φ_BS(u - i/2) = e^{-w (u² + 1/4) / 2}`, so
//! `price = Black(F, K, √(w / T), T) + √(F K) / π ∫_0^∞ Re[e^{-iuk} (φ_BS - φ_H)(u - i/2)]
//! / (u² + 1/4) du` for the call and for the put alike (both models satisfy put-call parity),
//! and the out-of-the-money option keeps its relative precision through the Black part
//! ([`crate::black::black_price`]).
//!
//! `ln φ_H` is the "little Heston trap" form of Albrecher, Mayer, Schoutens & Tistaert (2007),
//! evaluated without cancellation as `σ → 0`: on the Lewis contour `z = u - i/2`,
//! `i z + z² = q = u² + 1/4` is real, `β = κ - ρσ/2 - iρσu`, `d = √(β² + σ² q)` (principal
//! root), `a = (β - d) / σ² = -q / (β + d)`, `g = (β - d) / (β + d) = σ² a / (β + d)`,
//! `E = 1 - e^{-dT} = -expm1(-dT)`, `D = a E / (1 - g e^{-dT})`,
//! `C = κθ (a T - 2 log1p(g E / (1 - g)) / σ²)`, `ln φ_H = C + v0 D`.
//!
//! The frequency axis `(0, ∞)` is mapped onto `(0, 1)` by `u = u_s (1 - x) / x`, so there is
//! no integration cutoff (the whole axis is integrated; an exponentially decaying tail becomes
//! `e^{-a u_s / x}`, flat at `x = 0`), and integrated with an `n`-node Gauss-Legendre rule on
//! `(0, 1)` ([`gauss_legendre_unit`]) whose nodes and weights the caller passes. The scale
//! `u_s = 3 √(u_end / √w)` is the geometric mean of the two scales of the integrand: the
//! Gaussian bulk `1 / √w` (where `φ_BS` and the short-time `φ_H` live) and `u_end`, the
//! frequency where `|φ_H|` falls to about `e^{-36}`, estimated as in the host pricer from the
//! Gaussian decay `e^{-w u² / 2}` and the asymptotic exponential decay at rate
//! `√(1 - ρ²) (v0 + κθT) / σ` (Kahl & Jäckel 2005, "Not-so-complex logarithms in the Heston
//! model"). The scale and the Black-Scholes part depend on the item, the nodes do not.
//!
//! # Accuracy
//! Against the adaptive host integrator (`tenor_pricing::heston::heston_price`, an independent
//! method: Carr-Madan contour with optimal damping, adaptive Gauss-Kronrod) on the grid of
//! `core/pricing/tests/heston_price_kernel.rs` (spot 100; maturities 1 day, 1 week, 1 and 3
//! months, 1, 3 and 10 years; log-moneyness 0, ±1, ..., ±4 expected standard deviations;
//! 10 parameter sets with vol of variance up to 2, `|ρ|` up to 0.95, the Feller condition met
//! and violated), the largest absolute differences are:
//!
//! | nodes | regular, ±2 sd | regular, ±4 sd | σ = 2 and \|ρ\| = 0.95, ±2 sd | same, ±4 sd |
//! | --- | --- | --- | --- | --- |
//! | 256 ([`DEFAULT_NODES`]) | 1.2e-9 | 8.3e-7 | 5.1e-5 | 3.9e-3 |
//! | 512 | 3.9e-11 | 9.1e-11 | 4.3e-7 | 7.2e-5 |
//!
//! Where vol of variance 2 meets `|ρ| = 0.95` the single fixed contour `Im z = -1/2` leaves a
//! slowly decaying oscillatory integrand, which needs more nodes (the rule has no cutoff to
//! widen, so the error falls as nodes are added). The test asserts bounds just above these
//! figures. 256 nodes keep calibration residuals (quotes within ±2 sd) about 1e-9 of the spot
//! from the host pricer at twice the speed of 512.

use crate::black::norm_cdf;

/// Gauss-Legendre nodes the pricing functions of Tenor use by default.
pub const DEFAULT_NODES: usize = 256;

/// A complex number (only what the characteristic function needs).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Cx {
    re: f64,
    im: f64,
}

impl Cx {
    fn new(re: f64, im: f64) -> Self {
        Self { re, im }
    }
    fn add(self, o: Self) -> Self {
        Self::new(self.re + o.re, self.im + o.im)
    }
    fn sub(self, o: Self) -> Self {
        Self::new(self.re - o.re, self.im - o.im)
    }
    fn mul(self, o: Self) -> Self {
        Self::new(self.re * o.re - self.im * o.im, self.re * o.im + self.im * o.re)
    }
    fn scale(self, s: f64) -> Self {
        Self::new(self.re * s, self.im * s)
    }
    /// Smith's (1962) division, robust to overflow.
    fn div(self, o: Self) -> Self {
        if o.re.abs() >= o.im.abs() {
            let r = o.im / o.re;
            let den = o.re + o.im * r;
            Self::new((self.re + self.im * r) / den, (self.im - self.re * r) / den)
        } else {
            let r = o.re / o.im;
            let den = o.re * r + o.im;
            Self::new((self.re * r + self.im) / den, (self.im * r - self.re) / den)
        }
    }
    /// Principal square root (real part >= 0).
    fn sqrt(self) -> Self {
        let r = self.re.hypot(self.im);
        if r == 0.0 {
            return Self::new(0.0, 0.0);
        }
        if self.re >= 0.0 {
            let t = (0.5 * (r + self.re)).sqrt();
            Self::new(t, self.im / (2.0 * t))
        } else {
            let t = (0.5 * (r - self.re)).sqrt();
            Self::new(self.im.abs() / (2.0 * t), t.copysign(self.im))
        }
    }
    fn exp(self) -> Self {
        let m = self.re.exp();
        Self::new(m * self.im.cos(), m * self.im.sin())
    }
    /// `e^z - 1` without cancellation: `expm1(x) cos y - 2 sin²(y/2) + i e^x sin y`.
    fn expm1(self) -> Self {
        let s = (0.5 * self.im).sin();
        Self::new(self.re.exp_m1() * self.im.cos() - 2.0 * s * s, self.re.exp() * self.im.sin())
    }
    /// `ln(1 + z)` (principal) without cancellation for small `z`.
    fn ln_1p(self) -> Self {
        let re = 0.5 * (2.0 * self.re + self.re * self.re + self.im * self.im).ln_1p();
        Self::new(re, self.im.atan2(1.0 + self.re))
    }
}

/// Heston parameters in the kernel's order: `[v0, kappa, theta, sigma, rho]` (variances per
/// year; `sigma` the volatility of variance).
pub type Params = [f64; 5];

/// Whether `p` is in the model's domain: `v0, kappa, theta, sigma > 0` and finite,
/// `-1 < rho < 1`.
pub fn params_valid(p: &Params) -> bool {
    p[..4].iter().all(|v| v.is_finite() && *v > 0.0) && p[4] > -1.0 && p[4] < 1.0
}

/// Expected integrated variance `θ T + (v0 - θ)(1 - e^{-κT}) / κ` to maturity `t` (the
/// control variate's total variance).
pub fn expected_total_variance(p: &Params, t: f64) -> f64 {
    let [v0, kappa, theta, _, _] = *p;
    let kt = kappa * t;
    let decay = if kt > 1e-8 { -(-kt).exp_m1() / kappa } else { t * (1.0 - 0.5 * kt) };
    theta * t + (v0 - theta) * decay
}

/// `ln φ_H(u - i/2)` at maturity `t` (see the module documentation for the formulas).
fn log_cf_lewis(p: &Params, t: f64, u: f64) -> Cx {
    let [v0, kappa, theta, sigma, rho] = *p;
    let q = u * u + 0.25;
    let s2 = sigma * sigma;
    let beta = Cx::new(kappa - 0.5 * rho * sigma, -rho * sigma * u);
    let d = beta.mul(beta).add(Cx::new(s2 * q, 0.0)).sqrt();
    let bpd = beta.add(d);
    let a = Cx::new(-q, 0.0).div(bpd);
    let g = a.scale(s2).div(bpd);
    let em = d.scale(-t).expm1(); // e^{-dT} - 1
    let big_e = em.scale(-1.0); // 1 - e^{-dT}
    let e = em.add(Cx::new(1.0, 0.0));
    let one = Cx::new(1.0, 0.0);
    let dd = a.mul(big_e).div(one.sub(g.mul(e)));
    let l = g.mul(big_e).div(one.sub(g)).ln_1p();
    let c = a.scale(t).sub(l.scale(2.0 / s2)).scale(kappa * theta);
    c.add(dd.scale(v0))
}

/// The integrand `Re[e^{-iuk} (φ_BS - φ_H)(u - i/2)] / (u² + 1/4)` at frequency `u`.
pub fn integrand(p: &Params, t: f64, k: f64, w: f64, u: f64) -> f64 {
    let q = u * u + 0.25;
    let phi = log_cf_lewis(p, t, u).exp();
    let a = (-0.5 * w * q).exp() - phi.re;
    let b = -phi.im;
    let (s, c) = (u * k).sin_cos();
    (c * a + s * b) / q
}

/// The transform scale `u_s` of `u = u_s (1 - x) / x` (see the module documentation).
pub fn transform_scale(p: &Params, t: f64, w: f64) -> f64 {
    let [v0, kappa, theta, sigma, rho] = *p;
    let c_inf = (1.0 - rho * rho).sqrt() * (v0 + kappa * theta * t) / sigma;
    let u_end = (72.0 / w).sqrt().max(36.0 / c_inf);
    3.0 * (u_end / w.sqrt()).sqrt()
}

/// A European option as the kernel sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contract {
    /// Forward to maturity.
    pub forward: f64,
    /// Strike.
    pub strike: f64,
    /// Time to expiry in years.
    pub maturity: f64,
    /// Discount factor to maturity.
    pub discount: f64,
    /// Call (`true`) or put.
    pub is_call: bool,
}

/// Present value of the European option `o` under Heston parameters `p`, with Gauss-Legendre
/// `nodes` and `weights` on `(0, 1)` (from [`gauss_legendre_unit`]). Negative results of
/// rounding are raised to 0. NaN when an input is out of its domain (non-finite or
/// non-positive forward, strike, maturity or discount factor; parameters failing
/// [`params_valid`]).
pub fn price(p: &Params, o: &Contract, nodes: &[f64], weights: &[f64]) -> f64 {
    let Contract { forward, strike, maturity, discount, is_call } = *o;
    let ok = |v: f64| v.is_finite() && v > 0.0;
    if !(ok(forward) && ok(strike) && ok(maturity) && ok(discount) && params_valid(p)) {
        return f64::NAN;
    }
    let t = maturity;
    let k = (strike / forward).ln();
    let w = expected_total_variance(p, t);
    let us = transform_scale(p, t, w);
    let mut sum = 0.0;
    for (x, wt) in nodes.iter().zip(weights) {
        let u = us * (1.0 - x) / x;
        sum += wt * integrand(p, t, k, w, u) / (x * x);
    }
    let correction = (forward * strike).sqrt() * std::f64::consts::FRAC_1_PI * sum * us;
    // Out-of-the-money Black price plus the correction, then the intrinsic value if in the money.
    let otm_call = strike >= forward;
    let bs = black_otm(forward, strike, w.sqrt(), otm_call);
    let intrinsic = if is_call { forward - strike } else { strike - forward }.max(0.0);
    (discount * (intrinsic + bs + correction)).max(0.0)
}

/// Undiscounted Black price `F Φ(d1) - K Φ(d2)` (call) or `K Φ(-d2) - F Φ(-d1)` (put) with
/// total volatility `s = σ √T`, `d1,2 = ln(F / K) / s ± s / 2`; `Φ` through `erfc`
/// ([`crate::black::norm_cdf`]), so each term keeps its relative precision in the wings.
pub fn black_otm(forward: f64, strike: f64, s: f64, is_call: bool) -> f64 {
    let d1 = (forward / strike).ln() / s + 0.5 * s;
    let d2 = d1 - s;
    if is_call {
        forward * norm_cdf(d1) - strike * norm_cdf(d2)
    } else {
        strike * norm_cdf(-d2) - forward * norm_cdf(-d1)
    }
}

/// The `n`-node Gauss-Legendre rule on `(0, 1)`: nodes ascending and weights, the roots of
/// `P_n` found by Newton's method from Tricomi's initial guesses (Press et al., "Numerical
/// Recipes", 3rd ed., §4.6), exact for polynomials of degree `2n - 1`. `n = 0` gives empty
/// vectors.
pub fn gauss_legendre_unit(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut x = vec![0.0; n];
    let mut w = vec![0.0; n];
    let nf = n as f64;
    for i in 0..n.div_ceil(2) {
        let mut z = (std::f64::consts::PI * (i as f64 + 0.75) / (nf + 0.5)).cos();
        let mut dp = 1.0;
        for _ in 0..100 {
            let (mut p0, mut p1) = (1.0, 0.0);
            for j in 0..n {
                let p2 = p1;
                p1 = p0;
                p0 = ((2.0 * j as f64 + 1.0) * z * p1 - j as f64 * p2) / (j as f64 + 1.0);
            }
            dp = nf * (z * p0 - p1) / (z * z - 1.0);
            let dz = p0 / dp;
            z -= dz;
            if dz.abs() < 1e-16 {
                break;
            }
        }
        // Root z of P_n on [-1, 1] -> (1 -+ z) / 2 on (0, 1); weight 2 / ((1 - z^2) P_n'^2) / 2.
        let wt = 1.0 / ((1.0 - z * z) * dp * dp);
        x[i] = 0.5 * (1.0 - z);
        x[n - 1 - i] = 0.5 * (1.0 + z);
        w[i] = wt;
        w[n - 1 - i] = wt;
    }
    (x, w)
}
