//! Forwards and discount factors implied by put-call parity on mid quotes.
//!
//! For European options on one expiry, `C(K) - P(K) = D (F - K)`: the call-minus-put mid is
//! linear in the strike with slope `-D` and intercept `D F`. Per slice (expiry and settlement):
//! 1. pair calls and puts at the same strike, both with a two-sided quote (bid > 0, bid ≤ ask);
//! 2. take the near-the-money pairs: a rough forward `F_0` is the strike where `|C - P|` is
//!    smallest, and the pairs with `|ln(K / F_0)| ≤ 0.15` are kept (at least the 8 nearest);
//! 3. fit the line by iteratively reweighted least squares with Huber weights (tuning constant
//!    1.345 times a MAD scale; Huber 1964, Holland and Welsch 1977) on top of weights
//!    `1 / (spread_C² + spread_P²)`, so a stale or wide pair cannot drag the line.
//!
//! The implied continuously compounded rate is `-ln D / T` (an SPX "box" rate, which differs
//! from Treasury rates by a funding spread).

use std::collections::BTreeMap;

use tenor_pricing::types::OptionType;

use crate::error::{MarketError, Result};
use crate::quotes::{Chain, SliceKey};

/// The parity forward of one slice.
#[derive(Debug, Clone, PartialEq)]
pub struct ParityForward {
    /// Expiry and settlement.
    pub slice: SliceKey,
    /// Maturity in years (ACT/365F, to the settlement time).
    pub maturity: f64,
    /// Forward of the underlying for that settlement.
    pub forward: f64,
    /// Discount factor to the settlement date.
    pub discount: f64,
    /// Implied continuously compounded rate `-ln D / T`.
    pub rate: f64,
    /// Pairs used in the fit.
    pub pairs_used: usize,
    /// Weighted RMS of the fit residuals, in index points.
    pub residual_rms: f64,
}

const NEAR: f64 = 0.15;

/// (mid, spread) of the call and the put at one strike (keyed by the strike's bits).
type PairSlot = [Option<(f64, f64)>; 2];
const MIN_PAIRS: usize = 8;

/// Parity forwards of every slice of `chain` with at least 3 usable pairs, sorted by maturity;
/// slices with fewer are returned in the second vector with the reason.
pub fn parity_forwards(chain: &Chain) -> (Vec<ParityForward>, Vec<MarketError>) {
    let mut pairs: BTreeMap<SliceKey, BTreeMap<u64, PairSlot>> = BTreeMap::new();
    for q in &chain.quotes {
        if !q.is_two_sided() {
            continue;
        }
        let slot = pairs.entry((q.expiry, q.settlement)).or_default().entry(q.strike.to_bits()).or_default();
        let i = usize::from(q.option_type == OptionType::Put);
        slot[i] = Some((q.mid(), q.ask - q.bid));
    }
    let mut out = Vec::new();
    let mut errs = Vec::new();
    for key in chain.slices() {
        let t = chain.maturity(key.0, key.1);
        let rows: Vec<(f64, f64, f64)> = pairs
            .get(&key)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| match v {
                        [Some((c, sc)), Some((p, sp))] => Some((f64::from_bits(*k), c - p, sc * sc + sp * sp)),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        match fit_slice(&rows) {
            Ok((forward, discount, used, rms)) if t > 0.0 => out.push(ParityForward {
                slice: key,
                maturity: t,
                forward,
                discount,
                rate: -discount.ln() / t,
                pairs_used: used,
                residual_rms: rms,
            }),
            Ok(_) => errs.push(MarketError::Parity {
                expiry: format!("{} {}", key.0, key.1.as_str()),
                message: format!("maturity {t} is not positive"),
            }),
            Err(message) => errs.push(MarketError::Parity { expiry: format!("{} {}", key.0, key.1.as_str()), message }),
        }
    }
    out.sort_by(|a, b| a.maturity.total_cmp(&b.maturity));
    (out, errs)
}

/// Robust line fit of `C - P` on `K`: returns (forward, discount, pairs used, residual RMS).
fn fit_slice(rows: &[(f64, f64, f64)]) -> Result<(f64, f64, usize, f64), String> {
    if rows.len() < 3 {
        return Err(format!("{} call/put pairs with two-sided quotes, need 3", rows.len()));
    }
    let f0 = rows.iter().min_by(|a, b| a.1.abs().total_cmp(&b.1.abs())).map(|r| r.0).unwrap_or(1.0);
    let mut near: Vec<&(f64, f64, f64)> = rows.iter().filter(|r| (r.0 / f0).ln().abs() <= NEAR).collect();
    if near.len() < MIN_PAIRS {
        let mut by_distance: Vec<&(f64, f64, f64)> = rows.iter().collect();
        by_distance.sort_by(|a, b| (a.0 / f0).ln().abs().total_cmp(&(b.0 / f0).ln().abs()));
        near = by_distance.into_iter().take(MIN_PAIRS).collect();
    }
    let base: Vec<f64> = near.iter().map(|r| 1.0 / r.2.max(1e-8)).collect();
    let mut robust = vec![1.0; near.len()];
    let mut line = (0.0, 0.0);
    for _ in 0..50 {
        // weighted least squares of y = a + b K, K centred at f0 for conditioning
        let (mut sw, mut sx, mut sy, mut sxx, mut sxy) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for (i, r) in near.iter().enumerate() {
            let w = base[i] * robust[i];
            let x = r.0 - f0;
            sw += w;
            sx += w * x;
            sy += w * r.1;
            sxx += w * x * x;
            sxy += w * x * r.1;
        }
        let det = sw * sxx - sx * sx;
        if det <= 0.0 || !det.is_finite() {
            return Err("the near-the-money strikes do not determine a line".into());
        }
        let b = (sw * sxy - sx * sy) / det;
        let a = (sy - b * sx) / sw;
        let converged = (a - line.0).abs() < 1e-12 * (1.0 + a.abs()) && (b - line.1).abs() < 1e-14;
        line = (a, b);
        let resid: Vec<f64> = near.iter().map(|r| (r.1 - a - b * (r.0 - f0)) * base_sqrt(r.2)).collect();
        let mut abs: Vec<f64> = resid.iter().map(|r| r.abs()).collect();
        abs.sort_by(f64::total_cmp);
        let scale = (abs[abs.len() / 2] / 0.6745).max(1e-12);
        for (w, r) in robust.iter_mut().zip(&resid) {
            let u = r.abs() / (1.345 * scale);
            *w = if u <= 1.0 { 1.0 } else { 1.0 / u };
        }
        if converged {
            break;
        }
    }
    let (a, b) = line;
    let discount = -b;
    if !(discount > 0.0 && discount <= 1.5) {
        return Err(format!("parity slope gives discount factor {discount}"));
    }
    let forward = f0 + a / discount;
    let (mut num, mut den) = (0.0, 0.0);
    for (i, r) in near.iter().enumerate() {
        let e = r.1 - a - b * (r.0 - f0);
        num += base[i] * robust[i] * e * e;
        den += base[i] * robust[i];
    }
    Ok((forward, discount, near.len(), (num / den).sqrt()))
}

fn base_sqrt(var: f64) -> f64 {
    1.0 / var.max(1e-8).sqrt()
}
