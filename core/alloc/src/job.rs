//! Which job the current thread allocates for: a thread-local job scope.
//!
//! Per-job accounting (budgets, the slab's caps, per-job high watermarks in the statistics)
//! needs to know the job behind an allocation without changing the `Allocator` port. A pricing
//! job runs on one host thread at a time, so the job is a thread-local set by [`JobScope`]
//! (as RMM's `statistics_resource_adaptor::push_counters` scopes counters, but per thread).
//! Job 0 means "no job".

use std::cell::Cell;

thread_local! {
    static CURRENT: Cell<u64> = const { Cell::new(0) };
}

/// The job the current thread allocates for (0: none).
pub fn current_job() -> u64 {
    CURRENT.with(Cell::get)
}

/// Sets the current thread's job until the scope drops, then restores the previous one.
/// Scopes nest.
#[derive(Debug)]
#[must_use = "the job scope ends when this value drops"]
pub struct JobScope {
    previous: u64,
    job: u64,
}

impl JobScope {
    /// Enters job `job` on this thread.
    pub fn enter(job: u64) -> Self {
        let previous = CURRENT.with(|c| c.replace(job));
        Self { previous, job }
    }
    /// The job of this scope.
    pub fn job(&self) -> u64 {
        self.job
    }
}

impl Drop for JobScope {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.previous));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_nest_and_restore() {
        assert_eq!(current_job(), 0);
        {
            let _a = JobScope::enter(7);
            assert_eq!(current_job(), 7);
            {
                let b = JobScope::enter(9);
                assert_eq!((current_job(), b.job()), (9, 9));
            }
            assert_eq!(current_job(), 7);
            let other = std::thread::spawn(current_job).join().expect("thread");
            assert_eq!(other, 0, "the scope is per thread");
        }
        assert_eq!(current_job(), 0);
    }
}
