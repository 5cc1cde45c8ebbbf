//! The client side: `tenor price --server`, `tenor serve --ping` and `tenor serve --stop` send
//! one request and replay the server's frames on this process's streams. The client reads the
//! portfolio and writes `--out` itself: the server never opens a client's file.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;

use anyhow::Context;
use tenor_pricing::portfolio::PortfolioError;

use super::protocol::{self, Envelope, Request};
use crate::cmd::price::PriceArgs;

/// Largest payload of one input frame.
const INPUT_CHUNK: usize = 256 << 10;

/// Prices `args` in the server at `args.socket` (or the default socket).
///
/// # Errors
/// No server there, a server on another backend, an unreadable portfolio or an unwritable
/// `--out` (as without `--server`), or the command's own error (printed by `main` after
/// `error: `, as without `--server`).
pub fn price(args: &PriceArgs) -> anyhow::Result<ExitCode> {
    let socket = super::socket::resolve(args.socket.as_deref())?;
    // The checks and the order of `tenor price` by itself: the output opened first, then the
    // portfolio read; an --out that would replace the server's socket is refused too.
    let mut out_file = crate::cmd::price::open_out(args, &[("--socket", &socket)])?;
    let input =
        std::fs::read(&args.portfolio).map_err(|source| PortfolioError::Io { path: args.portfolio.clone(), source })?;
    let request = Request::Price { args: for_the_server(args) };
    let bar = crate::cmd::price::pricing_bar();
    let mut rows_error = None;
    let code = exchange(&socket, request, &input, &mut |frame| match frame {
        Frame::Progress(done, total) => {
            if bar.length() != Some(total) {
                bar.set_length(total);
            }
            bar.set_position(done);
        }
        Frame::Rows(bytes) => {
            if let (Some(f), None) = (out_file.as_mut(), &rows_error) {
                if let Err(e) = f.write_all(&bytes) {
                    rows_error = Some(anyhow::Error::new(e).context(format!("writing {}", f.path().display())));
                }
            }
        }
        Frame::Commit => {
            if let (Some(f), None) = (out_file.take(), &rows_error) {
                if let Err(e) = f.commit() {
                    rows_error = Some(e.into());
                }
            }
        }
    });
    bar.finish_and_clear();
    // A failed write of --out is the command's error, as without --server (the file unchanged).
    if let Some(e) = rows_error {
        return Err(e);
    }
    Ok(ExitCode::from(code?))
}

/// Sends a ping or a stop to the server at `socket` and prints its answer.
///
/// # Errors
/// No server there, or a failed exchange.
pub fn control(socket: &Path, request: Request) -> anyhow::Result<ExitCode> {
    Ok(ExitCode::from(exchange(socket, request, &[], &mut |_| {})?))
}

/// A frame the caller handles (the streams and the end are handled by [`exchange`]).
enum Frame {
    Progress(u64, u64),
    Rows(Vec<u8>),
    Commit,
}

/// Connects, sends `request` and `input`, and replays the reply; the exit status the server
/// sent. The reply is read on a thread of its own into memory, so a slow reader of this
/// process's stdout (`| less`) never holds the server.
fn exchange(socket: &Path, request: Request, input: &[u8], on: &mut dyn FnMut(Frame)) -> anyhow::Result<u8> {
    let envelope = Envelope {
        protocol: protocol::PROTOCOL,
        version: env!("CARGO_PKG_VERSION").to_owned(),
        input_bytes: input.len() as u64,
        request,
    };
    let body = serde_json::to_vec(&envelope).context("encoding the request")?;
    // Nothing is sent to a socket another user could have put there, nor to a server of
    // another user (ADR 0027).
    super::socket::check_folder(socket)?;
    let stream = UnixStream::connect(socket).with_context(|| {
        format!(
            "no Tenor server at {} (start one with `tenor serve --backend NAME --socket {}`)",
            socket.display(),
            socket.display()
        )
    })?;
    super::socket::check_peer(&stream, socket, "server")?;
    let sending = || -> std::io::Result<()> {
        let mut w = std::io::BufWriter::new(&stream);
        protocol::write_frame(&mut w, protocol::TAG_REQUEST, &body)?;
        for chunk in input.chunks(INPUT_CHUNK) {
            protocol::write_frame(&mut w, protocol::TAG_INPUT, chunk)?;
        }
        w.flush()
    };
    // A server that refuses the request early closes its side: its answer still says why.
    let sent = sending();
    let (tx, rx) = mpsc::channel();
    let mut reader = stream.try_clone().context("cloning the connection")?;
    let reading = std::thread::Builder::new()
        .name("tenor-serve-reply".into())
        .spawn(move || loop {
            let frame = protocol::read_frame(&mut reader, protocol::MAX_REPLY);
            let end = !matches!(frame, Ok(Some((tag, _))) if tag != protocol::TAG_EXIT && tag != protocol::TAG_ERROR);
            if tx.send(frame).is_err() || end {
                return;
            }
        })
        .context("starting the reply thread")?;
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    let result = (|| loop {
        let Ok(frame) = rx.recv() else {
            anyhow::bail!("the reply thread ended early");
        };
        let frame = frame.with_context(|| format!("reading the answer of the server at {}", socket.display()))?;
        let Some((tag, payload)) = frame else {
            if let Err(e) = &sent {
                anyhow::bail!("sending the request to {}: {e}", socket.display());
            }
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
                    on(Frame::Progress(done, total));
                }
            }
            protocol::TAG_ROWS => on(Frame::Rows(payload)),
            protocol::TAG_COMMIT => on(Frame::Commit),
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
    })();
    // Ends the reply thread's read when this side stops early.
    let _ = stream.shutdown(std::net::Shutdown::Both);
    drop(rx);
    let _ = reading.join();
    result
}

/// The arguments as the server gets them: paths only name files in messages, so they travel as
/// text (a path that is not UTF-8 is shown with replacement characters, as `tenor price` shows
/// it).
fn for_the_server(a: &PriceArgs) -> PriceArgs {
    let shown = |p: &Path| PathBuf::from(p.to_string_lossy().into_owned());
    PriceArgs {
        portfolio: shown(&a.portfolio),
        out: a.out.as_deref().map(shown),
        server: false,
        socket: None,
        ..a.clone()
    }
}
