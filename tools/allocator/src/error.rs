//! Error codes of the C ABI and the calling thread's last error.

use std::cell::RefCell;

use thiserror::Error;

/// The result code of every C function (`tenor_alloc_code_t` in `tenor_allocator.h`).
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// Success.
    Ok = 0,
    /// A request for 0 bytes: NULL returned, nothing allocated.
    ZeroBytes = 1,
    /// The device, or the `TENOR_ALLOC_CAP`, has no room: NULL returned.
    OutOfMemory = 2,
    /// A pointer freed twice: the second free is ignored.
    DoubleFree = 3,
    /// A pointer this library never handed out: ignored.
    ForeignPointer = 4,
    /// A `TENOR_ALLOC_*` variable has a value the library does not accept.
    Config = 5,
    /// The device or driver failed.
    Backend = 6,
    /// A panic inside the library, caught at the boundary.
    Panic = 7,
    /// A bad argument (negative size, another device, null output pointer, bad path).
    BadArgument = 8,
    /// Writing the statistics file failed.
    Io = 9,
}

/// A failed call: its code and a message naming what was wrong.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[error("{message}")]
pub struct Failure {
    /// The code.
    pub code: Code,
    /// What went wrong, and where.
    pub message: String,
}

impl Failure {
    /// A failure with `code` and `message`.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }
}

thread_local! {
    static LAST: RefCell<Option<Failure>> = const { RefCell::new(None) };
}

/// Records `failure` as the calling thread's last error (and prints it to stderr when
/// `TENOR_ALLOC_VERBOSE=1`).
pub fn set_last(failure: Failure) {
    if std::env::var("TENOR_ALLOC_VERBOSE").is_ok_and(|v| v == "1") {
        eprintln!("libtenor_allocator: {}", failure.message);
    }
    LAST.with(|l| *l.borrow_mut() = Some(failure));
}

/// The calling thread's last error, if any.
pub fn last() -> Option<Failure> {
    LAST.with(|l| l.borrow().clone())
}
