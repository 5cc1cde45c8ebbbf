//! Performance metrics of an equity curve (Bacon, "Practical Portfolio Performance Measurement
//! and Attribution", 2nd ed., 2008: ch. 4 for Sharpe and Sortino, drawdown as defined there).
//!
//! With per-bar simple returns `r_i = E_i / E_{i-1} - 1` and `P` bars per year:
//! annualised return `(E_n / E_0)^(P / n) - 1`; volatility `std(r) sqrt(P)` (sample standard
//! deviation); Sharpe `mean(r) / std(r) sqrt(P)` (zero risk-free rate); Sortino
//! `mean(r) / sqrt(mean(min(r, 0)^2)) sqrt(P)`; maximum drawdown `max_t (1 - E_t / max_{s<=t} E_s)`
//! and its duration, the longest run of bars below a previous peak; turnover, traded notional
//! over mean equity per year; hit rate, the share of closing fills with a positive realised
//! P&L against the average entry price.
//!
//! Periods: the engine passes the equity after each bar of the primary feed (the first
//! symbol), so `P` counts that feed's bars whatever other feeds (minute bars beside daily ones)
//! add; `periods` in the output says how many returns were used. Metrics that need positive
//! equity (returns, ratios, drawdown) are NaN (`null` in `metrics.json`) when any equity value
//! is not positive; the engine stops a run whose equity is not finite before metrics are
//! computed. Sums are running means, so a million bars of large equity do not overflow.

use serde::Serialize;

use crate::engine::Fill;

/// Metrics of one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Metrics {
    /// E_end / E_0 - 1.
    pub total_return: f64,
    /// Annualised (geometric) return.
    pub annual_return: f64,
    /// Annualised volatility of bar returns.
    pub volatility: f64,
    /// Annualised Sharpe ratio (zero risk-free rate).
    pub sharpe: f64,
    /// Annualised Sortino ratio (zero target).
    pub sortino: f64,
    /// Maximum drawdown, a fraction of the peak.
    pub max_drawdown: f64,
    /// Longest time below a previous peak, in bars.
    pub max_drawdown_bars: usize,
    /// Traded notional over mean equity, per year.
    pub turnover: f64,
    /// Winning closing fills over closing fills (NaN when none closed).
    pub hit_rate: f64,
    /// Number of fills.
    pub trades: usize,
    /// Bar returns the annualised figures were computed from (the primary feed's bars - 1).
    pub periods: usize,
    /// Buys refused because the cash did not cover them ([`crate::engine::CashPolicy`]).
    pub refused_orders: usize,
    /// Buys resized to the cash ([`crate::engine::CashPolicy::Resize`]).
    pub resized_orders: usize,
}

/// Running mean of `xs`, which cannot overflow where the plain sum would.
fn running_mean(xs: impl Iterator<Item = f64>) -> f64 {
    let mut mean = 0.0;
    for (k, x) in xs.enumerate() {
        mean += (x - mean) / (k + 1) as f64;
    }
    mean
}

/// Computes the metrics of `equity` (one point per bar) and `fills`.
pub fn compute(equity: &[(i64, f64)], fills: &[Fill], periods_per_year: f64) -> Metrics {
    let e: Vec<f64> = equity.iter().map(|x| x.1).collect();
    if e.len() < 2 {
        return Metrics { trades: fills.len(), hit_rate: f64::NAN, ..Metrics::default() };
    }
    let positive = e.iter().all(|x| x.is_finite() && *x > 0.0);
    let r: Vec<f64> = e.windows(2).map(|w| if positive { w[1] / w[0] - 1.0 } else { f64::NAN }).collect();
    let n = r.len() as f64;
    let mean = running_mean(r.iter().copied());
    let var = running_mean(r.iter().map(|x| (x - mean).powi(2))) * n / (n - 1.0).max(1.0);
    let downside = running_mean(r.iter().map(|x| x.min(0.0).powi(2))).sqrt();
    let total = if positive { e[e.len() - 1] / e[0] - 1.0 } else { f64::NAN };
    let (mut peak, mut mdd, mut run, mut longest) = (e[0], 0.0f64, 0usize, 0usize);
    for &x in &e {
        if x >= peak {
            peak = x;
            run = 0;
        } else {
            run += 1;
            longest = longest.max(run);
            mdd = mdd.max(1.0 - x / peak);
        }
    }
    let years = n / periods_per_year;
    let mean_equity = running_mean(e.iter().copied());
    if !positive {
        mdd = f64::NAN;
    }
    let notional: f64 = fills.iter().map(|f| (f.quantity * f.price).abs()).sum();
    Metrics {
        total_return: total,
        annual_return: (1.0 + total).powf(1.0 / years) - 1.0,
        volatility: var.sqrt() * periods_per_year.sqrt(),
        sharpe: mean / var.sqrt() * periods_per_year.sqrt(),
        sortino: mean / downside * periods_per_year.sqrt(),
        max_drawdown: mdd,
        max_drawdown_bars: longest,
        turnover: notional / mean_equity / years,
        hit_rate: hit_rate(fills),
        trades: fills.len(),
        periods: r.len(),
        refused_orders: 0,
        resized_orders: 0,
    }
}

/// Share of position-reducing fills that realised a profit against the average entry price.
fn hit_rate(fills: &[Fill]) -> f64 {
    let mut book: std::collections::BTreeMap<&str, (f64, f64)> = Default::default(); // (shares, avg price)
    let (mut wins, mut closes) = (0usize, 0usize);
    for f in fills {
        let (q, avg) = book.entry(&f.symbol).or_insert((0.0, 0.0));
        if *q != 0.0 && q.signum() != f.quantity.signum() {
            let closed = f.quantity.abs().min(q.abs());
            let pnl = closed * (f.price - *avg) * q.signum() - f.commission;
            closes += 1;
            if pnl > 0.0 {
                wins += 1;
            }
            *q += f.quantity;
            if q.abs() < 1e-12 {
                *q = 0.0;
            } else if q.signum() == f.quantity.signum() {
                *avg = f.price; // flipped through zero: the remainder opened at this price
            }
        } else {
            let nq = *q + f.quantity;
            *avg = (*avg * *q + f.price * f.quantity) / nq;
            *q = nq;
        }
    }
    if closes == 0 {
        f64::NAN
    } else {
        wins as f64 / closes as f64
    }
}
