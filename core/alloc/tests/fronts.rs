//! The lock-free fast path of the size-class strategies (per-thread fronts, block records)
//! across threads and streams, on the simulated device: blocks freed by another thread, blocks
//! parked by a thread that exited, more streams than a front has lanes, racing double frees.
//! Expected values are hand-computed from the sizes requested.

use std::sync::{Arc, Barrier};

use tenor_alloc::{Binning, BinningConfig, Caching, CachingConfig, Slab, SlabConfig, Strategy};
use tenor_ports::{AllocError, Allocator, Driver, Stream};
use tenor_sim::{SimConfig, SimDriver};

fn strategies(up: Arc<dyn Allocator>) -> Vec<Arc<dyn Strategy>> {
    vec![
        Arc::new(Binning::new(up.clone(), BinningConfig::default())),
        Arc::new(Caching::new(up.clone(), CachingConfig::default())),
        Arc::new(Slab::new(up, SlabConfig::default())),
    ]
}

/// Orders `to` after everything enqueued on `from` so far (the caller's duty before a free on
/// another stream).
fn order(from: &Stream, to: &Stream) {
    let ev = from.record().expect("record");
    to.wait(&ev).expect("wait");
}

#[test]
fn a_block_freed_by_another_thread_is_taken_back_and_counted() {
    let driver = SimDriver::new(SimConfig::default());
    let device = driver.sim_allocator();
    for strategy in strategies(device.clone()) {
        let s1 = driver.create_stream().expect("stream");
        let s2 = driver.create_stream().expect("stream");
        // Allocate and free once so that this thread's front parks a 4 KiB block.
        let warm = strategy.allocate(4096, &s1).expect("alloc");
        // SAFETY: the block was allocated by this test and nothing else holds it.
        unsafe { strategy.deallocate(warm, &s1) }.expect("free");
        let b = strategy.allocate(4096, &s1).expect("alloc");
        assert_eq!(b.ptr, warm.ptr, "the parked block comes back on its stream");
        assert_eq!((strategy.report().used, strategy.report().live_blocks), (4096, 1));
        order(&s1, &s2);
        let (st, s2c) = (strategy.clone(), s2.clone());
        // SAFETY: `b` was allocated by this test and is freed once, on the other thread.
        std::thread::spawn(move || unsafe { st.deallocate(b, &s2c) }).join().expect("thread").expect("free elsewhere");
        let r = strategy.report();
        assert_eq!((r.used, r.live_blocks), (0, 0), "{}: the other thread's free is counted", strategy.name());
        // SAFETY: `b` is freed and nothing was allocated since: the contract allows a block the
        // allocator no longer holds (it must be refused).
        let again = unsafe { strategy.deallocate(b, &s1) };
        assert!(
            matches!(again, Err(AllocError::UnknownBlock { .. })),
            "{}: a second free of the block is refused",
            strategy.name()
        );
        strategy.trim(0).expect("trim");
        assert_eq!(strategy.report().reserved, 0, "{}: the exited thread's parked block returns", strategy.name());
    }
    driver.synchronize().expect("sync");
    assert!(driver.hazards().is_empty(), "{:?}", driver.hazards());
    assert_eq!(device.report().used, 0);
}

#[test]
fn more_streams_than_front_lanes_return_every_byte() {
    let driver = SimDriver::new(SimConfig::default());
    let device = driver.sim_allocator();
    for strategy in strategies(device.clone()) {
        let streams: Vec<Stream> = (0..12).map(|_| driver.create_stream().expect("stream")).collect();
        for round in 0..3 {
            for (i, s) in streams.iter().enumerate() {
                let bytes = 256 << (i % 5);
                let b = strategy.allocate(bytes, s).expect("alloc");
                assert!(b.size >= bytes);
                // SAFETY: the block was allocated by this test and nothing else holds it.
                unsafe { strategy.deallocate(b, s) }.expect("free");
            }
            let r = strategy.report();
            assert_eq!((r.used, r.live_blocks), (0, 0), "{} round {round}", strategy.name());
            let free = strategy.free_space();
            assert_eq!(free.free_bytes, r.reserved, "{}: every reserved byte is free", strategy.name());
        }
        strategy.trim(0).expect("trim");
        assert_eq!(strategy.report().reserved, 0, "{}", strategy.name());
    }
    driver.synchronize().expect("sync");
    assert!(driver.hazards().is_empty(), "{:?}", driver.hazards());
    assert_eq!(device.report().used, 0);
}

#[test]
fn racing_double_frees_free_once() {
    let driver = SimDriver::new(SimConfig::default());
    let device = driver.sim_allocator();
    for strategy in strategies(device.clone()) {
        let s = driver.create_stream().expect("stream");
        for _ in 0..50 {
            let b = strategy.allocate(1024, &s).expect("alloc");
            let start = Arc::new(Barrier::new(2));
            let racers: Vec<_> = (0..2)
                .map(|_| {
                    let (st, s, start) = (strategy.clone(), s.clone(), start.clone());
                    std::thread::spawn(move || {
                        start.wait();
                        // SAFETY: `b` was allocated by this test; of the two racing frees one
                        // frees it and the other passes a block no longer held (nothing is
                        // allocated meanwhile), which the contract allows and must refuse.
                        unsafe { st.deallocate(b, &s) }
                    })
                })
                .collect();
            let results: Vec<_> = racers.into_iter().map(|h| h.join().expect("thread")).collect();
            let ok = results.iter().filter(|r| r.is_ok()).count();
            assert_eq!(ok, 1, "{}: exactly one of two frees succeeds: {results:?}", strategy.name());
            assert_eq!(strategy.report().live_blocks, 0);
        }
        strategy.trim(0).expect("trim");
        assert_eq!(strategy.report().reserved, 0, "{}", strategy.name());
    }
    assert_eq!(device.report().used, 0);
}
