//! The SPX example book (`tenor book spx`): built from a Cboe snapshot and a Treasury par yield
//! file (method in [`tenor_market::spx_book`]), written as a portfolio CSV, with every European
//! quote whose price at its own IV falls outside its bid-ask listed with the reason.

use std::path::PathBuf;

use anyhow::Context;
use tenor_market::cboe::{cboe_files, load_cboe_files};
use tenor_market::spx_book;
use tenor_market::treasury::load_par_curve;
use tenor_pricing::portfolio::{self, Kind};

use crate::report::Report;

/// The inputs and outputs of the SPX book.
#[derive(Debug, Clone)]
pub struct SpxRequest {
    /// Folder of Cboe quotedata CSV files (every `*.csv` in it is read).
    pub cboe_dir: PathBuf,
    /// Treasury daily par yield curve CSV.
    pub rates: PathBuf,
    /// Portfolio CSV to write.
    pub out: PathBuf,
    /// CSV of the European quotes outside their bid-ask at their quoted IV, with the reason.
    pub misses: PathBuf,
}

/// Builds the SPX example book of `req` and writes it and its bid-ask misses; the report is what
/// `tenor book spx` prints.
///
/// # Errors
/// An output naming an input, unreadable or malformed inputs, an unwritable output.
pub fn build_spx_book(req: &SpxRequest) -> anyhow::Result<Report> {
    let a = req;
    let mut report = Report::default();
    crate::paths::refuse_overwrite(
        &[("cboe_dir", &a.cboe_dir), ("rates", &a.rates)],
        &[("out", &a.out), ("misses", &a.misses)],
    )?;
    let files = cboe_files(&a.cboe_dir)?;
    let chain = load_cboe_files(&files, &a.cboe_dir.display().to_string())?;
    let curve = load_par_curve(&a.rates, chain.as_of.date())?;
    let book = spx_book::build_spx_book(&chain, &curve)?;

    let mut f = tenor_ports::files::AtomicFile::create(&a.out)?;
    portfolio::write_portfolio(&mut f, &book.trades).with_context(|| format!("writing {}", a.out.display()))?;
    f.commit()?;

    report.line(format!("snapshot    {} from {} Cboe files, spot {}", book.date, files.len(), book.spot));
    report.line(format!(
        "rates       Treasury par curve of {} (latest on or before {}), continuous compounding",
        book.curve_date, book.date
    ));
    report.line("expiry           T      rate  dividend  parity strikes      forward");
    for e in &book.expiries {
        report.line(format!(
            "{}  {:>6.4}  {:>8.5}  {:>8.5}  {:>14}  {:>11.2}",
            e.expiry,
            e.maturity,
            e.rate,
            e.dividend,
            e.parity_strikes,
            e.forward(book.spot)
        ));
    }
    let count = |k: Kind| book.trades.iter().filter(|t| t.kind() == k).count();
    report.line(format!(
        "trades      {} european, {} asian_geo, {} asian_arith, {} barrier; {} quotes skipped (IV 0)",
        count(Kind::European),
        count(Kind::AsianGeo),
        count(Kind::AsianArith),
        count(Kind::Barrier),
        book.skipped_iv_zero
    ));
    report.line(format!("wrote       {} ({} trades)", a.out.display(), book.trades.len()));

    let checks = spx_book::check_quotes(book.spot, &book.expiries)?;
    let mut misses = tenor_ports::files::AtomicFile::create(&a.misses)?;
    let mut w = csv::Writer::from_writer(&mut misses);
    w.write_record([
        "symbol",
        "expiry",
        "strike",
        "bid",
        "ask",
        "iv",
        "model",
        "model_market_discount",
        "delta",
        "reason",
    ])?;
    let mut counts = std::collections::BTreeMap::new();
    for c in &checks {
        let Some(reason) = c.reason() else { continue };
        *counts.entry(reason.as_str()).or_insert(0usize) += 1;
        w.write_record([
            c.symbol.clone(),
            c.expiry.to_string(),
            c.strike.to_string(),
            c.bid.to_string(),
            c.ask.to_string(),
            c.iv.to_string(),
            format!("{:.4}", c.model),
            format!("{:.4}", c.market_model),
            format!("{:.4}", c.delta),
            reason.as_str().to_owned(),
        ])?;
    }
    w.flush().with_context(|| format!("writing {}", a.misses.display()))?;
    drop(w);
    misses.commit()?;
    let inside = checks.iter().filter(|c| c.inside()).count();
    let detail: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
    report.line(format!(
        "bid-ask     {inside} of {} Europeans inside at their quoted IV; outside: {} (listed in {})",
        checks.len(),
        detail.join(", "),
        a.misses.display()
    ));
    Ok(report)
}
