//! `tenor serve`: a resident process that keeps a backend open (the CUDA context, its pool and
//! its kernels) and prices books for `tenor price --server`, so a command pays neither the
//! device's start-up (`cuInit` and the primary context, 0.2-0.3 s on an H200) nor its teardown at
//! exit. ADR 0026.
//!
//! Books priced one at a time, on a Unix domain socket that only the server's user can reach
//! (mode 0600, in a folder nobody else can write, and the peer's uid checked at both ends); each
//! connection read and answered on a thread of its own, so a slow client holds no other. The client reads the portfolio and writes `--out` itself;
//! the answer is the command's output, byte for byte what `tenor price` prints and writes
//! without `--server` except the lines on opening, timing and exit.

#[cfg(unix)]
mod client;
#[cfg(unix)]
pub mod protocol;
#[cfg(unix)]
mod server;
#[cfg(unix)]
pub mod socket;

use std::path::PathBuf;
use std::process::ExitCode;
#[cfg(unix)]
use std::time::Instant;

use clap::Args;

use super::price::PriceArgs;

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

/// Runs `tenor serve`: opens the backend, binds the socket, answers until `--stop`.
///
/// # Errors
/// An unusable socket path (too long, not a socket, a server already there), a backend that does
/// not open; with `--ping`/`--stop`, no server at the socket.
#[cfg(unix)]
pub fn run(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let socket = socket::resolve(args.socket.as_deref())?;
    if args.ping {
        return client::control(&socket, protocol::Request::Ping);
    }
    if args.stop {
        return client::control(&socket, protocol::Request::Stop);
    }
    // A client that goes away mid-answer gives EPIPE on the write, not a signal ending the server.
    // SAFETY: SIG_IGN is a valid disposition for SIGPIPE; no handler runs.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    // The socket before the device: a live server there, or a path that cannot be bound, is
    // refused at once. Clients that connect meanwhile wait for the open.
    let listener = socket::bind(&socket, args.socket.is_none())?;
    let opening = Instant::now();
    let devices = match tenor_registry::open_devices(&args.backend) {
        Ok(d) => d,
        Err(e) => {
            drop(listener);
            let _ = std::fs::remove_file(&socket);
            return Err(anyhow::Error::new(e).context(format!("opening backend {:?}", args.backend)));
        }
    };
    let open_time = opening.elapsed();
    let info = devices.first().info().clone();
    let at = if args.socket.is_none() { String::new() } else { format!(" --socket {}", socket.display()) };
    eprintln!(
        "tenor serve pid {}: backend {} ({}, {} device(s)) opened in {:.3} s; listening on {}; \
         `tenor price --server{at} --backend {} ...` prices here, `tenor serve --stop{at}` ends it",
        std::process::id(),
        args.backend,
        info.name,
        devices.len(),
        open_time.as_secs_f64(),
        socket.display(),
        args.backend
    );
    let state =
        std::sync::Arc::new(server::State::new(args.backend.clone(), info.name.clone(), open_time, socket.clone()));
    let resident = super::price::Resident { selector: args.backend.clone(), devices, open_time };
    server::serve(&resident, &state, listener);
    let _ = std::fs::remove_file(&socket);
    eprintln!("tenor serve pid {}: stopped; {} removed", std::process::id(), socket.display());
    // As `tenor price`: the backend is left to the operating system, not torn down.
    std::mem::forget(resident);
    super::open_backend::exit_now(0)
}

/// `tenor serve` needs Unix domain sockets.
///
/// # Errors
/// Always, on this platform.
#[cfg(not(unix))]
pub fn run(_args: &ServeArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("tenor serve needs Unix domain sockets, which this platform lacks")
}

/// `tenor price --server`: the command run in the server.
///
/// # Errors
/// As [`run`]'s client side.
#[cfg(unix)]
pub fn price_remote(args: &PriceArgs) -> anyhow::Result<ExitCode> {
    client::price(args)
}

/// `tenor price --server` needs Unix domain sockets.
///
/// # Errors
/// Always, on this platform.
#[cfg(not(unix))]
pub fn price_remote(_args: &PriceArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("tenor price --server needs Unix domain sockets, which this platform lacks")
}
