//! Loaders on the real files of shared/data (counts from shared/data/README.md) and on small
//! malformed inputs.
use chrono::NaiveDate;
use tenor_market::cboe::{load_cboe, load_cboe_dir, load_cboe_files, parse_cboe};
use tenor_market::quotes::Settlement;
use tenor_market::spx_book::strike_rows;
use tenor_market::treasury::{load_treasury, parse_treasury, tenor_years};
use tenor_market::yahoo::{load_yahoo, parse_yahoo};
use tenor_market::MarketError;
use tenor_pricing::types::OptionType;

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).expect("date")
}

#[test]
fn cboe_snapshot_has_957_strike_rows_and_the_readme_expiries() {
    let dir = tenor_testdata::shared("data/options/spx_cboe_2025-10-01");
    let chain = load_cboe_dir(&dir).expect("loads");
    assert_eq!(chain.quotes.len(), 2 * 957);
    assert_eq!(chain.spot, Some(6711.2002));
    assert_eq!(chain.as_of.date(), date(2025, 10, 1));
    let expected = [
        ((2026, 4, 17), Settlement::Am, 141),
        ((2026, 5, 15), Settlement::Am, 97),
        ((2026, 6, 18), Settlement::Am, 142),
        ((2026, 6, 30), Settlement::Pm, 75),
        ((2026, 7, 17), Settlement::Am, 75),
        ((2026, 8, 21), Settlement::Am, 47),
        ((2026, 9, 18), Settlement::Am, 119),
        ((2026, 9, 30), Settlement::Pm, 40),
        ((2026, 10, 16), Settlement::Am, 65),
        ((2026, 12, 18), Settlement::Am, 93),
        ((2027, 1, 15), Settlement::Am, 26),
        ((2027, 6, 17), Settlement::Am, 37),
    ];
    assert_eq!(chain.slices().len(), 12);
    for ((y, m, d), settlement, rows) in expected {
        let n = chain.quotes.iter().filter(|q| q.expiry == date(y, m, d) && q.settlement == settlement).count();
        assert_eq!(n, 2 * rows, "{y}-{m}-{d} {settlement:?}");
    }
    // README: every row two-sided for both call and put, none crossed
    assert!(chain.quotes.iter().all(|q| q.is_two_sided()));
    // SPXW roots are the PM slices
    assert!(chain.quotes.iter().all(|q| (q.root == "SPXW") == (q.settlement == Settlement::Pm)));
    // AM settlement at 09:30 ET on Thursday 2026-06-18 versus PM on 2026-06-30: 12 days + 6.5 hours apart
    let am = chain.maturity(date(2026, 6, 18), Settlement::Am);
    let pm = chain.maturity(date(2026, 6, 30), Settlement::Pm);
    assert!(((pm - am) * 365.0 - (12.0 + 6.5 / 24.0)).abs() < 1e-9);
}

#[test]
fn cboe_single_file_reads_the_mixed_am_pm_file() {
    let chain =
        load_cboe(&tenor_testdata::shared("data/options/spx_cboe_2025-10-01/spx_quotedata-3.csv")).expect("loads");
    assert_eq!(chain.quotes.len(), 2 * (142 + 75));
    let q = &chain.quotes[0];
    assert_eq!(q.symbol, "SPX260618C00600000");
    assert_eq!((q.strike, q.bid, q.ask, q.option_type), (600.0, 6078.6, 6095.7, OptionType::Call));
    let p = &chain.quotes[1];
    assert_eq!((p.symbol.as_str(), p.bid, p.ask, p.line), ("SPX260618P00600000", 0.05, 0.2, 5));
}

#[test]
fn yahoo_chain_has_17107_rows_with_the_readme_counts() {
    let chain = load_yahoo(&tenor_testdata::shared("data/options/spx_yahoo_chain_2026-01-30.csv"), date(2026, 1, 30))
        .expect("loads");
    assert_eq!(chain.quotes.len(), 17107);
    assert_eq!(chain.spot, None);
    let calls = chain.quotes.iter().filter(|q| q.option_type == OptionType::Call).count();
    assert_eq!((calls, chain.quotes.len() - calls), (7647, 9460));
    let mut expiries: Vec<_> = chain.quotes.iter().map(|q| q.expiry).collect();
    expiries.sort();
    expiries.dedup();
    assert_eq!(expiries.len(), 54);
    assert_eq!((expiries[0], expiries[53]), (date(2026, 2, 2), date(2031, 12, 19)));
    let lo = chain.quotes.iter().map(|q| q.strike).fold(f64::INFINITY, f64::min);
    let hi = chain.quotes.iter().map(|q| q.strike).fold(0.0, f64::max);
    assert_eq!((lo, hi), (200.0, 12400.0));
    assert_eq!(chain.quotes.iter().filter(|q| q.bid > 0.0 && q.ask > 0.0).count(), 16185);
    assert_eq!(chain.quotes.iter().filter(|q| q.bid == 0.0 && q.ask == 0.0).count(), 240);
    assert_eq!(chain.quotes.iter().filter(|q| q.bid > q.ask).count(), 13);
    // No duplicate (expiry, strike, type). The README says third-Friday expiries list only SPX, but
    // 2026-02-20 has 503 SPX (AM) and 376 SPXW (PM) rows (checked with Python's csv module): the
    // two settlements are separate slices.
    let mut keys: Vec<_> = chain.quotes.iter().map(|q| (q.expiry, q.strike.to_bits(), q.option_type as u8)).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 17107);
    let feb20 =
        |s: Settlement| chain.quotes.iter().filter(|q| q.expiry == date(2026, 2, 20) && q.settlement == s).count();
    assert_eq!((feb20(Settlement::Am), feb20(Settlement::Pm)), (503, 376));
    // CRLF: the last field parses as a date, so no '\r' is left in it; line numbers count the header
    assert_eq!(chain.quotes[0].line, 2);
}

#[test]
fn treasury_files_in_both_layouts() {
    let old = load_treasury(&tenor_testdata::shared("data/rates/us_treasury_par_yield_1990_2023.csv")).expect("1990");
    let y24 = load_treasury(&tenor_testdata::shared("data/rates/us_treasury_par_yield_2024.csv")).expect("2024");
    let y25 = load_treasury(&tenor_testdata::shared("data/rates/us_treasury_par_yield_2025_h1.csv")).expect("2025");
    assert_eq!((old.rows.len(), y24.rows.len(), y25.rows.len()), (8507, 250, 131));
    assert_eq!((old.rows[0].date, old.rows[8506].date), (date(1990, 1, 2), date(2023, 12, 29)));
    assert_eq!((y24.rows[0].date, y24.rows[249].date), (date(2024, 1, 2), date(2024, 12, 31)));
    assert_eq!((y25.rows[0].date, y25.rows[130].date), (date(2025, 1, 2), date(2025, 7, 11)));
    assert_eq!(old.tenors.len(), 13);
    assert_eq!(y25.tenors.len(), 14);
    assert!((y25.tenors[1] - 1.5 / 12.0).abs() < 1e-15);
    // 2010-10-11 (Columbus Day) has all values empty
    assert!(old.on(date(2010, 10, 11)).expect("row").points.is_empty());
    // 1990-01-02: no 1 mo, 2 mo, 4 mo, 20 yr; 3 mo = 7.83 %
    let first = &old.rows[0];
    assert_eq!(first.points.len(), 9);
    assert_eq!(first.points[0], (0.25, 0.0783));
    // 2025: `1.5 Mo` empty before 2025-02-18
    let has_15 = |d: NaiveDate| y25.on(d).expect("row").points.iter().any(|p| (p.0 - 0.125).abs() < 1e-12);
    assert!(!has_15(date(2025, 2, 14)) && has_15(date(2025, 2, 18)));
    // 2024-12-31 (first line of the descending file): 1 Mo 4.4 %, 30 Yr 4.78 %
    let last = y24.on(date(2024, 12, 31)).expect("row");
    assert_eq!(last.line, 2);
    assert!((last.points[0].1 - 0.044).abs() < 1e-15 && (last.points[12].1 - 0.0478).abs() < 1e-15);
}

#[test]
fn tenor_labels() {
    assert_eq!(tenor_years("1 Mo"), Some(1.0 / 12.0));
    assert_eq!(tenor_years("1.5 Mo"), Some(0.125));
    assert_eq!(tenor_years("30 yr"), Some(30.0));
    assert_eq!(tenor_years("Date"), None);
}

const CBOE: &str = "
S&P 500 INDEX,Last: 6711.2002,Change:  22.7402
\"Date: October 1, 2025 at 6:01 PM EDT\",Bid: 6661.1099,Ask: 6743.9702,Size: 1*1,Volume: 0
Expiration Date,Calls,Last Sale,Net,Bid,Ask,Volume,IV,Delta,Gamma,Open Interest,Strike,Puts,Last Sale,Net,Bid,Ask,Volume,IV,Delta,Gamma,Open Interest
Fri Apr 17 2026,SPX260417C01400000,5268.39,-14.9601,5303.2,5320.7,1,0.6674,1,0,1,1400.00,SPX260417P01400000,1.05,0.175,0.7,1,1,0.7434,-0.0007,0,257
";

#[test]
fn cboe_layout_strike_rows_and_iv() {
    let c = parse_cboe(CBOE, "q.csv").expect("parsed");
    assert_eq!(c.spot, Some(6711.2002));
    assert_eq!(c.as_of.date(), date(2025, 10, 1));
    let rows = strike_rows(&c).expect("call-put rows");
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!((r.expiry, r.call.root.as_str(), r.strike, r.call.line), (date(2026, 4, 17), "SPX", 1400.0, 5));
    assert_eq!((r.call.bid, r.call.ask, r.call.vendor_iv), (5303.2, 5320.7, Some(0.6674)));
    assert_eq!((r.put.bid, r.put.ask, r.put.vendor_iv), (0.7, 1.0, Some(0.7434)));
    // An IV of 0 is Cboe's "could not compute one": no vendor IV.
    let no_iv = parse_cboe(&CBOE.replace(",0.7434,", ",0,"), "q.csv").expect("parsed");
    assert_eq!(no_iv.quotes[1].vendor_iv, None);
    let bad = CBOE.replace("1400.00", "14OO");
    match parse_cboe(&bad, "q.csv") {
        Err(e @ MarketError::Cell { line: 5, .. }) => assert!(e.to_string().contains("Strike"), "{e}"),
        other => panic!("{other:?}"),
    }
}

fn cboe_text(row: &str) -> String {
    format!(
        "\nS&P 500 INDEX,Last: 6711.2002,Change:  22.7402\n\"Date: October 1, 2025 at 6:03 PM EDT\",Bid: 1\n\
         Expiration Date,Calls,Last Sale,Net,Bid,Ask,Volume,IV,Delta,Gamma,Open Interest,Strike,Puts,Last Sale,Net,Bid,Ask,Volume,IV,Delta,Gamma,Open Interest\n\
         Fri Apr 17 2026,SPX260417C06700000,1,0,300,301,0,0.15,0.5,0,0,6700.00,SPX260417P06700000,1,0,200,201,0,0.15,-0.5,0,0\n{row}"
    )
}

#[test]
fn malformed_cboe_rows_name_file_line_and_column() {
    let good = "Fri Apr 17 2026,SPX260417C06800000,1,0,250,251,0,0.15,0.5,0,0,6800.00,SPX260417P06800000,1,0,240,241,0,0.15,-0.5,0,0\n";
    assert_eq!(parse_cboe(&cboe_text(good), "f.csv").expect("good").quotes.len(), 4);
    let bad_bid = good.replace(",250,", ",abc,");
    match parse_cboe(&cboe_text(&bad_bid), "f.csv") {
        Err(MarketError::Cell { file, line, column, .. }) => assert_eq!((file.as_str(), line, column), ("f.csv", 6, 5)),
        other => panic!("{other:?}"),
    }
    let bad_date = good.replace("Fri Apr 17 2026", "Apr 17 2026");
    match parse_cboe(&cboe_text(&bad_date), "f.csv") {
        Err(MarketError::Cell { line, column, .. }) => assert_eq!((line, column), (6, 1)),
        other => panic!("{other:?}"),
    }
    let wrong_strike = good.replace("SPX260417P06800000", "SPX260417P06900000");
    match parse_cboe(&cboe_text(&wrong_strike), "f.csv") {
        Err(MarketError::Cell { line, column, .. }) => assert_eq!((line, column), (6, 13)),
        other => panic!("{other:?}"),
    }
    let short = "Fri Apr 17 2026,SPX260417C06800000,1,0\n";
    match parse_cboe(&cboe_text(short), "f.csv") {
        Err(MarketError::Row { line, .. }) => assert_eq!(line, 6),
        other => panic!("{other:?}"),
    }
    let no_spot = cboe_text(good).replace("Last: 6711.2002", "Close 6711");
    assert!(matches!(parse_cboe(&no_spot, "f.csv"), Err(MarketError::Row { line: 2, .. })));
    let e = parse_cboe(&cboe_text(&bad_bid), "f.csv").expect_err("bad");
    assert!(e.to_string().contains("f.csv, line 6, column 5 (Bid)"), "{e}");
}

#[test]
fn folder_problems_name_the_folder_and_files_that_disagree_name_both_spots() {
    let dir = std::env::temp_dir().join(format!("tenor-cboe-folder-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let e = load_cboe_dir(&dir).expect_err("no csv file");
    assert!(matches!(&e, MarketError::Source { path, .. } if path == &dir), "{e:?}");
    assert_eq!(e.to_string(), format!("{}: the folder has no .csv file", dir.display()));

    let good = "Fri Apr 17 2026,SPX260417C06800000,1,0,250,251,0,0.15,0.5,0,0,6800.00,SPX260417P06800000,1,0,240,241,0,0.15,-0.5,0,0\n";
    let (a, b) = (dir.join("a.csv"), dir.join("b.csv"));
    std::fs::write(&a, cboe_text(good)).expect("a");
    std::fs::write(&b, cboe_text(good).replace("Last: 6711.2002", "Last: 6700.5")).expect("b");
    let e = load_cboe_files(&[a, b.clone()], "snapshot").expect_err("spots differ");
    let text = e.to_string();
    assert!(text.starts_with(&format!("{}, line 2: spot 6700.5 at", b.display())), "{text}");
    assert!(text.contains("first file (6711.2002 at") && !text.contains("Some("), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn malformed_yahoo_and_treasury_rows_name_file_line_and_column() {
    let head = "contractSymbol,lastTradeDate,strike,lastPrice,bid,ask,change,percentChange,volume,openInterest,impliedVolatility,inTheMoney,contractSize,currency,option_type,expiration\r\n";
    let row = "SPXW260202C02800000,2026-01-30 16:45:44+00:00,2800.0,4139.54,4122.2,4148.5,-57.0,-1.3,6.0,3.0,4.6,True,REGULAR,USD,call,2026-02-02\r\n";
    let d = date(2026, 1, 30);
    assert_eq!(parse_yahoo(&format!("{head}{row}"), "y.csv", d).expect("good").quotes.len(), 1);
    let bad_type = row.replace(",call,", ",cal,");
    match parse_yahoo(&format!("{head}{row}{bad_type}"), "y.csv", d) {
        Err(MarketError::Cell { line, column, .. }) => assert_eq!((line, column), (3, 15)),
        other => panic!("{other:?}"),
    }
    let wrong_expiry = row.replace(",2026-02-02", ",2026-02-03");
    assert!(matches!(
        parse_yahoo(&format!("{head}{wrong_expiry}"), "y.csv", d),
        Err(MarketError::Cell { line: 2, column: 1, .. })
    ));
    let missing = head.replace("bid,", "bidd,");
    assert!(matches!(parse_yahoo(&format!("{missing}{row}"), "y.csv", d), Err(MarketError::Row { line: 1, .. })));

    let t = "date,1 mo,3 mo,1 yr\n01/02/2020,1.5,1.6,1.7\n01/03/2020,1.5,x,1.7\n";
    match parse_treasury(t, "t.csv") {
        Err(MarketError::Cell { line, column, .. }) => assert_eq!((line, column), (3, 3)),
        other => panic!("{other:?}"),
    }
    let dup = "Date,1 Mo,1 Yr\n2024-01-03,5,5\n2024-01-03,5,5\n";
    assert!(matches!(parse_treasury(dup, "t.csv"), Err(MarketError::Row { line: 3, .. })));
    let bad_date = "Date,1 Mo,1 Yr\n2024-13-03,5,5\n";
    assert!(matches!(parse_treasury(bad_date, "t.csv"), Err(MarketError::Cell { line: 2, column: 1, .. })));
    let bad_tenor = "Date,1 Wk,1 Yr\n2024-01-03,5,5\n";
    assert!(matches!(parse_treasury(bad_tenor, "t.csv"), Err(MarketError::Cell { line: 1, column: 2, .. })));
    let ragged = "Date,1 Mo,1 Yr\n2024-01-03,5\n";
    assert!(matches!(parse_treasury(ragged, "t.csv"), Err(MarketError::Row { line: 2, .. })));
}

#[test]
fn cboe_files_with_windows_line_ends_read_like_the_unix_ones() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/spx_cboe_2025-10-01");
    let files = cboe_files_of(&dir);
    assert!(!files.is_empty(), "no Cboe file in {}", dir.display());
    for f in files {
        let text = std::fs::read_to_string(&f).expect("example file");
        assert!(!text.contains('\r'), "{} should be the LF original", f.display());
        let crlf = text.replace('\n', "\r\n");
        let name = f.display().to_string();
        let lf = parse_cboe(&text, &name).expect("LF parses");
        let windows = parse_cboe(&crlf, &name).expect("CRLF parses");
        assert!(!lf.quotes.is_empty());
        assert_eq!(windows.spot, lf.spot);
        assert_eq!(windows.as_of, lf.as_of);
        assert_eq!(windows.quotes, lf.quotes, "{name}");
    }
}

fn cboe_files_of(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    tenor_market::cboe::cboe_files(dir).expect("example folder")
}

#[test]
fn an_empty_cboe_file_is_called_empty() {
    for text in ["", "\n", "\r\n  \r\n"] {
        let e = parse_cboe(text, "empty.csv").expect_err("empty");
        let msg = e.to_string();
        assert!(msg.contains("empty.csv") && msg.contains("the file is empty"), "{msg}");
        assert!(!msg.contains("spot line"), "{msg}");
    }
}

/// A leading UTF-8 byte order mark before the Cboe title line or the Treasury header is skipped
/// (a guard: the csv crate already skipped it; the parsers now strip it themselves too).
#[test]
fn cboe_with_a_leading_byte_order_mark_parses_alike() {
    let good = "Fri Apr 17 2026,SPX260417C06800000,1,0,250,251,0,0.15,0.5,0,0,6800.00,SPX260417P06800000,1,0,240,241,0,0.15,-0.5,0,0\n";
    let plain = parse_cboe(&cboe_text(good), "f.csv").expect("plain");
    let bom = parse_cboe(&format!("\u{feff}{}", cboe_text(good)), "f.csv").expect("with a BOM");
    assert_eq!((bom.spot, bom.quotes.len()), (plain.spot, plain.quotes.len()));
    let t = "Date,1 Mo,1 Yr\n2024-01-03,5,5\n2024-01-04,5,5\n";
    let plain = parse_treasury(t, "t.csv").expect("plain");
    let bom = parse_treasury(&format!("\u{feff}{t}"), "t.csv").expect("treasury with a BOM");
    assert_eq!(format!("{bom:?}"), format!("{plain:?}"));
}

/// Issue 17: `Last: 6,711.20` was read as 6 (the header split at the separator). It is read
/// whole, quoted or not; a separator in the wrong place is refused on line 2, never truncated.
#[test]
fn cboe_spot_with_a_thousands_separator_is_read_whole_or_refused() {
    let good = "Fri Apr 17 2026,SPX260417C06800000,1,0,250,251,0,0.15,0.5,0,0,6800.00,SPX260417P06800000,1,0,240,241,0,0.15,-0.5,0,0\n";
    for header in ["Last: 6,711.20", "\"Last: 6,711.20\"", "Last: 6711.20"] {
        let text = cboe_text(good).replace("Last: 6711.2002", header);
        let chain = parse_cboe(&text, "f.csv").unwrap_or_else(|e| panic!("{header}: {e}"));
        assert_eq!(chain.spot, Some(6711.20), "{header}");
    }
    for header in ["Last: 6,71", "Last: 67,11.20", "Last: 6,711,20"] {
        let text = cboe_text(good).replace("Last: 6711.2002", header);
        match parse_cboe(&text, "f.csv") {
            Err(e @ MarketError::Row { line: 2, .. }) => assert!(e.to_string().contains("spot"), "{header}: {e}"),
            other => panic!("{header}: {other:?}"),
        }
    }
}

/// The sibling in the quote cells: a grouped number such as `"5,303.20"` (quoted, as CSV
/// writers quote a cell with a comma) is read whole in Cboe and Yahoo files; a misplaced
/// separator names the cell.
#[test]
fn grouped_numbers_in_quote_cells_are_read_whole_or_refused_by_cell() {
    let good = "Fri Apr 17 2026,SPX260417C06800000,1,0,\"5,303.20\",\"5,320.70\",0,0.15,0.5,0,0,\"6,800.00\",SPX260417P06800000,1,0,240,241,0,0.15,-0.5,0,0\n";
    let chain = parse_cboe(&cboe_text(good), "f.csv").expect("grouped cells");
    let q = chain.quotes.iter().find(|q| q.symbol == "SPX260417C06800000").expect("the call");
    assert_eq!((q.bid, q.ask, q.strike), (5303.20, 5320.70, 6800.0));
    let bad = good.replace("\"5,303.20\"", "\"53,03.20\"");
    assert!(matches!(parse_cboe(&cboe_text(&bad), "f.csv"), Err(MarketError::Cell { line: 6, column: 5, .. })));

    let head = "contractSymbol,lastTradeDate,strike,lastPrice,bid,ask,change,percentChange,volume,openInterest,impliedVolatility,inTheMoney,contractSize,currency,option_type,expiration\n";
    let row = "SPXW260202C02800000,2026-01-30 16:45:44+00:00,\"2,800.0\",\"4,139.54\",\"4,122.2\",\"4,148.5\",-57.0,-1.3,6.0,3.0,4.6,True,REGULAR,USD,call,2026-02-02\n";
    let d = date(2026, 1, 30);
    let y = parse_yahoo(&format!("{head}{row}"), "y.csv", d).expect("grouped yahoo cells");
    assert_eq!((y.quotes[0].strike, y.quotes[0].bid), (2800.0, 4122.2));
    let bad = row.replace("\"4,122.2\"", "\"41,22.2\"");
    assert!(matches!(
        parse_yahoo(&format!("{head}{bad}"), "y.csv", d),
        Err(MarketError::Cell { line: 2, column: 5, .. })
    ));
}
