//! Loader for Cboe "quote data" chain downloads (the "Download CSV" layout of
//! cboe.com/delayed_quotes, as in `shared/data/options/spx_cboe_2025-10-01/`).
//!
//! Layout: line 1 blank; line 2 `S&P 500 INDEX,Last: 6711.2002,Change: …` (the spot is the
//! `Last:` field); line 3 `"Date: October 1, 2025 at 6:03 PM EDT",Bid: …` (the download time;
//! the snapshot is taken as the 16:00 ET close of that date); line 4 the header; then one row
//! per strike with 22 columns read by position, because the field names repeat:
//! `Expiration Date` (`Fri Apr 17 2026`), the call block (symbol, last, net, bid, ask, volume,
//! IV, delta, gamma, open interest), `Strike`, then the put block in the same order.
//! AM (`SPX`) and PM (`SPXW`) settlement is taken from the OCC root of each symbol.
//! Each row gives two quotes, the call then the put, in file order; an `IV` (decimal, 4
//! decimals) of 0 or less, written when Cboe could not compute one, is read as no vendor IV.

use std::path::{Path, PathBuf};

use chrono::{NaiveDate, NaiveTime};
use tenor_pricing::types::OptionType;

use crate::error::{read_file, MarketError, Result};
use crate::quotes::{Chain, OccSymbol, OptionQuote, Settlement};

const COLUMNS: usize = 22;
const NAMES: [&str; COLUMNS] = [
    "Expiration Date",
    "Calls",
    "Last Sale",
    "Net",
    "Bid",
    "Ask",
    "Volume",
    "IV",
    "Delta",
    "Gamma",
    "Open Interest",
    "Strike",
    "Puts",
    "Last Sale",
    "Net",
    "Bid",
    "Ask",
    "Volume",
    "IV",
    "Delta",
    "Gamma",
    "Open Interest",
];

/// Loads one Cboe quote-data file (see the module docs).
///
/// # Errors
/// [`MarketError::Io`] when unreadable; [`MarketError::Source`] naming the file when it is empty
/// (or blank); [`MarketError::Row`] naming the file and line for a
/// missing spot or date line, a wrong header or a row without 22 fields;
/// [`MarketError::Cell`] naming line and column for an unparsable number, date or OCC symbol,
/// or a symbol whose expiry, type or strike disagrees with its row.
pub fn load_cboe(path: &Path) -> Result<Chain> {
    let text = read_file(path)?;
    parse_cboe(&text, &path.display().to_string())
}

/// The `*.csv` files of a folder of Cboe downloads of one snapshot (extension in any case), in
/// file-name order.
///
/// # Errors
/// [`MarketError::Io`] when the folder cannot be listed; [`MarketError::Source`] naming the
/// folder when it has no CSV file.
pub fn cboe_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).map_err(|source| MarketError::Io { path: dir.to_owned(), source })?;
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("csv")))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(MarketError::Source { path: dir.to_owned(), message: "the folder has no .csv file".into() });
    }
    Ok(files)
}

/// Loads every `*.csv` file of a folder of Cboe downloads of one snapshot, in file-name order
/// ([`cboe_files`], then [`load_cboe_files`]).
///
/// # Errors
/// As [`cboe_files`] and [`load_cboe_files`].
pub fn load_cboe_dir(dir: &Path) -> Result<Chain> {
    load_cboe_files(&cboe_files(dir)?, &dir.display().to_string())
}

/// Loads Cboe downloads of one snapshot and merges them into one chain, quotes in the order of
/// `files` and, within a file, of its lines; `source` names the merged chain.
///
/// # Errors
/// As [`load_cboe`]; [`MarketError::Row`] naming the file and line 2 when a file's spot or date
/// differs from the first file's; [`MarketError::Source`] naming `source` when `files` is empty.
pub fn load_cboe_files(files: &[PathBuf], source: &str) -> Result<Chain> {
    let mut merged: Option<Chain> = None;
    for f in files {
        let c = load_cboe(f)?;
        match merged.as_mut() {
            None => merged = Some(Chain { source: source.to_owned(), ..c }),
            Some(m) => {
                if m.spot != c.spot || m.as_of != c.as_of {
                    return Err(MarketError::Row {
                        file: f.display().to_string(),
                        line: 2,
                        message: format!(
                            "spot {} at {} differs from the folder's first file ({} at {})",
                            spot_text(c.spot),
                            c.as_of,
                            spot_text(m.spot),
                            m.as_of
                        ),
                    });
                }
                m.quotes.extend(c.quotes);
            }
        }
    }
    merged.ok_or_else(|| MarketError::Source { path: source.into(), message: "no Cboe file given".into() })
}

/// A header's spot for messages: the number, or "none".
fn spot_text(spot: Option<f64>) -> String {
    spot.map_or_else(|| "none".to_owned(), |s| s.to_string())
}

/// The text of the spot line's `Last:` field, thousands separators included: the field runs
/// from `Last:` to the next comma-separated field that carries a label (`Change: …`), so
/// `Last: 6,711.20,Change: 22.74` gives `6,711.20` (quotes around the field are dropped).
fn last_field(line: &str) -> Option<String> {
    let rest = &line[line.find("Last:")? + "Last:".len()..];
    let mut pieces = rest.split(',');
    let mut value = pieces.next().unwrap_or("").to_owned();
    for piece in pieces {
        if piece.contains(':') || piece.trim().is_empty() {
            break;
        }
        value.push(',');
        value.push_str(piece);
    }
    Some(value.trim().trim_matches('"').trim().to_owned())
}

/// Parses the text of a Cboe quote-data download; `file` names it in errors.
///
/// # Errors
/// As [`load_cboe`].
pub fn parse_cboe(text: &str, file: &str) -> Result<Chain> {
    let text = tenor_ports::text::strip_bom(text);
    let row_err = |line: u64, message: String| MarketError::Row { file: file.to_owned(), line, message };
    if text.trim().is_empty() {
        return Err(MarketError::Source {
            path: file.into(),
            message: "the file is empty: it has none of the Cboe quote-data lines".into(),
        });
    }
    // Windows (CRLF) and old Mac (bare CR) line ends read like Unix ones: the CSV reader alone
    // would count lines differently and misplace the header.
    let unix = tenor_ports::text::normalise_text(text);
    let text: &str = &unix;
    let lines: Vec<&str> = text.lines().collect();
    let spot_line = lines.get(1).ok_or_else(|| row_err(2, "missing the spot line".into()))?;
    let spot = last_field(spot_line).ok_or_else(|| row_err(2, format!("no `Last:` field in {spot_line:?}"))).and_then(
        |text| tenor_ports::number::parse_grouped(&text).map_err(|e| row_err(2, format!("spot `Last:` {e}"))),
    )?;
    if !(spot.is_finite() && spot > 0.0) {
        return Err(row_err(2, format!("spot {spot} is not positive")));
    }
    let date_line = lines.get(2).ok_or_else(|| row_err(3, "missing the date line".into()))?;
    let date_text = date_line
        .trim_start_matches('"')
        .strip_prefix("Date:")
        .and_then(|r| r.split(" at ").next())
        .ok_or_else(|| row_err(3, format!("no `Date: … at …` field in {date_line:?}")))?
        .trim();
    let as_of_date = NaiveDate::parse_from_str(date_text, "%B %d, %Y")
        .map_err(|e| row_err(3, format!("date {date_text:?}: {e}")))?;
    let close = NaiveTime::from_hms_opt(16, 0, 0).unwrap_or_default();

    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(text.as_bytes());
    let mut quotes = Vec::new();
    let mut header_seen = false;
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e.position().map(|p| p.line()).unwrap_or(0);
            row_err(line, e.to_string())
        })?;
        let line = record.position().map(|p| p.line()).unwrap_or(0);
        if line < 4 {
            continue;
        }
        if line == 4 {
            let ok = record.len() == COLUMNS && record.iter().zip(NAMES).all(|(a, b)| a.trim() == b);
            if !ok {
                return Err(row_err(
                    4,
                    format!(
                        "header is not the 22-column Cboe layout: {:?}",
                        tenor_ports::text::excerpt(record.as_slice())
                    ),
                ));
            }
            header_seen = true;
            continue;
        }
        if record.iter().all(|f| f.trim().is_empty()) {
            continue;
        }
        if record.len() != COLUMNS {
            return Err(row_err(line, format!("{} fields, expected {COLUMNS}", record.len())));
        }
        let cell = |col: usize, message: String| MarketError::Cell {
            file: file.to_owned(),
            line,
            column: col + 1,
            name: NAMES[col].to_owned(),
            message,
        };
        let field = |col: usize| record.get(col).unwrap_or("").trim();
        let num = |col: usize| -> Result<f64> {
            let v = field(col);
            let x = tenor_ports::number::parse_grouped(v).map_err(|e| cell(col, e))?;
            if x.is_finite() {
                Ok(x)
            } else {
                Err(cell(col, format!("{:?} is not finite", tenor_ports::text::excerpt(v))))
            }
        };
        let expiry = NaiveDate::parse_from_str(field(0), "%a %b %d %Y")
            .map_err(|e| cell(0, format!("expiry {:?}: {e}", tenor_ports::text::excerpt(field(0)))))?;
        let strike = num(11)?;
        if strike <= 0.0 {
            return Err(cell(11, format!("strike {strike} is not positive")));
        }
        for (base, option_type) in [(1usize, OptionType::Call), (12, OptionType::Put)] {
            let symbol = field(base);
            let occ = OccSymbol::parse(symbol).map_err(|m| cell(base, m))?;
            if occ.expiry != expiry || occ.option_type != option_type || (occ.strike - strike).abs() > 1e-9 {
                return Err(cell(
                    base,
                    format!(
                        "symbol {symbol} disagrees with the row (expiry {expiry}, strike {strike}, {option_type:?})"
                    ),
                ));
            }
            let bid = num(base + 3)?;
            let ask = num(base + 4)?;
            let last = num(base + 1)?;
            let iv = num(base + 6)?;
            quotes.push(OptionQuote {
                symbol: symbol.to_owned(),
                settlement: Settlement::from_root(&occ.root),
                root: occ.root,
                expiry,
                option_type,
                strike,
                bid,
                ask,
                last,
                vendor_iv: (iv > 0.0).then_some(iv),
                line,
            });
        }
    }
    if !header_seen {
        return Err(row_err(4, "missing the header line".into()));
    }
    Ok(Chain { source: file.to_owned(), as_of: as_of_date.and_time(close), spot: Some(spot), quotes })
}
