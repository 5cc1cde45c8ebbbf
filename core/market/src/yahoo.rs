//! Loader for Yahoo Finance option chain CSV exports (the layout of
//! `shared/data/options/spx_yahoo_chain_2026-01-30.csv`: columns `contractSymbol`,
//! `lastTradeDate`, `strike`, `lastPrice`, `bid`, `ask`, …, `impliedVolatility`, …,
//! `option_type`, `expiration`; CRLF line endings).
//!
//! The file has no spot and no snapshot date: the caller gives the snapshot date (taken as its
//! 16:00 ET close). Zero and crossed quotes are kept as they are (the implied-volatility engine
//! reports them with their reason); the settlement comes from the OCC root (`SPX` AM, `SPXW`
//! PM), and the symbol must agree with the `strike`, `option_type` and `expiration` columns.

use std::path::Path;

use chrono::{NaiveDate, NaiveTime};
use tenor_pricing::types::OptionType;

use crate::error::{read_file, MarketError, Result};
use crate::quotes::{Chain, OccSymbol, OptionQuote, Settlement};

const REQUIRED: [&str; 8] =
    ["contractSymbol", "strike", "lastPrice", "bid", "ask", "impliedVolatility", "option_type", "expiration"];

/// Loads a Yahoo chain CSV taken after the close of `as_of`.
///
/// # Errors
/// [`MarketError::Io`]; [`MarketError::Row`] for a header lacking a required column or a row
/// with the wrong number of fields; [`MarketError::Cell`] naming line and column for an
/// unparsable number, date, type or symbol, or a symbol disagreeing with its row.
pub fn load_yahoo(path: &Path, as_of: NaiveDate) -> Result<Chain> {
    let text = read_file(path)?;
    parse_yahoo(&text, &path.display().to_string(), as_of)
}

/// Parses the text of a Yahoo chain CSV; `file` names it in errors.
///
/// # Errors
/// As [`load_yahoo`].
pub fn parse_yahoo(text: &str, file: &str, as_of: NaiveDate) -> Result<Chain> {
    let unix = tenor_ports::text::normalise_text(tenor_ports::text::strip_bom(text));
    let text: &str = &unix;
    let row_err = |line: u64, message: String| MarketError::Row { file: file.to_owned(), line, message };
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(text.as_bytes());
    let headers = reader.headers().map_err(|e| row_err(1, e.to_string()))?.clone();
    let mut col = [0usize; REQUIRED.len()];
    for (i, name) in REQUIRED.iter().enumerate() {
        col[i] = headers
            .iter()
            .position(|h| h.trim() == *name)
            .ok_or_else(|| row_err(1, format!("header has no `{name}` column")))?;
    }
    let [c_sym, c_strike, c_last, c_bid, c_ask, c_iv, c_type, c_exp] = col;
    let mut quotes = Vec::new();
    // Line numbers count records (header = line 1): the csv crate's own line count does not
    // advance on CRLF terminators, and these files have no quoted newlines.
    for (index, record) in reader.records().enumerate() {
        let line = index as u64 + 2;
        let record = record.map_err(|e| row_err(line, e.to_string()))?;
        let cell = |c: usize, message: String| MarketError::Cell {
            file: file.to_owned(),
            line,
            column: c + 1,
            name: headers.get(c).unwrap_or("").to_owned(),
            message,
        };
        let field = |c: usize| record.get(c).unwrap_or("").trim();
        let num = |c: usize| -> Result<f64> {
            let v = field(c);
            match tenor_ports::number::parse_grouped(v) {
                Ok(x) if x.is_finite() => Ok(x),
                Ok(x) => Err(cell(c, format!("{x} is not finite"))),
                Err(e) => Err(cell(c, e)),
            }
        };
        let symbol = field(c_sym);
        let occ = OccSymbol::parse(symbol).map_err(|m| cell(c_sym, m))?;
        let strike = num(c_strike)?;
        if strike <= 0.0 {
            return Err(cell(c_strike, format!("strike {strike} is not positive")));
        }
        let option_type = match field(c_type) {
            "call" => OptionType::Call,
            "put" => OptionType::Put,
            o => {
                return Err(cell(
                    c_type,
                    format!("option type {:?} is neither call nor put", tenor_ports::text::excerpt(o)),
                ))
            }
        };
        let expiry = NaiveDate::parse_from_str(field(c_exp), "%Y-%m-%d")
            .map_err(|e| cell(c_exp, format!("expiration {:?}: {e}", tenor_ports::text::excerpt(field(c_exp)))))?;
        if occ.expiry != expiry || occ.option_type != option_type || (occ.strike - strike).abs() > 1e-9 {
            return Err(cell(
                c_sym,
                format!("symbol {symbol} disagrees with the row (expiry {expiry}, strike {strike}, {option_type:?})"),
            ));
        }
        let iv = if field(c_iv).is_empty() { None } else { Some(num(c_iv)?) };
        quotes.push(OptionQuote {
            symbol: symbol.to_owned(),
            settlement: Settlement::from_root(&occ.root),
            root: occ.root,
            expiry,
            option_type,
            strike,
            bid: num(c_bid)?,
            ask: num(c_ask)?,
            last: num(c_last)?,
            vendor_iv: iv,
            line,
        });
    }
    let close = NaiveTime::from_hms_opt(16, 0, 0).unwrap_or_default();
    Ok(Chain { source: file.to_owned(), as_of: as_of.and_time(close), spot: None, quotes })
}
