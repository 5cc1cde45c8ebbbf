//! The accept loop of `tenor serve`: one request at a time (the device is shared), each answered
//! on its own connection with the frames of [`super::protocol`].

use std::io::{BufWriter, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::protocol::{self, Envelope, Request};
use crate::cmd::price::{self, Progress, Resident, Source, Streams};

/// How long a client may take to send its request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
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
    /// The working directory it started in (restored after each request).
    pub home: PathBuf,
    /// When it started.
    pub started: Instant,
    /// Requests answered.
    pub served: u64,
    /// Price requests answered.
    pub priced: u64,
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
                    eprintln!("tenor serve: accept failed: {e}");
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
        let reply = Reply::new(&stream);
        let Some(reply) = reply else { return Next::Continue };
        // SAFETY: `getuid` has no preconditions.
        let own = unsafe { libc::getuid() };
        match super::socket::peer_uid(&stream) {
            Ok(uid) if uid == own => {}
            Ok(uid) => {
                reply.error(&format!("refused: the client runs as uid {uid}, the server as uid {own}"));
                eprintln!("tenor serve: refused a client of uid {uid}");
                return Next::Continue;
            }
            Err(e) => {
                reply.error(&format!("refused: the client's credentials are unknown ({e})"));
                return Next::Continue;
            }
        }
        let envelope = match read_request(&stream) {
            Ok(e) => e,
            Err(why) => {
                reply.error(&why);
                eprintln!("tenor serve: bad request: {why}");
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
            Request::Price { cwd, args } => {
                self.priced += 1;
                let what = args.portfolio.display().to_string();
                let code = self.price(&reply, &cwd, &args);
                eprintln!(
                    "tenor serve: request {n}: price {what}: {} in {:.3} s",
                    match code {
                        Some(c) => format!("exit {c}"),
                        None => "error".to_owned(),
                    },
                    started.elapsed().as_secs_f64()
                );
                Next::Continue
            }
        }
    }

    /// Runs one `tenor price` for the client of `reply`; its exit status, `None` after an error.
    fn price(&self, reply: &Reply, cwd: &Path, args: &price::PriceArgs) -> Option<u8> {
        if args.backend != self.resident.selector {
            reply.error(&format!(
                "the server at {} runs backend {:?}, this command asked for {:?} (--backend): pass \
                 --backend {} or start a server with --backend {}",
                self.socket.display(),
                self.resident.selector,
                args.backend,
                self.resident.selector,
                args.backend
            ));
            return None;
        }
        // Relative paths are the client's: the server works in the client's directory for the
        // request (one request at a time), so every message names files as the client typed them.
        if let Err(e) = std::env::set_current_dir(cwd) {
            reply.error(&format!("the server cannot enter the client's directory {}: {e}", cwd.display()));
            return None;
        }
        let mut out = Sink { reply, tag: protocol::TAG_STDOUT };
        let mut err = Sink { reply, tag: protocol::TAG_STDERR };
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            price::price_book(
                args,
                Source::Resident(&self.resident),
                &mut Streams { out: &mut out, err: &mut err },
                reply,
            )
        }));
        // The server's own directory back, so a removed client folder cannot break it.
        let _ = std::env::set_current_dir(&self.home);
        match result {
            Ok(Ok(outcome)) => {
                reply.exit(outcome.code);
                Some(outcome.code)
            }
            Ok(Err(e)) => {
                reply.error(&crate::cmd::error_chain(&e));
                None
            }
            Err(_) => {
                reply.error("internal error: pricing panicked in the server (see its log); the server goes on");
                None
            }
        }
    }
}

/// Reads and checks the request frame.
fn read_request(stream: &UnixStream) -> Result<Envelope, String> {
    let _ = stream.set_read_timeout(Some(REQUEST_TIMEOUT));
    let mut r = stream;
    let frame = protocol::read_frame(&mut r, protocol::MAX_REQUEST).map_err(|e| format!("reading the request: {e}"))?;
    let Some((tag, body)) = frame else { return Err("the client closed the connection before its request".into()) };
    if tag != protocol::TAG_REQUEST {
        return Err(format!("expected a request frame (tag {}), got tag {tag}", protocol::TAG_REQUEST));
    }
    let envelope: Envelope = serde_json::from_slice(&body).map_err(|e| format!("the request is not valid: {e}"))?;
    if envelope.protocol != protocol::PROTOCOL {
        return Err(format!(
            "the client speaks protocol {} (tenor {}), the server protocol {} (tenor {}): use the same tenor for both",
            envelope.protocol,
            envelope.version,
            protocol::PROTOCOL,
            env!("CARGO_PKG_VERSION")
        ));
    }
    let _ = stream.set_read_timeout(None);
    Ok(envelope)
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
        for chunk in payload.chunks(FRAME_CHUNK) {
            protocol::write_frame(&mut *w, tag, chunk)?;
        }
        if matches!(tag, protocol::TAG_EXIT | protocol::TAG_ERROR | protocol::TAG_PROGRESS) {
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
