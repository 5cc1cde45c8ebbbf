//! `tenor basket`: the STAC-A2 basket job (`docs/basket-job.md`) on a backend, `greeks.csv` and
//! `summary.json` into `--out` ([`tenor_app::basket`]), here or with `--server` in a resident
//! `tenor serve` ([`tenor_app::serve::basket`]).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use tenor_app::basket::{run_basket, BasketRequest, Overrides, MAX_REPEAT};

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
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_REPEAT)))]
    pub repeat: u32,
    /// Folder for greeks.csv and summary.json (written as one set).
    #[arg(long)]
    pub out: PathBuf,
    /// After the timed jobs, one more with the device synchronised after each phase (paths,
    /// backward induction, valuation, sensitivities), its phase times printed (not in summary.json).
    #[arg(long)]
    pub phases: bool,
    /// Run in the resident `tenor serve` at `--socket` (its backend already open, its kernels
    /// built by its first basket job: timings measured inside the server). `--backend` must name
    /// the server's backend; the server's environment governs the backend and its kernels.
    #[arg(long)]
    pub server: bool,
    /// The server's socket (used with `--server` only); default: `$XDG_RUNTIME_DIR/tenor/serve.sock`, else
    /// `~/.cache/tenor/serve.sock`.
    #[arg(long, env = "TENOR_SOCKET")]
    pub socket: Option<PathBuf>,
}

/// Runs `tenor basket`: here, or with `--server` in the resident `tenor serve`.
///
/// # Errors
/// A bad job file (its key or line named), an unavailable backend, an unwritable `--out`; with
/// `--server`, no server at the socket or one on another backend.
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
    if args.server {
        return remote(args, &req, &bar);
    }
    let (report, _) = run_basket(&req, &bar)?;
    Ok(crate::print(&report))
}

#[cfg(unix)]
fn remote(args: &BasketArgs, req: &BasketRequest, bar: &crate::progress::Bar) -> anyhow::Result<ExitCode> {
    let socket = tenor_app::serve::socket_path(args.socket.as_deref())?;
    // Unlocked handles: the progress bar draws on stderr meanwhile.
    let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
    let mut streams = tenor_app::book::Streams { out: &mut out, err: &mut err };
    let code = tenor_app::serve::basket(req, &socket, &mut streams, bar)?;
    Ok(ExitCode::from(code))
}

#[cfg(not(unix))]
fn remote(_: &BasketArgs, _: &BasketRequest, _: &crate::progress::Bar) -> anyhow::Result<ExitCode> {
    anyhow::bail!("tenor basket --server needs Unix domain sockets, which this platform lacks")
}
