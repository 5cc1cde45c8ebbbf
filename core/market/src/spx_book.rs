//! The example SPX book: European calls and puts from a Cboe snapshot at their quoted implied
//! vols, plus Asians and barriers on the same underlying, with rates from the Treasury curve
//! and dividend yields implied by put-call parity.
//!
//! Input: a Cboe chain ([`crate::cboe::load_cboe_dir`], whose quotes come in the call-then-put
//! pairs of the files' strike rows, [`strike_rows`]) and a Treasury par curve
//! ([`crate::treasury::load_par_curve`]).
//!
//! Method (`examples/data/PROVENANCE.md` repeats it):
//! * spot: the `Last:` value of the quotedata header (6711.2002 on 2025-10-01);
//! * maturity: ACT/365F calendar days from the snapshot date to the expiration date
//!   ([`act365f`]; not the settlement-time maturity of [`crate::quotes::Chain::maturity`]);
//! * rate: the Treasury par yield curve of the latest date on or before the snapshot,
//!   linear in tenor, converted from bond-equivalent to continuous compounding
//!   ([`crate::treasury::ParYieldRow::continuous_rate`]);
//! * dividend yield per expiry: put-call parity on mid quotes, `C - P = S e^{-qT} - K e^{-rT}`,
//!   solved for q at each strike within [`PARITY_BAND`] of spot and the median taken
//!   ([`implied_dividend`]);
//! * each quote's vol: its `IV` column ([`crate::quotes::OptionQuote::vendor_iv`]); quotes with
//!   IV 0 (Cboe could not compute one) are skipped and counted;
//! * exotics: vol = the smile's implied vol at the exotic's strike ([`Smile::vol_at`]), a flat
//!   Black-Scholes vol per trade, not a smile-consistent exotic model.

use std::collections::BTreeMap;

use chrono::NaiveDate;

use tenor_pricing::error::PricingError;
use tenor_pricing::portfolio::trade::barrier_type_name;
use tenor_pricing::portfolio::{AsianTrade, BarrierTrade, Trade, TradeKind};
use tenor_pricing::types::{BarrierType, OptionType, Vanilla};

use crate::error::{MarketError, Result};
use crate::quotes::{Chain, OptionQuote};
use crate::treasury::ParYieldRow;

/// Strikes within this relative distance of spot (|K/S - 1| <= band) enter the parity fit.
pub const PARITY_BAND: f64 = 0.05;

/// Strikes within this relative distance of spot enter the parity regression
/// ([`parity_regression`]).
pub const REGRESSION_BAND: f64 = 0.10;

/// Expiries on which the exotics (Asians and barriers) are written.
pub const EXOTIC_EXPIRIES: [(i32, u32, u32); 2] = [(2026, 6, 18), (2026, 12, 18)];

/// One strike row of a Cboe file: the call and the put of one expiry and strike.
#[derive(Debug, Clone, PartialEq)]
pub struct StrikeRow {
    /// Expiration date.
    pub expiry: NaiveDate,
    /// Strike, index points.
    pub strike: f64,
    /// The call (its `line` is the row's line in the file).
    pub call: OptionQuote,
    /// The put.
    pub put: OptionQuote,
}

/// The strike rows of a Cboe chain, in its quote order: each row's call followed by its put, as
/// [`crate::cboe::parse_cboe`] returns them.
///
/// # Errors
/// [`MarketError::Row`] naming the chain's source and the line of the first quote that is not
/// a call followed by the put of the same line, expiry and strike (a chain not read from Cboe
/// files, such as a Yahoo chain).
pub fn strike_rows(chain: &Chain) -> Result<Vec<StrikeRow>> {
    chain
        .quotes
        .chunks(2)
        .map(|pair| match pair {
            [c, p]
                if c.option_type == OptionType::Call
                    && p.option_type == OptionType::Put
                    && c.line == p.line
                    && c.expiry == p.expiry
                    && c.strike == p.strike =>
            {
                Ok(StrikeRow { expiry: c.expiry, strike: c.strike, call: c.clone(), put: p.clone() })
            }
            _ => Err(MarketError::Row {
                file: chain.source.clone(),
                line: pair[0].line,
                message: format!("quote {} is not the call of a Cboe row followed by the row's put", pair[0].symbol),
            }),
        })
        .collect()
}

/// ACT/365F year fraction from `from` to `to`.
pub fn act365f(from: NaiveDate, to: NaiveDate) -> f64 {
    (to - from).num_days() as f64 / 365.0
}

/// Market parameters of one expiry.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpiryParams {
    /// Expiration date.
    pub expiry: NaiveDate,
    /// ACT/365F years from the snapshot.
    pub maturity: f64,
    /// Continuously compounded rate from the Treasury curve
    /// ([`ParYieldRow::continuous_rate`]).
    pub rate: f64,
    /// Continuously compounded dividend yield implied by parity.
    pub dividend: f64,
    /// Strikes used in the parity fit.
    pub parity_strikes: usize,
    /// Discount factor and forward implied by the market alone: the least-squares line
    /// `C - P = D F - D K` through the mid quotes within [`REGRESSION_BAND`] of spot. Used only
    /// to explain bid-ask misses ([`QuoteCheck::market_model`]); the book uses the Treasury
    /// rate.
    pub market_discount: f64,
    /// The forward of that regression.
    pub market_forward: f64,
    /// The strike rows of this expiry, ascending in strike.
    pub rows: Vec<StrikeRow>,
}

impl ExpiryParams {
    /// The forward `S e^{(r - q) T}`.
    pub fn forward(&self, spot: f64) -> f64 {
        spot * ((self.rate - self.dividend) * self.maturity).exp()
    }

    /// The vanilla for `option` at `strike` with vol `vol` on this expiry.
    pub fn vanilla(&self, spot: f64, option: OptionType, strike: f64, vol: f64) -> Vanilla {
        Vanilla { option, spot, strike, maturity: self.maturity, rate: self.rate, dividend: self.dividend, vol }
    }
}

/// Dividend yield implied by put-call parity on mid quotes: for each row with
/// `|K/S - 1| <= band` and positive mids, `q = -ln((C - P + K e^{-rT}) / S) / T`; the median
/// over those rows, and how many there were.
///
/// # Errors
/// [`MarketError::Insufficient`] when no row qualifies.
pub fn implied_dividend(rows: &[StrikeRow], spot: f64, rate: f64, maturity: f64, band: f64) -> Result<(f64, usize)> {
    let mut qs: Vec<f64> = rows
        .iter()
        .filter(|r| (r.strike / spot - 1.0).abs() <= band && r.call.mid() > 0.0 && r.put.mid() > 0.0)
        .map(|r| {
            let pv_forward = r.call.mid() - r.put.mid() + r.strike * (-rate * maturity).exp();
            -(pv_forward / spot).ln() / maturity
        })
        .filter(|q| q.is_finite())
        .collect();
    if qs.is_empty() {
        return Err(MarketError::Insufficient(format!(
            "no strike within {band} of spot with two-sided quotes for maturity {maturity}"
        )));
    }
    qs.sort_by(f64::total_cmp);
    let n = qs.len();
    let median = if n % 2 == 1 { qs[n / 2] } else { 0.5 * (qs[n / 2 - 1] + qs[n / 2]) };
    Ok((median, n))
}

/// Least-squares fit of put-call parity `C - P = D F - D K` on mid quotes of the rows within
/// `band` of spot: returns `(D, F)`, the market's discount factor and forward for the expiry.
///
/// # Errors
/// [`MarketError::Insufficient`] with fewer than two distinct strikes or a non-positive fit.
pub fn parity_regression(rows: &[StrikeRow], spot: f64, band: f64) -> Result<(f64, f64)> {
    let pts: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| (r.strike / spot - 1.0).abs() <= band && r.call.mid() > 0.0 && r.put.mid() > 0.0)
        .map(|r| (r.strike, r.call.mid() - r.put.mid()))
        .collect();
    let n = pts.len() as f64;
    let (mk, my) = (pts.iter().map(|p| p.0).sum::<f64>() / n, pts.iter().map(|p| p.1).sum::<f64>() / n);
    let sxx: f64 = pts.iter().map(|p| (p.0 - mk).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mk) * (p.1 - my)).sum();
    if pts.len() < 2 || sxx <= 0.0 {
        return Err(MarketError::Insufficient(format!("parity regression needs two strikes within {band} of spot")));
    }
    let d = -sxy / sxx;
    let f = (my + d * mk) / d;
    if !(d > 0.0 && f > 0.0 && d.is_finite() && f.is_finite()) {
        return Err(MarketError::Insufficient(format!("parity regression gave D = {d}, F = {f}")));
    }
    Ok((d, f))
}

/// Groups the chain's strike rows ([`strike_rows`]) by expiry date and computes each expiry's
/// rate and implied dividend; returns the spot, the snapshot date and the expiries in date
/// order. A row repeated (same expiry date and strike, e.g. in two files of a merged chain) is
/// kept once, the first in quote order.
///
/// # Errors
/// [`MarketError::Insufficient`] when the chain has no spot (a Yahoo chain) or an expiry has no
/// quotes near the money; as [`strike_rows`]. (Files of one snapshot that disagree on spot or
/// date are refused when merged, by [`crate::cboe::load_cboe_files`].)
pub fn expiry_params(chain: &Chain, curve: &ParYieldRow) -> Result<(f64, NaiveDate, Vec<ExpiryParams>)> {
    let spot = chain.spot.ok_or_else(|| {
        MarketError::Insufficient(format!("{}: no spot (the `Last:` field of a Cboe file)", chain.source))
    })?;
    let date = chain.as_of.date();
    let mut by_expiry: BTreeMap<NaiveDate, Vec<StrikeRow>> = BTreeMap::new();
    for r in strike_rows(chain)? {
        let rows = by_expiry.entry(r.expiry).or_default();
        if !rows.iter().any(|x| x.strike == r.strike) {
            rows.push(r);
        }
    }
    let mut out = Vec::new();
    for (expiry, mut rows) in by_expiry {
        rows.sort_by(|a, b| a.strike.total_cmp(&b.strike));
        let maturity = act365f(date, expiry);
        let rate = curve.continuous_rate(maturity);
        let (dividend, parity_strikes) = implied_dividend(&rows, spot, rate, maturity, PARITY_BAND)?;
        let (market_discount, market_forward) = parity_regression(&rows, spot, REGRESSION_BAND)?;
        out.push(ExpiryParams {
            expiry,
            maturity,
            rate,
            dividend,
            parity_strikes,
            market_discount,
            market_forward,
            rows,
        });
    }
    Ok((spot, date, out))
}

/// An expiry's smile: (strike, implied vol) where Cboe gives one, the mean of the call's and
/// the put's IV when both are positive.
#[derive(Debug, Clone, PartialEq)]
pub struct Smile {
    /// `(strike, vol)`, ascending in strike.
    pub points: Vec<(f64, f64)>,
}

impl Smile {
    /// The smile of `rows`.
    pub fn new(rows: &[StrikeRow]) -> Self {
        let points = rows
            .iter()
            .filter_map(|r| match (r.call.vendor_iv, r.put.vendor_iv) {
                (Some(c), Some(p)) => Some((r.strike, 0.5 * (c + p))),
                (Some(c), None) => Some((r.strike, c)),
                (None, Some(p)) => Some((r.strike, p)),
                (None, None) => None,
            })
            .collect();
        Self { points }
    }

    /// Implied vol at `strike`: linear between listed strikes, flat beyond; `None` for an
    /// empty smile.
    pub fn vol_at(&self, strike: f64) -> Option<f64> {
        let p = &self.points;
        let i = p.iter().position(|(k, _)| *k >= strike);
        match i {
            None => p.last().map(|x| x.1),
            Some(0) => Some(p[0].1),
            Some(i) => {
                let ((k0, v0), (k1, v1)) = (p[i - 1], p[i]);
                Some(v0 + (v1 - v0) * (strike - k0) / (k1 - k0))
            }
        }
    }
}

/// The generated book and what was left out.
#[derive(Debug, Clone)]
pub struct SpxBook {
    /// Spot from the file header.
    pub spot: f64,
    /// Snapshot date.
    pub date: NaiveDate,
    /// Date of the Treasury curve used.
    pub curve_date: NaiveDate,
    /// Per-expiry parameters.
    pub expiries: Vec<ExpiryParams>,
    /// The trades: Europeans in expiry and strike order (call before put), then the exotics.
    pub trades: Vec<Trade>,
    /// Quotes skipped because their IV is 0.
    pub skipped_iv_zero: usize,
}

fn round_to(x: f64, step: f64) -> f64 {
    (x / step).round() * step
}

/// Builds the SPX book from a Cboe chain and a Treasury curve (method in the module docs).
///
/// # Errors
/// As [`expiry_params`]; [`MarketError::Insufficient`] when an exotic expiry is not in the
/// chain or has no smile.
pub fn build_spx_book(chain: &Chain, curve: &ParYieldRow) -> Result<SpxBook> {
    let (spot, date, expiries) = expiry_params(chain, curve)?;
    let mut trades = Vec::new();
    let mut skipped_iv_zero = 0;
    for e in &expiries {
        for r in &e.rows {
            for (q, option) in [(&r.call, OptionType::Call), (&r.put, OptionType::Put)] {
                let Some(iv) = q.vendor_iv else {
                    skipped_iv_zero += 1;
                    continue;
                };
                trades.push(Trade {
                    id: q.symbol.clone(),
                    line: 0,
                    kind: TradeKind::European(e.vanilla(spot, option, r.strike, iv)),
                });
            }
        }
    }
    for (y, m, d) in EXOTIC_EXPIRIES {
        let expiry = NaiveDate::from_ymd_opt(y, m, d)
            .ok_or_else(|| MarketError::Insufficient(format!("bad exotic expiry {y}-{m}-{d}")))?;
        let e = expiries
            .iter()
            .find(|e| e.expiry == expiry)
            .ok_or_else(|| MarketError::Insufficient(format!("exotic expiry {expiry} not in the Cboe files")))?;
        let smile = Smile::new(&e.rows);
        let vol = |k: f64| smile.vol_at(k).ok_or_else(|| MarketError::Insufficient(format!("no IVs for {expiry}")));
        let tag = expiry.format("%Y%m%d");
        let months = (e.maturity * 12.0).round().max(1.0) as u32;
        let weeks = (e.maturity * 52.0).round().max(1.0) as u32;

        // Asians: 90 / 100 / 110 % strikes, calls and puts, geometric and arithmetic, monthly fixings.
        for pct in [90.0, 100.0, 110.0] {
            let k = round_to(spot * pct / 100.0, 5.0);
            for option in [OptionType::Call, OptionType::Put] {
                let v = e.vanilla(spot, option, k, vol(k)?);
                let cp = if option == OptionType::Call { "C" } else { "P" };
                let a = AsianTrade { vanilla: v, fixings: months };
                trades.push(Trade { id: format!("SPX-AGEO-{tag}-{cp}{k}"), line: 0, kind: TradeKind::AsianGeo(a) });
                trades.push(Trade { id: format!("SPX-AARI-{tag}-{cp}{k}"), line: 0, kind: TradeKind::AsianArith(a) });
            }
        }
        // Barriers: (option, strike %, barrier %, type, rebate), continuous and weekly monitored.
        let specs = [
            (OptionType::Put, 100.0, 85.0, BarrierType::DownOut, 0.0),
            (OptionType::Put, 100.0, 85.0, BarrierType::DownIn, 0.0),
            (OptionType::Call, 100.0, 115.0, BarrierType::UpOut, 0.0),
            (OptionType::Call, 100.0, 115.0, BarrierType::UpIn, 0.0),
            (OptionType::Call, 95.0, 80.0, BarrierType::DownOut, 25.0),
            (OptionType::Put, 105.0, 120.0, BarrierType::UpOut, 25.0),
        ];
        for (option, kp, bp, barrier_type, rebate) in specs {
            let k = round_to(spot * kp / 100.0, 5.0);
            let barrier = round_to(spot * bp / 100.0, 5.0);
            let v = e.vanilla(spot, option, k, vol(k)?);
            let cp = if option == OptionType::Call { "C" } else { "P" };
            let bt = barrier_type_name(barrier_type).replace('_', "").to_uppercase();
            for (fixings, mon) in [(None, "CONT"), (Some(weeks), "WKLY")] {
                trades.push(Trade {
                    id: format!("SPX-BAR-{tag}-{cp}{k}-{bt}{barrier}-{mon}"),
                    line: 0,
                    kind: TradeKind::Barrier(BarrierTrade { vanilla: v, barrier, barrier_type, rebate, fixings }),
                });
            }
        }
    }
    Ok(SpxBook { spot, date, curve_date: curve.date, expiries, trades, skipped_iv_zero })
}

/// One European quote priced at its own quoted IV, against its bid and ask.
#[derive(Debug, Clone, PartialEq)]
pub struct QuoteCheck {
    /// OCC symbol.
    pub symbol: String,
    /// Expiration date.
    pub expiry: NaiveDate,
    /// Strike.
    pub strike: f64,
    /// Call or put.
    pub option: OptionType,
    /// Best bid.
    pub bid: f64,
    /// Best ask.
    pub ask: f64,
    /// Quoted IV (4 decimals).
    pub iv: f64,
    /// Black-Scholes-Merton price at `iv` with the book's rate and dividend.
    pub model: f64,
    /// dV/dsigma at `iv`.
    pub vega: f64,
    /// dV/dS at `iv`.
    pub delta: f64,
    /// Price at `iv` with the rate and dividend implied by the market alone (the expiry's
    /// parity regression) instead of the Treasury rate.
    pub market_model: f64,
}

/// Why a quote priced at its IV is outside its bid-ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissReason {
    /// Within the price change of half a unit in the IV's 4th decimal (`0.00005 vega`): the
    /// quoted IV is rounded, so the exact IV may price inside.
    IvRounding,
    /// Inside (to IV rounding) when discounted with the market's parity-implied discount
    /// factor: the Treasury curve of the book (the latest before the snapshot, 2025-07-11, before
    /// the September 2025 rate cut) discounts more than the options market does.
    Discounting,
    /// Deep in the money (|delta| >= 0.9): the price is mostly discounted intrinsic value, so
    /// the miss measures the gap between Cboe's forward and discounting and ours (the stale
    /// Treasury curve, the parity dividend), not the vol.
    DeepInTheMoney,
    /// None of the above: Cboe's IV itself disagrees with the bid and ask under either
    /// discounting (mostly low-priced far out-of-the-money puts, and a few PM-settled `SPXW`
    /// quotes). The file does not say which time to expiry, forward or price Cboe solved the IV
    /// from, so this stays unexplained.
    IvInconsistent,
}

impl MissReason {
    /// Short name for reports.
    pub fn as_str(self) -> &'static str {
        match self {
            MissReason::IvRounding => "iv_rounding",
            MissReason::Discounting => "discounting",
            MissReason::DeepInTheMoney => "deep_itm",
            MissReason::IvInconsistent => "iv_inconsistent",
        }
    }
}

impl QuoteCheck {
    /// Whether `bid <= model <= ask`.
    pub fn inside(&self) -> bool {
        self.bid <= self.model && self.model <= self.ask
    }

    /// Distance from the model price to the bid-ask band (0 inside).
    pub fn miss(&self) -> f64 {
        self.miss_of(self.model)
    }

    fn miss_of(&self, price: f64) -> f64 {
        (self.bid - price).max(price - self.ask).max(0.0)
    }

    /// Half a unit of the IV's 4th decimal, in price: `0.00005 vega`.
    pub fn rounding(&self) -> f64 {
        0.00005 * self.vega
    }

    /// `None` inside the band, else why not.
    pub fn reason(&self) -> Option<MissReason> {
        if self.inside() {
            None
        } else if self.miss() <= self.rounding() {
            Some(MissReason::IvRounding)
        } else if self.miss_of(self.market_model) <= self.rounding() {
            Some(MissReason::Discounting)
        } else if self.delta.abs() >= 0.9 {
            Some(MissReason::DeepInTheMoney)
        } else {
            Some(MissReason::IvInconsistent)
        }
    }
}

/// Prices every European quote with a positive IV at that IV (Black-Scholes-Merton with the
/// expiry's rate and parity dividend) for comparison with its bid and ask.
///
/// # Errors
/// [`PricingError`] if a quote's parameters leave the closed form's domain.
pub fn check_quotes(spot: f64, expiries: &[ExpiryParams]) -> Result<Vec<QuoteCheck>, PricingError> {
    let mut out = Vec::new();
    for e in expiries {
        for r in &e.rows {
            for (q, option) in [(&r.call, OptionType::Call), (&r.put, OptionType::Put)] {
                let Some(iv) = q.vendor_iv else { continue };
                let v = e.vanilla(spot, option, r.strike, iv);
                let g = tenor_pricing::analytic::black_scholes(&v)?;
                let rate = -e.market_discount.ln() / e.maturity;
                let dividend = rate - (e.market_forward / spot).ln() / e.maturity;
                let market = tenor_pricing::analytic::black_scholes_price(&Vanilla { rate, dividend, ..v })?;
                out.push(QuoteCheck {
                    symbol: q.symbol.clone(),
                    expiry: e.expiry,
                    strike: r.strike,
                    option,
                    bid: q.bid,
                    ask: q.ask,
                    iv,
                    model: g.price,
                    vega: g.vega,
                    delta: g.delta,
                    market_model: market,
                });
            }
        }
    }
    Ok(out)
}
