//! Trades from flat fields, for the doors that take trades as numbers rather than CSV text (the C
//! ABI's `TenorTrade` arrays; numpy columns): one copy of the codes and the checks, so every door
//! builds the same [`Trade`] from the same numbers and words the same refusals. The kind and
//! engine codes are those of the product and engine tables (`tenor_pricing::products`,
//! `tenor_pricing::engines`), and the fields are checked by the portfolio's own row reader
//! ([`portfolio::read_trade`]), exactly as the CSV row with the same values would be.

use std::path::Path;

use tenor_pricing::engines::Engine;
use tenor_pricing::portfolio::cells::{Cell, Cells, RowReader};
use tenor_pricing::portfolio::trade::barrier_type_name;
use tenor_pricing::portfolio::{self, BookConfig, Kind, Trade};
use tenor_pricing::types::{BarrierType, OptionType};

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

/// The kind of code `code` in the product table ([`Kind::c_code`]) for trade `i`.
///
/// # Errors
/// Any other code, naming the field, the trade and the codes there are.
pub fn kind(code: u32, i: usize) -> Result<Kind, String> {
    Kind::from_c_code(code).ok_or_else(|| {
        let known: Vec<String> =
            Kind::ALL.iter().filter_map(|k| k.c_code().map(|c| format!("{c} ({})", k.as_str()))).collect();
        format!("trade {i}: field `kind` is {code}; expected one of {}", known.join(", "))
    })
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

/// A flat trade as the cells of a portfolio row: the common columns and its kind's own
/// (numbers as numbers, codes as the portfolio's names, `fixings` 0 as an empty cell).
struct FlatCells<'a> {
    t: &'a FlatTrade,
    id: String,
    option: &'static str,
    barrier_type: Option<&'static str>,
    fixings: String,
}

impl Cells for FlatCells<'_> {
    fn has(&self, column: &str) -> bool {
        portfolio::COMMON_COLUMNS.contains(&column) || self.t.kind.columns().contains(&column)
    }

    fn get(&self, column: &str) -> Option<Cell<'_>> {
        if !self.has(column) {
            return None;
        }
        let t = self.t;
        Some(match column {
            "id" => Cell::Text(&self.id),
            "kind" => Cell::Text(t.kind.as_str()),
            "type" => Cell::Text(self.option),
            "spot" => Cell::Number(t.spot),
            "strike" => Cell::Number(t.strike),
            "maturity" => Cell::Number(t.maturity),
            "rate" => Cell::Number(t.rate),
            "dividend" => Cell::Number(t.dividend),
            "vol" => Cell::Number(t.vol),
            "barrier" => Cell::Number(t.barrier),
            "barrier_type" => Cell::Text(self.barrier_type?),
            "rebate" => Cell::Number(t.rebate),
            "fixings" if t.fixings == 0 => return None,
            "fixings" => Cell::Text(&self.fixings),
            // A column of the kind that flat fields do not carry (Heston's parameters): empty,
            // so the row reader names it as missing.
            _ => return None,
        })
    }
}

impl FlatTrade {
    /// The library's trade for these fields at index `i` (id = the index, line 0), read and
    /// checked by the portfolio's row reader.
    ///
    /// # Errors
    /// A bad code, or the first problem the row reader finds (`trade i: field `vol`: -0.2 is out
    /// of range: must be > 0`; a kind whose columns flat fields lack, Heston's, is refused so).
    pub fn to_trade(&self, i: usize) -> Result<Trade, String> {
        let option = match option_type(self.option_type, i)? {
            OptionType::Call => "call",
            OptionType::Put => "put",
        };
        let barrier_type = if self.kind.columns().contains(&"barrier_type") {
            Some(barrier_type_name(barrier_type(self.barrier_type, i)?))
        } else {
            None
        };
        let cells = FlatCells { t: self, id: i.to_string(), option, barrier_type, fixings: self.fixings.to_string() };
        let mut row = RowReader::new(&cells, Path::new("<flat trades>"), 0);
        let trade = portfolio::read_trade(&mut row);
        match (trade, row.into_errors().into_iter().next()) {
            (Some(trade), None) => Ok(trade),
            (_, Some(e)) => Err(match e.location.column {
                Some(field) => format!("trade {i}: field `{field}`: {}", e.problem),
                None => format!("trade {i}: {}", e.problem),
            }),
            (None, None) => Err(format!("trade {i}: not a valid trade")),
        }
    }
}

/// The book settings of flat codes: `engine` by its code in the engine choices
/// ([`Engine::from_code`]: 0 auto, 1 Monte Carlo); checked ([`BookConfig::check`]).
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
    let engine = Engine::from_code(engine).ok_or_else(|| {
        let known: Vec<String> = Engine::ALL.iter().map(|e| format!("{} ({})", e.code(), e.as_str())).collect();
        format!("config field `engine` is {engine}; expected {}", known.join(" or "))
    })?;
    let streams = usize::try_from(streams).map_err(|_| "config field `streams` too large".to_owned())?;
    let config = BookConfig { engine, paths, seed, steps, streams, greeks };
    config.check().map_err(|e| format!("config field {e}"))?;
    Ok(config)
}
