//! Replay on the simulated device: the desk trace against every strategy, determinism and the
//! advisor's decision table (traces recorded from Tenor's own pricing kernels:
//! `app/tests/alloc_pricing.rs`).

use tenor_alloc::advisor::{advise, Choice, Profile};
use tenor_alloc::desk::{desk_trace, DeskConfig};
use tenor_alloc::replay::{replay, Kind, ReplayOptions, ReplayResult};
use tenor_alloc::{Trace, TraceEvent, TraceOp};

fn run(trace: &Trace, kind: Kind, opts: &ReplayOptions) -> ReplayResult {
    let r = replay(trace, kind, opts, &tenor_sim::checked_device, &mut |_| {}).expect("replay");
    assert!(r.hazards.is_empty(), "{kind:?}: {:?}", r.hazards.first());
    assert_eq!(r.left_reserved, 0, "{kind:?} returns every byte to the device");
    assert_eq!(r.peak_used, trace.peak_live_bytes(), "{kind:?}: used follows the trace");
    assert!(r.peak_reserved >= r.peak_used, "{kind:?}: reserved covers used");
    r
}

#[test]
fn desk_replay_slab_stays_within_ten_percent() {
    let trace = desk_trace(&DeskConfig::default());
    let opts = ReplayOptions::default();
    let mut best = f64::INFINITY;
    for kind in Kind::ALL {
        let r = run(&trace, kind, &opts);
        println!("{:8} {:28} peak reserved / peak used = {:.3}", kind.name(), r.name, r.overhead());
        assert_eq!(r.failures, 0, "{kind:?}");
        if matches!(kind, Kind::Slab | Kind::Arena) {
            best = best.min(r.overhead());
        }
    }
    assert!(best <= 1.10, "slab or arena keeps peak reserved within 10 % of peak used: {best:.3}");
}

#[test]
fn deterministic_mode_repeats_addresses_and_waits() {
    let trace = desk_trace(&DeskConfig { jobs: 80, ..DeskConfig::default() });
    let opts = ReplayOptions::default();
    let mut any_waits = false;
    for kind in Kind::ALL {
        let a = run(&trace, kind, &opts);
        let b = run(&trace, kind, &ReplayOptions { seed: 99, ..opts });
        assert_eq!(a.addresses, b.addresses, "{kind:?}: same trace, same addresses");
        assert_eq!(a.wait_log, b.wait_log, "{kind:?}: same inserted waits");
        assert_eq!(a.inserted_waits as usize, a.wait_log.len());
        any_waits |= a.inserted_waits > 0;
    }
    assert!(any_waits, "the desk trace reuses memory across streams");
}

/// A trace of `n` allocations on `streams` streams and as many threads, sizes from `size(i)`,
/// each freed `life` allocations later.
fn synthetic(n: usize, streams: u64, life: usize, size: impl Fn(usize) -> usize) -> Trace {
    let mut events = Vec::new();
    let mut live: std::collections::VecDeque<(u64, usize, u64)> = Default::default();
    for i in 0..n {
        let s = i as u64 % streams + 1;
        let b = i as u64 + 1;
        let bytes = size(i);
        let t = events.len() as u64;
        events.push(TraceEvent {
            time_ns: t,
            op: TraceOp::Alloc,
            bytes,
            stream: s,
            job: 0,
            block: b,
            thread: (s - 1) as u32,
        });
        live.push_back((b, bytes, s));
        if live.len() > life {
            let (b, bytes, s) = live.pop_front().expect("live");
            let t = events.len() as u64;
            events.push(TraceEvent {
                time_ns: t,
                op: TraceOp::Free,
                bytes,
                stream: s,
                job: 0,
                block: b,
                thread: (s - 1) as u32,
            });
        }
    }
    for (b, bytes, s) in live {
        let t = events.len() as u64;
        events.push(TraceEvent {
            time_ns: t,
            op: TraceOp::Free,
            bytes,
            stream: s,
            job: 0,
            block: b,
            thread: (s - 1) as u32,
        });
    }
    Trace { events }
}

/// A scrambled size in `lo..hi` (a multiplicative hash of `i`).
fn spread(i: usize, lo: usize, hi: usize) -> usize {
    let h = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20;
    lo + (h as usize) % (hi - lo)
}

fn advice_for(trace: &Trace) -> tenor_alloc::advisor::Advice {
    let pool = run(trace, Kind::Pool, &ReplayOptions::default());
    advise(&Profile::from_trace(trace), &pool)
}

#[test]
fn advisor_follows_the_decision_table() {
    let desk = desk_trace(&DeskConfig::default());
    let a = advice_for(&desk);
    assert_eq!(a.choice, Choice::Slab, "{:#?}", a.reasons);
    // The largest desk job holds an 8 MiB path buffer, a 512 KiB payoff buffer and small
    // blocks: 1.25 x that, in whole MiB, is 11 MiB.
    assert_eq!(a.job_cap, 11 << 20);
    assert!(a.classes.contains(&(8 << 20)) && a.classes.contains(&(512 << 10)), "{:?}", a.classes);
    assert!(a.classes.contains(&(1 << 20)) && a.classes.contains(&256), "{:?}", a.classes);

    let threads = synthetic(2000, 8, 40, |i| spread(i, 1000, 3 << 20));
    assert_eq!(advice_for(&threads).choice, Choice::Arena);

    let churn = synthetic(3000, 1, 8, |i| spread(i, 64, 200_000));
    let c = advice_for(&churn);
    assert_eq!(c.choice, Choice::BinningOverPool, "{:#?}", c.reasons);
    // 5th percentile ~ 10 KB -> 2^13; 90th percentile of the small sizes ~ 180 KB -> 2^18.
    assert_eq!(c.bin_exponents, (13, 18));

    let wide = synthetic(400, 2, 300, |i| spread(i, 1 << 20, 24 << 20));
    assert_eq!(advice_for(&wide).choice, Choice::DevicePool);
}

/// A trace of only large allocations (GPU path buffers of 8 MiB and more) gets advice, not a
/// panic: the binning exponents stay ordered (found by a fresh-user review).
#[test]
fn advice_for_a_trace_of_only_large_allocations() {
    let text = "0,alloc,8388608,1,0,1,0\n1,free,8388608,1,0,1,0\n";
    let trace = Trace::parse(text, "large.trace").expect("valid trace");
    let profile = Profile::from_trace(&trace);
    let (lo, hi) = profile.bin_exponents();
    assert!(lo <= hi && hi <= 22, "({lo}, {hi})");
}
