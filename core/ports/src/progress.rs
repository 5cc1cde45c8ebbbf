//! The progress port: long work (a book, a pilot run, a calibration, a sweep) reports how far it
//! is through a [`Progress`] sink, and each door draws it its own way (the command line's
//! terminal bar, frames to a `tenor price --server` client, a Python callback, nothing at all).
//! Libraries never draw progress themselves.

/// Where long work reports its progress. Calls may come from several threads (hence `Sync`);
/// a sink that draws must rate-limit itself.
pub trait Progress: Sync {
    /// Work starts (or is re-sized): `total` steps in all.
    fn start(&self, total: u64);
    /// `done` steps of the total are finished.
    fn set(&self, done: u64);
    /// What is being done now (a short phrase: "cuda: mc_european at 65536"); ignored by sinks
    /// that show no text.
    fn message(&self, _text: &str) {}
    /// A line that must be shown now, above any bar (a warning); the default ignores it.
    fn println(&self, _line: &str) {}
    /// The work ended (a bar is cleared).
    fn finish(&self);
}

/// A sink that shows nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _total: u64) {}
    fn set(&self, _done: u64) {}
    fn finish(&self) {}
}

/// Counts steps on top of a sink that only takes positions: `inc` for work reported step by step.
pub struct Steps<'a> {
    sink: &'a dyn Progress,
    done: std::sync::atomic::AtomicU64,
}

impl<'a> Steps<'a> {
    /// Starts counting on `sink` with `total` steps.
    pub fn new(sink: &'a dyn Progress, total: u64) -> Self {
        sink.start(total);
        Self { sink, done: std::sync::atomic::AtomicU64::new(0) }
    }
    /// One more step done.
    pub fn inc(&self) {
        let done = self.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        self.sink.set(done);
    }
    /// Steps done so far.
    pub fn position(&self) -> u64 {
        self.done.load(std::sync::atomic::Ordering::Relaxed)
    }
    /// The sink, for messages.
    pub fn sink(&self) -> &'a dyn Progress {
        self.sink
    }
}
