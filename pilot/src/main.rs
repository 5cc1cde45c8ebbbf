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
    /// Allocation toolkit: profile a trace, replay it against every strategy, advise.
    Alloc(cmd::alloc::AllocArgs),
    /// Calibrate a model to an option chain (writes parameters, per-quote fit and a plot).
    Calibrate {
        /// The model.
        #[command(subcommand)]
        model: cmd::calibrate::Model,
    },
    /// Implied vols, SVI surface fits and plot of an option chain (Cboe folder/file or Yahoo CSV).
    Surface(cmd::surface::Args),
    /// Price a portfolio CSV (shared/spec/portfolio-csv.md) and print a summary.
    Price(cmd::price::PriceArgs),
    /// Build example books from market data.
    #[command(subcommand)]
    Book(cmd::book::BookCommand),
    /// Backtest a strategy (or sweep its parameters) on market data.
    Backtest(cmd::backtest::BacktestArgs),
    /// Benchmark backends: throughput, scaling, swap cost, agreement; writes a report.
    #[command(subcommand)]
    Pilot(PilotCommand),
}

#[derive(Debug, Subcommand)]
enum PilotCommand {
    /// Run the pilot's workloads on every requested backend.
    Run(cmd::pilot::RunArgs),
    /// Benchmark and check an in-house kernel folder on every backend that has a source for it.
    Kernel(cmd::pilot::KernelArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Backends => cmd::backends::run(),
        Command::Alloc(args) => cmd::alloc::run(args),
        Command::Calibrate { model } => cmd::calibrate::run(model),
        Command::Surface(args) => cmd::surface::run(&args),
        Command::Price(args) => cmd::price::run(&args),
        Command::Book(c) => cmd::book::run(&c),
        Command::Backtest(a) => cmd::backtest::run(&a),
        Command::Pilot(PilotCommand::Run(a)) => cmd::pilot::run(&a),
        Command::Pilot(PilotCommand::Kernel(a)) => cmd::pilot::kernel(&a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
