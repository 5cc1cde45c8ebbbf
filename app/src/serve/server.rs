//! The server's loops: an accept thread, one thread per connection that reads the request and
//! its input (a portfolio, a basket job) and writes the answer, and one pricing worker (the
//! thread that holds the open backend) fed through a bounded queue. A client that is slow to
//! send, or stops reading, holds only its own connection: the worker never reads from or writes
//! to a socket (its frames go to the connection's outbox), so the other clients are answered
//! meanwhile. ADR 0026.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tenor_ports::Progress;

use super::protocol::{self, Envelope, Request};
use crate::basket::{self, BasketRequest, JobSource};
use crate::book::{self, BookRequest, OutFile, Resident, Source, Streams};

/// Where the server's log lines go (the door's stderr), from any of its threads.
pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

/// How long a client may take to send its request frame (at most 1 MiB).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest wait for the next byte of a portfolio, and the grace before [`MIN_RATE`] applies.
const IDLE: Duration = Duration::from_secs(30);
/// Slowest a portfolio may arrive, on average after [`IDLE`] (bytes per second): a deadline
/// that moves with the bytes that actually arrived, never with the size announced.
const MIN_RATE: u64 = 1 << 20;
/// A client that has an answer waiting and takes more than this to accept [`WRITE_MIN_BYTES`]
/// of it (or all of it, when less) is given up (its connection's thread and its answer freed;
/// nobody else waits for it meanwhile).
const WRITE_WINDOW: Duration = Duration::from_secs(60);
/// See [`WRITE_WINDOW`].
const WRITE_MIN_BYTES: usize = 1 << 20;
/// Answer bytes that may wait for one client: past it the client is given up at once, so the
/// worker never waits for a client (a client reads its answer on a thread of its own, into
/// memory, so one that keeps up never comes near).
const MAX_PENDING: usize = 64 << 20;
/// Connections handled at once; more are answered "busy" and closed.
const MAX_CONNECTIONS: usize = 64;
/// Requests waiting for the worker; a connection past it waits (only it) to queue its own.
const QUEUE: usize = 16;
/// Portfolio bytes held in memory by all connections together (received, not announced).
const MAX_HELD_INPUT: u64 = protocol::MAX_INPUT;
/// Fewest milliseconds between two progress frames.
const PROGRESS_EVERY_MS: u64 = 100;
/// Largest payload of one output frame.
const FRAME_CHUNK: usize = 64 << 10;

/// What the server reports to `--ping`, shared by the connections.
pub struct State {
    /// The backend's selector (`--backend` of the server).
    pub selector: String,
    /// The first device's name.
    pub device: String,
    /// How long opening the backend took.
    pub open_time: Duration,
    /// The socket.
    pub socket: PathBuf,
    /// When the server started.
    pub started: Instant,
    /// Requests answered.
    pub served: AtomicU64,
    /// Books priced.
    pub priced: AtomicU64,
    /// Basket requests that ran to their end (the first one's first job is the server's cold
    /// basket job).
    pub baskets: AtomicU64,
    /// Connections open now.
    connections: AtomicUsize,
    /// Input bytes (portfolios, job files) held by the connections now.
    held_input: AtomicU64,
    /// The log.
    pub log: Log,
}

impl State {
    /// The state of a server that opened `selector` (first device `device`) in `open_time`.
    pub fn new(selector: String, device: String, open_time: Duration, socket: PathBuf, log: Log) -> Self {
        Self {
            selector,
            device,
            open_time,
            socket,
            started: Instant::now(),
            served: AtomicU64::new(0),
            priced: AtomicU64::new(0),
            baskets: AtomicU64::new(0),
            connections: AtomicUsize::new(0),
            held_input: AtomicU64::new(0),
            log,
        }
    }
}

/// Work for the pricing worker.
enum Job {
    Price { args: Box<BookRequest>, input: Held, reply: Arc<Reply>, started: Instant, n: u64 },
    Basket { args: Box<BasketRequest>, input: Held, reply: Arc<Reply>, n: u64 },
    Stop { reply: Arc<Reply> },
}

/// Serves on `listener` until a stop request: connections on threads of their own, books priced
/// one at a time on this thread, which holds `resident`.
pub fn serve(resident: &Resident, state: &Arc<State>, listener: UnixListener) {
    let (jobs, queue) = sync_channel::<Job>(QUEUE);
    let accepting = {
        let state = state.clone();
        std::thread::Builder::new().name("tenor-serve-accept".into()).spawn(move || accept(&listener, &state, &jobs))
    };
    if let Err(e) = accepting {
        (state.log)(&format!("tenor serve: cannot start the accept thread: {e}"));
        return;
    }
    work(resident, state, &queue);
}

/// The accept loop: each connection on a thread of its own, up to [`MAX_CONNECTIONS`].
fn accept(listener: &UnixListener, state: &Arc<State>, jobs: &SyncSender<Job>) {
    for conn in listener.incoming() {
        let stream = match conn {
            Ok(s) => s,
            Err(e) => {
                (state.log)(&format!("tenor serve: accept failed: {e}"));
                continue;
            }
        };
        if state.connections.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            state.connections.fetch_sub(1, Ordering::SeqCst);
            let _ = direct_error(
                &stream,
                &format!("busy: {MAX_CONNECTIONS} connections are open; try again when one has finished"),
            );
            continue;
        }
        let (state2, jobs2) = (state.clone(), jobs.clone());
        let spawned =
            std::thread::Builder::new().name("tenor-serve-conn".into()).stack_size(256 << 10).spawn(move || {
                connection(stream, &state2, &jobs2);
                state2.connections.fetch_sub(1, Ordering::SeqCst);
            });
        if let Err(e) = spawned {
            state.connections.fetch_sub(1, Ordering::SeqCst);
            (state.log)(&format!("tenor serve: cannot start a connection thread: {e}"));
        }
    }
}

/// An error frame written straight to a client that has no job (refused before any).
fn direct_error(stream: &UnixStream, text: &str) -> std::io::Result<()> {
    let _ = stream.set_write_timeout(Some(WRITE_WINDOW));
    let mut w = stream;
    protocol::write_frame(&mut w, protocol::TAG_ERROR, text.as_bytes())
}

/// One connection: checks the peer, reads the request (and its input), answers a ping here,
/// queues a price, basket or stop for the worker and writes its frames as they come.
fn connection(stream: UnixStream, state: &Arc<State>, jobs: &SyncSender<Job>) {
    let started = Instant::now();
    // SAFETY: `getuid` has no preconditions.
    let own = unsafe { libc::getuid() };
    match super::socket::peer_uid(&stream) {
        Ok(uid) if uid == own => {}
        Ok(uid) => {
            let _ = direct_error(&stream, &format!("refused: the client runs as uid {uid}, the server as uid {own}"));
            (state.log)(&format!("tenor serve: refused a client of uid {uid}"));
            return;
        }
        Err(e) => {
            let _ = direct_error(&stream, &format!("refused: the client's credentials are unknown ({e})"));
            return;
        }
    }
    let envelope = match read_request(&stream) {
        Ok(Some(e)) => e,
        // A probe (`tenor serve` checking for a live server, a client that gave up).
        Ok(None) => return,
        Err(why) => {
            let _ = direct_error(&stream, &why);
            (state.log)(&format!("tenor serve: bad request: {why}"));
            return;
        }
    };
    let n = state.served.fetch_add(1, Ordering::SeqCst) + 1;
    let reply = Arc::new(Reply::new(state.log.clone()));
    let job = match envelope.request {
        Request::Ping => {
            reply.stderr(&format!(
                "tenor serve pid {}: backend {} ({}) opened in {:.3} s, up {:.1} s, {} book(s) priced, {} basket request(s) run, socket {}\n",
                std::process::id(),
                state.selector,
                state.device,
                state.open_time.as_secs_f64(),
                state.started.elapsed().as_secs_f64(),
                state.priced.load(Ordering::SeqCst),
                state.baskets.load(Ordering::SeqCst),
                state.socket.display()
            ));
            reply.exit(0);
            None
        }
        Request::Stop => Some(Job::Stop { reply: reply.clone() }),
        Request::Price { args } => {
            if let Err(e) = args.check() {
                // Checked before the portfolio is read (the command line's bounds, one copy):
                // a request out of bounds costs nothing.
                reply.error(&e.to_string());
                None
            } else {
                match read_input(&stream, envelope.input_bytes, state, "portfolio") {
                    Ok(input) => Some(Job::Price { args: Box::new(args), input, reply: reply.clone(), started, n }),
                    Err(why) => {
                        (state.log)(&format!("tenor serve: bad request: {why}"));
                        reply.error(&why);
                        None
                    }
                }
            }
        }
        Request::Basket { args } => {
            // The bounds of `tenor basket` before the job is read: its repeat, and the job
            // file's size (the size announced is a limit, never reserved).
            let refused = match args.check() {
                Err(e) => Some(e.to_string()),
                Ok(()) if envelope.input_bytes > basket::MAX_JOB_BYTES => {
                    Some(basket::JobError::TooLarge { path: args.job.clone() }.to_string())
                }
                Ok(()) => None,
            };
            if let Some(why) = refused {
                (state.log)(&format!("tenor serve: request {n}: basket refused: {why}"));
                reply.error(&why);
                None
            } else {
                match read_input(&stream, envelope.input_bytes, state, "job file") {
                    Ok(input) => Some(Job::Basket { args: Box::new(args), input, reply: reply.clone(), n }),
                    Err(why) => {
                        (state.log)(&format!("tenor serve: bad request: {why}"));
                        reply.error(&why);
                        None
                    }
                }
            }
        }
    };
    if let Some(job) = job {
        if jobs.send(job).is_err() {
            reply.error("the server is stopping");
        }
    }
    write_answer(&stream, &reply);
}

/// The pricing worker: jobs in order until a stop.
fn work(resident: &Resident, state: &State, queue: &Receiver<Job>) {
    while let Ok(job) = queue.recv() {
        match job {
            Job::Stop { reply } => {
                let n = state.served.load(Ordering::SeqCst);
                reply.stderr(&format!(
                    "tenor serve pid {}: stopping after {} request(s)\n",
                    std::process::id(),
                    n.saturating_sub(1)
                ));
                reply.exit(0);
                // The stopping client's answer is written before the process ends.
                reply.wait_written(Duration::from_secs(5));
                return;
            }
            Job::Price { args, input, reply, started, n } => {
                if reply.is_gone() {
                    (state.log)(&format!("tenor serve: request {n}: the client left before its turn; not priced"));
                    continue;
                }
                state.priced.fetch_add(1, Ordering::SeqCst);
                let code = price(resident, &state.socket, &reply, &args, &input.bytes, started);
                log_done(state, n, &format!("price {}", args.portfolio.display()), code, started);
                reply.close();
            }
            Job::Basket { args, input, reply, n } => {
                if reply.is_gone() {
                    (state.log)(&format!("tenor serve: request {n}: the client left before its turn; not run"));
                    continue;
                }
                let started = Instant::now();
                let code = run_basket(resident, state, &reply, &args, &input.bytes);
                log_done(state, n, &format!("basket {}", args.job.display()), code, started);
                reply.close();
            }
        }
    }
}

/// The log line of request `n` (`what`) answered with exit status `code` (`None`: an error).
fn log_done(state: &State, n: u64, what: &str, code: Option<u8>, started: Instant) {
    let how = match code {
        Some(c) => format!("exit {c}"),
        None => "error".to_owned(),
    };
    (state.log)(&format!("tenor serve: request {n}: {what}: {how} in {:.3} s", started.elapsed().as_secs_f64()));
}

/// The refusal of a request for backend `asked` by a server on another one, naming both.
fn other_backend(resident: &Resident, socket: &Path, asked: &str) -> Option<String> {
    (asked != resident.selector).then(|| {
        format!(
            "the server at {} runs backend {:?}, this command asked for {:?} (--backend or \
             TENOR_BACKEND; default cpu): pass --backend {} or start a server with --backend {}",
            socket.display(),
            resident.selector,
            asked,
            resident.selector,
            asked
        )
    })
}

/// Runs one `tenor basket` of the job file's bytes `job` for the client of `reply` on the
/// server's first device ([`crate::basket::run_basket_in`]); its exit status, `None` after an
/// error.
fn run_basket(resident: &Resident, state: &State, reply: &Reply, args: &BasketRequest, job: &[u8]) -> Option<u8> {
    if let Some(why) = other_backend(resident, &state.socket, &args.backend) {
        reply.error(&why);
        return None;
    }
    let source = JobSource::Resident(basket::Resident {
        dev: resident.devices.first().as_ref(),
        job,
        server_open_s: resident.open_time.as_secs_f64(),
        first_in_server: state.baskets.load(Ordering::SeqCst) == 0,
    });
    let (report, _) =
        guarded(reply, "the basket job", || basket::run_basket_in(args, source, &mut RemoteSet { reply }, reply))?;
    state.baskets.fetch_add(1, Ordering::SeqCst);
    let _ = reply.frame(protocol::TAG_STDOUT, report.out.as_bytes());
    for line in &report.err {
        reply.stderr(&format!("{line}\n"));
    }
    reply.exit(report.code);
    Some(report.code)
}

/// Runs `run` for the client of `reply`: its value, or `None` after its error or its panic (`what`
/// panicked), either sent as the answer's error frame; the server goes on.
fn guarded<T>(reply: &Reply, what: &str, run: impl FnOnce() -> anyhow::Result<T>) -> Option<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(Ok(value)) => Some(value),
        Ok(Err(e)) => {
            reply.error(&crate::error_chain(&e));
            None
        }
        Err(_) => {
            reply.error(&format!("internal error: {what} panicked in the server (see its log); the server goes on"));
            None
        }
    }
}

/// Runs one `tenor price` of `input` for the client of `reply`; its exit status, `None` after
/// an error.
fn price(
    resident: &Resident,
    socket: &Path,
    reply: &Reply,
    args: &BookRequest,
    input: &[u8],
    started: Instant,
) -> Option<u8> {
    if let Some(why) = other_backend(resident, socket, &args.backend) {
        reply.error(&why);
        return None;
    }
    let out_file =
        args.out.as_ref().map(|path| Box::new(RemoteOut { reply, path: path.clone() }) as Box<dyn OutFile + '_>);
    let mut out = Sink { reply, tag: protocol::TAG_STDOUT };
    let mut err = Sink { reply, tag: protocol::TAG_STDERR };
    let outcome = guarded(reply, "pricing", || {
        book::price_book(
            args,
            Source::Resident(resident, input),
            started,
            out_file,
            &mut Streams { out: &mut out, err: &mut err },
            reply,
        )
    })?;
    reply.exit(outcome.code);
    Some(outcome.code)
}

/// Reads and checks the request frame; `None` when the client closed the connection before
/// sending anything.
fn read_request(stream: &UnixStream) -> Result<Option<Envelope>, String> {
    let mut r = Paced::new(stream, REQUEST_TIMEOUT);
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

/// Portfolio bytes held for a request, counted in [`State::held_input`] until dropped.
struct Held {
    bytes: Vec<u8>,
    state: Arc<State>,
}

impl Drop for Held {
    fn drop(&mut self) {
        self.state.held_input.fetch_sub(self.bytes.len() as u64, Ordering::SeqCst);
    }
}

/// Reads the `expected` bytes of the input that follow a request (`what`: the portfolio of a
/// price request, the job file of a basket request). Memory grows with the bytes that arrive
/// (never reserved for the size announced), and all connections together hold at most
/// [`MAX_HELD_INPUT`].
fn read_input(stream: &UnixStream, expected: u64, state: &Arc<State>, what: &str) -> Result<Held, String> {
    let mut r = Paced::new(stream, IDLE);
    let mut held = Held { bytes: Vec::new(), state: state.clone() };
    while (held.bytes.len() as u64) < expected {
        let left = expected - held.bytes.len() as u64;
        match protocol::read_frame(&mut r, protocol::MAX_REQUEST) {
            Ok(Some((protocol::TAG_INPUT, chunk))) if chunk.len() as u64 <= left => {
                let now = state.held_input.fetch_add(chunk.len() as u64, Ordering::SeqCst) + chunk.len() as u64;
                held.bytes.extend_from_slice(&chunk);
                if now > MAX_HELD_INPUT {
                    return Err(format!(
                        "the server holds {MAX_HELD_INPUT} bytes of inputs already; try again when it has run them"
                    ));
                }
            }
            Ok(Some((protocol::TAG_INPUT, chunk))) => {
                return Err(format!(
                    "the {what} is longer than announced ({} bytes)",
                    expected + chunk.len() as u64 - left
                ))
            }
            Ok(Some((tag, _))) => {
                return Err(format!("expected the {what} (tag {}), got tag {tag}", protocol::TAG_INPUT))
            }
            Ok(None) => {
                return Err(format!("the client closed the connection {left} bytes before the end of the {what}"))
            }
            Err(e) => return Err(format!("reading the {what}: {e}")),
        }
    }
    Ok(held)
}

/// Reads from a client with a deadline that moves with the bytes that arrived: `grace` plus a
/// second per [`MIN_RATE`] bytes, and no read waits longer than [`IDLE`] for its first byte. A
/// client that sends a byte now and then is given up; one that sends steadily is not, whatever
/// it announced.
struct Paced<'a> {
    stream: &'a UnixStream,
    start: Instant,
    grace: Duration,
    got: u64,
}

impl<'a> Paced<'a> {
    fn new(stream: &'a UnixStream, grace: Duration) -> Self {
        Self { stream, start: Instant::now(), grace, got: 0 }
    }
}

impl Read for Paced<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let until = self.start + self.grace + Duration::from_secs(self.got / MIN_RATE);
        let left = until.saturating_duration_since(Instant::now()).min(IDLE);
        if left.is_zero() {
            return Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "the client sends too slowly"));
        }
        self.stream.set_read_timeout(Some(left))?;
        let mut s = self.stream;
        let n = s.read(buf)?;
        self.got += n as u64;
        Ok(n)
    }
}

/// The frames of one answer, between the worker (which queues them and never blocks on the
/// client) and the connection's thread (which writes them).
struct Outbox {
    frames: VecDeque<Vec<u8>>,
    pending: usize,
    /// The answer is complete (an exit or error frame was queued, or the worker is done).
    closed: bool,
    /// The client is gone or too slow: frames are dropped.
    gone: bool,
}

/// The answering side of one connection: frames queued under a lock (progress comes from
/// pricing threads); a client gone is remembered, so the request still runs to its end (or is
/// skipped when it was still queued) and the server goes on.
struct Reply {
    log: Log,
    outbox: Mutex<Outbox>,
    changed: Condvar,
    total: AtomicU64,
    last_ms: AtomicU64,
    started: Instant,
}

impl Reply {
    fn new(log: Log) -> Self {
        Self {
            log,
            outbox: Mutex::new(Outbox { frames: VecDeque::new(), pending: 0, closed: false, gone: false }),
            changed: Condvar::new(),
            total: AtomicU64::new(0),
            last_ms: AtomicU64::new(0),
            started: Instant::now(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Outbox> {
        self.outbox.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn frame(&self, tag: u8, payload: &[u8]) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(payload.len() + 5 * (1 + payload.len() / FRAME_CHUNK));
        if payload.is_empty() {
            protocol::write_frame(&mut bytes, tag, payload)?;
        }
        for chunk in payload.chunks(FRAME_CHUNK) {
            protocol::write_frame(&mut bytes, tag, chunk)?;
        }
        let mut o = self.lock();
        if !o.gone && o.pending + bytes.len() > MAX_PENDING {
            (self.log)(&format!("tenor serve: a client left {} bytes of its answer unread; given up", o.pending));
            o.gone = true;
            o.frames.clear();
            o.pending = 0;
            drop(o);
            self.changed.notify_all();
            return Err(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the client stopped reading"));
        }
        if o.gone {
            return Err(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the client is gone"));
        }
        o.pending += bytes.len();
        o.frames.push_back(bytes);
        if matches!(tag, protocol::TAG_EXIT | protocol::TAG_ERROR) {
            o.closed = true;
        }
        drop(o);
        self.changed.notify_all();
        Ok(())
    }

    /// The worker is done with this answer (whatever it queued).
    fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_all();
    }

    fn is_gone(&self) -> bool {
        self.lock().gone
    }

    /// Waits (at most `limit`) until the connection's thread wrote everything queued.
    fn wait_written(&self, limit: Duration) {
        let until = Instant::now() + limit;
        let mut o = self.lock();
        while !o.frames.is_empty() && !o.gone {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            o = self.changed.wait_timeout(o, left).unwrap_or_else(std::sync::PoisonError::into_inner).0;
        }
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

/// Writes the frames of `reply` to the client as they come, until the answer is complete: the
/// deadline counts bytes that actually move. A client that has an answer waiting and takes less
/// than [`WRITE_MIN_BYTES`] of it in [`WRITE_WINDOW`] is given up (a stopped or trickling
/// reader), and one that closed its side while its request waited for the worker is noticed,
/// so its book is not priced.
fn write_answer(stream: &UnixStream, reply: &Reply) {
    let _ = stream.set_write_timeout(Some(Duration::from_millis(500)));
    let mut w = stream;
    loop {
        let batch: Vec<u8> = {
            let mut o = reply.lock();
            while o.frames.is_empty() && !o.closed && !o.gone {
                let (g, timeout) = reply
                    .changed
                    .wait_timeout(o, Duration::from_millis(500))
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                o = g;
                if timeout.timed_out() && o.frames.is_empty() && peer_closed(stream) {
                    o.gone = true;
                }
            }
            if o.gone || (o.frames.is_empty() && o.closed) {
                drop(o);
                reply.changed.notify_all();
                return;
            }
            o.frames.drain(..).flatten().collect()
        };
        // (start, bytes moved since) while part of the batch waits for the client.
        let mut window = (Instant::now(), 0usize);
        let mut at = 0;
        while at < batch.len() {
            match w.write(&batch[at..]) {
                Ok(0) => return give_up(reply),
                Ok(n) => {
                    at += n;
                    window.1 += n;
                    if window.1 >= WRITE_MIN_BYTES {
                        window = (Instant::now(), 0);
                    }
                    let mut o = reply.lock();
                    o.pending = o.pending.saturating_sub(n);
                    drop(o);
                    reply.changed.notify_all();
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut | std::io::ErrorKind::Interrupted
                    ) => {}
                Err(_) => return give_up(reply),
            }
            if at < batch.len() && window.0.elapsed() >= WRITE_WINDOW {
                (reply.log)(&format!(
                    "tenor serve: a client took {} bytes of its answer in {} s (less than {WRITE_MIN_BYTES}); given up",
                    window.1,
                    WRITE_WINDOW.as_secs()
                ));
                return give_up(reply);
            }
        }
    }
}

/// Marks the client of `reply` gone (its frames are dropped from now on).
fn give_up(reply: &Reply) {
    let mut o = reply.lock();
    o.gone = true;
    o.frames.clear();
    o.pending = 0;
    drop(o);
    reply.changed.notify_all();
}

/// Whether the client closed its side (a read would return end of file at once).
fn peer_closed(stream: &UnixStream) -> bool {
    use std::os::fd::AsRawFd;
    let mut b = [0u8; 1];
    // SAFETY: a valid descriptor and a one-byte buffer; MSG_PEEK | MSG_DONTWAIT neither consumes
    // nor blocks.
    let n = unsafe { libc::recv(stream.as_raw_fd(), b.as_mut_ptr().cast(), 1, libc::MSG_PEEK | libc::MSG_DONTWAIT) };
    n == 0
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

/// The `--out` set of a basket client: each file announced by a [`protocol::TAG_FILE`] frame
/// and sent as rows, the set committed by one frame; the client writes the folder.
struct RemoteSet<'a> {
    reply: &'a Reply,
}

impl basket::OutputSet for RemoteSet<'_> {
    fn write_set(&mut self, files: &[(&'static str, Vec<u8>)]) -> anyhow::Result<()> {
        for (name, bytes) in files {
            self.reply.frame(protocol::TAG_FILE, name.as_bytes())?;
            if !bytes.is_empty() {
                self.reply.frame(protocol::TAG_ROWS, bytes)?;
            }
        }
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
        Ok(())
    }
}
