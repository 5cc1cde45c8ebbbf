//! `tenor`: the command line of the Tenor pricing and backtesting engine. A door over the
//! application library (`tenor_app`): each command turns its flags into a request, makes one
//! library call and prints; progress is drawn with indicatif ([`progress`]).

mod cmd;
mod progress;

/// Lines of adapter and kernel code per backend, counted by build.rs.
mod code {
    include!(concat!(env!("OUT_DIR"), "/code_lines.rs"));
}

use clap::{CommandFactory, Parser, Subcommand};

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
    /// Run the regression suite and write a baseline folder (docs/certify.md).
    Certify(cmd::certify::CertifyArgs),
    /// Rerun the suite here and compare with a baseline: PROMOTE (exit 0) or REJECT (exit 1).
    Compare(cmd::certify::CompareArgs),
    /// Price a portfolio CSV (docs/portfolio-csv.md) and print a summary.
    Price(cmd::price::PriceArgs),
    /// Keep a backend open and price books for `tenor price --server` (docs/serve.md).
    Serve(cmd::serve::ServeArgs),
    /// Build example books from market data.
    #[command(subcommand)]
    Book(cmd::book::BookCommand),
    /// Backtest a strategy (or sweep its parameters) on market data.
    Backtest(cmd::backtest::BacktestArgs),
    /// The STAC-A2 basket job (docs/basket-job.md): Greeks of a Heston basket with early exercise.
    Basket(cmd::basket::BasketArgs),
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
    /// Only the scaling over devices (`--devices cuda:*`): fused Monte Carlo and the mixed book
    /// over 1..N devices, the book checked bitwise against one device.
    Devices(cmd::pilot::DevicesArgs),
}

fn main() -> std::process::ExitCode {
    restore_default_sigpipe();
    unset_empty_flag_variables();
    tenor_app::words::use_flags();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Backends => cmd::backends::run(),
        Command::Alloc(args) => cmd::alloc::run(args),
        Command::Calibrate { model } => cmd::calibrate::run(model),
        Command::Surface(args) => cmd::surface::run(&args),
        Command::Certify(a) => cmd::certify::certify(&a),
        Command::Compare(a) => cmd::certify::compare(&a),
        Command::Price(args) => cmd::price::run(&args),
        Command::Serve(args) => cmd::serve::run(&args),
        Command::Book(c) => cmd::book::run(&c),
        Command::Backtest(a) => cmd::backtest::run(&a),
        Command::Basket(a) => cmd::basket::run(&a),
        Command::Pilot(PilotCommand::Run(a)) => cmd::pilot::run(&a),
        Command::Pilot(PilotCommand::Kernel(a)) => cmd::pilot::kernel(&a),
        Command::Pilot(PilotCommand::Devices(a)) => cmd::pilot::devices(&a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", tenor_app::error_chain(&e));
            std::process::ExitCode::FAILURE
        }
    }
}

/// Output piped into a reader that stops early (`tenor book spx | head`) ends the process quietly,
/// as for other Unix tools, instead of a panic in `println!` on the broken pipe: Rust's runtime
/// ignores SIGPIPE, so this puts back the default action (POSIX `signal(2)`).
fn restore_default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first in `main`, before any thread exists; SIG_DFL is a valid disposition
    // for SIGPIPE and no handler runs.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Prints what a library call had to say (its output to stdout, its notes to stderr) and
/// returns its exit status.
pub(crate) fn print(report: &tenor_app::Report) -> std::process::ExitCode {
    use std::io::Write as _;
    // The library wrote its files before returning: a closed stdout (`| head`) now loses nothing.
    let _ = std::io::stdout().lock().write_all(report.out.as_bytes());
    for line in &report.err {
        eprintln!("{line}");
    }
    std::process::ExitCode::from(report.code)
}

/// What this binary knows of its build (build.rs), for the pilot's and certify's reports.
pub(crate) fn build_info() -> tenor_pilot::BuildInfo {
    tenor_pilot::BuildInfo {
        version: env!("CARGO_PKG_VERSION").into(),
        commit: option_env!("TENOR_GIT_COMMIT").unwrap_or("unknown").into(),
        dirty: match option_env!("TENOR_GIT_DIRTY") {
            Some("true") => Some(true),
            Some("false") => Some(false),
            _ => None,
        },
        code: code::CODE_LINES
            .iter()
            .map(|(b, a, k)| tenor_pilot::CodeRow { backend: (*b).into(), adapter_lines: *a, kernel_lines: *k })
            .collect(),
    }
}

/// An environment variable that a flag reads (`TENOR_SOCKET`, `TENOR_BACKEND`, `TENOR_SHARED`)
/// set to the empty string counts as unset, as the XDG Base Directory variables do: `VAR=` is
/// how a shell clears one for a command, and clap would take the empty text as the flag's value
/// (`TENOR_SOCKET=` failed every `tenor price` with "a value is required"). Called first in
/// `main`, before any thread exists.
fn unset_empty_flag_variables() {
    fn walk(c: &clap::Command, names: &mut Vec<std::ffi::OsString>) {
        names.extend(c.get_arguments().filter_map(|a| a.get_env()).map(std::ffi::OsStr::to_os_string));
        for sub in c.get_subcommands() {
            walk(sub, names);
        }
    }
    let mut names = Vec::new();
    walk(&Cli::command(), &mut names);
    for n in names {
        if std::env::var_os(&n).is_some_and(|v| v.is_empty()) {
            std::env::remove_var(&n);
        }
    }
}

#[cfg(test)]
mod tests {
    use tenor_app::error_chain;

    #[test]
    fn a_cause_quoted_by_its_error_is_printed_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory (os error 2)");
        let e = anyhow::Error::new(io).context("cannot read portfolio x.csv: No such file or directory (os error 2)");
        assert_eq!(error_chain(&e), "cannot read portfolio x.csv: No such file or directory (os error 2)");
        let e = anyhow::anyhow!("inner").context("outer");
        assert_eq!(error_chain(&e), "outer: inner");
    }
}
