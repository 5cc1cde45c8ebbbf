//! Batched option pricing for parameter sweeps.
//!
//! A sweep of an option strategy runs many copies of one strategy over the same bars. Priced one
//! run at a time, every run launches its own `price_batch` sequence on the `Compute` port each
//! bar (synchronise, launches, downloads, synchronise): `runs x bars` sequences. The
//! [`Collector`] here runs the sweep's runs in lockstep and prices the requests of every run that
//! is at the same bar in one `price_batch` call: `bars` sequences for the whole sweep.
//!
//! How (a barrier-style collector, as in bulk-synchronous designs): each run has its own
//! thread and a [`Pricer`] handle; a run that prices submits its products for the current bar
//! and blocks. When every run still active has either submitted or finished, the collector
//! prices the requests at the lowest pending bar together (a run that did not price at that bar
//! has already moved on, and no run can still submit for an earlier bar since bars only
//! increase), hands each run its results and wakes it. Requests with different
//! [`McConfig`]s (a sweep over `paths` or `seed`) go into one `price_batch` call per distinct
//! configuration.
//!
//! Results do not depend on batching: `price_batch` gives each product's jobs the seed of the
//! configuration and counter-based Philox numbers indexed by (seed, pair, step), never by the
//! product's position in the batch, and adds each job's block partials in block order
//! (`tenor_pricing::mc::engine`). A product priced alone or inside a batch of hundreds gets
//! bitwise the same numbers on one backend; `backtest/tests/batch.rs` checks it on whole sweeps.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use tenor_ports::Compute;
use tenor_pricing::mc::{price_batch, McConfig, McError, McProduct, McValuation};

/// What a batch of pricing returns: per product, its valuation or its own error; the outer
/// error is a failure of the whole `price_batch` call (the device).
pub type Priced = Result<Vec<Result<McValuation, McError>>, McError>;

/// Where an option strategy sends its Monte Carlo pricing: straight to a backend, or to a
/// sweep's [`Collector`] that batches it with the other runs at the same bar.
///
/// Strategies take a `Pricer` instead of a bare `Arc<dyn Compute>` so that the same strategy
/// code runs alone ([`Pricer::direct`]) or inside a batched sweep
/// ([`crate::sweep::run_batched`]) with bitwise the same results.
#[derive(Clone)]
pub enum Pricer {
    /// Prices each request at once with `tenor_pricing::mc::price_batch` on the backend.
    Direct {
        /// The backend.
        compute: Arc<dyn Compute>,
        /// Counts calls and products when set (for sweep summaries).
        counters: Option<Arc<PricingCounters>>,
    },
    /// One run's handle into a sweep's collector.
    Batched(BatchHandle),
}

impl std::fmt::Debug for Pricer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Direct { .. } => write!(f, "Pricer::Direct({})", self.backend()),
            Self::Batched(h) => write!(f, "Pricer::Batched(run {} on {})", h.run, self.backend()),
        }
    }
}

impl Pricer {
    /// Direct pricing on `compute`, uncounted.
    pub fn direct(compute: Arc<dyn Compute>) -> Self {
        Self::Direct { compute, counters: None }
    }

    /// Direct pricing on `compute`, adding every call and product to `counters`.
    pub fn direct_counted(compute: Arc<dyn Compute>, counters: Arc<PricingCounters>) -> Self {
        Self::Direct { compute, counters: Some(counters) }
    }

    /// The backend the pricing runs on.
    pub fn compute(&self) -> Arc<dyn Compute> {
        match self {
            Self::Direct { compute, .. } => compute.clone(),
            Self::Batched(h) => h.collector.compute.clone(),
        }
    }

    /// Name of the backend the pricing runs on (`cpu`, `sycl`, `cuda`, ...).
    pub fn backend(&self) -> &str {
        match self {
            Self::Direct { compute, .. } => &compute.info().backend,
            Self::Batched(h) => &h.collector.compute.info().backend,
        }
    }

    /// Prices `products` with `cfg` (Greeks by bump-and-revalue when `greeks`) for bar `bar`
    /// (`Context::index()`), as `tenor_pricing::mc::price_batch` would: results in the order of
    /// `products`. A batched handle blocks until the sweep's collector has priced the bar.
    ///
    /// # Errors
    /// The outer error: the device failed for the whole call, or a batched run submitted after
    /// it finished; inner errors belong to single products.
    pub fn price(&self, bar: usize, products: &[McProduct], cfg: &McConfig, greeks: bool) -> Priced {
        match self {
            Self::Direct { compute, counters } => {
                if let Some(c) = counters {
                    c.add(products.len());
                }
                price_batch(&**compute, products, cfg, greeks)
            }
            Self::Batched(h) => h.collector.submit(h.run, bar, products, *cfg, greeks),
        }
    }
}

/// Counts of `price_batch` calls (launch sequences on the port) and of products priced.
#[derive(Debug, Default)]
pub struct PricingCounters {
    calls: AtomicU64,
    products: AtomicU64,
}

impl PricingCounters {
    fn add(&self, products: usize) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.products.fetch_add(products as u64, Ordering::Relaxed);
    }
    /// `price_batch` calls so far.
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }
    /// Products priced so far.
    pub fn products(&self) -> u64 {
        self.products.load(Ordering::Relaxed)
    }
}

/// What a batched sweep did on the port.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BatchStats {
    /// `price_batch` calls (one launch sequence each).
    pub calls: u64,
    /// Requests (one run's products at one bar) served.
    pub requests: u64,
    /// Products priced.
    pub products: u64,
    /// Distinct (lockstep group, bar) pairs at which something was priced.
    pub bars: u64,
}

/// One run's handle into a [`Collector`] (made by [`Collector::handle`]).
#[derive(Clone)]
pub struct BatchHandle {
    collector: Arc<Collector>,
    run: usize,
}

/// A pending request.
struct Request {
    run: usize,
    bar: usize,
    products: Vec<McProduct>,
    cfg: McConfig,
    greeks: bool,
}

#[derive(Default)]
struct State {
    /// Runs not finished.
    active: usize,
    finished: Vec<bool>,
    /// Submitted and not yet priced; at most one per active run.
    waiting: Vec<Request>,
    /// Priced, not yet picked up by their run.
    done: HashMap<usize, Priced>,
    stats: BatchStats,
    bars: BTreeSet<usize>,
    /// Lowest bar priced last, for progress.
    last_bar: usize,
}

/// The lockstep collector of one group of runs (see the module documentation).
pub struct Collector {
    compute: Arc<dyn Compute>,
    state: Mutex<State>,
    wake: Condvar,
    on_bar: Box<dyn Fn(usize) + Send + Sync>,
}

impl std::fmt::Debug for Collector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Collector(on {})", self.compute.info().backend)
    }
}

impl Collector {
    /// A collector for `runs` runs pricing on `compute`; `on_bar(t)` is called whenever the
    /// lowest bar among the runs that price advances to `t` (for progress bars).
    pub fn new(compute: Arc<dyn Compute>, runs: usize, on_bar: Box<dyn Fn(usize) + Send + Sync>) -> Arc<Self> {
        Arc::new(Self {
            compute,
            state: Mutex::new(State { active: runs, finished: vec![false; runs], ..State::default() }),
            wake: Condvar::new(),
            on_bar,
        })
    }

    /// Handle of run `run` (`0..runs`).
    pub fn handle(self: &Arc<Self>, run: usize) -> Pricer {
        Pricer::Batched(BatchHandle { collector: self.clone(), run })
    }

    /// Run `run` will price no more (its engine run returned, with a result or an error). Must
    /// be called exactly once per run, or the other runs wait for it forever.
    pub fn finish(&self, run: usize) {
        let mut st = self.lock();
        if st.finished.get(run).copied().unwrap_or(true) {
            return;
        }
        st.finished[run] = true;
        st.active -= 1;
        self.fire_if_ready(&mut st);
    }

    /// What the collector did so far.
    pub fn stats(&self) -> BatchStats {
        let st = self.lock();
        BatchStats { bars: st.bars.len() as u64, ..st.stats }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock (in a backend) leaves the state consistent enough to
        // report errors: take it over instead of propagating the poison.
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn submit(&self, run: usize, bar: usize, products: &[McProduct], cfg: McConfig, greeks: bool) -> Priced {
        let mut st = self.lock();
        if st.finished.get(run).copied().unwrap_or(true) {
            return Err(McError::BadResult(format!("run {run} submitted pricing outside its sweep")));
        }
        if st.waiting.iter().any(|r| r.run == run) {
            return Err(McError::BadResult(format!("run {run} submitted twice at once")));
        }
        st.waiting.push(Request { run, bar, products: products.to_vec(), cfg, greeks });
        self.fire_if_ready(&mut st);
        loop {
            if let Some(r) = st.done.remove(&run) {
                return r;
            }
            st = self.wake.wait(st).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }

    /// When every active run waits, prices the requests at the lowest pending bar.
    fn fire_if_ready(&self, st: &mut State) {
        if st.waiting.is_empty() || st.waiting.len() < st.active {
            return;
        }
        let Some(bar) = st.waiting.iter().map(|r| r.bar).min() else { return };
        let (now, later): (Vec<Request>, Vec<Request>) =
            std::mem::take(&mut st.waiting).into_iter().partition(|r| r.bar == bar);
        st.waiting = later;
        if bar > st.last_bar || st.bars.is_empty() {
            st.last_bar = bar;
            (self.on_bar)(bar);
        }
        st.bars.insert(bar);
        // One call per distinct configuration, in order of first appearance.
        let mut groups: Vec<((McConfig, bool), Vec<Request>)> = Vec::new();
        for r in now {
            match groups.iter_mut().find(|(k, _)| *k == (r.cfg, r.greeks)) {
                Some((_, g)) => g.push(r),
                None => groups.push(((r.cfg, r.greeks), vec![r])),
            }
        }
        for ((cfg, greeks), group) in groups {
            let products: Vec<McProduct> = group.iter().flat_map(|r| r.products.iter().copied()).collect();
            st.stats.calls += 1;
            st.stats.requests += group.len() as u64;
            st.stats.products += products.len() as u64;
            match price_batch(&*self.compute, &products, &cfg, greeks) {
                Ok(all) => {
                    let mut it = all.into_iter();
                    for r in group {
                        let mine: Vec<_> = it.by_ref().take(r.products.len()).collect();
                        let out = if mine.len() == r.products.len() {
                            Ok(mine)
                        } else {
                            Err(McError::BadResult(format!(
                                "batch returned {} results for {} products",
                                mine.len(),
                                r.products.len()
                            )))
                        };
                        st.done.insert(r.run, out);
                    }
                }
                Err(e) => {
                    for r in group {
                        st.done.insert(r.run, Err(e.clone()));
                    }
                }
            }
        }
        self.wake.notify_all();
    }
}
