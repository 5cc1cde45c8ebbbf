//! Adaptors (limit, budgets, slab caps, trace) and the cross-stream reuse rules, by hand-computed
//! cases.

use std::sync::Arc;

use tenor_alloc::trace::TraceError;
use tenor_alloc::{
    Budgets, Caching, CachingConfig, Counting, JobScope, Limit, Pool, PoolConfig, Recorder, Reuse, Slab, SlabConfig,
    Strategy, Trace, TraceOp,
};
use tenor_ports::{AllocError, Allocator, Driver};
use tenor_sim::{SimConfig, SimDriver};

fn cpu_stream() -> tenor_ports::Stream {
    tenor_cpu::CpuDriver::new(Some(1)).expect("cpu").create_stream().expect("stream")
}

#[test]
fn limit_refuses_with_requested_and_available() {
    let s = cpu_stream();
    let lim = Limit::new(Arc::new(Counting::new()), 1000);
    let a = lim.allocate(512, &s).expect("512 of 1000"); // counting rounds to 256: 512 charged
    match lim.allocate(600, &s) {
        Err(AllocError::OutOfMemory { requested, available }) => assert_eq!((requested, available), (600, 488)),
        other => panic!("expected out of memory, got {other:?}"),
    }
    // 300 rounds to 512 in the upstream: over the cap once the block's real size is known.
    assert!(matches!(lim.allocate(300, &s), Err(AllocError::OutOfMemory { requested: 300, available: 488 })));
    // SAFETY: the block was allocated by this test and nothing else holds it.
    unsafe { lim.deallocate(a, &s) }.expect("free");
    assert_eq!(lim.available(), 1000);
    lim.allocate(1000, &s).expect_err("1000 rounds to 1024 > cap");
}

#[test]
fn budgets_charge_the_current_job_and_report_its_high_watermark() {
    let s = cpu_stream();
    let b = Budgets::new(Arc::new(Counting::new()));
    let scope = b.begin_job(7, 10_000);
    let x = b.allocate(6000, &s).expect("6000 of 10000");
    let y = b.allocate(3000, &s).expect("9000 of 10000");
    match b.allocate(2000, &s) {
        Err(AllocError::BudgetExceeded { job, requested, in_use, budget }) => {
            assert_eq!((job, requested, in_use, budget), (7, 2000, 9000, 10_000));
        }
        other => panic!("expected a budget error, got {other:?}"),
    }
    // SAFETY: the block was allocated by this test and nothing else holds it.
    unsafe { b.deallocate(x, &s) }.expect("free");
    // SAFETY: `z` is allocated here and freed at once; nothing else holds it.
    b.allocate(2000, &s).map(|z| unsafe { b.deallocate(z, &s) }).expect("fits after the free").expect("free");
    // SAFETY: the block was allocated by this test and nothing else holds it.
    unsafe { b.deallocate(y, &s) }.expect("free");
    drop(scope);
    let u = b.end_job(7);
    assert_eq!((u.in_use, u.peak, u.budget), (0, 9000, 10_000));
    // Outside any job nothing is charged.
    let big = b.allocate(1 << 20, &s).expect("no job, no budget");
    // SAFETY: the block was allocated by this test and nothing else holds it.
    unsafe { b.deallocate(big, &s) }.expect("free");
}

#[test]
fn slab_caps_each_job() {
    let s = cpu_stream();
    let slab = Slab::new(
        Arc::new(Counting::new()),
        SlabConfig { classes: vec![1024, 4096], job_cap: 8192, ..SlabConfig::default() },
    );
    let _job = JobScope::enter(3);
    let a = slab.allocate(4000, &s).expect("4096 class");
    let b = slab.allocate(4096, &s).expect("second 4096: at the cap");
    match slab.allocate(1000, &s) {
        Err(AllocError::BudgetExceeded { job: 3, requested: 1024, in_use: 8192, budget: 8192 }) => {}
        other => panic!("expected the cap, got {other:?}"),
    }
    // SAFETY: the block was allocated by this test and nothing else holds it.
    unsafe { slab.deallocate(a, &s) }.expect("free");
    assert_eq!(slab.job_usage(3).in_use, 4096);
    // SAFETY: the block was allocated by this test and nothing else holds it.
    unsafe { slab.deallocate(b, &s) }.expect("free");
    assert_eq!(slab.job_usage(3).peak, 8192);
}

#[test]
fn trace_round_trips_and_errors_name_line_and_column() {
    let s = cpu_stream();
    let rec = Recorder::new(Arc::new(Counting::new()));
    let _job = JobScope::enter(5);
    let a = rec.allocate(100, &s).expect("alloc");
    // SAFETY: the block was allocated by this test and nothing else holds it.
    unsafe { rec.deallocate(a, &s) }.expect("free");
    let t = rec.trace();
    assert_eq!(t.events.len(), 2);
    assert_eq!((t.events[0].op, t.events[0].bytes, t.events[0].job), (TraceOp::Alloc, 100, 5));
    assert_eq!((t.events[1].op, t.events[1].bytes, t.events[1].block), (TraceOp::Free, 100, a.id));
    assert_eq!(Trace::parse(&t.to_text(), "mem").expect("parse"), t);

    let bad =
        "# tenor-alloc trace v1\ntime_ns,op,bytes,stream,job,block,thread\n1,alloc,64,1,0,1,0\n2,grow,64,1,0,2,0\n";
    let e: TraceError = Trace::parse(bad, "t.csv").expect_err("unknown op");
    assert_eq!((e.line, e.column), (4, 2));
    assert!(e.to_string().starts_with("t.csv:4:2:"), "{e}");
    let e = Trace::parse("1,alloc,x,1,0,1,0\n", "t.csv").expect_err("bytes not a number");
    assert_eq!((e.line, e.column), (1, 3));
    let e = Trace::parse("1,free,64,1,0,9,0\n", "t.csv").expect_err("free of a block never allocated");
    assert_eq!((e.line, e.column), (1, 6));
    let e = Trace::parse("5,alloc,64,1,0,1,0\n4,free,64,1,0,1,0\n", "t.csv").expect_err("time goes back");
    assert_eq!((e.line, e.column), (2, 1));
    assert!(e.message.contains("earlier"), "{e}");
    let e = Trace::parse("1,alloc,64,1,0,1,0\n2,free,128,1,0,1,0\n", "t.csv").expect_err("free's bytes differ");
    assert_eq!((e.line, e.column), (2, 3));
    assert!(e.message.contains("allocated with 64"), "{e}");
    let e = Trace::parse("1,alloc,64,1,0,0,0\n", "t.csv").expect_err("alloc of block 0");
    assert_eq!((e.line, e.column), (1, 6));
    // Each size at most isize::MAX (tenor_alloc::trace::MAX_TRACE_BYTES); three of them live
    // at once overflow the address space.
    let max = isize::MAX;
    let huge = format!("1,alloc,{max},1,0,1,0\n2,alloc,{max},1,0,2,0\n3,alloc,{max},1,0,3,0\n");
    let e = Trace::parse(&huge, "t.csv").expect_err("live bytes overflow");
    assert_eq!((e.line, e.column), (3, 3));
    assert!(e.message.contains("address space"), "{e}");
}

#[test]
fn cross_stream_reuse_waits_only_when_following_events() {
    let driver = SimDriver::new(SimConfig::default());
    let (s1, s2) = (driver.create_stream().expect("s1"), driver.create_stream().expect("s2"));
    // FollowEvents: the block freed on s1 is reused on s2 after one inserted wait.
    let pool = Pool::new(driver.sim_allocator(), PoolConfig { initial_bytes: 1 << 20, ..PoolConfig::default() });
    let a = pool.allocate(4096, &s1).expect("alloc");
    // SAFETY: the block was allocated by this test and nothing else holds it.
    unsafe { pool.deallocate(a, &s1) }.expect("free");
    let b = pool.allocate(4096, &s2).expect("steal");
    assert_eq!((b.ptr, pool.inserted_waits()), (a.ptr, 1));
    assert_eq!(pool.wait_log(), vec![(1, 0)]);
    // SAFETY: the block was allocated by this test and nothing else holds it.
    unsafe { pool.deallocate(b, &s2) }.expect("free");
    // The same stream reuses at once, without a wait.
    let c = pool.allocate(4096, &s2).expect("same stream");
    assert_eq!((c.ptr, pool.inserted_waits()), (a.ptr, 1));
    // SAFETY: the block was allocated by this test and nothing else holds it.
    unsafe { pool.deallocate(c, &s2) }.expect("free");

    // Opportunistic (CUB): no reuse on s2 while s1's free is not known complete, no wait ever.
    let cub = Caching::new(driver.sim_allocator(), CachingConfig::default());
    let x = cub.allocate(4096, &s1).expect("alloc");
    // SAFETY: the block was allocated by this test and nothing else holds it.
    unsafe { cub.deallocate(x, &s1) }.expect("free");
    let y = cub.allocate(4096, &s2).expect("fresh block");
    assert_ne!(y.ptr, x.ptr);
    // SAFETY: the block was allocated by this test and nothing else holds it.
    unsafe { cub.deallocate(y, &s2) }.expect("free");
    driver.synchronize().expect("sync: s1's free completes");
    let z = cub.allocate(4096, &s2).expect("same stream first");
    assert_eq!(z.ptr, y.ptr, "s2 reuses its own block first");
    let w = cub.allocate(4096, &s2).expect("now s1's block");
    assert_eq!((w.ptr, cub.inserted_waits()), (x.ptr, 0));
    for (blk, s) in [(z, &s2), (w, &s2)] {
        // SAFETY: the block was allocated by this test and nothing else holds it.
        unsafe { cub.deallocate(blk, s) }.expect("free");
    }
    let f =
        Caching::new(driver.sim_allocator(), CachingConfig { reuse: Reuse::FollowEvents, ..CachingConfig::default() });
    let p = f.allocate(300, &s1).expect("alloc");
    // SAFETY: the block was allocated by this test and nothing else holds it.
    unsafe { f.deallocate(p, &s1) }.expect("free");
    assert_eq!(f.allocate(300, &s2).expect("steal").ptr, p.ptr);
    assert_eq!(f.inserted_waits(), 1);
    assert!(driver.hazards().is_empty());
}
