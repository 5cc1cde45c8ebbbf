//! Test hooks: a process stops itself at a named point, so that a test kills it exactly there
//! instead of racing it with a polling loop.
//!
//! With `TENOR_TEST_STOP_AT=POINT` in its environment, a process that reaches [`stop_point`]
//! `POINT` sends itself `SIGSTOP` (on Unix; elsewhere the hook does nothing). The test waits for
//! the stop (`waitpid` with `WUNTRACED`: no clock, no polling), then kills the process, which
//! has then done exactly what comes before the point and nothing after it. A process without
//! the variable, or at another point, goes on as if the hook were not there.
//!
//! Points: [`BEFORE_RENAME`].

/// The environment variable naming the point to stop at.
pub const STOP_AT: &str = "TENOR_TEST_STOP_AT";

/// Atomic results ([`crate::files::AtomicFile`], [`crate::files::write_through`],
/// [`crate::files::OutputDir`], [`crate::files::NewFolder`]) are written and synced in full under
/// their temporary names, and not yet renamed over their targets.
pub const BEFORE_RENAME: &str = "results-before-rename";

/// Stops the process (`SIGSTOP`) when [`STOP_AT`] names `point`; returns at once otherwise, and
/// after the process is continued (`SIGCONT`).
pub fn stop_point(point: &str) {
    if std::env::var_os(STOP_AT).is_some_and(|p| p == point) {
        stop();
    }
}

#[cfg(unix)]
fn stop() {
    // SAFETY: raise(3) with a valid signal number has no memory-safety preconditions.
    unsafe {
        libc::raise(libc::SIGSTOP);
    }
}

#[cfg(not(unix))]
fn stop() {}
