//! Heston characteristic function and moment explosion.

use nalgebra::Complex;

use super::HestonParams;

/// `ln E[exp(i u ln(S_T / F))]` for complex `u` (the log of the characteristic function of
/// the log forward-moneyness at maturity `t`), in the rotation-count-free form of Albrecher,
/// Mayer, Schoutens & Tistaert (2007), "The little Heston trap":
/// `xi = kappa - sigma rho i u`, `d = sqrt(xi^2 + sigma^2 (u^2 + i u))` (principal root),
/// `g = (xi - d) / (xi + d)`,
/// `C = kappa theta / sigma^2 [(xi - d) t - 2 ln((1 - g e^{-d t}) / (1 - g))]`,
/// `D = (xi - d) / sigma^2 (1 - e^{-d t}) / (1 - g e^{-d t})`, result `C + D v0`.
/// Valid inside the strip of finite moments (see [`explosion_time`]).
///
/// Evaluated without cancellation as the vol of variance `sigma` goes to 0 (issue 29,
/// finmath-lib#42: `xi - d` formed by subtraction lost all its digits below `sigma` about
/// 1e-5, and `C` divides it by `sigma^2`, so `sigma = 1e-8` priced an at-the-money call at 3.84
/// against its limit 12.836): `a = (xi - d) / sigma^2` is `-(u^2 + i u) / (xi + d)`,
/// `g = sigma^2 a / (xi + d)`, and the logarithm is `ln(1 + x)` with
/// `x = g (1 - e^{-d t}) / (1 - g) = sigma^2 y`, so `ln(1 + x) / sigma^2 = y ln(1 + x) / x`
/// with `ln(1 + x) / x -> 1`. Every term has a finite limit at `sigma = 0`, where the result is
/// `-(u^2 + i u) w / 2` with `w = theta t + (v0 - theta)(1 - e^{-kappa t}) / kappa`: the
/// Black-Scholes characteristic function with the integrated variance (the deterministic
/// variance of the limit), with no switch between formulas.
pub fn log_cf(p: &HestonParams, t: f64, u: Complex<f64>) -> Complex<f64> {
    let i = Complex::new(0.0, 1.0);
    let one = Complex::new(1.0, 0.0);
    let s2 = p.sigma * p.sigma;
    let q = u * u + i * u;
    let xi = Complex::new(p.kappa, 0.0) - i * u * (p.sigma * p.rho);
    let d = (xi * xi + q * s2).sqrt();
    let (xp, xm) = (xi + d, xi - d);
    // xp xm = -sigma^2 q: take the larger of the two as it is and the other from the product.
    let (a, g) = if xp.norm_sqr() >= xm.norm_sqr() {
        let a = -q / xp;
        (a, a * s2 / xp)
    } else {
        (xm / s2, xm / xp)
    };
    let big_e = -expm1(-d * t);
    let dd = a * big_e / (one - g * (-d * t).exp());
    let y = a * big_e / (xp * (one - g));
    let c = (a * t - y * ln1p_ratio(y * s2) * 2.0) * (p.kappa * p.theta);
    c + dd * p.v0
}

/// `e^z - 1` without cancellation for small `|z|`:
/// `expm1(x) cos y - 2 sin^2(y / 2) + i e^x sin y`.
fn expm1(z: Complex<f64>) -> Complex<f64> {
    let s = (0.5 * z.im).sin();
    Complex::new(z.re.exp_m1() * z.im.cos() - 2.0 * s * s, z.re.exp() * z.im.sin())
}

/// `ln(1 + x) / x` (principal logarithm), 1 at `x = 0`, without cancellation for small `|x|`
/// (a three-term series below `|x| = 1e-5`, truncation below 1e-15 relative).
fn ln1p_ratio(x: Complex<f64>) -> Complex<f64> {
    if x.norm_sqr() < 1e-10 {
        let one = Complex::new(1.0, 0.0);
        return one - x * (0.5 - x / 3.0);
    }
    let re = 0.5 * (x.re * (2.0 + x.re) + x.im * x.im).ln_1p();
    Complex::new(re, x.im.atan2(1.0 + x.re)) / x
}

/// Time at which the moment `E[S_T^omega]` explodes (infinite when it never does), from the
/// Riccati equation of the Heston moment generating function (Andersen & Piterbarg 2007,
/// "Moment explosions in stochastic volatility models", Prop. 3.1): with
/// `b = kappa - rho sigma omega` and `D = b^2 - sigma^2 omega (omega - 1)`,
/// `T* = inf` for `omega in [0, 1]` or (`D >= 0` and `b > 0`);
/// `T* = ln((b - sqrt D) / (b + sqrt D)) / sqrt D` for `D >= 0, b < 0`;
/// `T* = 2 (pi / 2 + atan(b / sqrt(-D))) / sqrt(-D)` for `D < 0`.
pub fn explosion_time(p: &HestonParams, omega: f64) -> f64 {
    let w = omega * (omega - 1.0);
    if w <= 0.0 {
        return f64::INFINITY;
    }
    let b = p.kappa - p.rho * p.sigma * omega;
    let disc = b * b - p.sigma * p.sigma * w;
    if disc >= 0.0 {
        if b >= 0.0 {
            return f64::INFINITY;
        }
        let sd = disc.sqrt();
        if sd == 0.0 {
            return 2.0 / -b;
        }
        ((b - sd) / (b + sd)).ln() / sd
    } else {
        let sd = (-disc).sqrt();
        2.0 * (std::f64::consts::FRAC_PI_2 + (b / sd).atan()) / sd
    }
}

/// The largest (`upper = true`, searched in `(1, 1 + cap]`) or smallest (searched in
/// `[-cap, 0)`) moment order whose explosion time exceeds `t`, by bisection; `1 + cap` or
/// `-cap` when the moments stay finite that far.
pub fn critical_moment(p: &HestonParams, t: f64, upper: bool, cap: f64) -> f64 {
    let (mut ok, mut bad) = if upper { (1.0, 1.0 + cap) } else { (0.0, -cap) };
    if explosion_time(p, bad) > t {
        return bad;
    }
    for _ in 0..60 {
        let mid = 0.5 * (ok + bad);
        if explosion_time(p, mid) > t {
            ok = mid;
        } else {
            bad = mid;
        }
    }
    ok
}
