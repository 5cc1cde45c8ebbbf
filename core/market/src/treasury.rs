//! Loader for US Treasury "Daily Treasury Par Yield Curve Rates" CSV files, in both layouts of
//! `shared/data/rates/`: the 1990-2023 archive (`date` as MM/DD/YYYY, lower-case tenor headers
//! such as `1 mo`, ascending dates) and the yearly downloads (`Date` as YYYY-MM-DD, `1 Mo`,
//! descending dates; 2025 adds `1.5 Mo`). Yields are percent, bond-equivalent (semiannual)
//! basis; an empty cell means the tenor was not published that day (a 0.0 is a real zero).

use std::path::Path;

use chrono::NaiveDate;

use crate::error::{read_file, MarketError, Result};

/// One day of par yields.
#[derive(Debug, Clone, PartialEq)]
pub struct ParYieldRow {
    /// The date.
    pub date: NaiveDate,
    /// Published (tenor in years, yield as a decimal, e.g. 0.0437) pairs, by increasing tenor.
    pub points: Vec<(f64, f64)>,
    /// 1-based source line.
    pub line: u64,
}

/// A par-yield file, rows sorted by ascending date whatever the file's order.
#[derive(Debug, Clone, PartialEq)]
pub struct ParYieldTable {
    /// Tenors of the file's columns, in years (1 month = 1/12).
    pub tenors: Vec<f64>,
    /// Rows by ascending date.
    pub rows: Vec<ParYieldRow>,
}

impl ParYieldTable {
    /// The row of `date`, if published.
    pub fn on(&self, date: NaiveDate) -> Option<&ParYieldRow> {
        self.rows.binary_search_by_key(&date, |r| r.date).ok().map(|i| &self.rows[i])
    }
    /// The latest row on or before `date` with at least one yield.
    pub fn latest_on_or_before(&self, date: NaiveDate) -> Option<&ParYieldRow> {
        self.rows.iter().rev().find(|r| r.date <= date && !r.points.is_empty())
    }
}

/// Parses a tenor header such as `1 mo`, `1.5 Mo`, `10 Yr` into years.
fn tenor_years(h: &str) -> Option<f64> {
    let mut parts = h.split_whitespace();
    let n: f64 = parts.next()?.parse().ok()?;
    let unit = parts.next()?.to_ascii_lowercase();
    match unit.as_str() {
        "mo" => Some(n / 12.0),
        "yr" => Some(n),
        _ => None,
    }
}

/// Loads a Treasury par-yield CSV in either layout (see the module docs).
///
/// # Errors
/// [`MarketError::Io`]; [`MarketError::Row`] for an unknown header or a duplicate date;
/// [`MarketError::Cell`] naming line and column for an unparsable date or yield.
pub fn load_treasury(path: &Path) -> Result<ParYieldTable> {
    let text = read_file(path)?;
    parse_treasury(&text, &path.display().to_string())
}

/// Parses the text of a Treasury par-yield CSV; `file` names it in errors.
///
/// # Errors
/// As [`load_treasury`].
pub fn parse_treasury(text: &str, file: &str) -> Result<ParYieldTable> {
    let row_err = |line: u64, message: String| MarketError::Row { file: file.to_owned(), line, message };
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(text.as_bytes());
    let headers = reader.headers().map_err(|e| row_err(1, e.to_string()))?.clone();
    if !headers.get(0).is_some_and(|h| h.trim().eq_ignore_ascii_case("date")) {
        return Err(row_err(1, format!("first column is {:?}, expected date", headers.get(0).unwrap_or(""))));
    }
    let mut tenors = Vec::new();
    for (i, h) in headers.iter().enumerate().skip(1) {
        let t = tenor_years(h.trim()).ok_or_else(|| MarketError::Cell {
            file: file.to_owned(),
            line: 1,
            column: i + 1,
            name: h.to_owned(),
            message: "not a tenor like `3 Mo` or `10 yr`".into(),
        })?;
        if tenors.last().is_some_and(|&p| t <= p) {
            return Err(row_err(1, format!("tenor {h:?} is not after the previous column")));
        }
        tenors.push(t);
    }
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e.position().map(|p| p.line()).unwrap_or(0);
            row_err(line, e.to_string())
        })?;
        let line = record.position().map(|p| p.line()).unwrap_or(0);
        let cell = |c: usize, message: String| MarketError::Cell {
            file: file.to_owned(),
            line,
            column: c + 1,
            name: headers.get(c).unwrap_or("").to_owned(),
            message,
        };
        let d = record.get(0).unwrap_or("").trim();
        let date = if d.contains('/') {
            NaiveDate::parse_from_str(d, "%m/%d/%Y")
        } else {
            NaiveDate::parse_from_str(d, "%Y-%m-%d")
        }
        .map_err(|e| cell(0, format!("date {d:?}: {e}")))?;
        let mut points = Vec::new();
        for (i, &t) in tenors.iter().enumerate() {
            let v = record.get(i + 1).unwrap_or("").trim();
            if v.is_empty() {
                continue;
            }
            let y: f64 = v.parse().map_err(|e| cell(i + 1, format!("yield {v:?}: {e}")))?;
            if !y.is_finite() || !(-5.0..=30.0).contains(&y) {
                return Err(cell(i + 1, format!("yield {y} percent is outside -5..30")));
            }
            points.push((t, y / 100.0));
        }
        rows.push(ParYieldRow { date, points, line });
    }
    rows.sort_by_key(|r| r.date);
    for w in rows.windows(2) {
        if w[0].date == w[1].date {
            return Err(row_err(w[1].line, format!("date {} appears twice (also line {})", w[1].date, w[0].line)));
        }
    }
    Ok(ParYieldTable { tenors, rows })
}
