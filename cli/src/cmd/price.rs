//! `tenor price`: prices a portfolio CSV (`docs/portfolio-csv.md`) on a backend and prints a
//! summary ([`tenor_app::book`]), here or with `--server` in a resident `tenor serve`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, ValueEnum};
use tenor_app::book::{self, BookRequest, EngineChoice, OutFile, Source, Streams};
use tenor_pricing::portfolio;

/// Engine choice on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// Closed forms where they exist, Monte Carlo otherwise.
    Auto,
    /// Monte Carlo for every supported kind (the backend carries the whole book).
    Mc,
}

/// Arguments of `tenor price`.
#[derive(Debug, Clone, Args)]
pub struct PriceArgs {
    /// Portfolio CSV to price.
    #[arg(long)]
    pub portfolio: PathBuf,
    /// Compute backend (`cpu`, `sim`, `auto`, or one compiled in with a feature).
    #[arg(long, env = "TENOR_BACKEND", default_value = "cpu", help = tenor_registry::help())]
    pub backend: String,
    /// Monte Carlo paths per valuation (even, 4 to 1e9).
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(4..=portfolio::MAX_PATHS))]
    pub paths: u64,
    /// Philox seed for every Monte Carlo row.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Output CSV (`id,price,stderr,delta,gamma,vega,theta,rho,method,backend`); stdout if absent
    /// or `-`. Written atomically (a link of this user is written through to its target); a FIFO
    /// or a character device (`/dev/stdout`) is written as a stream.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// `auto`: closed forms where they exist; `mc`: Monte Carlo for everything.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,
    /// Grid steps for continuously monitored barriers under Monte Carlo (1 to 100000).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=i64::from(portfolio::MAX_STEPS)))]
    pub steps: u32,
    /// Streams the Monte Carlo trades are spread over (1 to 65535).
    #[arg(long, default_value_t = 1, value_parser = clap::builder::TypedValueParser::map(
        clap::value_parser!(u64).range(1..=portfolio::MAX_STREAMS as u64),
        |n| usize::try_from(n).unwrap_or(portfolio::MAX_STREAMS)
    ))]
    pub streams: usize,
    /// Skip the Greeks (price and standard error only).
    #[arg(long)]
    pub no_greeks: bool,
    /// One launch per Monte Carlo job in chunks of 8 trades and the closed forms one after
    /// another (the pricer before batch kernels; bitwise the same prices), for comparison.
    #[arg(long)]
    pub unbatched: bool,
    /// Price in the resident `tenor serve` at `--socket` (its backend already open: no device
    /// start-up in this command). `--backend` must name the server's backend; the server's
    /// environment governs the backend and its kernels.
    #[arg(long)]
    pub server: bool,
    /// The server's socket (used with `--server` only); default: `$XDG_RUNTIME_DIR/tenor/serve.sock`, else
    /// `~/.cache/tenor/serve.sock`.
    #[arg(long, env = "TENOR_SOCKET")]
    pub socket: Option<PathBuf>,
}

impl PriceArgs {
    /// The library's request for these flags.
    pub fn request(&self) -> BookRequest {
        BookRequest {
            portfolio: self.portfolio.clone(),
            backend: self.backend.clone(),
            paths: self.paths,
            seed: self.seed,
            // `--out -` is standard output, as without --out.
            out: self.out.clone().filter(|p| p.as_os_str() != "-"),
            engine: match self.engine {
                EngineArg::Auto => EngineChoice::Auto,
                EngineArg::Mc => EngineChoice::Mc,
            },
            steps: self.steps,
            streams: self.streams,
            greeks: !self.no_greeks,
            batch: !self.unbatched,
        }
    }
}

/// Runs `tenor price`: here, or with `--server` in the resident `tenor serve`.
///
/// # Errors
/// An unreadable portfolio, an unavailable backend or an unwritable output; bad rows are not
/// errors of the call (they are reported and give exit status 1).
pub fn run(args: &PriceArgs) -> anyhow::Result<ExitCode> {
    let req = args.request();
    let started = Instant::now();
    let bar = crate::progress::pricing_bar();
    // Unlocked handles: the progress bar draws on stderr from pricing threads meanwhile.
    let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
    let mut streams = Streams { out: &mut out, err: &mut err };
    if args.server {
        return remote(args, &req, &mut streams, &bar);
    }
    let out_file = open_out(&req, &[])?.map(|f| Box::new(f) as Box<dyn OutFile>);
    let outcome = book::price_book(&req, Source::Open, started, out_file, &mut streams, &bar)?;
    if outcome.exit_now {
        book::open::exit_now(outcome.code);
    }
    Ok(ExitCode::from(outcome.code))
}

/// Opens `--out`, if given, before any work (refused when it names the portfolio or one of
/// `also`).
fn open_out(req: &BookRequest, also: &[(&str, &Path)]) -> anyhow::Result<Option<tenor_ports::files::AtomicFile>> {
    req.out.as_deref().map(|out| book::open_out(out, &req.portfolio, also)).transpose()
}

#[cfg(unix)]
fn remote(
    args: &PriceArgs,
    req: &BookRequest,
    streams: &mut Streams<'_>,
    bar: &crate::progress::Bar,
) -> anyhow::Result<ExitCode> {
    let socket = tenor_app::serve::socket_path(args.socket.as_deref())?;
    // The checks and the order of `tenor price` by itself: the output opened first, then the
    // portfolio read; an --out that would replace the server's socket is refused too.
    let out_file = open_out(req, &[("socket", &socket)])?;
    let code = tenor_app::serve::price(req, &socket, out_file, streams, bar)?;
    Ok(ExitCode::from(code))
}

#[cfg(not(unix))]
fn remote(_: &PriceArgs, _: &BookRequest, _: &mut Streams<'_>, _: &crate::progress::Bar) -> anyhow::Result<ExitCode> {
    anyhow::bail!("tenor price --server needs Unix domain sockets, which this platform lacks")
}
