//! The client side: `tenor price --server`, `tenor basket --server`, `tenor serve --ping` and
//! `tenor serve --stop` send one request and replay the server's frames on the caller's streams.
//! The client reads its input (the portfolio, the job file) and writes `--out` itself: the
//! server never opens a client's file.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use anyhow::Context;
use tenor_pricing::portfolio::PortfolioError;

use tenor_ports::Progress;

use super::protocol::{self, Envelope, Request};
use crate::basket::{self, BasketRequest, OutputSet};
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
    let code = exchange(socket, request, &input, streams, &mut |frame| {
        match frame {
            Frame::Progress(done, t) => show(progress, &mut total, done, t),
            Frame::File(_) => anyhow::bail!("the server sent an output set for a single --out file"),
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
        }
        Ok(())
    });
    progress.finish();
    // A failed write of the output is the command's error, as without a server (the file unchanged).
    if let Some(e) = rows_error {
        return Err(e);
    }
    code
}

/// Runs the basket job of `req` in the server at `socket`: the job file read here (a regular
/// file of at most [`basket::MAX_JOB_BYTES`], as `tenor basket` reads it), `greeks.csv` and
/// `summary.json` written into `req.out` as one set when the server sends them (an earlier set
/// stays whole on any error), the server's output replayed on `streams` and its progress on
/// `progress`; the exit status the server sent.
///
/// # Errors
/// An `--out` that would replace the job file or the socket, an unreadable job file (refused
/// before anything is sent), no server there, a server on another backend, the command's own
/// error (a bad job: the file and the key named), the set not written.
pub fn basket(
    req: &BasketRequest,
    socket: &Path,
    streams: &mut Streams<'_>,
    progress: &dyn Progress,
) -> anyhow::Result<u8> {
    basket::check_outputs(req, &[("socket", socket)])?;
    let job = basket::read_job_bytes(&req.job)?;
    let args = BasketRequest { job: shown(&req.job), out: shown(&req.out), ..req.clone() };
    let mut total = None;
    let mut set = ReceivedSet::default();
    let code = exchange(socket, Request::Basket { args }, &job, streams, &mut |frame| {
        match frame {
            Frame::Progress(done, t) => show(progress, &mut total, done, t),
            Frame::File(name) => set.file(&name)?,
            Frame::Rows(bytes) => set.rows(&bytes)?,
            Frame::Commit => basket::Folder(&req.out).write_set(&set.take()?)?,
        }
        Ok(())
    });
    progress.finish();
    code
}

/// The files of a basket answer as they arrive: each one named by the server must be one of
/// [`basket::OUTPUTS`], given once, and all of them together at most [`MAX_SET_BYTES`].
#[derive(Default)]
struct ReceivedSet {
    files: Vec<(&'static str, Vec<u8>)>,
    bytes: usize,
}

/// Most bytes of an output set a client holds (a baseline set is a few kilobytes; 16 assets
/// with every Greek under 100 kB).
const MAX_SET_BYTES: usize = 16 << 20;

impl ReceivedSet {
    fn file(&mut self, name: &[u8]) -> anyhow::Result<()> {
        let Some(known) = basket::OUTPUTS.iter().find(|n| n.as_bytes() == name) else {
            anyhow::bail!(
                "the server sent a file named {:?}, not one of {:?}",
                String::from_utf8_lossy(name),
                basket::OUTPUTS
            );
        };
        if self.files.iter().any(|(n, _)| n == known) {
            anyhow::bail!("the server sent {known} twice");
        }
        self.files.push((known, Vec::new()));
        Ok(())
    }

    fn rows(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        self.bytes += bytes.len();
        if self.bytes > MAX_SET_BYTES {
            anyhow::bail!("the server's output set is over {MAX_SET_BYTES} bytes");
        }
        let Some((_, file)) = self.files.last_mut() else {
            anyhow::bail!("the server sent output bytes before naming their file");
        };
        file.extend_from_slice(bytes);
        Ok(())
    }

    fn take(&mut self) -> anyhow::Result<Vec<(&'static str, Vec<u8>)>> {
        if self.files.len() != basket::OUTPUTS.len() {
            anyhow::bail!(
                "the server committed {} of the {} files of the output set",
                self.files.len(),
                basket::OUTPUTS.len()
            );
        }
        Ok(std::mem::take(&mut self.files))
    }
}

/// Shows a progress frame: `done` of `total` steps.
fn show(progress: &dyn Progress, started: &mut Option<u64>, done: u64, total: u64) {
    if *started != Some(total) {
        progress.start(total);
        *started = Some(total);
    }
    progress.set(done);
}

/// Sends a ping or a stop to the server at `socket` and replays its answer on `streams`; the exit
/// status it sent.
///
/// # Errors
/// No server there, or a failed exchange.
pub fn control(socket: &Path, request: Request, streams: &mut Streams<'_>) -> anyhow::Result<u8> {
    exchange(socket, request, &[], streams, &mut |_| Ok(()))
}

/// A frame the caller handles (the streams and the end are handled by [`exchange`]).
enum Frame {
    Progress(u64, u64),
    File(Vec<u8>),
    Rows(Vec<u8>),
    Commit,
}

/// Connects, sends `request` and `input`, and replays the reply; the exit status the server
/// sent. An error of `on` ends the exchange with that error (the rest of the answer unread).
/// The reply is read on a thread of its own into memory, so a slow reader of this process's
/// stdout (`| less`) never holds the server.
fn exchange(
    socket: &Path,
    request: Request,
    input: &[u8],
    streams: &mut Streams<'_>,
    on: &mut dyn FnMut(Frame) -> anyhow::Result<()>,
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
                    on(Frame::Progress(done, total))?;
                }
            }
            protocol::TAG_FILE => on(Frame::File(payload))?,
            protocol::TAG_ROWS => on(Frame::Rows(payload))?,
            protocol::TAG_COMMIT => on(Frame::Commit)?,
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
    BookRequest { portfolio: shown(&a.portfolio), out: a.out.as_deref().map(shown), ..a.clone() }
}

/// A path as text for the server's messages (a path that is not UTF-8 shown with replacement
/// characters, as the commands show it).
fn shown(p: &Path) -> PathBuf {
    PathBuf::from(p.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::ReceivedSet;

    #[test]
    fn a_received_set_takes_only_the_commands_files_once_each() {
        let mut set = ReceivedSet::default();
        assert!(set.rows(b"x").is_err(), "bytes before a name");
        for name in ["../greeks.csv", "/etc/passwd", "greeks.csv/", ""] {
            assert!(set.file(name.as_bytes()).is_err(), "{name:?} is not a file of the set");
        }
        set.file(b"greeks.csv").expect("a file of the set");
        set.rows(b"greek,").expect("rows");
        set.rows(b"asset\n").expect("rows");
        assert!(set.file(b"greeks.csv").is_err(), "a file named twice");
        assert!(set.take().is_err(), "one file of two is no set");
        set.file(b"summary.json").expect("a file of the set");
        let files = set.take().expect("the whole set");
        assert_eq!(files, vec![("greeks.csv", b"greek,asset\n".to_vec()), ("summary.json", Vec::new())]);
    }
}
