//! A `tenor serve` for the end-to-end tests, and a raw client speaking its wire format
//! (`[tag: u8][length: u32 LE][payload]`, docs/serve.md) for requests the command never sends.
#![cfg(unix)]

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{run, tenor, Run};

/// A running `tenor serve`, stopped (or killed) when dropped.
pub struct Server {
    /// The process.
    pub child: Child,
    /// Its socket.
    pub socket: PathBuf,
}

impl Server {
    /// Starts `tenor serve --backend BACKEND --socket SOCKET` and waits for it to answer a ping.
    pub fn start(backend: &str, socket: &Path) -> Self {
        Self::start_with(backend, socket, |_| {})
    }

    /// As [`Server::start`], with `setup` applied to the command first (limits, environment).
    pub fn start_with(backend: &str, socket: &Path, setup: impl FnOnce(&mut Command)) -> Self {
        let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("tenor"));
        cmd.args(["serve", "--backend", backend, "--socket"])
            .arg(socket)
            .env_remove("TENOR_BACKEND")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        setup(&mut cmd);
        let child = cmd.spawn().expect("tenor serve starts");
        let mut server = Self { child, socket: socket.to_path_buf() };
        // Ready when it says it listens (after binding and opening the backend): read its stderr
        // up to that line, then keep draining it on a thread. No clock: this polled `--ping`
        // against a 60 s deadline (issue 29).
        let stderr = server.child.stderr.take().expect("stderr is piped");
        let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stderr));
        let mut said = Vec::new();
        loop {
            match lines.next() {
                Some(Ok(l)) if l.contains("; listening on ") => break,
                Some(Ok(l)) => said.push(l),
                _ => {
                    let status = server.child.wait().map(|s| s.to_string()).unwrap_or_default();
                    panic!("tenor serve ended ({status}) before listening: {}", said.join("\n"));
                }
            }
        }
        std::thread::spawn(move || lines.for_each(drop));
        assert!(ping(socket).success(), "tenor serve said it listens but does not answer a ping");
        server
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = run(tenor().args(["serve", "--stop", "--socket"]).arg(&self.socket));
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
    }
}

/// `tenor COMMAND ARGS` in `cwd` (`price`, `basket`), by itself or (`socket`) through the server
/// with `--server --socket SOCKET`; `TENOR_BACKEND` and `TENOR_SOCKET` unset.
pub fn command(cwd: &Path, socket: Option<&Path>, command: &str, args: &[&str]) -> Run {
    let mut cmd = tenor();
    cmd.current_dir(cwd).env_remove("TENOR_BACKEND").env_remove("TENOR_SOCKET").arg(command).args(args);
    if let Some(s) = socket {
        cmd.arg("--server").arg("--socket").arg(s);
    }
    run(&mut cmd)
}

/// `tenor serve --ping --socket SOCKET`.
pub fn ping(socket: &Path) -> Run {
    run(tenor().args(["serve", "--ping", "--socket"]).arg(socket))
}

/// Frame tags of the wire format.
pub mod tag {
    /// Client: the request.
    pub const REQUEST: u8 = 0;
    /// Server: standard output bytes.
    pub const STDOUT: u8 = 1;
    /// Server: the exit status.
    pub const EXIT: u8 = 4;
    /// Server: an error.
    pub const ERROR: u8 = 5;
    /// Client: portfolio bytes.
    pub const INPUT: u8 = 6;
}

/// One frame's bytes.
pub fn frame(tag: u8, payload: &[u8]) -> Vec<u8> {
    let mut v = vec![tag];
    v.extend_from_slice(&u32::try_from(payload.len()).expect("a small frame").to_le_bytes());
    v.extend_from_slice(payload);
    v
}

/// The JSON envelope of a price request with `args` (the fields of `tenor price`).
pub fn price_request(input_bytes: u64, args: &str) -> Vec<u8> {
    request("price", input_bytes, args)
}

/// The JSON envelope of a basket request with `args` (the fields of
/// `tenor_app::basket::BasketRequest`); the job file's bytes follow as input frames.
pub fn basket_request(input_bytes: u64, args: &str) -> Vec<u8> {
    request("basket", input_bytes, args)
}

/// A request frame of kind `kind` in this build's protocol version.
fn request(kind: &str, input_bytes: u64, args: &str) -> Vec<u8> {
    let protocol = tenor_app::serve::protocol::PROTOCOL;
    frame(
        tag::REQUEST,
        format!(
            r#"{{"protocol":{protocol},"version":"test","input_bytes":{input_bytes},"request":{{"request":"{kind}","args":{args}}}}}"#
        )
        .as_bytes(),
    )
}

/// The arguments of a request on `backend` for `book.csv` (the fields of
/// `tenor_app::book::BookRequest`), with
/// `set` (field, JSON value) replacing the defaults.
pub fn args(backend: &str, set: &[(&str, &str)]) -> String {
    let backend = format!("\"{backend}\"");
    let mut fields = vec![
        ("portfolio", "\"book.csv\""),
        ("backend", backend.as_str()),
        ("paths", "2000"),
        ("seed", "42"),
        ("out", "null"),
        ("engine", "\"Auto\""),
        ("steps", "64"),
        ("streams", "1"),
        ("greeks", "true"),
        ("batch", "true"),
    ];
    for (k, v) in set {
        if let Some(f) = fields.iter_mut().find(|f| f.0 == *k) {
            f.1 = v;
        }
    }
    let body: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
    format!("{{{}}}", body.join(","))
}

/// Reads frames until an exit or error frame, or until the connection closes.
pub fn read_frames(s: &mut UnixStream) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    loop {
        let mut head = [0u8; 5];
        if s.read_exact(&mut head).is_err() {
            return out;
        }
        let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let mut p = vec![0u8; len];
        if s.read_exact(&mut p).is_err() {
            return out;
        }
        let end = head[0] == tag::EXIT || head[0] == tag::ERROR;
        out.push((head[0], p));
        if end {
            return out;
        }
    }
}

/// Sends `bytes` on a new connection to `socket`.
pub fn send(socket: &Path, bytes: &[u8]) -> UnixStream {
    let mut s = UnixStream::connect(socket).expect("connect");
    s.write_all(bytes).expect("send");
    s
}
