//! Bars and the loaders for the CSV layouts of shared/data (see its README for each quirk).
//!
//! Layouts, detected from the header:
//! * pandas-ta SPY daily: `,date,open,high,low,close,volume` (an unnamed index column first,
//!   raw prices, no trailing newline);
//! * Yahoo (backtrader's ORCL, NVDA): `Date,Open,High,Low,Close,Adj Close,Volume` (split-adjusted,
//!   not dividend-adjusted; `Adj Close` is not used);
//! * zipline csvdir: `date,open,high,low,close,volume,dividend,split` (already split-adjusted:
//!   the split column is informational and never re-applied; dividends are cash per share on
//!   the ex-date, paid to the position held at the previous close);
//! * NinjaTrader minute bars: no header, `;`-separated, `yyyyMMdd HHmmss;o;h;l;c;v`, timestamps in
//!   UTC at the end of the bar.
//!
//! Daily bars are stamped at 23:59:59 UTC of their date ([`DAILY_STAMP_SECONDS`]) so that,
//! aligned with minute bars, a day's close is not visible before the session ended.

use std::path::Path;

use chrono::{NaiveDate, NaiveDateTime};
use thiserror::Error;

/// Seconds after 00:00 UTC of its date at which a daily bar is stamped: 23:59:59 UTC, the last
/// second of the date. A daily bar's close is known only after the US regular session ends
/// (16:00 ET, which is 20:00 UTC in summer time and 21:00 UTC in winter time), so the daily
/// bar must sort after every regular-session minute bar of its date when daily and minute data
/// are aligned; 23:59:59 is after all of them in both regimes and, not being on a whole minute,
/// never coincides with a minute bar's stamp (minute bars are stamped `HH:MM:00`). It stays on
/// the bar's own UTC date, so printing the date of the stamp gives the trading date. (After-hours
/// minute bars of the same ET evening stamped after 00:00 UTC sort after it, which is correct:
/// the close is known by then.)
pub const DAILY_STAMP_SECONDS: i64 = 86_399;

/// One bar. `time` is seconds since the Unix epoch, UTC, at the bar's end: a minute bar at the
/// stamp of its file, a daily bar at 23:59:59 UTC of its date ([`DAILY_STAMP_SECONDS`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bar {
    /// Bar time, seconds since the epoch (UTC).
    pub time: i64,
    /// Opening price.
    pub open: f64,
    /// Highest price.
    pub high: f64,
    /// Lowest price.
    pub low: f64,
    /// Closing price.
    pub close: f64,
    /// Volume in shares.
    pub volume: f64,
    /// Cash dividend per share going ex on this bar (0 when none).
    pub dividend: f64,
}

/// A symbol's bars in time order.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Symbol (from the file name unless given).
    pub symbol: String,
    /// Bars, strictly increasing in time.
    pub bars: Vec<Bar>,
}

/// A loading error naming the file and line (1-based) and, where known, the column.
#[derive(Debug, Error)]
pub enum DataError {
    /// The file cannot be read.
    #[error("{file}: {source}")]
    Io {
        /// File.
        file: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A malformed cell or row.
    #[error("{file}:{line}: column {column}: {reason}")]
    Bad {
        /// File.
        file: String,
        /// Line, 1-based.
        line: usize,
        /// Column name or position.
        column: String,
        /// What is wrong.
        reason: String,
    },
    /// A row with the wrong number of cells.
    #[error("{file}:{line}: {found} cells, expected {expected}")]
    Cells {
        /// File.
        file: String,
        /// Line, 1-based.
        line: usize,
        /// Cells the layout has.
        expected: usize,
        /// Cells found on the line.
        found: usize,
    },
    /// The file is not UTF-8 (line, column and byte offset of the first bad byte).
    #[error(transparent)]
    NotUtf8(#[from] tenor_ports::text::NotUtf8),
    /// The file holds no bar (empty, or a header only).
    #[error("{file}: no bars (the file is empty or holds only a header)")]
    Empty {
        /// File.
        file: String,
    },
    /// The header matches no known layout.
    #[error("{file}: unrecognised layout (header {header:?}); see docs/backtest.md for the supported CSV layouts")]
    Layout {
        /// File.
        file: String,
        /// The header line.
        header: String,
    },
}

fn epoch(dt: NaiveDateTime) -> i64 {
    dt.and_utc().timestamp()
}

fn bad(file: &str, line: usize, column: &str, reason: impl Into<String>) -> DataError {
    DataError::Bad { file: file.into(), line, column: column.into(), reason: reason.into() }
}

fn num(file: &str, line: usize, column: &str, cell: &str) -> Result<f64, DataError> {
    let shown = || tenor_ports::text::excerpt(cell);
    let v: f64 = cell.trim().parse().map_err(|_| bad(file, line, column, format!("{:?} is not a number", shown())))?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(bad(file, line, column, format!("{:?} is not finite", shown())))
    }
}

fn date(file: &str, line: usize, column: &str, cell: &str) -> Result<i64, DataError> {
    let d = NaiveDate::parse_from_str(cell.trim(), "%Y-%m-%d").map_err(|e| {
        bad(file, line, column, format!("{:?} is not a YYYY-MM-DD date: {e}", tenor_ports::text::excerpt(cell)))
    })?;
    Ok(epoch(d.and_hms_opt(0, 0, 0).unwrap_or_default()) + DAILY_STAMP_SECONDS)
}

/// Checks prices (low <= open, close <= high, low > 0) and time order.
fn check(file: &str, line: usize, b: &Bar, prev: Option<i64>) -> Result<(), DataError> {
    if !(b.low > 0.0 && b.low <= b.open.min(b.close) && b.high >= b.open.max(b.close)) {
        return Err(bad(
            file,
            line,
            "open/high/low/close",
            format!("inconsistent bar o={} h={} l={} c={}", b.open, b.high, b.low, b.close),
        ));
    }
    if prev.is_some_and(|p| b.time <= p) {
        return Err(bad(file, line, "date", "timestamps must be strictly increasing"));
    }
    Ok(())
}

/// Loads a CSV file in any supported layout; the symbol is the file stem (upper-cased, up to
/// the first `_`), unless `symbol` is given.
///
/// # Errors
/// [`DataError`] naming the file, line and column of the first problem; [`DataError::Empty`]
/// when the file holds no bar.
pub fn load(path: &Path, symbol: Option<&str>) -> Result<Series, DataError> {
    let file = path.display().to_string();
    let text = tenor_ports::text::read_text(path).map_err(|e| match e {
        tenor_ports::text::TextError::Io { source, .. } => DataError::Io { file: file.clone(), source },
        tenor_ports::text::TextError::NotUtf8(n) => DataError::NotUtf8(n),
    })?;
    let sym = symbol.map(str::to_owned).unwrap_or_else(|| {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("?");
        stem.split('_').next().unwrap_or(stem).to_uppercase()
    });
    // The one line reader: LF, CRLF and bare CR end a line alike.
    let mut lines = tenor_ports::text::lines(&text).map(|l| (l.number, l.text));
    let Some((_, header)) = lines.next().filter(|(_, h)| !h.trim().is_empty()) else {
        return Err(DataError::Empty { file });
    };
    let h = header.to_lowercase();
    let mut bars: Vec<Bar> = Vec::new();
    let push = |bars: &mut Vec<Bar>, line: usize, b: Bar| -> Result<(), DataError> {
        check(&file, line, &b, bars.last().map(|x| x.time))?;
        bars.push(b);
        Ok(())
    };
    let cells = |line: usize, l: &str, sep: char, n: usize| -> Result<Vec<String>, DataError> {
        let c: Vec<String> = l.split(sep).map(str::to_owned).collect();
        if c.len() == n {
            Ok(c)
        } else {
            Err(DataError::Cells { file: file.clone(), line, expected: n, found: c.len() })
        }
    };
    if h == ",date,open,high,low,close,volume" {
        for (n, l) in lines.filter(|(_, l)| !l.trim().is_empty()) {
            let c = cells(n, l, ',', 7)?;
            let b = Bar {
                time: date(&file, n, "date", &c[1])?,
                open: num(&file, n, "open", &c[2])?,
                high: num(&file, n, "high", &c[3])?,
                low: num(&file, n, "low", &c[4])?,
                close: num(&file, n, "close", &c[5])?,
                volume: num(&file, n, "volume", &c[6])?,
                dividend: 0.0,
            };
            push(&mut bars, n, b)?;
        }
    } else if h == "date,open,high,low,close,adj close,volume" {
        for (n, l) in lines.filter(|(_, l)| !l.trim().is_empty()) {
            let c = cells(n, l, ',', 7)?;
            let b = Bar {
                time: date(&file, n, "Date", &c[0])?,
                open: num(&file, n, "Open", &c[1])?,
                high: num(&file, n, "High", &c[2])?,
                low: num(&file, n, "Low", &c[3])?,
                close: num(&file, n, "Close", &c[4])?,
                volume: num(&file, n, "Volume", &c[6])?,
                dividend: 0.0,
            };
            push(&mut bars, n, b)?;
        }
    } else if h == "date,open,high,low,close,volume,dividend,split" {
        for (n, l) in lines.filter(|(_, l)| !l.trim().is_empty()) {
            let c = cells(n, l, ',', 8)?;
            let b = Bar {
                time: date(&file, n, "date", &c[0])?,
                open: num(&file, n, "open", &c[1])?,
                high: num(&file, n, "high", &c[2])?,
                low: num(&file, n, "low", &c[3])?,
                close: num(&file, n, "close", &c[4])?,
                volume: num(&file, n, "volume", &c[5])?,
                dividend: num(&file, n, "dividend", &c[6])?,
            };
            if b.dividend < 0.0 {
                return Err(bad(&file, n, "dividend", format!("{} is negative; a cash dividend is >= 0", b.dividend)));
            }
            num(&file, n, "split", &c[7])?;
            push(&mut bars, n, b)?;
        }
    } else if header.len() >= 15 && header.as_bytes()[8] == b' ' && header.contains(';') {
        // NinjaTrader: no header; the first line is data.
        for (n, l) in std::iter::once((1, header)).chain(lines).filter(|(_, l)| !l.trim().is_empty()) {
            let c = cells(n, l, ';', 6)?;
            let dt = NaiveDateTime::parse_from_str(c[0].trim(), "%Y%m%d %H%M%S").map_err(|e| {
                let shown = tenor_ports::text::excerpt(&c[0]);
                bad(&file, n, "1 (timestamp)", format!("{shown:?} is not yyyyMMdd HHmmss: {e}"))
            })?;
            let b = Bar {
                time: epoch(dt),
                open: num(&file, n, "2 (open)", &c[1])?,
                high: num(&file, n, "3 (high)", &c[2])?,
                low: num(&file, n, "4 (low)", &c[3])?,
                close: num(&file, n, "5 (close)", &c[4])?,
                volume: num(&file, n, "6 (volume)", &c[5])?,
                dividend: 0.0,
            };
            push(&mut bars, n, b)?;
        }
    } else {
        return Err(DataError::Layout { file, header: tenor_ports::text::excerpt(header) });
    }
    if bars.is_empty() {
        return Err(DataError::Empty { file });
    }
    Ok(Series { symbol: sym, bars })
}

/// A series from bars already in memory (a DataFrame given to the Python package, bars sent to
/// a worker of a cluster), with the checks [`load`] makes of a file's bars: every value finite,
/// a non-negative dividend, consistent prices (low > 0, low <= open, close <= high) and
/// strictly increasing times. `file` names the bars in messages (`<bars>`), and bar `i` is
/// line `i + 2`, as if a header were line 1.
///
/// # Errors
/// [`DataError::Bad`] naming the line and column of the first problem; [`DataError::Empty`]
/// when there is no bar.
pub fn series(file: &str, symbol: &str, bars: Vec<Bar>) -> Result<Series, DataError> {
    if bars.is_empty() {
        return Err(DataError::Empty { file: file.into() });
    }
    let mut prev = None;
    for (i, b) in bars.iter().enumerate() {
        let line = i + 2;
        let cells = [
            ("open", b.open),
            ("high", b.high),
            ("low", b.low),
            ("close", b.close),
            ("volume", b.volume),
            ("dividend", b.dividend),
        ];
        for (column, v) in cells {
            if !v.is_finite() {
                return Err(bad(file, line, column, format!("{v} is not finite")));
            }
        }
        if b.dividend < 0.0 {
            return Err(bad(file, line, "dividend", format!("{} is negative; a cash dividend is >= 0", b.dividend)));
        }
        check(file, line, b, prev)?;
        prev = Some(b.time);
    }
    Ok(Series { symbol: symbol.into(), bars })
}
