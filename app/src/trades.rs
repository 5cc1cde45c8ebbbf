//! Trades from flat fields, for the doors that take trades as numbers rather than CSV text (the C
//! ABI's `TenorTrade` arrays; numpy columns): one copy of the codes and the checks, so every door
//! builds the same [`Trade`] from the same numbers and words the same refusals.

use tenor_pricing::portfolio::{AsianTrade, BarrierTrade, BookConfig, Engine, Kind, Trade, TradeKind};
use tenor_pricing::types::{BarrierType, OptionType, Vanilla};

/// One trade as flat fields: the columns of docs/portfolio-csv.md, with the option and barrier
/// types as codes. Fields a kind does not use are ignored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlatTrade {
    /// What the trade is.
    pub kind: Kind,
    /// 0 call, 1 put.
    pub option_type: u32,
    /// Spot price of the underlying.
    pub spot: f64,
    /// Strike.
    pub strike: f64,
    /// Time to expiry, years.
    pub maturity: f64,
    /// Continuously compounded risk-free rate.
    pub rate: f64,
    /// Continuously compounded dividend yield.
    pub dividend: f64,
    /// Black-Scholes volatility.
    pub vol: f64,
    /// Barrier level (barrier trades).
    pub barrier: f64,
    /// 0 down_out, 1 down_in, 2 up_out, 3 up_in (barrier trades).
    pub barrier_type: u32,
    /// Cash rebate (barrier trades).
    pub rebate: f64,
    /// Monitoring dates: Asians >= 1; barriers 0 for continuous monitoring.
    pub fixings: u32,
}

/// The option type of `code` (0 call, 1 put) for trade `i`.
///
/// # Errors
/// Any other code, naming the field and the trade.
pub fn option_type(code: u32, i: usize) -> Result<OptionType, String> {
    match code {
        0 => Ok(OptionType::Call),
        1 => Ok(OptionType::Put),
        c => Err(format!("trade {i}: field `option_type` is {c}; expected 0 (call) or 1 (put)")),
    }
}

/// The barrier type of `code` (`BarrierType::code`'s numbering) for trade `i`.
///
/// # Errors
/// Any other code, naming the field and the trade.
pub fn barrier_type(code: u32, i: usize) -> Result<BarrierType, String> {
    [BarrierType::DownOut, BarrierType::DownIn, BarrierType::UpOut, BarrierType::UpIn]
        .into_iter()
        .find(|b| b.code() == code)
        .ok_or_else(|| format!("trade {i}: field `barrier_type` is {code}; expected 0..=3"))
}

impl FlatTrade {
    /// The library's trade for these fields at index `i` (id = the index, line 0).
    ///
    /// # Errors
    /// A bad code, a field out of its domain ([`Vanilla::validate`]), an Asian without fixings,
    /// a kind that flat fields cannot describe (Heston needs its model parameters).
    pub fn to_trade(&self, i: usize) -> Result<Trade, String> {
        let t = self;
        let vanilla = Vanilla {
            option: option_type(t.option_type, i)?,
            spot: t.spot,
            strike: t.strike,
            maturity: t.maturity,
            rate: t.rate,
            dividend: t.dividend,
            vol: t.vol,
        };
        vanilla.validate().map_err(|e| format!("trade {i}: {e}"))?;
        let asian = |fixings: u32| {
            if fixings == 0 {
                Err(format!("trade {i}: field `fixings` is 0; an Asian needs at least 1"))
            } else {
                Ok(AsianTrade { vanilla, fixings })
            }
        };
        let kind = match t.kind {
            Kind::European => TradeKind::European(vanilla),
            Kind::American => TradeKind::American(vanilla),
            Kind::Barrier => TradeKind::Barrier(BarrierTrade {
                vanilla,
                barrier: t.barrier,
                barrier_type: barrier_type(t.barrier_type, i)?,
                rebate: t.rebate,
                fixings: (t.fixings > 0).then_some(t.fixings),
            }),
            Kind::AsianGeo => TradeKind::AsianGeo(asian(t.fixings)?),
            Kind::AsianArith => TradeKind::AsianArith(asian(t.fixings)?),
            other => return Err(format!("trade {i}: kind {other} cannot be given as flat fields")),
        };
        Ok(Trade { id: i.to_string(), line: 0, kind })
    }
}

/// The book settings of flat codes: `engine` 0 auto, 1 Monte Carlo; checked
/// ([`BookConfig::check`]).
///
/// # Errors
/// A bad engine code or a setting out of range, named as `field NAME`.
pub fn book_config(
    engine: u32,
    paths: u64,
    seed: u64,
    steps: u32,
    streams: u32,
    greeks: bool,
) -> Result<BookConfig, String> {
    let engine = match engine {
        0 => Engine::Auto,
        1 => Engine::Mc,
        e => return Err(format!("config field `engine` is {e}; expected 0 (auto) or 1 (mc)")),
    };
    let streams = usize::try_from(streams).map_err(|_| "config field `streams` too large".to_owned())?;
    let config = BookConfig { engine, paths, seed, steps, streams, greeks };
    config.check().map_err(|e| format!("config field {e}"))?;
    Ok(config)
}
