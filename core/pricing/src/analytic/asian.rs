//! Geometric-average Asian options in closed form under Black-Scholes-Merton.
//!
//! With fixings at times `t_1..t_n` (years from today, `t = 0` meaning today's spot), the log of
//! the geometric average `ln G = (1/n) sum ln S(t_i)` is normal with mean
//! `ln S + (r - q - sigma^2/2) (1/n) sum t_i` and variance `(sigma^2 / n^2) sum_i sum_j min(t_i, t_j)`,
//! so a fixed-strike option on `G` is a Black formula on a lognormal forward (Kemna and Vorst,
//! "A pricing method for options based on average asset values", J. Banking & Finance 14, 1990;
//! Haug, *The Complete Guide to Option Pricing Formulas*, 2nd ed. 2007, sec. 4.20.1 for the
//! continuous case, whose limit is mean `ln S + (r - q - sigma^2/2) T/2`, variance `sigma^2 T / 3`).
//! The average-strike payoff `max(w (S_T - G), 0)` is an exchange option between two jointly
//! lognormal quantities (Margrabe 1978), with `cov(ln S_T, ln G) = (sigma^2 / n) sum_i min(t_i, T)`.
//!
//! Units: prices in currency units, times in years, rates continuously compounded per year,
//! volatility per square-root year.

use thiserror::Error;

use crate::analytic::normal::norm_cdf;
use crate::types::OptionType;

/// An invalid input to a closed form, naming the parameter.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum AsianError {
    /// A parameter outside its domain.
    #[error("invalid {parameter} = {}: {reason}", crate::error::Shown(*.value))]
    InvalidParameter {
        /// Parameter name.
        parameter: &'static str,
        /// The value given.
        value: f64,
        /// What the domain is.
        reason: &'static str,
    },
}

/// Market and contract inputs shared by the formulas.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeometricAsian {
    /// Call or put.
    pub option: OptionType,
    /// Spot today.
    pub spot: f64,
    /// Strike (ignored by the average-strike payoff).
    pub strike: f64,
    /// Continuously compounded risk-free rate.
    pub rate: f64,
    /// Continuously compounded dividend yield.
    pub dividend: f64,
    /// Volatility.
    pub vol: f64,
    /// Exercise (payment) time in years.
    pub expiry: f64,
}

fn invalid(parameter: &'static str, value: f64, reason: &'static str) -> AsianError {
    AsianError::InvalidParameter { parameter, value, reason }
}

impl GeometricAsian {
    fn validate(&self, need_strike: bool) -> Result<(), AsianError> {
        if !(self.spot.is_finite() && self.spot > 0.0) {
            return Err(invalid("spot", self.spot, "must be finite and > 0"));
        }
        if need_strike && !(self.strike.is_finite() && self.strike > 0.0) {
            return Err(invalid("strike", self.strike, "must be finite and > 0"));
        }
        if !(self.vol.is_finite() && self.vol >= 0.0) {
            return Err(invalid("vol", self.vol, "must be finite and >= 0"));
        }
        if !(self.expiry.is_finite() && self.expiry >= 0.0) {
            return Err(invalid("expiry", self.expiry, "must be finite and >= 0"));
        }
        if !self.rate.is_finite() {
            return Err(invalid("rate", self.rate, "must be finite"));
        }
        if !self.dividend.is_finite() {
            return Err(invalid("dividend", self.dividend, "must be finite"));
        }
        Ok(())
    }

    fn check_times(&self, times: &[f64]) -> Result<(), AsianError> {
        if times.is_empty() {
            return Err(invalid("fixing_times", 0.0, "at least one fixing is needed"));
        }
        for &t in times {
            if !(t.is_finite() && t >= 0.0 && t <= self.expiry * (1.0 + 1e-12)) {
                return Err(invalid("fixing_times", t, "each fixing must lie in [0, expiry]"));
            }
        }
        Ok(())
    }

    /// Mean and variance of `ln G` for discrete fixings at `times`.
    fn log_moments(&self, times: &[f64]) -> (f64, f64) {
        let n = times.len() as f64;
        let mu = self.rate - self.dividend - 0.5 * self.vol * self.vol;
        let mean_t = times.iter().sum::<f64>() / n;
        let mut sorted = times.to_vec();
        sorted.sort_by(f64::total_cmp);
        // sum_i sum_j min(t_i, t_j) = sum_k t_(k) (2 (n - k) - 1) over the ascending order.
        let m = sorted.len();
        let double_sum: f64 = sorted.iter().enumerate().map(|(k, t)| t * (2 * (m - k) - 1) as f64).sum();
        (self.spot.ln() + mu * mean_t, self.vol * self.vol * double_sum / (n * n))
    }

    /// Discounted Black formula on a lognormal underlying with log-mean `m` and log-variance `v`.
    fn black(&self, m: f64, v: f64) -> f64 {
        let w = self.option.sign();
        let df = (-self.rate * self.expiry).exp();
        let forward = (m + 0.5 * v).exp();
        if v <= 0.0 {
            return df * (w * (forward - self.strike)).max(0.0);
        }
        let s = v.sqrt();
        let d1 = ((forward / self.strike).ln() + 0.5 * v) / s;
        let d2 = d1 - s;
        df * w * (forward * norm_cdf(w * d1) - self.strike * norm_cdf(w * d2))
    }

    /// Fixed-strike average-price option on the geometric average of fixings at `times`
    /// (years; 0 is today's spot): `e^{-r T} E[max(w (G - K), 0)]`.
    ///
    /// # Errors
    /// [`AsianError::InvalidParameter`] for a non-positive spot or strike, a negative vol or
    /// expiry, non-finite rates, no fixings, or a fixing outside `[0, expiry]`.
    pub fn average_price(&self, times: &[f64]) -> Result<f64, AsianError> {
        self.validate(true)?;
        self.check_times(times)?;
        let (m, v) = self.log_moments(times);
        Ok(self.black(m, v))
    }

    /// Fixed-strike average-price option on the continuous geometric average over
    /// `[0, expiry]` (Haug 2007, sec. 4.20.1; Kemna and Vorst 1990).
    ///
    /// # Errors
    /// As [`GeometricAsian::average_price`].
    pub fn average_price_continuous(&self) -> Result<f64, AsianError> {
        self.validate(true)?;
        let mu = self.rate - self.dividend - 0.5 * self.vol * self.vol;
        let m = self.spot.ln() + mu * 0.5 * self.expiry;
        let v = self.vol * self.vol * self.expiry / 3.0;
        Ok(self.black(m, v))
    }

    /// Average-strike option `e^{-r T} E[max(w (S_T - G), 0)]` with `G` the geometric average of
    /// fixings at `times` and `T = expiry` (Margrabe's exchange formula on the joint lognormal).
    ///
    /// # Errors
    /// As [`GeometricAsian::average_price`] (the strike is not used).
    pub fn average_strike(&self, times: &[f64]) -> Result<f64, AsianError> {
        self.validate(false)?;
        self.check_times(times)?;
        let (my, vy) = self.log_moments(times);
        let t = self.expiry;
        let var = self.vol * self.vol;
        let mx = self.spot.ln() + (self.rate - self.dividend - 0.5 * var) * t;
        let vx = var * t;
        let cov = var * times.iter().map(|ti| ti.min(t)).sum::<f64>() / times.len() as f64;
        let (fx, fy) = ((mx + 0.5 * vx).exp(), (my + 0.5 * vy).exp());
        let s2 = (vx + vy - 2.0 * cov).max(0.0);
        let w = self.option.sign();
        let df = (-self.rate * t).exp();
        if s2 <= 0.0 {
            return Ok(df * (w * (fx - fy)).max(0.0));
        }
        let s = s2.sqrt();
        let d1 = ((fx / fy).ln() + 0.5 * s2) / s;
        let d2 = d1 - s;
        Ok(df * w * (fx * norm_cdf(w * d1) - fy * norm_cdf(w * d2)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(strike: f64, expiry: f64) -> GeometricAsian {
        GeometricAsian { option: OptionType::Call, spot: 100.0, strike, rate: 0.05, dividend: 0.01, vol: 0.3, expiry }
    }

    /// One fixing at expiry is a European option: Black-Scholes by hand.
    #[test]
    fn one_fixing_at_expiry_is_black_scholes() {
        let c = call(95.0, 0.75);
        let (s, k, r, q, v, t) = (100.0f64, 95.0f64, 0.05f64, 0.01f64, 0.3f64, 0.75f64);
        let d1 = ((s / k).ln() + (r - q + 0.5 * v * v) * t) / (v * t.sqrt());
        let d2 = d1 - v * t.sqrt();
        let bs = s * (-q * t).exp() * norm_cdf(d1) - k * (-r * t).exp() * norm_cdf(d2);
        let got = c.average_price(&[0.75]).expect("valid");
        assert!((got - bs).abs() < 1e-12, "{got} vs {bs}");
    }

    /// Many equally spaced fixings converge to the continuous average.
    #[test]
    fn dense_fixings_approach_the_continuous_average() {
        let c = call(100.0, 1.0);
        let n = 20_000;
        let times: Vec<f64> = (1..=n).map(|j| j as f64 / n as f64).collect();
        let discrete = c.average_price(&times).expect("valid");
        let continuous = c.average_price_continuous().expect("valid");
        assert!((discrete - continuous).abs() < 1e-3, "{discrete} vs {continuous}");
    }

    #[test]
    fn bad_inputs_name_the_parameter() {
        let mut c = call(100.0, 1.0);
        c.spot = -1.0;
        let e = c.average_price(&[0.5]).expect_err("negative spot");
        assert!(e.to_string().contains("spot"), "{e}");
        let e = call(100.0, 1.0).average_price(&[1.5]).expect_err("fixing after expiry");
        assert!(e.to_string().contains("fixing_times"), "{e}");
    }
}
