//! `tenor basket`: the STAC-A2 basket job (`docs/basket-job.md`) on a backend, `greeks.csv` and
//! `summary.json` into `--out` ([`tenor_app::basket`]).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use tenor_app::basket::{run_basket, BasketRequest, Overrides};

/// Arguments of `tenor basket`.
#[derive(Debug, Clone, Args)]
pub struct BasketArgs {
    /// The job file (TOML: docs/basket-job.md).
    #[arg(long)]
    pub job: PathBuf,
    /// Compute backend (`cpu`, `sim`, or one compiled in with a feature).
    #[arg(long, env = "TENOR_BACKEND", default_value = "cpu", help = tenor_registry::help())]
    pub backend: String,
    /// Paths (overrides the job's `[simulation] paths`).
    #[arg(long)]
    pub paths: Option<u64>,
    /// Steps, also the American option's exercise dates (overrides `[simulation] steps`).
    #[arg(long)]
    pub steps: Option<u32>,
    /// Philox seed (overrides `[simulation] seed`).
    #[arg(long)]
    pub seed: Option<u64>,
    /// The price alone, no Greeks.
    #[arg(long)]
    pub no_greeks: bool,
    /// Jobs priced in this process: the first is the cold time, the median of the others the warm.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub repeat: u32,
    /// Folder for greeks.csv and summary.json (written as one set).
    #[arg(long)]
    pub out: PathBuf,
    /// After the timed jobs, one more with the device synchronised after each phase (paths,
    /// backward induction, valuation, sensitivities), its phase times printed (not in summary.json).
    #[arg(long)]
    pub phases: bool,
}

/// Runs `tenor basket`.
///
/// # Errors
/// A bad job file (its key or line named), an unavailable backend, an unwritable `--out`.
pub fn run(args: &BasketArgs) -> anyhow::Result<ExitCode> {
    let req = BasketRequest {
        job: args.job.clone(),
        backend: args.backend.clone(),
        overrides: Overrides { paths: args.paths, steps: args.steps, seed: args.seed },
        greeks: !args.no_greeks,
        repeat: args.repeat,
        out: args.out.clone(),
        phases: args.phases,
    };
    let bar = crate::progress::bar("{spinner} basket [{bar:40}] {pos}/{len} steps {msg} ({elapsed})");
    let (report, _) = run_basket(&req, &bar)?;
    Ok(crate::print(&report))
}
