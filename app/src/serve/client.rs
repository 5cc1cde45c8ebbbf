//! The client side: `tenor price --server`, `tenor serve --ping` and `tenor serve --stop` send
//! one request and replay the server's frames on the caller's streams. The client reads the
//! portfolio and writes `--out` itself: the server never opens a client's file.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use anyhow::Context;
use tenor_pricing::portfolio::PortfolioError;

use tenor_ports::Progress;

use super::protocol::{self, Envelope, Request};
use crate::book::{BookRequest, OutFile, Streams};

/// Largest payload of one input frame.
const INPUT_CHUNK: usize = 256 << 10;

/// Prices `req` in the server at `socket`, writing the rows to `out_file` (opened by the caller
/// before this call, committed here when the server says the rows are complete) and replaying
/// the server's output on `streams` and its progress on `progress`; the exit status the server
/// sent.
///
/// # Errors
/// No server there, a server on another backend, an unreadable portfolio or an unwritable
/// output (as without a server), or the command's own error.
pub fn price(
    req: &BookRequest,
    socket: &Path,
    out_file: Option<tenor_ports::files::AtomicFile>,
    streams: &mut Streams<'_>,
    progress: &dyn Progress,
) -> anyhow::Result<u8> {
    let mut out_file = out_file;
    let input =
        std::fs::read(&req.portfolio).map_err(|source| PortfolioError::Io { path: req.portfolio.clone(), source })?;
    let request = Request::Price { args: for_the_server(req) };
    let mut rows_error = None;
    let mut total = None;
    let code = exchange(socket, request, &input, streams, &mut |frame| match frame {
        Frame::Progress(done, t) => {
            if total != Some(t) {
                progress.start(t);
                total = Some(t);
            }
            progress.set(done);
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
                if let Err(e) = Box::new(f).commit() {
                    rows_error = Some(e);
                }
            }
        }
    });
    progress.finish();
    // A failed write of the output is the command's error, as without a server (the file unchanged).
    if let Some(e) = rows_error {
        return Err(e);
    }
    code
}

/// Sends a ping or a stop to the server at `socket` and replays its answer on `streams`; the exit
/// status it sent.
///
/// # Errors
/// No server there, or a failed exchange.
pub fn control(socket: &Path, request: Request, streams: &mut Streams<'_>) -> anyhow::Result<u8> {
    exchange(socket, request, &[], streams, &mut |_| {})
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
fn exchange(
    socket: &Path,
    request: Request,
    input: &[u8],
    streams: &mut Streams<'_>,
    on: &mut dyn FnMut(Frame),
) -> anyhow::Result<u8> {
    let envelope = Envelope {
        protocol: protocol::PROTOCOL,
        version: env!("CARGO_PKG_VERSION").to_owned(),
        input_bytes: input.len() as u64,
        request,
    };
    let body = serde_json::to_vec(&envelope).context("encoding the request")?;
    // Nothing is sent to a socket another user could have put there, nor to a server of
    // another user (ADR 0029).
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
    let (out, err) = (&mut *streams.out, &mut *streams.err);
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

/// The request as the server gets it: paths only name files in messages, so they travel as text
/// (a path that is not UTF-8 is shown with replacement characters, as `tenor price` shows it).
fn for_the_server(a: &BookRequest) -> BookRequest {
    let shown = |p: &Path| PathBuf::from(p.to_string_lossy().into_owned());
    BookRequest { portfolio: shown(&a.portfolio), out: a.out.as_deref().map(shown), ..a.clone() }
}
