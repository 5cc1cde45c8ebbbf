//! The accept loop of `tenor serve`: one request at a time (the device is shared), each answered
//! on its own connection with the frames of [`super::protocol`].

use std::io::{BufWriter, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::protocol::{self, Envelope, Request};
use tenor_ports::Progress;

use crate::book::{self, BookRequest, OutFile, Resident, Source, Streams};

/// How long a client may take to send its request (the whole frame, not one read).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a client may take to send its portfolio: this, plus a second per 50 MB.
const INPUT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one write to a client may block (a client stopped with SIGSTOP, say) before the
/// server gives the request up.
const WRITE_TIMEOUT: Duration = Duration::from_secs(60);
/// Fewest milliseconds between two progress frames.
const PROGRESS_EVERY_MS: u64 = 100;
/// Largest payload of one output frame.
const FRAME_CHUNK: usize = 64 << 10;

/// The server's state between requests.
pub struct Server {
    /// The open backend.
    pub resident: Resident,
    /// The socket it listens on.
    pub socket: PathBuf,
    /// When it started.
    pub started: Instant,
    /// Requests answered.
    pub served: u64,
    /// Price requests answered.
    pub priced: u64,
    /// Where the server's log lines go (the door's stderr).
    pub log: Box<dyn Fn(&str) + Send + Sync>,
}

/// What the loop does after a request.
enum Next {
    Continue,
    Stop,
}

impl Server {
    /// Answers connections on `listener` until a stop request.
    pub fn serve(&mut self, listener: &UnixListener) {
        for conn in listener.incoming() {
            let stream = match conn {
                Ok(s) => s,
                Err(e) => {
                    (self.log)(&format!("tenor serve: accept failed: {e}"));
                    continue;
                }
            };
            if let Next::Stop = self.answer(stream) {
                break;
            }
        }
    }

    /// Reads one request from `stream` and answers it.
    fn answer(&mut self, stream: UnixStream) -> Next {
        let started = Instant::now();
        let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
        let reply = Reply::new(&stream);
        let Some(reply) = reply else { return Next::Continue };
        // SAFETY: `getuid` has no preconditions.
        let own = unsafe { libc::getuid() };
        match super::socket::peer_uid(&stream) {
            Ok(uid) if uid == own => {}
            Ok(uid) => {
                reply.error(&format!("refused: the client runs as uid {uid}, the server as uid {own}"));
                (self.log)(&format!("tenor serve: refused a client of uid {uid}"));
                return Next::Continue;
            }
            Err(e) => {
                reply.error(&format!("refused: the client's credentials are unknown ({e})"));
                return Next::Continue;
            }
        }
        let envelope = match read_request(&stream) {
            Ok(Some(e)) => e,
            // A probe (`tenor serve` checking for a live server, a client that gave up).
            Ok(None) => return Next::Continue,
            Err(why) => {
                reply.error(&why);
                (self.log)(&format!("tenor serve: bad request: {why}"));
                return Next::Continue;
            }
        };
        self.served += 1;
        let n = self.served;
        match envelope.request {
            Request::Ping => {
                let info = self.resident.devices.first().info();
                reply.stderr(&format!(
                    "tenor serve pid {}: backend {} ({}) opened in {:.3} s, up {:.1} s, {} book(s) priced, socket {}\n",
                    std::process::id(),
                    self.resident.selector,
                    info.name,
                    self.resident.open_time.as_secs_f64(),
                    self.started.elapsed().as_secs_f64(),
                    self.priced,
                    self.socket.display()
                ));
                reply.exit(0);
                Next::Continue
            }
            Request::Stop => {
                reply.stderr(&format!("tenor serve pid {}: stopping after {} request(s)\n", std::process::id(), n - 1));
                reply.exit(0);
                Next::Stop
            }
            Request::Price { args } => {
                let input = match read_input(&stream, envelope.input_bytes) {
                    Ok(bytes) => bytes,
                    Err(why) => {
                        reply.error(&why);
                        (self.log)(&format!("tenor serve: bad request: {why}"));
                        return Next::Continue;
                    }
                };
                self.priced += 1;
                let what = args.portfolio.display().to_string();
                let code = self.price(&reply, &args, &input, started);
                (self.log)(&format!(
                    "tenor serve: request {n}: price {what}: {} in {:.3} s",
                    match code {
                        Some(c) => format!("exit {c}"),
                        None => "error".to_owned(),
                    },
                    started.elapsed().as_secs_f64()
                ));
                Next::Continue
            }
        }
    }

    /// Runs one `tenor price` of `input` for the client of `reply`; its exit status, `None` after
    /// an error.
    fn price(&self, reply: &Reply, args: &BookRequest, input: &[u8], started: Instant) -> Option<u8> {
        if args.backend != self.resident.selector {
            reply.error(&format!(
                "the server at {} runs backend {:?}, this command asked for {:?} (--backend or \
                 TENOR_BACKEND; default cpu): pass --backend {} or start a server with --backend {}",
                self.socket.display(),
                self.resident.selector,
                args.backend,
                self.resident.selector,
                args.backend
            ));
            return None;
        }
        let out_file =
            args.out.as_ref().map(|path| Box::new(RemoteOut { reply, path: path.clone() }) as Box<dyn OutFile + '_>);
        let mut out = Sink { reply, tag: protocol::TAG_STDOUT };
        let mut err = Sink { reply, tag: protocol::TAG_STDERR };
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            book::price_book(
                args,
                Source::Resident(&self.resident, input),
                started,
                out_file,
                &mut Streams { out: &mut out, err: &mut err },
                reply,
            )
        }));
        match result {
            Ok(Ok(outcome)) => {
                reply.exit(outcome.code);
                Some(outcome.code)
            }
            Ok(Err(e)) => {
                reply.error(&crate::error_chain(&e));
                None
            }
            Err(_) => {
                reply.error("internal error: pricing panicked in the server (see its log); the server goes on");
                None
            }
        }
    }
}

/// Reads and checks the request frame; `None` when the client closed the connection before
/// sending anything.
fn read_request(stream: &UnixStream) -> Result<Option<Envelope>, String> {
    let mut r = Deadline { stream, until: Instant::now() + REQUEST_TIMEOUT };
    let frame = protocol::read_frame(&mut r, protocol::MAX_REQUEST).map_err(|e| format!("reading the request: {e}"))?;
    let Some((tag, body)) = frame else { return Ok(None) };
    if tag != protocol::TAG_REQUEST {
        return Err(format!("expected a request frame (tag {}), got tag {tag}", protocol::TAG_REQUEST));
    }
    // The version first: a request of another protocol is named as such, whatever its shape.
    let version: protocol::Version =
        serde_json::from_slice(&body).map_err(|e| format!("the request is not valid: {e}"))?;
    if version.protocol != protocol::PROTOCOL {
        return Err(format!(
            "the client speaks protocol {} (tenor {}), the server protocol {} (tenor {}): use the same tenor for both",
            version.protocol,
            version.version,
            protocol::PROTOCOL,
            env!("CARGO_PKG_VERSION")
        ));
    }
    let envelope: Envelope = serde_json::from_slice(&body).map_err(|e| format!("the request is not valid: {e}"))?;
    if envelope.input_bytes > protocol::MAX_INPUT {
        return Err(format!(
            "a portfolio of {} bytes is over the server's limit of {}",
            envelope.input_bytes,
            protocol::MAX_INPUT
        ));
    }
    Ok(Some(envelope))
}

/// Reads the `expected` bytes of the portfolio that follow a price request.
fn read_input(stream: &UnixStream, expected: u64) -> Result<Vec<u8>, String> {
    let until = Instant::now() + INPUT_TIMEOUT + Duration::from_secs(expected / 50_000_000);
    let mut r = Deadline { stream, until };
    let mut input = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
    while (input.len() as u64) < expected {
        let left = expected - input.len() as u64;
        match protocol::read_frame(&mut r, protocol::MAX_REQUEST) {
            Ok(Some((protocol::TAG_INPUT, chunk))) if chunk.len() as u64 <= left => input.extend_from_slice(&chunk),
            Ok(Some((protocol::TAG_INPUT, chunk))) => {
                return Err(format!(
                    "the portfolio is longer than announced ({} bytes)",
                    expected + chunk.len() as u64 - left
                ))
            }
            Ok(Some((tag, _))) => {
                return Err(format!("expected the portfolio (tag {}), got tag {tag}", protocol::TAG_INPUT))
            }
            Ok(None) => {
                return Err(format!("the client closed the connection {left} bytes before the end of the portfolio"))
            }
            Err(e) => return Err(format!("reading the portfolio: {e}")),
        }
    }
    Ok(input)
}

/// Reads from a client until a deadline for the whole exchange (not per read): a client that
/// sends a byte now and then cannot hold the server.
struct Deadline<'a> {
    stream: &'a UnixStream,
    until: Instant,
}

impl Read for Deadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "the client took too long"));
        }
        self.stream.set_read_timeout(Some(left))?;
        let mut s = self.stream;
        s.read(buf)
    }
}

/// The answering side of one connection: frames written under a lock (progress comes from
/// pricing threads), write failures (a client gone) remembered and otherwise ignored, so the
/// request still runs to its end and the server goes on.
struct Reply {
    stream: Mutex<BufWriter<UnixStream>>,
    total: AtomicU64,
    last_ms: AtomicU64,
    started: Instant,
}

impl Reply {
    fn new(stream: &UnixStream) -> Option<Self> {
        let w = stream.try_clone().ok()?;
        Some(Self {
            stream: Mutex::new(BufWriter::with_capacity(FRAME_CHUNK + 5, w)),
            total: AtomicU64::new(0),
            last_ms: AtomicU64::new(0),
            started: Instant::now(),
        })
    }

    fn frame(&self, tag: u8, payload: &[u8]) -> std::io::Result<()> {
        let mut w = self.stream.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if payload.is_empty() {
            protocol::write_frame(&mut *w, tag, payload)?;
        }
        for chunk in payload.chunks(FRAME_CHUNK) {
            protocol::write_frame(&mut *w, tag, chunk)?;
        }
        if matches!(tag, protocol::TAG_EXIT | protocol::TAG_ERROR | protocol::TAG_PROGRESS | protocol::TAG_COMMIT) {
            w.flush()?;
        }
        Ok(())
    }

    fn stderr(&self, text: &str) {
        let _ = self.frame(protocol::TAG_STDERR, text.as_bytes());
    }

    fn exit(&self, code: u8) {
        let _ = self.frame(protocol::TAG_EXIT, &[code]);
    }

    fn error(&self, text: &str) {
        let _ = self.frame(protocol::TAG_ERROR, text.as_bytes());
    }

    fn progress(&self, done: u64) {
        let _ =
            self.frame(protocol::TAG_PROGRESS, &protocol::progress_payload(done, self.total.load(Ordering::Relaxed)));
    }
}

impl Progress for Reply {
    fn start(&self, total: u64) {
        self.total.store(total, Ordering::Relaxed);
        self.progress(0);
    }
    fn set(&self, done: u64) {
        // At most one frame per PROGRESS_EVERY_MS, and the last one.
        let now = self.started.elapsed().as_millis() as u64;
        let last = self.last_ms.load(Ordering::Relaxed);
        let total = self.total.load(Ordering::Relaxed);
        if done >= total || now >= last + PROGRESS_EVERY_MS {
            self.last_ms.store(now, Ordering::Relaxed);
            self.progress(done);
        }
    }
    fn finish(&self) {}
}

/// The `--out` CSV of a client: rows sent as frames, the commit as one frame; the client writes
/// and renames the file.
struct RemoteOut<'a> {
    reply: &'a Reply,
    path: PathBuf,
}

impl Write for RemoteOut<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.reply.frame(protocol::TAG_ROWS, buf)?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl OutFile for RemoteOut<'_> {
    fn path(&self) -> &Path {
        &self.path
    }
    fn commit(self: Box<Self>) -> anyhow::Result<()> {
        self.reply.frame(protocol::TAG_COMMIT, &[])?;
        Ok(())
    }
}

/// One of the command's two streams, written as frames of `tag`.
struct Sink<'a> {
    reply: &'a Reply,
    tag: u8,
}

impl Write for Sink<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.reply.frame(self.tag, buf)?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.reply.stream.lock().unwrap_or_else(std::sync::PoisonError::into_inner).flush()
    }
}
