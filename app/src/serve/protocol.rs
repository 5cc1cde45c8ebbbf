//! The wire format between the clients (`tenor price --server`, `tenor basket --server`) and
//! `tenor serve` over a Unix domain socket: length-prefixed frames, `[tag: u8][length: u32,
//! little endian][payload]`.
//!
//! The client sends one [`TAG_REQUEST`] frame, a JSON [`Envelope`], then its input file's bytes
//! (the portfolio of a [`Request::Price`], the job file of a [`Request::Basket`]) as
//! [`TAG_INPUT`] frames ([`Envelope::input_bytes`] in all): the client reads its own files, so
//! `/dev/stdin`, a pipe or a file only the client may read work as without `--server`. The server
//! answers with [`TAG_STDOUT`], [`TAG_STDERR`] and [`TAG_PROGRESS`] frames in the order the
//! command produced them, its output as [`TAG_ROWS`] frames closed by one [`TAG_COMMIT`] (the
//! client writes and renames the output itself, with its own permissions and umask, and a client
//! that is gone writes nothing), and ends with one [`TAG_EXIT`] (the command's exit status) or
//! one [`TAG_ERROR`] (the command's error, printed by the client after `error: `).
//!
//! Outputs: a price request's `--out` CSV is the [`TAG_ROWS`] frames alone; a basket request's
//! `--out` folder is a set of files, each announced by a [`TAG_FILE`] frame (its name, one of
//! [`crate::basket::OUTPUTS`]: the client refuses any other) and followed by its bytes as
//! [`TAG_ROWS`] frames, the set committed by the one [`TAG_COMMIT`].

use std::io::{self, Read, Write};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::basket::BasketRequest;
use crate::book::BookRequest;

/// Version of this format; a client and a server of different versions refuse each other (2: the
/// basket request and [`TAG_FILE`]).
pub const PROTOCOL: u32 = 2;
/// Largest request frame the server reads (bytes).
pub const MAX_REQUEST: usize = 1 << 20;
/// Largest reply frame the client reads (bytes; the server writes at most 64 KiB per frame).
pub const MAX_REPLY: usize = 16 << 20;
/// Client to server: the JSON [`Envelope`].
pub const TAG_REQUEST: u8 = 0;
/// Server to client: bytes of the command's standard output.
pub const TAG_STDOUT: u8 = 1;
/// Server to client: bytes of the command's standard error.
pub const TAG_STDERR: u8 = 2;
/// Server to client: trades priced and trades in all, two `u64` little endian.
pub const TAG_PROGRESS: u8 = 3;
/// Server to client, last frame: the exit status, one byte.
pub const TAG_EXIT: u8 = 4;
/// Server to client, last frame: the command's error (UTF-8), exit status 1.
pub const TAG_ERROR: u8 = 5;
/// Client to server: bytes of the portfolio, after the request.
pub const TAG_INPUT: u8 = 6;
/// Server to client: bytes of the `--out` CSV.
pub const TAG_ROWS: u8 = 7;
/// Server to client: the `--out` CSV is complete; commit it (empty payload).
pub const TAG_COMMIT: u8 = 8;
/// Server to client: the name of the next file of an output set (UTF-8); its bytes follow as
/// [`TAG_ROWS`] frames.
pub const TAG_FILE: u8 = 9;
/// Largest portfolio a client sends (bytes).
pub const MAX_INPUT: u64 = 4 << 30;

/// A request with the versions of both ends.
#[derive(Debug, Serialize, Deserialize)]
pub struct Envelope {
    /// [`PROTOCOL`] of the client.
    pub protocol: u32,
    /// The client's `tenor` version (`CARGO_PKG_VERSION`).
    pub version: String,
    /// Bytes of the input that follow as [`TAG_INPUT`] frames (the portfolio, the job file; 0
    /// for a ping or a stop).
    pub input_bytes: u64,
    /// What is asked.
    pub request: Request,
}

/// The protocol number of a request body, read before the rest so that a request of another
/// version is named as such and not as a malformed one.
#[derive(Deserialize)]
pub struct Version {
    /// [`Envelope::protocol`].
    pub protocol: u32,
    /// [`Envelope::version`].
    #[serde(default)]
    pub version: String,
}

/// What a client asks of the server.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "request", rename_all = "snake_case")]
pub enum Request {
    /// `tenor price` with these arguments (paths only name the files in messages: the server
    /// opens none of them).
    Price {
        /// The book and its settings, as the client's door built them.
        args: BookRequest,
    },
    /// `tenor basket` with these arguments, the job file's bytes as the input (at most
    /// [`crate::basket::MAX_JOB_BYTES`]; paths only name the files in messages).
    Basket {
        /// The job's settings, as the client's door built them.
        args: BasketRequest,
    },
    /// The server's backend, age and count of requests (`tenor serve --ping`).
    Ping,
    /// End the server after answering (`tenor serve --stop`).
    Stop,
}

/// A frame that could not be read.
#[derive(Debug, Error)]
pub enum FrameError {
    /// The connection failed or closed inside a frame.
    #[error("the connection failed: {0}")]
    Io(#[from] io::Error),
    /// The length field is over the limit.
    #[error("a frame of {len} bytes is over the limit of {max}")]
    TooLarge {
        /// Announced length.
        len: usize,
        /// The limit.
        max: usize,
    },
}

/// Writes one frame.
///
/// # Errors
/// The writer's error; `InvalidInput` for a payload of 4 GiB or more.
pub fn write_frame(w: &mut dyn Write, tag: u8, payload: &[u8]) -> io::Result<()> {
    let len =
        u32::try_from(payload.len()).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "frame over 4 GiB"))?;
    let mut head = [0u8; 5];
    head[0] = tag;
    head[1..].copy_from_slice(&len.to_le_bytes());
    w.write_all(&head)?;
    w.write_all(payload)
}

/// Reads one frame of at most `max` bytes: `Ok(None)` when the connection closed cleanly before
/// a frame.
///
/// # Errors
/// [`FrameError::Io`] for a failed or truncated read, [`FrameError::TooLarge`] over `max`.
pub fn read_frame(r: &mut dyn Read, max: usize) -> Result<Option<(u8, Vec<u8>)>, FrameError> {
    let mut head = [0u8; 5];
    let mut got = 0;
    while got < head.len() {
        match r.read(&mut head[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(FrameError::Io(io::ErrorKind::UnexpectedEof.into())),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
    if len > max {
        return Err(FrameError::TooLarge { len, max });
    }
    // The buffer grows with the bytes that arrive, never to the length announced.
    let mut payload = Vec::new();
    r.take(len as u64).read_to_end(&mut payload)?;
    if payload.len() < len {
        return Err(FrameError::Io(io::ErrorKind::UnexpectedEof.into()));
    }
    Ok(Some((head[0], payload)))
}

/// The payload of a [`TAG_PROGRESS`] frame.
pub fn progress_payload(done: u64, total: u64) -> [u8; 16] {
    let mut p = [0u8; 16];
    p[..8].copy_from_slice(&done.to_le_bytes());
    p[8..].copy_from_slice(&total.to_le_bytes());
    p
}

/// `(done, total)` of a [`TAG_PROGRESS`] payload; `None` when it is not 16 bytes.
pub fn parse_progress(p: &[u8]) -> Option<(u64, u64)> {
    let done = u64::from_le_bytes(p.get(..8)?.try_into().ok()?);
    let total = u64::from_le_bytes(p.get(8..16)?.try_into().ok()?);
    (p.len() == 16).then_some((done, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_a_clean_close_is_none() {
        let mut buf = Vec::new();
        write_frame(&mut buf, TAG_STDOUT, b"id,price\n").expect("frame in memory");
        write_frame(&mut buf, TAG_EXIT, &[1]).expect("frame in memory");
        let mut r = &buf[..];
        assert_eq!(read_frame(&mut r, 64).expect("frame in memory"), Some((TAG_STDOUT, b"id,price\n".to_vec())));
        assert_eq!(read_frame(&mut r, 64).expect("frame in memory"), Some((TAG_EXIT, vec![1])));
        assert_eq!(read_frame(&mut r, 64).expect("frame in memory"), None);
    }

    #[test]
    fn a_truncated_or_oversized_frame_is_an_error() {
        let mut buf = Vec::new();
        write_frame(&mut buf, TAG_STDERR, b"0123456789").expect("frame in memory");
        let mut short = &buf[..8];
        assert!(matches!(read_frame(&mut short, 64), Err(FrameError::Io(_))));
        let mut r = &buf[..];
        assert!(matches!(read_frame(&mut r, 4), Err(FrameError::TooLarge { len: 10, max: 4 })));
    }

    #[test]
    fn progress_payload_round_trips() {
        assert_eq!(parse_progress(&progress_payload(7, 38_920)), Some((7, 38_920)));
        assert_eq!(parse_progress(&[0; 15]), None);
    }
}
