//! The portfolio reader at the edges of its input: LF, CRLF and bare-CR copies of one file give
//! the same rows, counts and error lines; a byte that is not UTF-8 costs only its own row (or,
//! in the header, only its column); a huge bad cell is quoted as an excerpt.
use std::path::Path;

use tenor_pricing::portfolio::{parse_portfolio, ParsedPortfolio, RowProblem};

const HEADER: &str = "id,kind,type,spot,strike,maturity,rate,dividend,vol";
const GOOD: &str = "g1,european,call,100,100,1,0.05,0,0.2";
const BAD_SPOT: &str = "b1,european,call,abc,100,1,0.05,0,0.2";

fn parse_bytes(bytes: &[u8]) -> ParsedPortfolio {
    parse_portfolio(bytes, Path::new("book.csv")).expect("readable")
}

/// (line, column) of every error, in order.
fn where_(p: &ParsedPortfolio) -> Vec<(u64, Option<String>)> {
    p.errors.iter().map(|e| (e.location.line, e.location.column.clone())).collect()
}

#[test]
fn lf_crlf_and_cr_copies_give_the_same_lines_and_counts() {
    // Line 2 bad (the first data row: it must not be blamed on the header), 3 good, 4 blank,
    // 5 bad, 6 good.
    let lf = format!(
        "{HEADER}\n{BAD_SPOT}\n{GOOD}\n\nb2,european,put,100,-1,1,0.05,0,0.2\ng2,european,put,100,90,1,0.05,0,0.2\n"
    );
    let want_errors = vec![(2, Some("spot".to_owned())), (5, Some("strike".to_owned()))];
    for (name, text) in [("LF", lf.clone()), ("CRLF", lf.replace('\n', "\r\n")), ("CR", lf.replace('\n', "\r"))] {
        let p = parse_bytes(text.as_bytes());
        assert_eq!(where_(&p), want_errors, "{name}: {:?}", p.errors);
        assert_eq!(p.header_line, 1, "{name}");
        assert_eq!(p.header_errors().count(), 0, "{name}: nothing is blamed on the header");
        assert_eq!(p.rows, 4, "{name}: four data rows");
        assert_eq!(p.bad_lines(), vec![2, 5], "{name}");
        let ids: Vec<(&str, u64)> = p.trades.iter().map(|t| (t.id.as_str(), t.line)).collect();
        assert_eq!(ids, [("g1", 3), ("g2", 6)], "{name}");
    }
}

#[test]
fn blank_lines_before_the_header_and_rows_shift_nothing() {
    let text = format!("\n\n{HEADER}\n\n{BAD_SPOT}\n\n\n{GOOD}\n");
    let p = parse_bytes(text.as_bytes());
    assert_eq!(p.header_line, 3);
    assert_eq!(where_(&p), vec![(5, Some("spot".to_owned()))]);
    assert_eq!(p.trades[0].line, 8);
}

#[test]
fn one_bad_byte_in_an_unknown_header_column_costs_no_row() {
    let mut bytes = format!("{HEADER},note").into_bytes();
    bytes.extend_from_slice(b"\xe9\n");
    bytes.extend_from_slice(format!("{GOOD},x\ng2,european,put,100,90,1,0.05,0,0.2,y\n").as_bytes());
    let p = parse_bytes(&bytes);
    assert_eq!(p.trades.len(), 2, "both rows are read: {:?}", p.errors);
    assert!(p.rejected_by_header.is_empty());
    let header: Vec<_> = p.header_errors().collect();
    assert_eq!(header.len(), 1, "{:?}", p.errors);
    assert!(matches!(header[0].problem, RowProblem::NotUtf8 { byte: 0xe9, offset: 4 }), "{:?}", header[0]);
    assert!(p.bad_lines().is_empty());
}

#[test]
fn one_bad_byte_in_a_row_names_its_line_and_column_and_costs_that_row_only() {
    for end in ["\n", "\r\n", "\r"] {
        let mut bytes = format!("{HEADER}{end}{GOOD}{end}b1,european,call,10").into_bytes();
        bytes.push(0xff);
        bytes.extend_from_slice(format!(",100,1,0.05,0,0.2{end}g2,european,put,100,90,1,0.05,0,0.2{end}").as_bytes());
        let p = parse_bytes(&bytes);
        assert_eq!(p.trades.len(), 2, "{end:?}: {:?}", p.errors);
        assert_eq!(where_(&p), vec![(3, Some("spot".to_owned()))], "{end:?}");
        assert_eq!(p.errors[0].problem, RowProblem::NotUtf8 { byte: 0xff, offset: 2 });
        assert_eq!(p.rows, 3);
    }
}

#[test]
fn a_ten_megabyte_bad_cell_is_quoted_as_an_excerpt_with_its_length() {
    let big = "9x".repeat(5 << 20);
    let text = format!("{HEADER}\nb1,european,call,{big},100,1,0.05,0,0.2\n");
    let p = parse_bytes(text.as_bytes());
    assert_eq!(p.errors.len(), 1);
    let msg = p.errors[0].to_string();
    assert!(msg.len() < 300, "{} bytes: {}", msg.len(), &msg[..300.min(msg.len())]);
    assert!(msg.contains('\u{2026}') && msg.contains("10485760 bytes"), "{msg}");
}

/// One generated row: good (its fields), or bad in one cell of a known kind.
#[derive(Debug, Clone)]
enum GenRow {
    Good { spot: f64, strike: f64, vol: f64 },
    BadNumber(String),
    BadByte,
    Blank,
}

fn gen_row() -> impl proptest::strategy::Strategy<Value = GenRow> {
    use proptest::prelude::*;
    prop_oneof![
        6 => (1.0..1e4f64, 1.0..1e4f64, 0.01..2.0f64).prop_map(|(spot, strike, vol)| GenRow::Good { spot, strike, vol }),
        1 => "[a-z\"' ;]{0,12}".prop_map(GenRow::BadNumber),
        1 => Just(GenRow::BadByte),
        1 => Just(GenRow::Blank),
    ]
}

#[test]
fn fuzz_the_portfolio_reader() {
    use proptest::prelude::*;
    let strategy = (proptest::collection::vec(gen_row(), 1..40), tenor_testdata::fuzz::line_end(), any::<bool>());
    let counts = tenor_testdata::fuzz::run("portfolio", 300, strategy, |(rows, end, bad_header)| {
        let mut bytes = HEADER.as_bytes().to_vec();
        if *bad_header {
            bytes.extend_from_slice(b",n\xf0te");
        }
        bytes.extend_from_slice(end.as_bytes());
        let (mut good, mut bad, mut data_rows) = (Vec::new(), Vec::new(), 0);
        for (i, r) in rows.iter().enumerate() {
            let line = i as u64 + 2;
            let extra: &[u8] = if *bad_header { b",x" } else { b"" };
            match r {
                GenRow::Good { spot, strike, vol } => {
                    bytes.extend_from_slice(format!("t{i},european,call,{spot},{strike},1,0.05,0,{vol}").as_bytes());
                    good.push((format!("t{i}"), line));
                }
                GenRow::BadNumber(cell) => {
                    // A letter first: never a number, never a quote opening a cell.
                    bytes.extend_from_slice(format!("t{i},european,call,x{cell},100,1,0.05,0,0.2").as_bytes());
                    bad.push(line);
                }
                GenRow::BadByte => {
                    bytes.extend_from_slice(format!("t{i},european,call,100,1").as_bytes());
                    bytes.push(0xc3);
                    bytes.extend_from_slice(b"0,1,0.05,0,0.2");
                    bad.push(line);
                }
                GenRow::Blank => {}
            }
            if !matches!(r, GenRow::Blank) {
                bytes.extend_from_slice(extra);
                data_rows += 1;
            }
            bytes.extend_from_slice(end.as_bytes());
        }
        let mut finding = tenor_testdata::fuzz::Finding::default();
        let Ok(p) = parse_portfolio(&bytes[..], Path::new("fuzz.csv")) else {
            // Only a file with no data row may fail as a whole.
            finding.lost_rows = good.len() as u64;
            return finding;
        };
        let got: Vec<(String, u64)> = p.trades.iter().map(|t| (t.id.clone(), t.line)).collect();
        finding.lost_rows = good.iter().filter(|g| !got.contains(g)).count() as u64;
        let lines = p.bad_lines();
        finding.misplaced = (bad.iter().filter(|l| !lines.contains(l)).count()
            + lines.iter().filter(|l| !bad.contains(l)).count()) as u64
            + u64::from(p.rows != data_rows);
        finding
    });
    assert_eq!((counts.panics, counts.lost_rows, counts.misplaced), (0, 0, 0), "{counts:?}");
}
