//! Option quotes and chains as the loaders return them.

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
use tenor_pricing::types::OptionType;

/// When an index option settles on its expiry date (Cboe SPX product specifications).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Settlement {
    /// AM-settled (OCC root `SPX`): the special opening quotation, 09:30 ET, of the expiry date.
    Am,
    /// PM-settled (OCC root `SPXW` and other weekly roots): the 16:00 ET close.
    Pm,
}

impl Settlement {
    /// The settlement from an OCC root: `SPX` is AM, everything else (`SPXW`) PM.
    pub fn from_root(root: &str) -> Self {
        if root == "SPX" {
            Self::Am
        } else {
            Self::Pm
        }
    }
    /// Settlement time of day (US Eastern).
    pub fn time(self) -> NaiveTime {
        match self {
            Self::Am => NaiveTime::from_hms_opt(9, 30, 0).unwrap_or_default(),
            Self::Pm => NaiveTime::from_hms_opt(16, 0, 0).unwrap_or_default(),
        }
    }
    /// `AM` or `PM`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Am => "AM",
            Self::Pm => "PM",
        }
    }
}

/// A parsed OCC option symbol, e.g. `SPXW260630P02600000`.
#[derive(Debug, Clone, PartialEq)]
pub struct OccSymbol {
    /// Root (`SPX`, `SPXW`).
    pub root: String,
    /// Expiry date (from `YYMMDD`, years 2000-2099).
    pub expiry: NaiveDate,
    /// Call or put.
    pub option_type: OptionType,
    /// Strike in index points (the 8 digits are thousandths).
    pub strike: f64,
}

impl OccSymbol {
    /// Parses `ROOT YYMMDD C|P SSSSSSSS` (root 1-6 letters, no padding).
    ///
    /// # Errors
    /// A message saying which part is malformed.
    pub fn parse(symbol: &str) -> Result<Self, String> {
        let s = symbol.trim();
        if s.len() < 16 || !s.is_ascii() {
            return Err(format!("OCC symbol {s:?} is shorter than 16 characters"));
        }
        let (root, rest) = s.split_at(s.len() - 15);
        if root.is_empty() || !root.chars().all(|c| c.is_ascii_alphabetic()) {
            return Err(format!("OCC symbol {s:?}: root {root:?} is not letters"));
        }
        let date = &rest[..6];
        let expiry = NaiveDate::parse_from_str(&format!("20{date}"), "%Y%m%d")
            .map_err(|e| format!("OCC symbol {s:?}: date {date:?}: {e}"))?;
        let option_type = match &rest[6..7] {
            "C" => OptionType::Call,
            "P" => OptionType::Put,
            o => return Err(format!("OCC symbol {s:?}: type {o:?} is neither C nor P")),
        };
        let digits = &rest[7..];
        let strike = digits
            .parse::<u64>()
            .map_err(|e| format!("OCC symbol {s:?}: strike {digits:?}: {e}"))
            .map(|v| v as f64 / 1000.0)?;
        Ok(Self { root: root.to_owned(), expiry, option_type, strike })
    }
}

/// One option quote. Prices are in index points (the SPX multiplier is 100).
#[derive(Debug, Clone, PartialEq)]
pub struct OptionQuote {
    /// OCC symbol.
    pub symbol: String,
    /// OCC root (`SPX` AM-settled monthly, `SPXW` PM-settled).
    pub root: String,
    /// Expiry date.
    pub expiry: NaiveDate,
    /// AM or PM settlement.
    pub settlement: Settlement,
    /// Call or put.
    pub option_type: OptionType,
    /// Strike in index points.
    pub strike: f64,
    /// Best bid (0 when there is none).
    pub bid: f64,
    /// Best ask (0 when there is none).
    pub ask: f64,
    /// Last sale (may be stale).
    pub last: f64,
    /// The vendor's implied volatility (decimal); `None` where the vendor gives none (Cboe writes
    /// 0). Not used by the surface, which solves its own; the example SPX book
    /// ([`crate::spx_book`]) prices each European at it.
    pub vendor_iv: Option<f64>,
    /// 1-based line of the source file the quote came from.
    pub line: u64,
}

impl OptionQuote {
    /// Bid/ask mid.
    pub fn mid(&self) -> f64 {
        0.5 * (self.bid + self.ask)
    }
    /// Whether the quote has a positive bid and ask with bid ≤ ask.
    pub fn is_two_sided(&self) -> bool {
        self.bid > 0.0 && self.ask > 0.0 && self.bid <= self.ask
    }
}

/// An option chain snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct Chain {
    /// Where it came from (file or folder).
    pub source: String,
    /// Snapshot time (US Eastern; the close, 16:00, for after-close downloads).
    pub as_of: NaiveDateTime,
    /// Underlying spot when the file gives it (Cboe line 2), else `None` (Yahoo).
    pub spot: Option<f64>,
    /// All quotes in file order.
    pub quotes: Vec<OptionQuote>,
}

/// An expiry slice key: the expiry date and its settlement (SPX AM and SPXW PM of the same date
/// are distinct slices).
pub type SliceKey = (NaiveDate, Settlement);

impl Chain {
    /// Year fraction ACT/365F from the snapshot to the settlement time of `expiry` with
    /// `settlement` (AM: 09:30 ET, PM: 16:00 ET), counted in exact minutes.
    pub fn maturity(&self, expiry: NaiveDate, settlement: Settlement) -> f64 {
        let end = expiry.and_time(settlement.time());
        (end - self.as_of).num_seconds() as f64 / (365.0 * 86_400.0)
    }
    /// The distinct slices, sorted by expiry then settlement.
    pub fn slices(&self) -> Vec<SliceKey> {
        let mut keys: Vec<SliceKey> = self.quotes.iter().map(|q| (q.expiry, q.settlement)).collect();
        keys.sort();
        keys.dedup();
        keys
    }
}
