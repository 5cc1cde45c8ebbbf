//! The Cboe and Treasury loaders through the one line reader: LF, CRLF and bare-CR copies read
//! the same quotes and name the same lines, a byte that is not UTF-8 is named by line, column
//! and byte offset, and a bounded fuzz run of the Cboe reader.
use tenor_market::cboe::{load_cboe, parse_cboe};
use tenor_market::treasury::parse_treasury;
use tenor_market::MarketError;

/// The real Cboe file's title lines, header and first `rows` strike rows, LF-ended.
fn cboe_head(rows: usize) -> (Vec<String>, Vec<String>) {
    let path = tenor_testdata::shared("data/options/spx_cboe_2025-10-01/spx_quotedata-3.csv");
    let text = std::fs::read_to_string(&path).expect("the Cboe snapshot");
    let lines: Vec<String> = tenor_ports::text::lines(&text).map(|l| l.text.to_owned()).collect();
    (lines[..4].to_vec(), lines[4..4 + rows].to_vec())
}

fn line_of(e: &MarketError) -> Option<u64> {
    match e {
        MarketError::Row { line, .. } | MarketError::Cell { line, .. } => Some(*line),
        MarketError::NotUtf8(n) => Some(n.line as u64),
        _ => None,
    }
}

#[test]
fn cboe_lf_crlf_and_cr_copies_read_the_same_quotes_and_lines() {
    let (head, rows) = cboe_head(20);
    let mut bad = rows.clone();
    bad[5] = bad[5].replacen("6", "x", 1);
    for end in ["\n", "\r\n", "\r"] {
        let text = format!("{}{end}{}{end}", head.join(end), rows.join(end));
        let chain = parse_cboe(&text, "spx.csv").expect("reads");
        assert_eq!(chain.quotes.len(), 40, "{end:?}");
        let lines: Vec<u64> = chain.quotes.iter().map(|q| q.line).step_by(2).collect();
        assert_eq!(lines, (5..25).collect::<Vec<u64>>(), "{end:?}");
        let text = format!("{}{end}{}{end}", head.join(end), bad.join(end));
        let e = parse_cboe(&text, "spx.csv").expect_err("bad row");
        assert_eq!(line_of(&e), Some(10), "{end:?}: {e}");
    }
}

#[test]
fn cboe_non_utf8_names_the_line_and_byte() {
    let (head, rows) = cboe_head(3);
    let mut bytes = format!("{}\n{}\n", head.join("\n"), rows[..2].join("\n")).into_bytes();
    let offset = bytes.len() + 3;
    let mut row = rows[2].clone().into_bytes();
    row[3] = 0xa0;
    bytes.extend_from_slice(&row);
    let dir = std::env::temp_dir().join(format!("tenor-cboe-edges-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let path = dir.join("latin1.csv");
    std::fs::write(&path, &bytes).expect("write");
    let e = load_cboe(&path).expect_err("not UTF-8");
    let MarketError::NotUtf8(n) = &e else { panic!("{e}") };
    assert_eq!((n.line, n.column, n.offset, n.byte), (7, 4, offset, 0xa0), "{e}");
    assert!(e.to_string().contains("latin1.csv:7:4"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn treasury_cr_only_file_names_the_right_line() {
    let lf = "Date,1 Mo,3 Mo\n07/11/2025,4.3,4.4\n07/10/2025,4.2,x\n";
    for end in ["\n", "\r\n", "\r"] {
        let e = parse_treasury(&lf.replace('\n', end), "ust.csv").expect_err("bad yield");
        assert_eq!(line_of(&e), Some(3), "{end:?}: {e}");
    }
}

#[test]
fn fuzz_the_cboe_reader() {
    use proptest::prelude::*;
    let (head, rows) = cboe_head(60);
    // Rows taken, the line end, and an optional fault (row, kind: 0 bad number, 1 bad byte).
    let strategy =
        (1..=60usize, tenor_testdata::fuzz::line_end(), proptest::option::of((any::<prop::sample::Index>(), 0..2u8)));
    let counts = tenor_testdata::fuzz::run("cboe", 150, strategy, |(n, end, fault)| {
        let fault = fault.map(|(i, k)| (i.index(*n), k));
        let mut bytes = format!("{}{end}", head.join(end)).into_bytes();
        for (i, r) in rows[..*n].iter().enumerate() {
            match fault {
                // The call's bid (column 5) no longer a number.
                Some((j, 0)) if j == i => {
                    let mut cells: Vec<&str> = r.split(',').collect();
                    cells[4] = "1.2.3";
                    bytes.extend_from_slice(cells.join(",").as_bytes());
                }
                Some((j, 1)) if j == i => {
                    bytes.extend_from_slice(r.as_bytes());
                    bytes.push(0xff);
                }
                _ => bytes.extend_from_slice(r.as_bytes()),
            }
            bytes.extend_from_slice(end.as_bytes());
        }
        let mut finding = tenor_testdata::fuzz::Finding::default();
        let parsed = match tenor_ports::text::decode(&bytes, "fuzz.csv") {
            Ok(text) => parse_cboe(text, "fuzz.csv"),
            Err(e) => Err(MarketError::NotUtf8(e)),
        };
        match (parsed, fault) {
            (Ok(c), None) => finding.lost_rows = (2 * n - c.quotes.len().min(2 * n)) as u64,
            (Ok(_), Some(_)) => finding.misplaced = 1,
            (Err(_), None) => finding.lost_rows = *n as u64,
            (Err(e), Some((j, _))) => finding.misplaced = u64::from(line_of(&e) != Some(j as u64 + 5)),
        }
        finding
    });
    assert_eq!((counts.panics, counts.lost_rows, counts.misplaced), (0, 0, 0), "{counts:?}");
}
