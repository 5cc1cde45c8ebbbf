//! Treasury curves for every door: the zero curve bootstrapped from the US Treasury par yields of
//! one date of a CSV (`tenor surface --rates`, Python's `treasury_curve`); the SPX book's rates
//! use the same rows ([`tenor_market::treasury::load_par_curve`]).

use std::path::Path;

use chrono::NaiveDate;
use tenor_market::curve::DiscountCurve;
use tenor_market::MarketError;

/// A zero curve and the date of the par yields it was bootstrapped from.
#[derive(Debug, Clone)]
pub struct TreasuryCurve {
    /// The date of the par-yield row used.
    pub date: NaiveDate,
    /// Its par points (maturity in years, bond-equivalent yield).
    pub points: Vec<(f64, f64)>,
    /// The zero curve, log-linear on discount factors (`DiscountCurve::bootstrap_par`).
    pub curve: DiscountCurve,
}

/// The zero curve of the par yields in `file` of the latest date on or before `date` (the
/// file's last date when `None`).
///
/// # Errors
/// An unreadable or malformed file (file, line and column), no row on or before `date`
/// ([`MarketError::Insufficient`] naming the file and date), or a row that does not bootstrap.
pub fn treasury_zero_curve(file: &Path, date: Option<NaiveDate>) -> Result<TreasuryCurve, MarketError> {
    let table = tenor_market::treasury::load_treasury(file)?;
    let row = match date {
        Some(d) => table.latest_on_or_before(d),
        None => table.rows.iter().max_by_key(|r| r.date),
    };
    let Some(row) = row else {
        let when = date.map_or_else(|| "the end".to_owned(), |d| d.to_string());
        return Err(MarketError::Insufficient(format!("{}: no par yields on or before {when}", file.display())));
    };
    let curve = DiscountCurve::bootstrap_par(&row.points)?;
    Ok(TreasuryCurve { date: row.date, points: row.points.clone(), curve })
}
