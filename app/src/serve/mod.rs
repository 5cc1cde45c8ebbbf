//! `tenor serve`: a resident process that keeps a backend open (the CUDA context, its pool and
//! its kernels) and prices books for `tenor price --server` and basket jobs for
//! `tenor basket --server`, so a command pays neither the device's start-up (`cuInit` and the
//! primary context, 0.2-0.3 s on an H200) nor its teardown at exit, and a basket job after the
//! first no kernel compilation. ADR 0026.
//!
//! Requests run one at a time, on a Unix domain socket that only the server's user can reach
//! (mode 0600, in a folder nobody else can write, and the peer's uid checked at both ends: ADR
//! 0029); each connection read and answered on a thread of its own, so a slow client holds no
//! other. The client reads its input (the portfolio, the job file) and writes the output itself;
//! the answer is the command's output, byte for byte what [`crate::book::price_book`] (or
//! [`crate::basket::run_basket_in`]) writes in the client's own process except the lines on
//! opening, timing and exit.

mod client;
pub mod protocol;
mod server;
pub mod socket;

use std::path::{Path, PathBuf};
use std::time::Instant;

pub use client::{basket, control, price};

/// How to run a server ([`run`]).
pub struct ServeConfig {
    /// Backend selector to keep open (`cpu`, `sim`, `cuda:*`, ...); clients must ask for the
    /// same name.
    pub backend: String,
    /// The socket; `None`: [`socket::default_path`].
    pub socket: Option<PathBuf>,
}

/// Opens the backend of `config`, binds its socket and answers requests until a stop request;
/// `log` gets the server's log lines (its start, each request, refusals). The backend is left to
/// the operating system when the server stops (ADR 0019): the caller should end the process
/// without running destructors ([`crate::book::open::exit_now`]).
///
/// # Errors
/// An unusable socket path (too long, not a socket, a server already there), a backend that
/// does not open.
pub fn run(config: &ServeConfig, log: Box<dyn Fn(&str) + Send + Sync>) -> anyhow::Result<()> {
    let socket = socket::resolve(config.socket.as_deref())?;
    // A client that goes away mid-answer gives EPIPE on the write, not a signal ending the server.
    // SAFETY: SIG_IGN is a valid disposition for SIGPIPE; no handler runs.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    // The socket before the device: a live server there, or a path that cannot be bound, is
    // refused at once. Clients that connect meanwhile wait for the open.
    let listener = socket::bind(&socket, config.socket.is_none())?;
    let opening = Instant::now();
    let devices = match tenor_registry::open_devices(&config.backend) {
        Ok(d) => d,
        Err(e) => {
            drop(listener);
            let _ = std::fs::remove_file(&socket);
            return Err(anyhow::Error::new(e).context(format!("opening backend {:?}", config.backend)));
        }
    };
    let open_time = opening.elapsed();
    let info = devices.first().info().clone();
    let at = if config.socket.is_none() { String::new() } else { format!(" --socket {}", socket.display()) };
    log(&format!(
        "tenor serve pid {}: backend {} ({}, {} device(s)) opened in {:.3} s; listening on {}; \
         `tenor price --server{at} --backend {} ...` prices here (and `tenor basket --server ...`), \
         `tenor serve --stop{at}` ends it",
        std::process::id(),
        config.backend,
        info.name,
        devices.len(),
        open_time.as_secs_f64(),
        socket.display(),
        config.backend
    ));
    let log: server::Log = std::sync::Arc::from(log);
    let state = std::sync::Arc::new(server::State::new(
        config.backend.clone(),
        info.name.clone(),
        open_time,
        socket.clone(),
        log.clone(),
    ));
    let resident = crate::book::Resident { selector: config.backend.clone(), devices, open_time };
    server::serve(&resident, &state, listener);
    let _ = std::fs::remove_file(&socket);
    log(&format!("tenor serve pid {}: stopped; {} removed", std::process::id(), socket.display()));
    // As `tenor price`: the backend is left to the operating system, not torn down.
    std::mem::forget(resident);
    Ok(())
}

/// The socket a server or client uses: `given`, else [`socket::default_path`].
///
/// # Errors
/// No default path can be made ([`socket::SocketError`]).
pub fn socket_path(given: Option<&Path>) -> Result<PathBuf, socket::SocketError> {
    socket::resolve(given)
}
