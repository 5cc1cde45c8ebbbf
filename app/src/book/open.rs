//! Opening a backend on a thread of its own, so that the host work before the first device call
//! (reading and planning a portfolio) overlaps with it, and leaving it to the operating system at
//! exit instead of tearing it down.
//!
//! Opening CUDA is mostly the creation of the device's primary context (a few hundred
//! milliseconds on an H200, `docs/results/`); tearing it down at exit (the pool, the modules, the
//! context) took about 0.13 s more after the results were already written and synced. ADR 0019.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tenor_ports::{Compute, ComputeError};

/// Environment variable: set to `1` to tear the backend down before the process exits (and time
/// it) instead of leaving it to the operating system, for comparison.
pub const TEARDOWN_ENV: &str = "TENOR_EXIT_TEARDOWN";

/// What the opening thread returns: the backend or why not, and how long opening took.
type Opened = (Result<Arc<dyn Compute>, ComputeError>, Duration);

/// A backend being opened on a thread of its own ([`OpenBackend::start`]).
#[derive(Debug)]
pub struct OpenBackend {
    name: String,
    thread: Option<JoinHandle<Opened>>,
}

impl OpenBackend {
    /// Starts opening backend `name` ([`tenor_registry::open`]) on a new thread. When no thread
    /// can be started the backend is opened by [`OpenBackend::wait`] on the caller's thread.
    pub fn start(name: &str) -> Self {
        let owned = name.to_owned();
        let thread = std::thread::Builder::new()
            .name("tenor-open-backend".into())
            .spawn(move || {
                let t = Instant::now();
                let r = tenor_registry::open(&owned);
                (r, t.elapsed())
            })
            .ok();
        Self { name: name.to_owned(), thread }
    }

    /// The opened backend and how long opening it took on its thread.
    ///
    /// # Errors
    /// The backend's own error ([`ComputeError::Unavailable`] with the reason, ...), or
    /// [`ComputeError::Backend`] when the opening thread panicked.
    pub fn wait(self) -> Result<(Arc<dyn Compute>, Duration), ComputeError> {
        let Some(thread) = self.thread else {
            let t = Instant::now();
            return tenor_registry::open(&self.name).map(|c| (c, t.elapsed()));
        };
        match thread.join() {
            Ok((r, took)) => r.map(|c| (c, took)),
            Err(_) => Err(ComputeError::Backend {
                backend: self.name,
                code: -1,
                message: "the thread opening the backend panicked".into(),
            }),
        }
    }
}

/// What happened to the backend at the end of a command ([`finish`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Exit {
    /// Left to the operating system: no pool, module or context is destroyed by the process
    /// (every result is already written and synced; the driver frees the device's memory when
    /// the process ends).
    LeftToTheOs,
    /// Torn down before exit ([`TEARDOWN_ENV`]=1), taking this long.
    TornDown(Duration),
}

/// Ends the command's use of `compute`: with [`TEARDOWN_ENV`] set to `1`, drops it (destroying
/// its pool, kernels and context when this was the last handle) and times that; otherwise leaks
/// the handle, so the process exits without waiting for the teardown. Call it only once every
/// output is written.
pub fn finish(compute: Arc<dyn Compute>) -> Exit {
    if std::env::var(TEARDOWN_ENV).is_ok_and(|v| v == "1") {
        let t = Instant::now();
        drop(compute);
        Exit::TornDown(t.elapsed())
    } else {
        std::mem::forget(compute);
        Exit::LeftToTheOs
    }
}

/// Ends the process now with status `code` after flushing stdout and stderr, without running
/// exit handlers or destructors (`_exit`, POSIX): the CUDA driver's own handlers would tear down
/// the context that [`finish`] left alive. Call it only once every output is written and synced.
pub fn exit_now(code: u8) -> ! {
    use std::io::Write as _;
    // A failed flush leaves nothing to report to: the streams are the reporting channel.
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: `_exit` only ends the process; every file the command wrote is closed, synced and
    // renamed, and the standard streams were flushed above.
    unsafe { libc::_exit(i32::from(code)) }
}
