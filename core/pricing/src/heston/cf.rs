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
pub fn log_cf(p: &HestonParams, t: f64, u: Complex<f64>) -> Complex<f64> {
    let i = Complex::new(0.0, 1.0);
    let s2 = p.sigma * p.sigma;
    let xi = Complex::new(p.kappa, 0.0) - i * u * (p.sigma * p.rho);
    let d = (xi * xi + (u * u + i * u) * s2).sqrt();
    let xm = xi - d;
    let g = xm / (xi + d);
    let e = (-d * t).exp();
    let one = Complex::new(1.0, 0.0);
    let c = (xm * t - ((one - g * e) / (one - g)).ln() * 2.0) * (p.kappa * p.theta / s2);
    let dd = xm / s2 * (one - e) / (one - g * e);
    c + dd * p.v0
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
