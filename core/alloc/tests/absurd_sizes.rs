//! Sizes read from a file that no device can hold, and a leading byte order mark: the trace
//! parser, the replay and the advisor (found by a new-user audit). In a file of its own because
//! the arena's per-thread state makes the determinism test in `replay.rs` sensitive to other
//! tests replaying on other threads of the same process.

use tenor_alloc::advisor::{advise, Profile};
use tenor_alloc::replay::{replay, Kind, ReplayOptions};
use tenor_alloc::{Trace, TraceEvent, TraceOp};

const HEAD: &str = "# tenor-alloc trace v1\ntime_ns,op,bytes,stream,job,block,thread\n";

/// A `bytes` above isize::MAX cannot come from a recording: the parser refuses it naming file,
/// line and column (found by a new-user audit: it replayed as a success in release and
/// overflowed in debug).
#[test]
fn a_size_above_isize_max_is_refused_with_file_line_and_column() {
    let text = format!("{HEAD}0,alloc,18446744073709551615,1,0,1,0\n");
    let e = Trace::parse(&text, "t.trace").expect_err("2^64 - 1 bytes is refused");
    assert_eq!((e.line, e.column), (3, 3), "{e}");
    let msg = e.to_string();
    assert!(msg.starts_with("t.trace:3:3: bytes `18446744073709551615`"), "{msg}");
    assert!(msg.contains(&(isize::MAX as u64).to_string()), "names the limit: {msg}");
    let ok = format!("{HEAD}0,alloc,{},1,0,1,0\n", isize::MAX);
    assert_eq!(Trace::parse(&ok, "t.trace").expect("isize::MAX is the limit").events[0].bytes, isize::MAX as usize);
}

/// A trace whose first request is isize::MAX bytes replays under every strategy: that request
/// counts as one failed allocation, the 1 KiB one succeeds, and the figures are those of the
/// 1 KiB allocation alone.
#[test]
fn an_absurd_size_replays_as_one_failure_under_every_strategy() {
    let text = format!("{HEAD}0,alloc,{},1,5,1,0\n1,alloc,1024,1,5,2,0\n2,free,1024,1,5,2,0\n", isize::MAX);
    let trace = Trace::parse(&text, "absurd.trace").expect("valid trace");
    for kind in Kind::ALL {
        let r =
            replay(&trace, kind, &ReplayOptions::default(), &tenor_sim::checked_device, &mut |_| {}).expect("replay");
        assert!(r.hazards.is_empty() && r.left_reserved == 0, "{}: {:?}", kind.name(), r.hazards);
        assert_eq!(r.failures, 1, "{}: the isize::MAX request fails", kind.name());
        assert_eq!(r.addresses.len(), 1, "{}: the 1 KiB request succeeds", kind.name());
        assert_eq!(r.peak_used, 1024, "{}", kind.name());
        assert!(r.peak_reserved < 1 << 30, "{}: reserved {} B", kind.name(), r.peak_reserved);
    }
}

/// The profile and the advice never overflow on sizes read from a file (even a hand-built
/// trace with usize::MAX bytes): no slab class of 0 bytes, a per-job cap at least the job's
/// high watermark, and the pool's failures among the reasons.
#[test]
fn advice_on_absurd_sizes_has_no_zero_class_and_names_the_failures() {
    let text = format!("{HEAD}0,alloc,{},1,5,1,0\n1,alloc,1024,1,5,2,0\n2,free,1024,1,5,2,0\n", isize::MAX);
    let trace = Trace::parse(&text, "absurd.trace").expect("valid trace");
    let pool =
        replay(&trace, Kind::Pool, &ReplayOptions::default(), &tenor_sim::checked_device, &mut |_| {}).expect("replay");
    let a = advise(&Profile::from_trace(&trace), &pool);
    assert_eq!(a.classes, vec![1024, (isize::MAX as usize) + 1], "sizes rounded up to 256 B");
    assert!(a.job_cap >= isize::MAX as usize, "cap {} below the job's high watermark", a.job_cap);
    assert!(a.reasons.iter().any(|r| r.contains("1 allocation(s) failed under the pool")), "{:#?}", a.reasons);

    let huge = Trace {
        events: vec![
            TraceEvent { time_ns: 0, op: TraceOp::Alloc, bytes: usize::MAX, stream: 1, job: 3, block: 1, thread: 0 },
            TraceEvent { time_ns: 1, op: TraceOp::Alloc, bytes: usize::MAX, stream: 1, job: 3, block: 2, thread: 0 },
        ],
    };
    let p = Profile::from_trace(&huge);
    let classes = p.slab_classes();
    assert!(!classes.is_empty() && !classes.contains(&0), "{classes:?}");
    assert_eq!(p.job_cap() % (1 << 20), 0, "whole MiB");
    assert!(p.job_cap() > usize::MAX / 2, "cap {}", p.job_cap());
}

/// A leading UTF-8 byte order mark (Excel's "CSV UTF-8") is skipped, not read as a field.
#[test]
fn a_leading_byte_order_mark_is_skipped() {
    let text = format!("\u{feff}{HEAD}0,alloc,1024,1,0,1,0\n1,free,1024,1,0,1,0\n");
    let t = Trace::parse(&text, "bom.trace").expect("a BOM before the header is skipped");
    assert_eq!(t.events.len(), 2);
    let data_first = "\u{feff}0,alloc,1024,1,0,1,0\n";
    assert_eq!(Trace::parse(data_first, "bom.trace").expect("BOM before data").events[0].bytes, 1024);
}
