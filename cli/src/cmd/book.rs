//! `tenor book spx`: builds the example SPX portfolio from a Cboe snapshot and a Treasury
//! par yield file (method in `tenor_market::spx_book`), writes it as a portfolio CSV and
//! prints what went in and what was left out.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use tenor_app::spx::SpxRequest;

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
        BookCommand::Spx(a) => {
            let req = SpxRequest {
                cboe_dir: a.cboe_dir.clone(),
                rates: a.rates.clone(),
                out: a.out.clone(),
                misses: a.misses.clone(),
            };
            Ok(crate::print(&tenor_app::spx::build_spx_book(&req)?))
        }
    }
}
