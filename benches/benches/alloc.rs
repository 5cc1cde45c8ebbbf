//! Allocation + free pair latency of every tenor-alloc strategy, on one and on two threads.
//!
//! The upstream is [`tenor_alloc::Counting`] (fresh addresses, two atomic adds), so the figures
//! are the strategies' own cost; streams are CPU streams (synchronous, events complete at once).
//! On two threads each thread allocates on its own stream from the same allocator, and the
//! figure is the wall time per pair of one thread while the other runs.
//!
//! Two clocks: the `*_wall` groups use criterion's wall clock; the `*_oncpu` groups count only
//! the measuring thread's CPU time (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, POSIX), which is
//! what the pair costs when the machine is shared with other work (CI's 2 cores, 8 jobs).
//!
//! Binning's 64 MiB pair is above its largest bin (2^22) and goes to the upstream by design;
//! the arena's 1 MiB and 64 MiB pairs go to its shared pool.
//!
//! Run: `cargo bench -p tenor-benches --bench alloc`.
#![allow(missing_docs)] // criterion_group! generates undocumented functions
use std::hint::black_box;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use tenor_alloc::{
    Arena, ArenaConfig, Binning, BinningConfig, Caching, CachingConfig, Counting, Pool, PoolConfig, Slab, SlabConfig,
};
use tenor_ports::{Allocator, Driver, Stream};

const SIZES: [(usize, &str); 4] = [(256, "256B"), (64 << 10, "64KiB"), (1 << 20, "1MiB"), (64 << 20, "64MiB")];

fn strategies() -> Vec<(&'static str, Arc<dyn Allocator>)> {
    let up = || -> Arc<dyn Allocator> { Arc::new(Counting::new()) };
    let pool = PoolConfig { initial_bytes: 256 << 20, upstream_ordered: true, ..PoolConfig::default() };
    vec![
        ("pool", Arc::new(Pool::new(up(), pool))),
        ("binning", Arc::new(Binning::new(up(), BinningConfig { upstream_ordered: true, ..BinningConfig::default() }))),
        ("arena", Arc::new(Arena::new(up(), ArenaConfig { pool, ..ArenaConfig::default() }))),
        ("caching", Arc::new(Caching::new(up(), CachingConfig { upstream_ordered: true, ..CachingConfig::default() }))),
        // A release threshold above the largest class, so that the 64 MiB pair measures the
        // cached path rather than a return to the upstream.
        (
            "slab",
            Arc::new(Slab::new(
                up(),
                SlabConfig { upstream_ordered: true, release_threshold: 256 << 20, ..SlabConfig::default() },
            )),
        ),
    ]
}

fn stream() -> Stream {
    tenor_cpu::CpuDriver::new(Some(1)).and_then(|d| d.create_stream()).expect("cpu stream")
}

fn pair(a: &dyn Allocator, bytes: usize, s: &Stream) {
    let b = a.allocate(black_box(bytes), s).expect("allocate");
    // SAFETY: `b` was allocated just above and nothing else holds it.
    unsafe { a.deallocate(black_box(b), s) }.expect("free");
}

/// CPU time of the calling thread in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`).
fn on_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a POSIX constant.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    (ts.tv_sec as u64) * 1_000_000_000 + ts.tv_nsec as u64
}

/// Runs `iters` pairs and returns the time on the chosen clock.
fn timed(a: &dyn Allocator, bytes: usize, s: &Stream, iters: u64, on_cpu: bool) -> Duration {
    let (t0, c0) = (Instant::now(), on_cpu_ns());
    for _ in 0..iters {
        pair(a, bytes, s);
    }
    if on_cpu {
        Duration::from_nanos(on_cpu_ns().saturating_sub(c0))
    } else {
        t0.elapsed()
    }
}

fn one_thread(c: &mut Criterion) {
    for on_cpu in [true, false] {
        one_thread_on(c, on_cpu);
    }
}

fn two_threads(c: &mut Criterion) {
    for on_cpu in [true, false] {
        two_threads_on(c, on_cpu);
    }
}

fn one_thread_on(c: &mut Criterion, on_cpu: bool) {
    let s = stream();
    let mut g = c.benchmark_group(if on_cpu { "pair_1_thread_oncpu" } else { "pair_1_thread_wall" });
    g.warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1)).sample_size(30);
    for (name, a) in strategies() {
        for (bytes, label) in SIZES {
            g.bench_with_input(BenchmarkId::new(name, label), &bytes, |bn, &bytes| {
                bn.iter_custom(|iters| timed(a.as_ref(), bytes, &s, iters, on_cpu));
            });
        }
    }
    g.finish();
}

fn two_threads_on(c: &mut Criterion, on_cpu: bool) {
    let mut g = c.benchmark_group(if on_cpu { "pair_2_threads_oncpu" } else { "pair_2_threads_wall" });
    g.warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1)).sample_size(30);
    for (name, a) in strategies() {
        for (bytes, label) in SIZES {
            g.bench_with_input(BenchmarkId::new(name, label), &bytes, |bn, &bytes| {
                bn.iter_custom(|iters| {
                    let start = Arc::new(Barrier::new(2));
                    let other = {
                        let (a, start) = (a.clone(), start.clone());
                        std::thread::spawn(move || {
                            let s = stream();
                            pair(a.as_ref(), bytes, &s);
                            start.wait();
                            for _ in 0..iters {
                                pair(a.as_ref(), bytes, &s);
                            }
                        })
                    };
                    let s = stream();
                    pair(a.as_ref(), bytes, &s);
                    start.wait();
                    let t = timed(a.as_ref(), bytes, &s, iters, on_cpu);
                    other.join().expect("second thread");
                    t
                });
            });
        }
    }
    g.finish();
}

criterion_group!(benches, one_thread, two_threads);
criterion_main!(benches);
