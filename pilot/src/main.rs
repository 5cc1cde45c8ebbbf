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
    /// Calibrate a model to an option chain (writes parameters, per-quote fit and a plot).
    Calibrate {
        /// The model.
        #[command(subcommand)]
        model: cmd::calibrate::Model,
    },
    /// Implied vols, SVI surface fits and plot of an option chain (Cboe folder/file or Yahoo CSV).
    Surface(cmd::surface::Args),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Backends => cmd::backends::run(),
        Command::Calibrate { model } => cmd::calibrate::run(model),
        Command::Surface(args) => cmd::surface::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
