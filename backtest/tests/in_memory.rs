//! Bars held in memory (`data::series`): the same bars as the file they came from, the file
//! loader's checks with line `i + 2` for bar `i`; and a sweep's parameter sets (`sweep::sets`).

use tenor_backtest::data::{load, series, Bar, DataError};
use tenor_backtest::strategies::Params;

fn bar(time: i64, close: f64) -> Bar {
    Bar { time, open: close, high: close + 1.0, low: close - 1.0, close, volume: 100.0, dividend: 0.0 }
}

#[test]
fn a_files_bars_in_memory_are_the_same_series() {
    let file = tenor_testdata::shared("data/equities/spy_daily_1999_2020.csv");
    let loaded = load(&file, None).expect("SPY");
    let again = series("<bars>", &loaded.symbol, loaded.bars.clone()).expect("the file's bars pass the checks");
    assert_eq!(again, loaded);
}

#[test]
fn bad_bars_are_named_by_line_and_column() {
    let good = vec![bar(1, 10.0), bar(2, 11.0), bar(3, 12.0)];
    assert!(series("<bars>", "X", good.clone()).is_ok());
    type Case = (usize, fn(&mut Bar), &'static str);
    let cases: [Case; 5] = [
        (1, |b| b.open = f64::NAN, "open"),
        (2, |b| b.volume = f64::INFINITY, "volume"),
        (0, |b| b.dividend = -0.5, "dividend"),
        (1, |b| b.low = b.close + 0.5, "open/high/low/close"),
        (2, |b| b.time = 2, "date"),
    ];
    for (i, spoil, column) in cases {
        let mut bars = good.clone();
        spoil(&mut bars[i]);
        match series("<bars>", "X", bars) {
            Err(DataError::Bad { file, line, column: c, .. }) => {
                assert_eq!((file.as_str(), line, c.as_str()), ("<bars>", i + 2, column));
            }
            other => panic!("bar {i} ({column}): expected a bad-cell error, got {other:?}"),
        }
    }
    assert!(matches!(series("<bars>", "X", Vec::new()), Err(DataError::Empty { .. })));
}

#[test]
fn sweep_sets_are_the_grid_completed_by_the_base() {
    let axes = vec![("fast".to_owned(), vec![10.0, 20.0]), ("slow".to_owned(), vec![100.0, 200.0])];
    let base: Params = [("fast".to_owned(), 5.0), ("paths".to_owned(), 64.0)].into_iter().collect();
    let sets = tenor_backtest::sweep::sets(&axes, &base);
    let got: Vec<(f64, f64, f64)> = sets.iter().map(|p| (p["fast"], p["slow"], p["paths"])).collect();
    // The first axis varies slowest; an axis's value wins over the base's.
    assert_eq!(got, vec![(10.0, 100.0, 64.0), (10.0, 200.0, 64.0), (20.0, 100.0, 64.0), (20.0, 200.0, 64.0)]);
}

#[test]
fn a_sweep_plan_covers_every_set_once_balanced_by_paths() {
    let sets: Vec<Params> =
        [8.0, 1.0, 1.0, 4.0, 2.0, 2.0].iter().map(|p| [("paths".to_owned(), *p)].into_iter().collect()).collect();
    let chunks = tenor_backtest::sweep::plan(&sets, 3);
    // By hand, longest first (ties by index), each to the least-loaded chunk (ties: fewer sets,
    // then the lower chunk): 8 -> c0; 4 -> c1; 2 -> c2; 2 -> c2 (2 < 4); 1 -> c1 (4 = 4, one set
    // against two); 1 -> c2 (4 < 5). Loads 8, 5, 5.
    assert_eq!(chunks, vec![vec![0], vec![1, 3], vec![2, 4, 5]]);
    assert_eq!(tenor_backtest::sweep::plan(&sets[..2], 5).len(), 2, "no empty chunk");
}
