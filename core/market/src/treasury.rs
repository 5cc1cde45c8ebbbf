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

impl ParYieldRow {
    /// The par yield (decimal, bond-equivalent) at `t` years: linear in tenor between published
    /// points, flat beyond the first and last; 0 for a row without points.
    pub fn par_yield(&self, t: f64) -> f64 {
        let p = &self.points;
        match p.iter().position(|(tenor, _)| *tenor >= t) {
            None => p.last().map_or(0.0, |x| x.1),
            Some(0) => p[0].1,
            Some(i) => {
                let (t0, y0) = p[i - 1];
                let (t1, y1) = p[i];
                y0 + (y1 - y0) * (t - t0) / (t1 - t0)
            }
        }
    }

    /// The continuously compounded rate at `t` years taking the par yield as a zero yield: the
    /// interpolated par yield ([`Self::par_yield`]) converted from semiannual compounding,
    /// `r = 2 ln(1 + y / 2)` ([`bey_to_continuous`]). No bootstrap (that is
    /// [`crate::curve::DiscountCurve::bootstrap_par`]): below one year the CMT points are bills,
    /// which pay no coupon, and between one and two years the coupon effect on a curve as flat
    /// as 2025's is below a basis point.
    pub fn continuous_rate(&self, t: f64) -> f64 {
        bey_to_continuous(self.par_yield(t))
    }
}

/// Converts a bond-equivalent (semiannually compounded) yield, decimal, to continuous
/// compounding: `(1 + y/2)^2 = e^r`, so `r = 2 ln(1 + y/2)`.
pub fn bey_to_continuous(y: f64) -> f64 {
    2.0 * (0.5 * y).ln_1p()
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

/// Parses a tenor header such as `1 mo`, `1.5 Mo`, `10 Yr` (any case) into years (a month is
/// 1/12); `None` for anything else.
pub fn tenor_years(h: &str) -> Option<f64> {
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

/// Loads a Treasury par-yield CSV ([`load_treasury`]) and returns the curve of the latest date
/// on or before `date` that has at least one yield (holiday rows with every tenor empty are
/// passed over).
///
/// # Errors
/// As [`load_treasury`]; [`MarketError::Insufficient`] naming the file when no such row exists.
pub fn load_par_curve(path: &Path, date: NaiveDate) -> Result<ParYieldRow> {
    let table = load_treasury(path)?;
    table
        .latest_on_or_before(date)
        .cloned()
        .ok_or_else(|| MarketError::Insufficient(format!("{}: no curve on or before {date}", path.display())))
}

/// Parses the text of a Treasury par-yield CSV; `file` names it in errors.
///
/// # Errors
/// As [`load_treasury`].
pub fn parse_treasury(text: &str, file: &str) -> Result<ParYieldTable> {
    // CRLF and bare-CR files read as LF ones, so the CSV reader's line numbers are right.
    let unix = tenor_ports::text::normalise_text(tenor_ports::text::strip_bom(text));
    let text: &str = &unix;
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
        .map_err(|e| cell(0, format!("date {:?}: {e}", tenor_ports::text::excerpt(d))))?;
        let mut points = Vec::new();
        for (i, &t) in tenors.iter().enumerate() {
            let v = record.get(i + 1).unwrap_or("").trim();
            if v.is_empty() {
                continue;
            }
            let y: f64 =
                v.parse().map_err(|e| cell(i + 1, format!("yield {:?}: {e}", tenor_ports::text::excerpt(v))))?;
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
