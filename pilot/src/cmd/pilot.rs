//! `tenor pilot run`: the pilot (see `crate::pilot`).
use std::path::PathBuf;
use std::process::ExitCode;

use crate::pilot::{self, Suite};

/// Arguments of `tenor pilot run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Backends to measure (comma-separated); unavailable ones are reported with the reason.
    #[arg(long, value_delimiter = ',', default_value = "cpu,sycl,cuda,opencl")]
    pub backends: Vec<String>,
    /// Sweep to run.
    #[arg(long, value_enum, default_value_t = Suite::Quick)]
    pub suite: Suite,
    /// Output folder for pilot.json, pilot.md and the SVG charts.
    #[arg(long, default_value = "pilot-report")]
    pub out: PathBuf,
    /// Largest device memory one workload may take, in MiB.
    #[arg(long, default_value_t = 2048)]
    pub max_mib: u64,
    /// Peer results (JSON lines of {peer, workload, size, unit, rate}) to merge into the report.
    #[arg(long)]
    pub peers: Vec<PathBuf>,
}

/// Runs the pilot and writes the report.
pub fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    use anyhow::Context as _;
    let opts = pilot::Options { backends: args.backends.clone(), suite: args.suite, max_bytes: args.max_mib << 20 };
    let mut report = pilot::run(&opts)?;
    for p in &args.peers {
        let text = std::fs::read_to_string(p).with_context(|| format!("reading peer results {}", p.display()))?;
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let row: pilot::PeerRow =
                serde_json::from_str(line).with_context(|| format!("{}:{}: not a peer result row", p.display(), i + 1))?;
            report.peers.push(row);
        }
    }
    let files = pilot::report::write(&report, &args.out)?;
    for f in files {
        println!("wrote {}", f.display());
    }
    let bad: Vec<String> = report.agreement.iter().filter(|a| !a.agrees).map(|a| format!("{} {}", a.backend, a.workload)).collect();
    if bad.is_empty() && report.switch.iter().all(|s| s.correct) {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("disagreement with the CPU reference or a wrong first price: {}", bad.join(", "));
        Ok(ExitCode::FAILURE)
    }
}
