//! The portfolio format (`shared/spec/portfolio-csv.md`): column order, empty cells, every
//! bad input the spec lists reported with file, line and column, and the writer round trip.
use std::path::Path;

use tenor_pricing::portfolio::{
    parse_portfolio, write_portfolio, AsianTrade, BarrierTrade, Kind, ParsedPortfolio, RowProblem, Trade, TradeKind,
};
use tenor_pricing::types::{BarrierType, OptionType, Vanilla};

fn parse(text: &str) -> ParsedPortfolio {
    parse_portfolio(text.as_bytes(), Path::new("book.csv")).expect("readable")
}

const HEADER: &str = "id,kind,type,spot,strike,maturity,rate,dividend,vol,barrier,barrier_type,rebate,fixings";

#[test]
fn columns_in_any_order_and_empty_cells() {
    let p = parse(
        "vol,strike,type,kind,id,maturity,spot,rate\n\
         0.2,100,call,european,e1,1,100,0.05\n",
    );
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let want = Vanilla {
        option: OptionType::Call,
        spot: 100.0,
        strike: 100.0,
        maturity: 1.0,
        rate: 0.05,
        dividend: 0.0,
        vol: 0.2,
    };
    assert_eq!(p.trades, vec![Trade { id: "e1".into(), line: 2, kind: TradeKind::European(want) }]);
}

#[test]
fn every_kind_parses() {
    let p = parse(&format!(
        "{HEADER},v0,kappa,theta,xi,rho\n\
         e,european,put,100,95,0.5,0.01,0.02,0.3,,,,,,,,,\n\
         a,american,put,100,95,0.5,0.01,0.02,0.3,,,,,,,,,\n\
         b1,barrier,call,100,100,1,0.05,0,0.2,90,down_out,3,,,,,,\n\
         b2,barrier,put,100,100,1,0.05,0,0.2,110,up_in,,12,,,,,\n\
         g,asian_geo,call,100,100,1,0.05,0,0.2,,,,12,,,,,\n\
         r,asian_arith,call,100,100,1,0.05,0,0.2,,,,52,,,,,\n\
         h,heston,call,100,100,1,0.05,0,,,,,,0.04,2,0.04,0.5,-0.7\n"
    ));
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let kinds: Vec<Kind> = p.trades.iter().map(Trade::kind).collect();
    assert_eq!(
        kinds,
        [Kind::European, Kind::American, Kind::Barrier, Kind::Barrier, Kind::AsianGeo, Kind::AsianArith, Kind::Heston]
    );
    match &p.trades[2].kind {
        TradeKind::Barrier(b) => {
            assert_eq!((b.barrier, b.barrier_type, b.rebate, b.fixings), (90.0, BarrierType::DownOut, 3.0, None))
        }
        k => panic!("{k:?}"),
    }
    match &p.trades[3].kind {
        TradeKind::Barrier(b) => assert_eq!((b.rebate, b.fixings), (0.0, Some(12))),
        k => panic!("{k:?}"),
    }
    match &p.trades[5].kind {
        TradeKind::AsianArith(a) => assert_eq!(a.fixings, 52),
        k => panic!("{k:?}"),
    }
    match &p.trades[6].kind {
        TradeKind::Heston(h) => assert_eq!((h.params.v0, h.params.rho), (0.04, -0.7)),
        k => panic!("{k:?}"),
    }
}

/// The single problem a one-row file reports: (line, column, problem).
fn only_error(text: &str) -> (u64, Option<String>, RowProblem) {
    let p = parse(text);
    assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
    let e = &p.errors[0];
    assert!(e.to_string().starts_with("book.csv:"), "{e}");
    (e.location.line, e.location.column.clone(), e.problem.clone())
}

#[test]
fn non_numeric_cell() {
    let (line, col, problem) = only_error(&format!("{HEADER}\ne,european,call,100,abc,1,0.05,0,0.2,,,,\n"));
    assert_eq!((line, col.as_deref()), (2, Some("strike")));
    assert_eq!(problem, RowProblem::NotNumeric { value: "abc".into() });
}

#[test]
fn negative_vol_and_maturity() {
    let (line, col, problem) = only_error(&format!("{HEADER}\ne,european,call,100,100,1,0.05,0,-0.2,,,,\n"));
    assert_eq!((line, col.as_deref()), (2, Some("vol")));
    assert!(matches!(problem, RowProblem::OutOfRange { value, .. } if value == -0.2));
    let (_, col, _) = only_error(&format!("{HEADER}\ne,european,call,100,100,-1,0.05,0,0.2,,,,\n"));
    assert_eq!(col.as_deref(), Some("maturity"));
}

#[test]
fn strike_not_positive() {
    for k in ["0", "-5"] {
        let (_, col, problem) = only_error(&format!("{HEADER}\ne,european,call,100,{k},1,0.05,0,0.2,,,,\n"));
        assert_eq!(col.as_deref(), Some("strike"));
        assert!(matches!(problem, RowProblem::OutOfRange { rule: "must be > 0", .. }), "{problem:?}");
    }
}

#[test]
fn unknown_kind() {
    let (_, col, problem) = only_error(&format!("{HEADER}\ne,bermudan,call,100,100,1,0.05,0,0.2,,,,\n"));
    assert_eq!(col.as_deref(), Some("kind"));
    assert_eq!(problem, RowProblem::UnknownKind { value: "bermudan".into() });
}

#[test]
fn missing_required_column() {
    let p = parse("id,kind,type,spot,maturity,rate,vol\ne,european,call,100,1,0.05,0.2\n");
    assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
    assert_eq!(p.errors[0].location.line, 1);
    assert_eq!(p.errors[0].problem, RowProblem::MissingColumn { column: "strike".into() });
    assert!(p.trades.is_empty());
    // A kind-specific column missing: the rows of that kind are named, the others kept.
    let p = parse("id,kind,type,spot,strike,maturity,rate,vol\ne,european,call,100,100,1,0.05,0.2\ng,asian_geo,call,100,100,1,0.05,0.2\n");
    assert_eq!(p.trades.len(), 1);
    assert_eq!(p.errors.len(), 1);
    assert_eq!(p.errors[0].location.line, 3);
    assert_eq!(p.errors[0].problem, RowProblem::MissingColumnForKind { column: "fixings", kind: "asian_geo" });
}

#[test]
fn duplicate_id() {
    let p = parse(&format!(
        "{HEADER}\nx,european,call,100,100,1,0.05,0,0.2,,,,\nx,european,put,100,100,1,0.05,0,0.2,,,,\n"
    ));
    assert_eq!(p.trades.len(), 1);
    assert_eq!(p.errors.len(), 1);
    assert_eq!(p.errors[0].location.line, 3);
    assert_eq!(p.errors[0].problem, RowProblem::DuplicateId { id: "x".into(), first_line: 2 });
}

#[test]
fn unknown_column_is_named() {
    let p = parse("id,kind,type,spot,strike,maturity,rate,vol,notional\ne,european,call,100,100,1,0.05,0.2,1e6\n");
    assert_eq!(p.errors.len(), 1);
    assert_eq!(p.errors[0].problem, RowProblem::UnknownColumn { column: "notional".into() });
    assert!(p.errors[0].to_string().contains("notional"));
}

#[test]
fn all_bad_rows_reported_and_good_rows_kept() {
    let p = parse(&format!(
        "{HEADER}\n\
         ok1,european,call,100,100,1,0.05,0,0.2,,,,\n\
         bad1,european,call,100,x,1,0.05,0,-0.2,,,,\n\
         ok2,barrier,put,100,100,1,0.05,0,0.2,80,down_in,,\n\
         bad2,barrier,put,100,100,1,0.05,0,0.2,80,sideways,,\n\
         bad3,european,call,100,100,1,0.05,0,0.2,90,,,\n\
         ok3,asian_arith,call,100,100,1,0.05,0,0.2,,,,4\n\
         bad4,asian_geo,call,100,100,1,0.05,0,0.2,,,,2.5\n"
    ));
    let ids: Vec<&str> = p.trades.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["ok1", "ok2", "ok3"]);
    assert_eq!(p.bad_lines(), [3, 5, 6, 8]);
    // Both bad cells of line 3 are reported.
    let cols: Vec<_> = p.errors.iter().filter(|e| e.location.line == 3).map(|e| e.location.column.clone()).collect();
    assert_eq!(cols, [Some("strike".to_owned()), Some("vol".to_owned())]);
}

#[test]
fn writer_round_trips() {
    let v = Vanilla {
        option: OptionType::Put,
        spot: 6711.2002,
        strike: 6700.0,
        maturity: 0.5424657534246575,
        rate: 0.04245924738795414,
        dividend: 0.009923552797985,
        vol: 0.1531,
    };
    let trades = vec![
        Trade { id: "e".into(), line: 2, kind: TradeKind::European(v) },
        Trade {
            id: "b".into(),
            line: 3,
            kind: TradeKind::Barrier(BarrierTrade {
                vanilla: v,
                barrier: 5700.0,
                barrier_type: BarrierType::DownIn,
                rebate: 2.5,
                fixings: Some(26),
            }),
        },
        Trade { id: "a".into(), line: 4, kind: TradeKind::AsianArith(AsianTrade { vanilla: v, fixings: 12 }) },
    ];
    let mut buf = Vec::new();
    write_portfolio(&mut buf, &trades).expect("written");
    let p = parse_portfolio(buf.as_slice(), Path::new("rt.csv")).expect("read");
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    assert_eq!(p.trades, trades);
}

/// Numbers far from 1 are written in scientific notation that reads back to the same value
/// (found by a fresh-user review: 1e300 was written as 301 digits).
#[test]
fn priced_rows_write_extreme_numbers_in_scientific_notation_that_round_trips() {
    use tenor_pricing::portfolio::{write_priced, PricedRow};
    let values = [1e300, 1.5e-300, 123.456, 0.0, -2.5e20, 1e-7, 6711.2002];
    let rows: Vec<PricedRow> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| PricedRow {
            id: format!("t{i}"),
            price: v,
            stderr: Some(v),
            delta: None,
            gamma: None,
            vega: None,
            theta: None,
            rho: None,
            method: "analytic".into(),
            backend: "host".into(),
        })
        .collect();
    let mut buf = Vec::new();
    write_priced(&mut buf, &rows).expect("written");
    let text = String::from_utf8(buf).expect("utf-8");
    let lines: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(lines[0], "t0,1e300,1e300,,,,,,analytic,host");
    assert_eq!(lines[1].split(',').nth(1), Some("1.5e-300"));
    assert_eq!(lines[2].split(',').nth(1), Some("123.456"));
    assert_eq!(lines[4].split(',').nth(1), Some("-2.5e20"));
    for (line, &v) in lines.iter().zip(&values) {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells[1].parse::<f64>().expect("number"), v, "{line}");
        assert!(cells[1].len() <= 24, "{line}");
    }
}

const SHORT: &str = "id,kind,type,spot,strike,maturity,rate,dividend,vol";

#[test]
fn an_unterminated_quote_is_named_where_it_opened_and_the_rows_below_are_still_read() {
    let p = parse(&format!(
        "{SHORT}\n\
         \"unterminated,european,call,100,100,1,0.05,0,0.2\n\
         ok1,european,call,100,100,1,0.05,0,0.2\n\
         ok2,european,put,100,100,1,0.05,0,0.2\n"
    ));
    let ids: Vec<&str> = p.trades.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["ok1", "ok2"], "{:?}", p.errors);
    assert_eq!(p.trades[0].line, 3);
    assert_eq!(p.rows, 3);
    assert_eq!(p.bad_lines(), [2]);
    assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
    let e = &p.errors[0];
    assert_eq!((e.location.line, e.location.column.as_deref()), (2, Some("id")));
    assert!(
        matches!(&e.problem, RowProblem::UnterminatedQuote { character: 1, line: 2, last_line: 4, .. }),
        "{:?}",
        e.problem
    );
    let text = e.to_string();
    for part in ["book.csv:2: column `id`", "unterminated quote", "character 1", "lines 2-4", "lines 3-4"] {
        assert!(text.contains(part), "{part:?} missing from {text}");
    }
}

#[test]
fn an_unterminated_quote_mid_row_names_its_column_and_a_later_bad_row_is_still_reported() {
    // Line 3 opens a quote in `type` (character 17); line 4 is bad on its own; line 5 is good.
    let p = parse(&format!(
        "{SHORT}\n\
         ok1,european,call,100,100,1,0.05,0,0.2\n\
         bad,european,\"call,100,100,1,0.05,0,0.2\n\
         bad2,european,call,100,x,1,0.05,0,0.2\n\
         ok2,european,put,100,100,1,0.05,0,0.2"
    ));
    let ids: Vec<&str> = p.trades.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["ok1", "ok2"], "{:?}", p.errors);
    assert_eq!(p.rows, 4);
    assert_eq!(p.bad_lines(), [3, 4]);
    let e = &p.errors[0];
    assert_eq!((e.location.line, e.location.column.as_deref()), (3, Some("type")));
    assert!(
        matches!(&e.problem, RowProblem::UnterminatedQuote { character: 14, line: 3, last_line: 5, .. }),
        "{:?}",
        e.problem
    );
    assert_eq!((p.errors[1].location.line, p.errors[1].location.column.as_deref()), (4, Some("strike")));
    // On the last line: nothing to recover, and the message says so.
    let p = parse(&format!("{SHORT}\nok1,european,call,100,100,1,0.05,0,0.2\n\"x,european\n"));
    assert_eq!(p.trades.len(), 1);
    assert_eq!(p.bad_lines(), [3]);
    assert!(p.errors[0].to_string().contains("no line follows"), "{}", p.errors[0]);
    // A quoted cell that closes, with an escaped quote inside, is no problem.
    let p = parse(&format!("{SHORT}\n\"a\"\"b\",european,call,100,100,1,0.05,0,0.2\n"));
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    assert_eq!(p.trades[0].id, "a\"b");
}

#[test]
fn header_problems_are_kept_apart_from_the_data_rows() {
    // Unknown column: the row is still read; the header is not a rejected row.
    let p = parse("id,kind,type,spot,strike,maturity,rate,vol,notional\ne,european,call,100,100,1,0.05,0.2,1e6\n");
    assert_eq!(p.trades.len(), 1);
    assert!(p.bad_lines().is_empty(), "{:?}", p.bad_lines());
    assert_eq!(p.header_errors().count(), 1);
    // Missing column: every data row is left unread, and counted by its own line.
    let p =
        parse("id,kind,type,spot,maturity,rate,vol\ne,european,call,100,1,0.05,0.2\nf,european,put,100,1,0.05,0.2\n");
    assert!(p.trades.is_empty());
    assert_eq!(p.bad_lines(), [2, 3]);
    assert_eq!(p.rejected_by_header, [2, 3]);
    assert_eq!(p.header_errors().count(), 1);
}

#[test]
fn an_empty_id_names_the_id_column() {
    let (line, col, problem) = only_error(&format!("{HEADER}\n,european,call,100,100,1,0.05,0,0.2,,,,\n"));
    assert_eq!((line, col.as_deref()), (2, Some("id")));
    assert_eq!(problem, RowProblem::MissingId);
    assert!(problem.to_string().contains("every row needs an id"), "{problem}");
}

#[test]
fn a_header_without_rows_is_an_error() {
    let e = parse_portfolio(format!("{HEADER}\n").as_bytes(), Path::new("book.csv")).expect_err("no rows");
    assert!(matches!(e, tenor_pricing::portfolio::PortfolioError::NoRows { .. }), "{e:?}");
    assert!(e.to_string().contains("book.csv") && e.to_string().contains("no trade rows"), "{e}");
}
