//! The trace reader through the one line reader: LF, CRLF and bare-CR copies give the same
//! events and name the same lines; a bounded fuzz run of the reader.
use tenor_alloc::trace::{Trace, TRACE_COLUMNS};

fn events(n: usize) -> Vec<String> {
    // Alloc then free of block i, on stream i % 3 and thread i % 2.
    (0..n)
        .flat_map(|i| {
            let t = 2 * i as u64;
            [
                format!("{t},alloc,{},{},0,{},{}", 256 * (i + 1), i % 3, i + 1, i % 2),
                format!("{},free,{},{},0,{},{}", t + 1, 256 * (i + 1), i % 3, i + 1, i % 2),
            ]
        })
        .collect()
}

#[test]
fn lf_crlf_and_cr_copies_give_the_same_events_and_lines() {
    let mut lines = vec![TRACE_COLUMNS.to_owned()];
    lines.extend(events(5));
    for end in ["\n", "\r\n", "\r"] {
        let t = Trace::parse(&lines.join(end), "t.csv").expect("parses");
        assert_eq!(t.events.len(), 10, "{end:?}");
        let mut bad = lines.clone();
        bad[6] = "5,alloc,x,0,0,9,0".into();
        let e = Trace::parse(&bad.join(end), "t.csv").expect_err("bad bytes");
        assert_eq!((e.line, e.column), (7, 3), "{end:?}: {e}");
    }
}

#[test]
fn a_huge_bad_field_is_quoted_as_an_excerpt() {
    let text = format!("{TRACE_COLUMNS}\n0,alloc,{},0,0,1,0\n", "7".repeat(10 << 20));
    let e = Trace::parse(&text, "t.csv").expect_err("too large");
    let msg = e.to_string();
    assert!(msg.len() < 400 && msg.contains("10485760 bytes"), "{}", &msg[..msg.len().min(400)]);
}

#[test]
fn fuzz_the_trace_reader() {
    use proptest::prelude::*;
    let strategy = (1..80usize, tenor_testdata::fuzz::line_end(), proptest::option::of(any::<prop::sample::Index>()));
    let counts = tenor_testdata::fuzz::run("trace", 300, strategy, |(n, end, fault)| {
        let mut lines = vec![TRACE_COLUMNS.to_owned()];
        lines.extend(events(*n));
        let fault = fault.map(|i| i.index(lines.len() - 1) + 1);
        if let Some(j) = fault {
            lines[j] = lines[j].replacen(",", ",?", 1);
        }
        let bytes = lines.join(end) + end;
        let mut finding = tenor_testdata::fuzz::Finding::default();
        let parsed = tenor_ports::text::decode(bytes.as_bytes(), "fuzz").map(|t| Trace::parse(t, "fuzz"));
        match (parsed, fault) {
            (Ok(Ok(t)), None) => finding.lost_rows = (2 * n - t.events.len().min(2 * n)) as u64,
            (Ok(Ok(_)), Some(_)) => finding.misplaced = 1,
            (Ok(Err(_)) | Err(_), None) => finding.lost_rows = 2 * *n as u64,
            (Ok(Err(e)), Some(j)) => finding.misplaced = u64::from(e.line != j + 1),
            (Err(_), Some(_)) => finding.misplaced = 1,
        }
        finding
    });
    assert_eq!((counts.panics, counts.lost_rows, counts.misplaced), (0, 0, 0), "{counts:?}");
}
