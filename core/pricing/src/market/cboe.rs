//! Reader for Cboe "quotedata" option-chain downloads (the "Download CSV" of the Cboe delayed
//! quotes page), as in `shared/data/options/spx_cboe_2025-10-01/`.
//!
//! Layout: line 1 blank; line 2 `<name>,Last: <spot>,Change: ...`; line 3
//! `"Date: <Month> <d>, <yyyy> at <time>",...`; line 4 the header; data from line 5. Each data
//! row holds a call and a put at one strike: `Expiration Date` (`Fri Apr 17 2026`), the call's
//! `Calls` (OCC symbol), `Last Sale`, `Net`, `Bid`, `Ask`, `Volume`, `IV`, `Delta`, `Gamma`,
//! `Open Interest`, then `Strike`, then the same ten fields for the put. The names repeat, so
//! columns are read by position. Prices are in index points; IV is a decimal.

use std::path::Path;

use chrono::NaiveDate;

use super::error::MarketError;

/// One side (call or put) of a Cboe row.
#[derive(Debug, Clone, PartialEq)]
pub struct Quote {
    /// OCC symbol, e.g. `SPX260417C01200000`.
    pub symbol: String,
    /// Best bid, index points.
    pub bid: f64,
    /// Best ask, index points.
    pub ask: f64,
    /// Cboe's implied volatility (decimal, 4 decimals; 0 when Cboe could not compute one).
    pub iv: f64,
}

impl Quote {
    /// `(bid + ask) / 2`.
    pub fn mid(&self) -> f64 {
        0.5 * (self.bid + self.ask)
    }
}

/// One strike row: a call and a put of the same expiry and strike.
#[derive(Debug, Clone, PartialEq)]
pub struct StrikeRow {
    /// Expiration date.
    pub expiry: NaiveDate,
    /// Symbol root (`SPX` AM-settled monthlies, `SPXW` PM-settled).
    pub root: String,
    /// Strike, index points.
    pub strike: f64,
    /// The call.
    pub call: Quote,
    /// The put.
    pub put: Quote,
    /// 1-based line in the file.
    pub line: u64,
}

/// A parsed quotedata file.
#[derive(Debug, Clone, PartialEq)]
pub struct CboeChain {
    /// Underlying last price from line 2 (`Last: 6711.2002`).
    pub spot: f64,
    /// Date of the download from line 3.
    pub date: NaiveDate,
    /// The strike rows in file order.
    pub rows: Vec<StrikeRow>,
}

fn format_err(path: &Path, line: u64, message: impl Into<String>) -> MarketError {
    MarketError::Format { path: path.to_owned(), line, message: message.into() }
}

/// Reads one Cboe quotedata file.
///
/// # Errors
/// [`MarketError::Io`] when unreadable; [`MarketError::Format`] naming the line when the
/// layout differs from the one described in the module documentation.
pub fn read_cboe(path: &Path) -> Result<CboeChain, MarketError> {
    let text = std::fs::read_to_string(path).map_err(|source| MarketError::Io { path: path.to_owned(), source })?;
    parse_cboe(&text, path)
}

/// Parses the text of a quotedata file; `path` names it in errors.
///
/// # Errors
/// As [`read_cboe`].
pub fn parse_cboe(text: &str, path: &Path) -> Result<CboeChain, MarketError> {
    let lines: Vec<&str> = text.lines().collect();
    let line2 = lines.get(1).ok_or_else(|| format_err(path, 2, "file ends before the underlying line"))?;
    let spot = line2
        .split(',')
        .find_map(|f| f.trim().strip_prefix("Last:"))
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .ok_or_else(|| format_err(path, 2, format!("expected `Last: <spot>` in {line2:?}")))?;
    let line3 = lines.get(2).ok_or_else(|| format_err(path, 3, "file ends before the date line"))?;
    let date = line3
        .trim_start_matches('"')
        .strip_prefix("Date:")
        .and_then(|s| s.split(" at ").next())
        .and_then(|s| NaiveDate::parse_from_str(s.trim(), "%B %d, %Y").ok())
        .ok_or_else(|| format_err(path, 3, format!("expected `\"Date: <Month> <d>, <yyyy> at ...` in {line3:?}")))?;
    let header = lines.get(3).ok_or_else(|| format_err(path, 4, "file ends before the header"))?;
    if !header.starts_with("Expiration Date,Calls,") {
        return Err(format_err(path, 4, format!("unexpected header {header:?}")));
    }

    let mut rows = Vec::new();
    for (i, l) in lines.iter().enumerate().skip(4) {
        let line = i as u64 + 1;
        if l.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = l.split(',').map(str::trim).collect();
        if f.len() != 22 {
            return Err(format_err(path, line, format!("expected 22 fields, found {}", f.len())));
        }
        let num = |k: usize, name: &str| -> Result<f64, MarketError> {
            f[k].parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| format_err(path, line, format!("field {} ({name}) is not a number: {:?}", k + 1, f[k])))
        };
        let expiry = NaiveDate::parse_from_str(f[0], "%a %b %d %Y")
            .map_err(|e| format_err(path, line, format!("expiration date {:?}: {e}", f[0])))?;
        let root: String = f[1].chars().take_while(char::is_ascii_alphabetic).collect();
        let call = Quote {
            symbol: f[1].to_owned(),
            bid: num(4, "call Bid")?,
            ask: num(5, "call Ask")?,
            iv: num(7, "call IV")?,
        };
        let strike = num(11, "Strike")?;
        let put = Quote {
            symbol: f[12].to_owned(),
            bid: num(15, "put Bid")?,
            ask: num(16, "put Ask")?,
            iv: num(18, "put IV")?,
        };
        rows.push(StrikeRow { expiry, root, strike, call, put, line });
    }
    Ok(CboeChain { spot, date, rows })
}
