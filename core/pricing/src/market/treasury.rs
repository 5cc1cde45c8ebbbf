//! US Treasury daily par yield curve (CMT) files, as published by the Treasury
//! ("Daily Treasury Par Yield Curve Rates") and kept in `shared/data/rates/`.
//!
//! Columns: `Date` (`YYYY-MM-DD`; the older archive's `MM/DD/YYYY` is accepted too), then one
//! column per tenor labelled `<n> Mo` or `<n> Yr` (any case), in percent per annum on a
//! bond-equivalent basis (semi-annual compounding). An empty cell means the tenor was not
//! published that day. Rows may be sorted either way.

use std::path::Path;

use chrono::NaiveDate;

use super::error::MarketError;

/// The par yield curve of one day.
#[derive(Debug, Clone, PartialEq)]
pub struct ParCurve {
    /// The curve's date.
    pub date: NaiveDate,
    /// `(tenor in years, par yield as a decimal, bond-equivalent)`, ascending in tenor.
    pub points: Vec<(f64, f64)>,
}

impl ParCurve {
    /// The par yield (decimal, bond-equivalent) at `t` years: linear in tenor between published
    /// points, flat beyond the first and last.
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

    /// The continuously compounded rate at `t` years: the interpolated par yield converted from
    /// semi-annual compounding, `r = 2 ln(1 + y / 2)`. Par yields are used as zero yields (no
    /// bootstrap): below one year the CMT points are bills, which pay no coupon, and between one
    /// and two years the coupon effect on a curve as flat as 2025's is below a basis point.
    pub fn continuous_rate(&self, t: f64) -> f64 {
        bey_to_continuous(self.par_yield(t))
    }
}

/// Converts a bond-equivalent (semi-annually compounded) yield to continuous compounding:
/// `(1 + y/2)^2 = e^r`.
pub fn bey_to_continuous(y: f64) -> f64 {
    2.0 * (0.5 * y).ln_1p()
}

/// Parses a tenor label such as `1 Mo`, `1.5 Mo`, `10 Yr` (any case) into years.
pub fn tenor_years(label: &str) -> Option<f64> {
    let mut it = label.split_whitespace();
    let n: f64 = it.next()?.parse().ok()?;
    let unit = it.next()?.to_ascii_lowercase();
    match unit.as_str() {
        "mo" => Some(n / 12.0),
        "yr" => Some(n),
        _ => None,
    }
}

fn parse_date(s: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").or_else(|_| NaiveDate::parse_from_str(s, "%m/%d/%Y")).ok()
}

/// Reads the curve of the latest date on or before `date` from a Treasury par yield file.
///
/// # Errors
/// [`MarketError::Io`] when unreadable, [`MarketError::Format`] for a bad header, date or
/// number, [`MarketError::Insufficient`] when no row is on or before `date`.
pub fn read_par_curve(path: &Path, date: NaiveDate) -> Result<ParCurve, MarketError> {
    let fmt = |line: u64, message: String| MarketError::Format { path: path.to_owned(), line, message };
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_path(path)
        .map_err(|e| MarketError::Io { path: path.to_owned(), source: std::io::Error::other(e.to_string()) })?;
    let header = rdr.headers().map_err(|e| fmt(1, e.to_string()))?.clone();
    if !header.get(0).is_some_and(|h| h.eq_ignore_ascii_case("date")) {
        return Err(fmt(1, format!("first column must be Date, found {:?}", header.get(0))));
    }
    let mut tenors = Vec::new();
    for h in header.iter().skip(1) {
        tenors.push(tenor_years(h).ok_or_else(|| fmt(1, format!("column {h:?} is not a tenor like `3 Mo`")))?);
    }
    let mut best: Option<ParCurve> = None;
    for rec in rdr.records() {
        let rec = rec.map_err(|e| fmt(e.position().map_or(0, csv::Position::line), e.to_string()))?;
        let line = rec.position().map_or(0, csv::Position::line);
        let d = rec.get(0).and_then(parse_date).ok_or_else(|| fmt(line, format!("bad date {:?}", rec.get(0))))?;
        if d > date || best.as_ref().is_some_and(|b| b.date >= d) {
            continue;
        }
        let mut points = Vec::new();
        for (cell, tenor) in rec.iter().skip(1).zip(&tenors) {
            if cell.is_empty() {
                continue;
            }
            let y: f64 = cell.parse().map_err(|_| fmt(line, format!("yield {cell:?} is not a number")))?;
            points.push((*tenor, y / 100.0));
        }
        if points.is_empty() {
            continue; // a holiday row with every tenor empty
        }
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        best = Some(ParCurve { date: d, points });
    }
    best.ok_or_else(|| MarketError::Insufficient(format!("{}: no curve on or before {date}", path.display())))
}
