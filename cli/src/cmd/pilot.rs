//! `tenor pilot run`: the pilot (see `crate::pilot`).
use std::path::PathBuf;
use std::process::ExitCode;

use tenor_app::pilot::KernelRequest;
use tenor_pilot::{self as pilot, Suite};

/// Arguments of `tenor pilot run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Backends to measure (comma-separated; default: every device backend of the registry's
    /// table); unavailable ones are reported with the reason.
    #[arg(long, value_delimiter = ',', default_values_t = tenor_registry::devices().into_iter().map(String::from))]
    pub backends: Vec<String>,
    /// Sweep to run.
    #[arg(long, value_enum, default_value_t = SuiteArg::Quick)]
    pub suite: SuiteArg,
    /// Output folder for pilot.json, pilot.md and the SVG charts.
    #[arg(long, default_value = "pilot-report")]
    pub out: PathBuf,
    /// Largest device memory one workload may take, in MiB.
    #[arg(long, default_value_t = 2048)]
    pub max_mib: u64,
    /// Peer results (JSON lines of {peer, workload, size, unit, rate}, as written by
    /// `benches/numpy_mc.py --jsonl` and `benches/peers/mc_peers.py --jsonl`) to merge into the
    /// report; each is compared with the pilot's row at the same size, or at the largest measured
    /// size below it. Repeatable.
    #[arg(long)]
    pub peers: Vec<PathBuf>,
    /// Also measure scaling over the devices of this selector (`cuda:*`, `sim:*` with
    /// `TENOR_SIM_DEVICES`, `sim:0..3`): the fused Monte Carlo workloads and the mixed book over
    /// 1..N devices, the book checked bitwise against one device (a difference fails the run).
    #[arg(long)]
    pub devices: Option<String>,
}

/// Arguments of `tenor pilot devices`.
#[derive(Debug, clap::Args)]
pub struct DevicesArgs {
    /// The devices: `cuda:*`, `sim:*` (with `TENOR_SIM_DEVICES`), `sim:0..3`, ...
    #[arg(long)]
    pub devices: String,
    /// Sizes: `quick`, or `default` (device-filling sizes on a GPU).
    #[arg(long, value_enum, default_value_t = SuiteArg::Quick)]
    pub suite: SuiteArg,
    /// Largest device memory one workload may take on one device, in MiB.
    #[arg(long, default_value_t = 2048)]
    pub max_mib: u64,
    /// Output folder for devices.json and devices.md.
    #[arg(long, default_value = "pilot-devices")]
    pub out: PathBuf,
}

/// Arguments of `tenor pilot kernel`.
#[derive(Debug, clap::Args)]
pub struct KernelArgs {
    /// The kernel folder: kernel.toml, pilot.toml and the sources it has.
    pub dir: PathBuf,
    /// Backends to try (default: every device backend of the registry's table; those without a
    /// source for the kernel are reported and skipped).
    #[arg(long, value_delimiter = ',', default_values_t = tenor_registry::devices().into_iter().map(String::from))]
    pub backends: Vec<String>,
    /// Backend whose outputs the others are checked against (besides the reference file). It must
    /// be a known, available backend with a source for the kernel, or the command fails naming it.
    #[arg(long)]
    pub reference: Option<String>,
    /// Output folder for kernel.json and kernel.md (tables; no chart).
    #[arg(long, default_value = "pilot-kernel-report")]
    pub out: PathBuf,
    /// Time budget per measurement, seconds (finite and > 0).
    #[arg(long, default_value_t = 0.5, value_parser = positive_seconds)]
    pub budget: f64,
}

/// Parses a time budget in seconds: finite and > 0 (clap names the flag in the error).
fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        Ok(v) => Err(format!("{v} is not allowed; seconds must be finite and > 0")),
        Err(e) => Err(format!("`{s}` is not a number of seconds (finite and > 0): {e}")),
    }
}

/// The pilot's sweeps, as `--suite` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SuiteArg {
    /// Small sizes and short budgets: minutes on a laptop.
    Quick,
    /// The full sweep, sized for a GPU.
    Default,
}

impl From<SuiteArg> for Suite {
    fn from(s: SuiteArg) -> Self {
        match s {
            SuiteArg::Quick => Suite::Quick,
            SuiteArg::Default => Suite::Default,
        }
    }
}

/// Runs the pilot and writes the report.
///
/// # Errors
/// As [`tenor_app::pilot::run_to_folder`].
pub fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let opts = pilot::Options {
        backends: args.backends.clone(),
        suite: args.suite.into(),
        max_bytes: args.max_mib << 20,
        devices: args.devices.clone(),
        build: crate::build_info(),
    };
    let bar = crate::progress::bar("{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} {msg}");
    Ok(crate::print(&tenor_app::pilot::run_to_folder(&opts, &args.peers, &args.out, &bar)?))
}

/// Measures the scaling over devices alone and writes `devices.json` and `devices.md`.
///
/// # Errors
/// As [`tenor_app::pilot::devices_to_folder`].
pub fn devices(args: &DevicesArgs) -> anyhow::Result<ExitCode> {
    let report = tenor_app::pilot::devices_to_folder(&args.devices, args.suite.into(), args.max_mib << 20, &args.out)?;
    Ok(crate::print(&report))
}

/// Benchmarks and checks an in-house kernel.
///
/// # Errors
/// As [`tenor_app::pilot::kernel_to_folder`].
pub fn kernel(args: &KernelArgs) -> anyhow::Result<ExitCode> {
    let req = KernelRequest {
        dir: args.dir.clone(),
        backends: args.backends.clone(),
        reference: args.reference.clone(),
        out: args.out.clone(),
        budget: args.budget,
    };
    Ok(crate::print(&tenor_app::pilot::kernel_to_folder(&req)?))
}
