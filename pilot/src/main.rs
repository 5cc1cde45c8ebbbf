//! `tenor`: the command line of the Tenor pricing and backtesting engine.

mod cmd;

use clap::{Parser, Subcommand};

/// Tenor: pricing and backtesting on swappable compute backends.
#[derive(Debug, Parser)]
#[command(name = "tenor", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the backends and whether each can run here.
    Backends,
    /// Price a portfolio CSV (shared/spec/portfolio-csv.md) and print a summary.
    Price(cmd::price::PriceArgs),
    /// Build example books from market data.
    #[command(subcommand)]
    Book(cmd::book::BookCommand),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Backends => cmd::backends::run(),
        Command::Price(args) => cmd::price::run(&args),
        Command::Book(c) => cmd::book::run(&c),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
