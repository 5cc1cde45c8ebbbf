//! `tenor book spx`: builds the example SPX portfolio from a Cboe snapshot and a Treasury
//! par yield file (method in `tenor_market::spx_book`), writes it as a portfolio CSV and
//! prints what went in and what was left out.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};
use tenor_market::cboe::{cboe_files, load_cboe_files};
use tenor_market::spx_book;
use tenor_market::treasury::load_par_curve;
use tenor_pricing::portfolio::{self, Kind};

/// `tenor book` subcommands.
#[derive(Debug, Subcommand)]
pub enum BookCommand {
    /// Build the SPX example book from Cboe quotedata files and a Treasury par yield file.
    Spx(SpxArgs),
}

/// Arguments of `tenor book spx`.
#[derive(Debug, Args)]
pub struct SpxArgs {
    /// Folder of Cboe quotedata CSV files (every `*.csv` in it is read).
    #[arg(long, default_value = "examples/data/spx_cboe_2025-10-01")]
    pub cboe_dir: PathBuf,
    /// Treasury daily par yield curve CSV.
    #[arg(long, default_value = "examples/data/us_treasury_par_yield_2025_h1.csv")]
    pub rates: PathBuf,
    /// Portfolio CSV to write.
    #[arg(long, default_value = "examples/spx_book.csv")]
    pub out: PathBuf,
    /// CSV listing every European quote whose price at its quoted IV falls outside its bid-ask,
    /// with the reason.
    #[arg(long, default_value = "examples/spx_book_bid_ask_misses.csv")]
    pub misses: PathBuf,
}

/// Runs `tenor book ...`.
///
/// # Errors
/// Unreadable or malformed inputs, an unwritable output.
pub fn run(cmd: &BookCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        BookCommand::Spx(a) => spx_book(a),
    }
}

fn spx_book(a: &SpxArgs) -> anyhow::Result<ExitCode> {
    super::paths::refuse_overwrite(
        &[("--cboe-dir", &a.cboe_dir), ("--rates", &a.rates)],
        &[("--out", &a.out), ("--misses", &a.misses)],
    )?;
    let files = cboe_files(&a.cboe_dir)?;
    let chain = load_cboe_files(&files, &a.cboe_dir.display().to_string())?;
    let curve = load_par_curve(&a.rates, chain.as_of.date())?;
    let book = spx_book::build_spx_book(&chain, &curve)?;

    let mut f = tenor_ports::files::AtomicFile::create(&a.out)?;
    portfolio::write_portfolio(&mut f, &book.trades).with_context(|| format!("writing {}", a.out.display()))?;
    f.commit()?;

    println!("snapshot    {} from {} Cboe files, spot {}", book.date, files.len(), book.spot);
    println!(
        "rates       Treasury par curve of {} (latest on or before {}), continuous compounding",
        book.curve_date, book.date
    );
    println!("expiry           T      rate  dividend  parity strikes      forward");
    for e in &book.expiries {
        println!(
            "{}  {:>6.4}  {:>8.5}  {:>8.5}  {:>14}  {:>11.2}",
            e.expiry,
            e.maturity,
            e.rate,
            e.dividend,
            e.parity_strikes,
            e.forward(book.spot)
        );
    }
    // Trades per kind, in the order the kinds first appear in the book.
    let mut counts: Vec<(Kind, usize)> = Vec::new();
    for t in &book.trades {
        match counts.iter_mut().find(|(k, _)| *k == t.kind()) {
            Some((_, n)) => *n += 1,
            None => counts.push((t.kind(), 1)),
        }
    }
    let counts: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
    println!("trades      {}; {} quotes skipped (IV 0)", counts.join(", "), book.skipped_iv_zero);
    println!("wrote       {} ({} trades)", a.out.display(), book.trades.len());

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
    println!(
        "bid-ask     {inside} of {} Europeans inside at their quoted IV; outside: {} (listed in {})",
        checks.len(),
        detail.join(", "),
        a.misses.display()
    );
    Ok(ExitCode::SUCCESS)
}
