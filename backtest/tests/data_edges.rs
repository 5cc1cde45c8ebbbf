//! The bar loader through the one line reader: LF, CRLF and bare-CR copies load the same bars
//! and name the same lines; a byte that is not UTF-8 is named by line, column and byte offset;
//! a huge bad cell is quoted as an excerpt; and a bounded fuzz run of the loader.
use std::path::PathBuf;

use tenor_backtest::data::{load, DataError};

const HEADER: &str = "date,open,high,low,close,volume,dividend,split";

fn tmp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tenor-bars-edges-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write");
    p
}

fn rows(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("2020-01-{:02},10,11,9,10.5,100,0,1", i + 1)).collect()
}

#[test]
fn lf_crlf_and_cr_copies_load_the_same_bars_and_name_the_same_line() {
    let good = format!("{HEADER}\n{}\n", rows(5).join("\n"));
    let mut bad_rows = rows(5);
    bad_rows[2] = "2020-01-03,10,11,9,oops,100,0,1".into();
    let bad = format!("{HEADER}\n{}\n", bad_rows.join("\n"));
    for (name, end) in [("lf", "\n"), ("crlf", "\r\n"), ("cr", "\r")] {
        let s = load(&tmp(&format!("{name}.csv"), good.replace('\n', end).as_bytes()), None).expect(name);
        assert_eq!(s.bars.len(), 5, "{name}");
        let e = load(&tmp(&format!("bad_{name}.csv"), bad.replace('\n', end).as_bytes()), None).expect_err(name);
        assert!(matches!(e, DataError::Bad { line: 4, .. }), "{name}: {e}");
    }
}

#[test]
fn a_byte_that_is_not_utf8_is_named_by_line_column_and_offset() {
    let mut bytes = format!("{HEADER}\n{}\n2020-01-09,10,11,9,1", rows(2).join("\n")).into_bytes();
    let offset = bytes.len();
    bytes.extend_from_slice(b"\xff,100,0,1\n");
    let e = load(&tmp("latin1.csv", &bytes), None).expect_err("not UTF-8");
    let DataError::NotUtf8(n) = &e else { panic!("{e}") };
    assert_eq!((n.line, n.column, n.offset), (4, 21, offset), "{e}");
    assert!(e.to_string().contains("latin1.csv:4:21"), "{e}");
}

#[test]
fn a_huge_bad_cell_is_quoted_as_an_excerpt() {
    let big = "x".repeat(10 << 20);
    let text = format!("{HEADER}\n2020-01-01,10,11,9,{big},100,0,1\n");
    let e = load(&tmp("big.csv", text.as_bytes()), None).expect_err("bad cell");
    let msg = e.to_string();
    assert!(msg.len() < 300 && msg.contains("10485760 bytes"), "{}", &msg[..msg.len().min(300)]);
}

#[test]
fn fuzz_the_bar_loader() {
    use proptest::prelude::*;
    // Bars, the line end, and an optional fault: (row, kind) with kind 0 a bad number, 1 a bad
    // byte, 2 an inconsistent bar.
    let strategy = (
        proptest::collection::vec((1.0..1e4f64, 0.001..0.1f64), 1..60),
        tenor_testdata::fuzz::line_end(),
        proptest::option::of((any::<prop::sample::Index>(), 0..3u8)),
    );
    let dir = std::env::temp_dir().join(format!("tenor-bars-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let path = dir.join("bars.csv");
    let counts = tenor_testdata::fuzz::run("bars", 200, strategy, |(bars, end, fault)| {
        let fault = fault.map(|(i, k)| (i.index(bars.len()), k));
        let mut bytes = format!("{HEADER}{end}").into_bytes();
        let day0 = chrono::NaiveDate::from_ymd_opt(2000, 1, 1).expect("date");
        for (i, (close, spread)) in bars.iter().enumerate() {
            let d = day0 + chrono::Days::new(i as u64);
            let (lo, hi) = (close * (1.0 - spread), close * (1.0 + spread));
            let row = match fault {
                Some((j, 0)) if j == i => format!("{d},{close},{hi},{lo},1e,10,0,1"),
                Some((j, 2)) if j == i => format!("{d},{close},{lo},{hi},{close},10,0,1"),
                _ => format!("{d},{close},{hi},{lo},{close},10,0,1"),
            };
            bytes.extend_from_slice(row.as_bytes());
            if fault == Some((i, 1)) {
                bytes.extend_from_slice(b"\xe2\x82");
            }
            bytes.extend_from_slice(end.as_bytes());
        }
        std::fs::write(&path, &bytes).expect("write");
        let mut finding = tenor_testdata::fuzz::Finding::default();
        match (load(&path, None), fault) {
            (Ok(s), None) => finding.lost_rows = (bars.len() - s.bars.len().min(bars.len())) as u64,
            (Ok(_), Some(_)) => finding.misplaced = 1,
            (Err(_), None) => finding.lost_rows = bars.len() as u64,
            (Err(e), Some((j, _))) => {
                let line = match &e {
                    DataError::Bad { line, .. } | DataError::Cells { line, .. } => *line,
                    DataError::NotUtf8(n) => n.line,
                    _ => 0,
                };
                finding.misplaced = u64::from(line != j + 2);
            }
        }
        finding
    });
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!((counts.panics, counts.lost_rows, counts.misplaced), (0, 0, 0), "{counts:?}");
}
