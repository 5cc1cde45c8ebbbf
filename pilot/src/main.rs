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
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Backends => cmd::backends::run(),
        Command::Alloc(args) => cmd::alloc::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
