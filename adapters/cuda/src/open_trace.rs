//! Timing of the steps of opening the CUDA backend, printed to stderr when
//! [`TRACE_OPEN_ENV`] is `1` (a diagnostic for measuring where the open's time goes: driver and
//! NVRTC loading with `cuInit`, the primary context, the pool; ADR 0019).

use std::time::{Duration, Instant};

/// Environment variable: `1` prints one `cuda open:` line with each step's time to stderr.
pub const TRACE_OPEN_ENV: &str = "TENOR_CUDA_TRACE_OPEN";

/// The steps timed so far (nothing is recorded when tracing is off).
#[derive(Debug)]
pub(crate) struct OpenTrace {
    on: bool,
    last: Instant,
    steps: Vec<(&'static str, Duration)>,
}

impl OpenTrace {
    /// Starts timing (tracing on when [`TRACE_OPEN_ENV`] is `1`).
    pub(crate) fn start() -> Self {
        Self { on: std::env::var(TRACE_OPEN_ENV).is_ok_and(|v| v == "1"), last: Instant::now(), steps: Vec::new() }
    }

    /// Ends step `name` (the time since the previous step ended).
    pub(crate) fn step(&mut self, name: &'static str) {
        if self.on {
            let now = Instant::now();
            self.steps.push((name, now - self.last));
            self.last = now;
        }
    }

    /// Prints the steps as one line to stderr, in milliseconds.
    pub(crate) fn report(&self) {
        if self.on {
            let parts: Vec<String> =
                self.steps.iter().map(|(n, d)| format!("{n} {:.1} ms", d.as_secs_f64() * 1e3)).collect();
            eprintln!("cuda open: {}", parts.join(", "));
        }
    }
}
