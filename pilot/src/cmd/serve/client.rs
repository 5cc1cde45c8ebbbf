//! The client side: `tenor price --server`, `tenor serve --ping` and `tenor serve --stop` send
//! one request and replay the server's frames on this process's streams.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;

use super::protocol::{self, Envelope, Request};
use crate::cmd::price::PriceArgs;

/// Prices `args` in the server at `args.socket` (or the default socket).
///
/// # Errors
/// No server there, a server on another backend, or the command's own error (printed by
/// `main` after `error: `, as without `--server`).
pub fn price(args: &PriceArgs) -> anyhow::Result<ExitCode> {
    let socket = super::socket::resolve(args.socket.as_deref())?;
    let cwd = std::env::current_dir().context("the working directory is unknown")?;
    // The request carries the parsed arguments (with this process's TENOR_BACKEND applied).
    let request = Request::Price { cwd, args: clone_args(args) };
    let bar = crate::cmd::price::pricing_bar();
    let code = exchange(&socket, request, &|done, total| {
        if bar.length() != Some(total) {
            bar.set_length(total);
        }
        bar.set_position(done);
    });
    bar.finish_and_clear();
    Ok(ExitCode::from(code?))
}

/// Sends a ping or a stop to the server at `socket` and prints its answer.
///
/// # Errors
/// No server there, or a failed exchange.
pub fn control(socket: &Path, request: Request) -> anyhow::Result<ExitCode> {
    Ok(ExitCode::from(exchange(socket, request, &|_, _| {})?))
}

/// Connects, sends `request` and replays the reply; the exit status the server sent.
fn exchange(socket: &Path, request: Request, progress: &dyn Fn(u64, u64)) -> anyhow::Result<u8> {
    let mut stream = UnixStream::connect(socket).with_context(|| {
        format!(
            "no Tenor server at {} (start one with `tenor serve --backend NAME --socket {}`)",
            socket.display(),
            socket.display()
        )
    })?;
    let envelope = Envelope { protocol: protocol::PROTOCOL, version: env!("CARGO_PKG_VERSION").to_owned(), request };
    let body = serde_json::to_vec(&envelope).context("encoding the request")?;
    protocol::write_frame(&mut stream, protocol::TAG_REQUEST, &body)
        .with_context(|| format!("sending the request to {}", socket.display()))?;
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    loop {
        let frame = protocol::read_frame(&mut stream, protocol::MAX_REPLY)
            .with_context(|| format!("reading the answer of the server at {}", socket.display()))?;
        let Some((tag, payload)) = frame else {
            anyhow::bail!(
                "the server at {} closed the connection before the end of its answer (see its log)",
                socket.display()
            );
        };
        match tag {
            protocol::TAG_STDOUT => out.write_all(&payload)?,
            protocol::TAG_STDERR => err.write_all(&payload)?,
            protocol::TAG_PROGRESS => {
                if let Some((done, total)) = protocol::parse_progress(&payload) {
                    progress(done, total);
                }
            }
            protocol::TAG_EXIT => {
                out.flush()?;
                return Ok(payload.first().copied().unwrap_or(1));
            }
            protocol::TAG_ERROR => {
                out.flush()?;
                anyhow::bail!("{}", String::from_utf8_lossy(&payload));
            }
            other => anyhow::bail!("the server at {} sent an unknown frame (tag {other})", socket.display()),
        }
    }
}

/// A copy of the arguments for the request (`PriceArgs` holds paths, not handles).
fn clone_args(a: &PriceArgs) -> PriceArgs {
    PriceArgs {
        portfolio: a.portfolio.clone(),
        backend: a.backend.clone(),
        paths: a.paths,
        seed: a.seed,
        out: a.out.clone(),
        engine: a.engine,
        steps: a.steps,
        streams: a.streams,
        no_greeks: a.no_greeks,
        unbatched: a.unbatched,
        server: false,
        socket: None,
    }
}
