//! Loaders on the real files (row counts from shared/data/README.md) and on malformed input.

use tenor_backtest::data::{load, DataError};
use tenor_backtest::Feed;

#[test]
fn real_files_load_with_the_documented_row_counts() {
    for (file, rows) in [
        ("data/equities/spy_daily_1999_2020.csv", 5241),
        ("data/equities/orcl_daily_1995_2014.csv", 5036),
        ("data/equities/nvda_daily_1999_2014.csv", 4012),
        ("data/equities/zipline_csvdir_2012_2014/AAPL.csv", 754),
        ("data/intraday/spy_minute_2011-03_utc.csv", 17577),
    ] {
        let s = load(&tenor_testdata::shared(file), None).expect(file);
        assert_eq!(s.bars.len(), rows, "{file}");
    }
}

#[test]
fn zipline_dividends_are_read_and_paid() {
    let s = load(&tenor_testdata::shared("data/equities/zipline_csvdir_2012_2014/AAPL.csv"), None).expect("AAPL");
    assert_eq!(s.bars.iter().filter(|b| b.dividend > 0.0).count(), 10, "README: AAPL has 10 dividend rows");
}

#[test]
fn a_malformed_row_names_file_line_and_column() {
    let dir = std::env::temp_dir().join(format!("tenor-bt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let p = dir.join("bad.csv");
    std::fs::write(&p, "date,open,high,low,close,volume,dividend,split\n2012-01-03,1,2,0.5,1.5,10,0,1\n2012-01-04,1,x,0.5,1.5,10,0,1\n").expect("write");
    match load(&p, None) {
        Err(DataError::Bad { line, column, .. }) => assert_eq!((line, column.as_str()), (3, "high")),
        other => panic!("expected a bad-cell error, got {other:?}"),
    }
    std::fs::write(&p, "date,open,high,low,close,volume,dividend,split\n2012-01-04,1,2,0.5,1.5,10,0,1\n2012-01-03,1,2,0.5,1.5,10,0,1\n").expect("write");
    assert!(matches!(load(&p, None), Err(DataError::Bad { line: 3, .. })), "time order is checked");
}

#[test]
fn symbols_align_on_timestamps_with_explicit_gaps() {
    let a = load(&tenor_testdata::shared("data/equities/zipline_csvdir_2012_2014/AAPL.csv"), None).expect("AAPL");
    let spy = load(&tenor_testdata::shared("data/equities/spy_daily_1999_2020.csv"), None).expect("SPY");
    let n_spy = spy.bars.len();
    let f = Feed::new(vec![spy, a]);
    assert_eq!(f.len(), n_spy, "AAPL's dates are a subset of SPY's");
    let aapl_bars = f.bars[1].iter().filter(|b| b.is_some()).count();
    assert_eq!(aapl_bars, 754);
    assert!(f.bars[1][0].is_none(), "no AAPL bar in 1999: explicit None, not filled forward");
}

#[test]
fn a_negative_dividend_is_refused_with_its_line() {
    let dir = std::env::temp_dir().join(format!("tenor-bt-div-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let p = dir.join("neg.csv");
    std::fs::write(&p, "date,open,high,low,close,volume,dividend,split\n2012-01-03,1,2,0.5,1.5,10,-3,1\n")
        .expect("write");
    match load(&p, None) {
        Err(DataError::Bad { line, column, .. }) => assert_eq!((line, column.as_str()), (2, "dividend")),
        other => panic!("expected a dividend error, got {other:?}"),
    }
}

#[test]
fn window_parameters_must_be_whole_numbers() {
    use tenor_backtest::strategies::{sma_crossover::SmaCrossover, ParamError, Params};
    let p: Params = [("fast".to_owned(), 2.5), ("slow".to_owned(), 10.0)].into_iter().collect();
    assert!(matches!(SmaCrossover::from_params(&p), Err(ParamError::Invalid { ref name, .. }) if name == "fast"));
    let p: Params = [("fast".to_owned(), -5.0), ("slow".to_owned(), 10.0)].into_iter().collect();
    match SmaCrossover::from_params(&p) {
        Err(ParamError::Invalid { value, .. }) => assert_eq!(value, -5.0, "the error shows the value given"),
        other => panic!("expected an error, got {other:?}"),
    }
}

/// A leading UTF-8 byte order mark (Excel's "CSV UTF-8") is skipped: the header is still
/// recognised (the audit found `unrecognised layout (header "\u{feff}date,…")`).
#[test]
fn a_leading_byte_order_mark_is_skipped() {
    let dir = std::env::temp_dir().join(format!("tenor-bt-bom-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let p = dir.join("bom.csv");
    std::fs::write(
        &p,
        "\u{feff}date,open,high,low,close,volume,dividend,split\n2012-01-03,1,2,0.5,1.5,10,0,1\n2012-01-04,1.5,2,1,1.75,10,0,1\n",
    )
    .expect("write");
    let s = load(&p, None).expect("a BOM before the header is skipped");
    assert_eq!(s.bars.len(), 2);
    assert_eq!(s.bars[1].close, 1.75);
}
