//! Per-job budgets: [`JobBudgets`] (the accounting, shared with the slab's per-job caps) and
//! the [`Budgets`] adaptor with begin/end-job calls.
//!
//! The job behind an allocation is the calling thread's [`crate::JobScope`]; allocations
//! outside any job (job 0) are not charged. A job over its budget gets
//! [`AllocError::BudgetExceeded`] naming the job, the request, its bytes in use and the budget
//! (the per-scope caps RMM builds from `limiting_resource_adaptor`s, CuPy's `set_limit`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use tenor_ports::{AllocError, AllocReport, Allocator, Block, Stream};

use crate::job::{current_job, JobScope};
use crate::order::{lock, FastMap};

/// Bytes in use and high watermark of one job.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JobUsage {
    /// The job's budget in bytes (`usize::MAX`: none).
    pub budget: usize,
    /// Bytes the job holds now.
    pub in_use: usize,
    /// High watermark of `in_use` since the job began.
    pub peak: usize,
}

#[derive(Debug)]
struct Account {
    budget: AtomicUsize,
    in_use: AtomicUsize,
    peak: AtomicUsize,
}

/// Per-job byte accounting against budgets. Thread-safe; the map is read-locked per charge.
#[derive(Debug)]
pub struct JobBudgets {
    default_budget: usize,
    jobs: RwLock<FastMap<u64, Arc<Account>>>,
}

impl JobBudgets {
    /// Accounting where jobs without an explicit budget get `default_budget` bytes
    /// (`usize::MAX`: unlimited).
    pub fn new(default_budget: usize) -> Self {
        Self { default_budget, jobs: RwLock::new(FastMap::default()) }
    }

    fn account(&self, job: u64) -> Arc<Account> {
        if let Some(a) = self.jobs.read().unwrap_or_else(|p| p.into_inner()).get(&job) {
            return a.clone();
        }
        let mut w = self.jobs.write().unwrap_or_else(|p| p.into_inner());
        w.entry(job)
            .or_insert_with(|| {
                Arc::new(Account {
                    budget: AtomicUsize::new(self.default_budget),
                    in_use: AtomicUsize::new(0),
                    peak: AtomicUsize::new(0),
                })
            })
            .clone()
    }

    /// Sets job `job`'s budget and resets its high watermark to its bytes in use.
    pub fn set_budget(&self, job: u64, bytes: usize) {
        let a = self.account(job);
        a.budget.store(bytes, Ordering::Relaxed);
        a.peak.store(a.in_use.load(Ordering::Relaxed), Ordering::Relaxed);
    }

    /// Charges `bytes` to `job`.
    ///
    /// # Errors
    /// [`AllocError::BudgetExceeded`] when the job would exceed its budget (nothing charged).
    pub fn charge(&self, job: u64, bytes: usize) -> Result<(), AllocError> {
        let a = self.account(job);
        let budget = a.budget.load(Ordering::Relaxed);
        let mut cur = a.in_use.load(Ordering::Relaxed);
        loop {
            let next = cur.saturating_add(bytes);
            if next > budget {
                return Err(AllocError::BudgetExceeded { job, requested: bytes, in_use: cur, budget });
            }
            match a.in_use.compare_exchange_weak(cur, next, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => {
                    a.peak.fetch_max(next, Ordering::Relaxed);
                    return Ok(());
                }
                Err(now) => cur = now,
            }
        }
    }

    /// Gives `bytes` back to `job`.
    pub fn refund(&self, job: u64, bytes: usize) {
        let a = self.account(job);
        let _ = a.in_use.fetch_update(Ordering::AcqRel, Ordering::Relaxed, |v| Some(v.saturating_sub(bytes)));
    }

    /// Usage of `job`.
    pub fn usage(&self, job: u64) -> JobUsage {
        let a = self.account(job);
        JobUsage {
            budget: a.budget.load(Ordering::Relaxed),
            in_use: a.in_use.load(Ordering::Relaxed),
            peak: a.peak.load(Ordering::Relaxed),
        }
    }

    /// Forgets `job` and returns its final usage.
    pub fn remove(&self, job: u64) -> JobUsage {
        let u = self.usage(job);
        self.jobs.write().unwrap_or_else(|p| p.into_inner()).remove(&job);
        u
    }
}

/// An adaptor that enforces per-job budgets over any allocator.
#[derive(Debug)]
pub struct Budgets {
    inner: Arc<dyn Allocator>,
    budgets: JobBudgets,
    owners: Mutex<FastMap<u64, (u64, usize)>>,
}

impl Budgets {
    /// Budgets over `inner`; jobs that were not begun with a budget are unlimited.
    pub fn new(inner: Arc<dyn Allocator>) -> Self {
        Self { inner, budgets: JobBudgets::new(usize::MAX), owners: Mutex::new(FastMap::default()) }
    }

    /// Begins job `job` with `budget` bytes on the calling thread: allocations made while the
    /// returned scope lives are charged to it.
    pub fn begin_job(&self, job: u64, budget: usize) -> JobScope {
        self.budgets.set_budget(job, budget);
        JobScope::enter(job)
    }

    /// Ends job `job` and returns its usage (its high watermark is the per-job cap to plan
    /// for). Blocks it still holds stay charged to it until freed.
    pub fn end_job(&self, job: u64) -> JobUsage {
        self.budgets.usage(job)
    }

    /// Usage of job `job` so far.
    pub fn usage(&self, job: u64) -> JobUsage {
        self.budgets.usage(job)
    }
}

// SAFETY: blocks come from this allocator's upstream (or its own slabs) and are handed out

// once until freed, as the trait's contract asks.

unsafe impl Allocator for Budgets {
    fn name(&self) -> &str {
        "budgets"
    }

    fn allocate(&self, bytes: usize, stream: &Stream) -> Result<Block, AllocError> {
        let job = current_job();
        if job != 0 {
            self.budgets.charge(job, bytes)?;
        }
        let b = self.inner.allocate(bytes, stream).inspect_err(|_| self.budgets.refund(job, bytes))?;
        lock(&self.owners).insert(b.ptr, (job, bytes));
        Ok(b)
    }

    unsafe fn deallocate(&self, block: Block, stream: &Stream) -> Result<(), AllocError> {
        let owner = lock(&self.owners).remove(&block.ptr);
        let Some((job, bytes)) = owner else {
            return Err(AllocError::UnknownBlock { ptr: block.ptr, size: block.size });
        };
        // SAFETY: this method's contract (the caller owns `block`), passed on unchanged.
        unsafe { self.inner.deallocate(block, stream) }.inspect_err(|_| {
            lock(&self.owners).insert(block.ptr, (job, bytes));
        })?;
        if job != 0 {
            self.budgets.refund(job, bytes);
        }
        Ok(())
    }

    fn report(&self) -> AllocReport {
        self.inner.report()
    }
    fn reset_peaks(&self) {
        self.inner.reset_peaks();
    }
    fn trim(&self, keep_bytes: usize) -> Result<(), AllocError> {
        self.inner.trim(keep_bytes)
    }
}
