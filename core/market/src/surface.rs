//! A volatility surface from per-expiry raw SVI slices, queried by strike and maturity.
//!
//! Slices are fitted to the out-of-the-money mid implied volatilities of a chain (puts below the
//! parity forward, calls at and above it), as total variance `w = σ² T` against `k = ln(K/F)`.
//! Between slices the total variance is interpolated linearly in maturity at fixed `k`
//! (which keeps `w` non-decreasing in `T` when the slices are free of calendar arbitrage;
//! Gatheral and Jacquier 2014, section 2); before the first slice `w` scales with `T`, after the
//! last it grows in proportion to `T`. The forward at any maturity is interpolated log-linearly
//! between the slices' parity forwards (flat carry outside).

use crate::error::{MarketError, Result};
use crate::iv::QuoteVol;
use crate::parity::ParityForward;
use crate::quotes::{Chain, SliceKey};
use crate::svi::{fit_svi, ButterflyCheck, SviFit};
use tenor_pricing::types::OptionType;

/// One fitted slice.
#[derive(Debug, Clone, PartialEq)]
pub struct SurfaceSlice {
    /// Expiry and settlement.
    pub slice: SliceKey,
    /// Maturity in years.
    pub maturity: f64,
    /// Parity forward.
    pub forward: f64,
    /// Parity discount factor.
    pub discount: f64,
    /// The SVI fit and its errors.
    pub fit: SviFit,
    /// Butterfly check over the fitted range of `k`.
    pub butterfly: ButterflyCheck,
    /// Butterfly check over the fitted range widened by 1 on each side (the extrapolated wings).
    pub butterfly_wide: ButterflyCheck,
    /// Fitted range of `k`.
    pub k_range: (f64, f64),
}

/// Calendar-arbitrage check between two consecutive slices.
#[derive(Debug, Clone, PartialEq)]
pub struct CalendarCheck {
    /// Earlier slice.
    pub earlier: SliceKey,
    /// Later slice.
    pub later: SliceKey,
    /// Smallest `w_later(k) - w_earlier(k)` on the grid (negative: calendar arbitrage).
    pub min_gap: f64,
    /// Where it is attained.
    pub at: f64,
}

/// The out-of-the-money points `(k, w)` of one slice from a chain's implied vols.
pub fn slice_points(chain: &Chain, vols: &[QuoteVol], fwd: &ParityForward) -> Vec<(f64, f64)> {
    let mut pts: Vec<(f64, f64)> = vols
        .iter()
        .filter_map(|v| {
            let q = &chain.quotes[v.index];
            if (q.expiry, q.settlement) != fwd.slice {
                return None;
            }
            let otm = match q.option_type {
                OptionType::Put => q.strike < fwd.forward,
                OptionType::Call => q.strike >= fwd.forward,
            };
            let sigma = v.vol.ok()?;
            otm.then(|| ((q.strike / fwd.forward).ln(), sigma * sigma * fwd.maturity))
        })
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    pts
}

/// Fits one slice.
///
/// # Errors
/// [`MarketError::Fit`] naming the expiry when the slice has too few points.
pub fn fit_slice(chain: &Chain, vols: &[QuoteVol], fwd: &ParityForward) -> Result<SurfaceSlice> {
    let pts = slice_points(chain, vols, fwd);
    let name = || format!("{} {}", fwd.slice.0, fwd.slice.1.as_str());
    let fit = fit_svi(&pts, fwd.maturity).map_err(|message| MarketError::Fit { expiry: name(), message })?;
    let k_range = (pts.first().map_or(0.0, |p| p.0), pts.last().map_or(0.0, |p| p.0));
    let butterfly = fit.params.butterfly_check(k_range.0, k_range.1, 801);
    let butterfly_wide = fit.params.butterfly_check(k_range.0 - 1.0, k_range.1 + 1.0, 1201);
    Ok(SurfaceSlice {
        slice: fwd.slice,
        maturity: fwd.maturity,
        forward: fwd.forward,
        discount: fwd.discount,
        fit,
        butterfly,
        butterfly_wide,
        k_range,
    })
}

/// A surface of SVI slices sorted by maturity.
#[derive(Debug, Clone, PartialEq)]
pub struct VolSurface {
    /// The slices, by increasing maturity.
    pub slices: Vec<SurfaceSlice>,
}

impl VolSurface {
    /// A surface from fitted slices (sorted here).
    ///
    /// # Errors
    /// [`MarketError::InvalidArgument`] when there is no slice or two share a maturity.
    pub fn new(mut slices: Vec<SurfaceSlice>) -> Result<Self> {
        slices.sort_by(|a, b| a.maturity.total_cmp(&b.maturity));
        if slices.is_empty() {
            return Err(MarketError::InvalidArgument { name: "slices", message: "no slice".into() });
        }
        if slices.windows(2).any(|w| w[1].maturity <= w[0].maturity) {
            return Err(MarketError::InvalidArgument { name: "slices", message: "two slices share a maturity".into() });
        }
        Ok(Self { slices })
    }

    /// Forward at maturity `t` (log-linear between slices, flat carry outside).
    pub fn forward(&self, t: f64) -> f64 {
        let s = &self.slices;
        if s.len() == 1 {
            return s[0].forward;
        }
        let i = s.partition_point(|x| x.maturity < t).clamp(1, s.len() - 1);
        let (a, b) = (&s[i - 1], &s[i]);
        let u = (t - a.maturity) / (b.maturity - a.maturity);
        (a.forward.ln() + u * (b.forward.ln() - a.forward.ln())).exp()
    }

    /// Total variance at log-moneyness `k` and maturity `t > 0` (module docs).
    pub fn total_variance(&self, k: f64, t: f64) -> f64 {
        let s = &self.slices;
        let first = &s[0];
        let last = &s[s.len() - 1];
        if t <= first.maturity {
            return first.fit.params.total_variance(k) * t / first.maturity;
        }
        if t >= last.maturity {
            return last.fit.params.total_variance(k) * t / last.maturity;
        }
        let i = s.partition_point(|x| x.maturity < t).clamp(1, s.len() - 1);
        let (a, b) = (&s[i - 1], &s[i]);
        let u = (t - a.maturity) / (b.maturity - a.maturity);
        let (wa, wb) = (a.fit.params.total_variance(k), b.fit.params.total_variance(k));
        wa + u * (wb - wa)
    }

    /// Black implied volatility at strike `strike` and maturity `t` years.
    ///
    /// # Errors
    /// [`MarketError::InvalidArgument`] for a non-positive strike or maturity, or where the
    /// surface's total variance is negative (not clamped to a vol of 0).
    pub fn vol(&self, strike: f64, t: f64) -> Result<f64> {
        if !(strike > 0.0 && strike.is_finite()) {
            return Err(MarketError::InvalidArgument { name: "strike", message: format!("{strike} is not positive") });
        }
        if !(t > 0.0 && t.is_finite()) {
            return Err(MarketError::InvalidArgument { name: "maturity", message: format!("{t} is not positive") });
        }
        let k = (strike / self.forward(t)).ln();
        let w = self.total_variance(k, t);
        // The fits keep every slice's variance non-negative; one that is not is an error, never 0.
        if w.is_nan() || w < 0.0 {
            return Err(MarketError::InvalidArgument {
                name: "strike",
                message: format!("total variance {w:e} at strike {strike}, maturity {t} is negative"),
            });
        }
        Ok((w / t).sqrt())
    }

    /// Calendar checks between consecutive slices on `n` points of the overlap of their fitted
    /// ranges of `k` (both slices' quotes cover it), clipped to `[lo, hi]`.
    pub fn calendar_checks(&self, lo: f64, hi: f64, n: usize) -> Vec<CalendarCheck> {
        self.slices
            .windows(2)
            .map(|w| {
                let lo = lo.max(w[0].k_range.0).max(w[1].k_range.0);
                let hi = hi.min(w[0].k_range.1).min(w[1].k_range.1).max(lo);
                let mut c = CalendarCheck { earlier: w[0].slice, later: w[1].slice, min_gap: f64::INFINITY, at: lo };
                for i in 0..n.max(2) {
                    let k = lo + (hi - lo) * i as f64 / (n.max(2) - 1) as f64;
                    let gap = w[1].fit.params.total_variance(k) - w[0].fit.params.total_variance(k);
                    if gap < c.min_gap {
                        c.min_gap = gap;
                        c.at = k;
                    }
                }
                c
            })
            .collect()
    }
}
