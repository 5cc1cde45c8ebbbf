//! `tenor certify` and `tenor compare`: the regression suite as a baseline folder, and PROMOTE or
//! REJECT of this environment against one ([`tenor_app::certify`], docs/certify.md).

use std::path::PathBuf;
use std::process::ExitCode;

use tenor_app::certify::{self, CertifyRequest, CompareRequest, Inputs, LatencyMode, SuiteKind};

/// Arguments of `tenor certify`.
#[derive(Debug, clap::Args)]
pub struct CertifyArgs {
    /// Backend to certify (`tenor backends` lists them).
    #[arg(long, env = "TENOR_BACKEND", default_value = "cpu", help = tenor_registry::help())]
    pub backend: String,
    /// `quick` (seconds; runs without the shared folder, recording what it skipped) or
    /// `default` (the whole book at full sizes).
    #[arg(long, value_enum, default_value_t = SuiteArg::Default)]
    pub suite: SuiteArg,
    /// The baseline folder to write (must not exist; written atomically).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub inputs: InputArgs,
}

/// Which suite `--suite` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SuiteArg {
    /// Small: a slice of the book, 2^12 paths, short fits.
    Quick,
    /// The whole book at 10^5 paths, full fits.
    Default,
}

/// Where the suite's inputs are.
#[derive(Debug, clap::Args)]
pub struct InputArgs {
    /// The repository's examples folder (spx_book.csv, data/spx_cboe_2025-10-01).
    #[arg(long, default_value = "examples")]
    pub examples: PathBuf,
    /// The shared folder (oracles/, data/equities/); parts needing it are skipped, and recorded
    /// as skipped, when it is absent.
    #[arg(long, env = "TENOR_SHARED", default_value = "../shared")]
    pub shared: PathBuf,
}

impl InputArgs {
    fn inputs(&self) -> Inputs {
        Inputs { examples: self.examples.clone(), shared: self.shared.clone() }
    }
}

/// Arguments of `tenor compare`.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// The baseline folder written by `tenor certify`.
    pub baseline: PathBuf,
    /// Folder for report.md, report.json and latency.svg (must not exist).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// `check`: a latency regression rejects (the promotion gate, on a quiet machine);
    /// `report`: latencies are measured and reported but only values decide (a shared or busy
    /// machine, where wall-clock times move with the load, not with the build).
    #[arg(long, value_enum, default_value_t = LatencyArg::Check)]
    pub latency: LatencyArg,
    #[command(flatten)]
    pub inputs: InputArgs,
}

/// What `--latency` does with latency regressions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LatencyArg {
    /// A regression rejects.
    Check,
    /// Regressions are reported; only values decide.
    Report,
}

/// Runs `tenor certify`.
///
/// # Errors
/// As [`certify::certify`].
pub fn certify(a: &CertifyArgs) -> anyhow::Result<ExitCode> {
    let req = CertifyRequest {
        backend: a.backend.clone(),
        suite: match a.suite {
            SuiteArg::Quick => SuiteKind::Quick,
            SuiteArg::Default => SuiteKind::Default,
        },
        out: a.out.clone(),
        inputs: a.inputs.inputs(),
    };
    let bar = crate::progress::bar("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}");
    let c = certify::certify(&req, &crate::build_info(), &bar)?;
    println!(
        "certified suite {} on {} ({}): {} values in {} parts, {} latencies -> {}",
        c.suite,
        c.backend,
        c.device,
        c.values,
        c.parts,
        c.latencies,
        a.out.display()
    );
    for (name, reason) in &c.skipped {
        println!("  skipped {name}: {reason}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `tenor compare`: exit 0 on PROMOTE, 1 on REJECT.
///
/// # Errors
/// As [`certify::compare`].
pub fn compare(a: &CompareArgs) -> anyhow::Result<ExitCode> {
    let req = CompareRequest {
        baseline: a.baseline.clone(),
        out: a.out.clone(),
        latency: match a.latency {
            LatencyArg::Check => LatencyMode::Check,
            LatencyArg::Report => LatencyMode::Report,
        },
        inputs: a.inputs.inputs(),
    };
    let bar = crate::progress::bar("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}");
    let c = certify::compare(&req, &crate::build_info(), &bar)?;
    print!("{}", c.markdown);
    Ok(if c.promote { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
