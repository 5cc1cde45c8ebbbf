//! `tenor serve`: keeps a backend open and prices books for `tenor price --server`
//! ([`tenor_app::serve`], ADR 0026, docs/serve.md).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

/// Arguments of `tenor serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Backend to keep open (`cpu`, `sim`, `auto`, one compiled in with a feature, or several
    /// devices such as `cuda:*`); clients must ask for the same name.
    #[arg(long, env = "TENOR_BACKEND", default_value = "cpu", help = tenor_registry::help())]
    pub backend: String,
    /// Socket to listen on; default: `$XDG_RUNTIME_DIR/tenor/serve.sock`, else
    /// `~/.cache/tenor/serve.sock`.
    #[arg(long, env = "TENOR_SOCKET")]
    pub socket: Option<PathBuf>,
    /// Ask the server at `--socket` for its backend, age and requests answered (exit 0 when one
    /// answers).
    #[arg(long, conflicts_with = "stop")]
    pub ping: bool,
    /// End the server at `--socket`.
    #[arg(long)]
    pub stop: bool,
}

/// Runs `tenor serve`: opens the backend, binds the socket, answers until `--stop`; or, with
/// `--ping`/`--stop`, asks the server at the socket.
///
/// # Errors
/// An unusable socket path (too long, not a socket, a server already there), a backend that does
/// not open; with `--ping`/`--stop`, no server at the socket.
#[cfg(unix)]
pub fn run(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    use tenor_app::serve::{self, protocol::Request};
    if args.ping || args.stop {
        let socket = serve::socket_path(args.socket.as_deref())?;
        let request = if args.ping { Request::Ping } else { Request::Stop };
        let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
        let code = serve::control(&socket, request, &mut tenor_app::book::Streams { out: &mut out, err: &mut err })?;
        return Ok(ExitCode::from(code));
    }
    let config = serve::ServeConfig { backend: args.backend.clone(), socket: args.socket.clone() };
    serve::run(&config, Box::new(|line| eprintln!("{line}")))?;
    tenor_app::book::open::exit_now(0)
}

/// `tenor serve` needs Unix domain sockets.
///
/// # Errors
/// Always, on this platform.
#[cfg(not(unix))]
pub fn run(_args: &ServeArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("tenor serve needs Unix domain sockets, which this platform lacks")
}
