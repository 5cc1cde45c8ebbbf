//! `tenor`: the command line of the Tenor pricing and backtesting engine.

mod cmd;
mod pilot;

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
    /// Benchmark backends: throughput, scaling, swap cost, agreement; writes a report.
    #[command(subcommand)]
    Pilot(PilotCommand),
}

#[derive(Debug, Subcommand)]
enum PilotCommand {
    /// Run the pilot's workloads on every requested backend.
    Run(cmd::pilot::RunArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Backends => cmd::backends::run(),
        Command::Pilot(PilotCommand::Run(a)) => cmd::pilot::run(&a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
