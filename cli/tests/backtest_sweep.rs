//! `tenor backtest --sweep` of an option strategy end to end: the batched path (the default)
//! writes the same sweep table as `--unbatched`, with one `price_batch` call per bar for the
//! whole sweep instead of one per run and bar.
use std::path::PathBuf;

mod common;

use common::{run, tenor};

fn sweep(out: &str, extra: &[&str]) -> (String, String) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("backtest_sweep").join(out);
    let _ = std::fs::remove_dir_all(&dir);
    let a = run(tenor()
        .env_remove("TENOR_BACKEND")
        .args(["backtest", "--strategy", "short_straddle", "--data"])
        .arg(tenor_testdata::shared("data/equities/spy_daily_1999_2020.csv"))
        .args(["--param", "paths=256", "--param", "window=20", "--sweep", "roll=10:21:11", "--out"])
        .arg(&dir)
        .args(extra));
    assert!(a.success(), "{}\n{}", a.stdout, a.stderr);
    (a.stdout, std::fs::read_to_string(dir.join("sweep.csv")).expect("sweep.csv"))
}

/// The number after `before` in `text`.
fn number_after(text: &str, before: &str) -> u64 {
    let i = text.find(before).unwrap_or_else(|| panic!("{before:?} not in {text}")) + before.len();
    text[i..].split(|c: char| !c.is_ascii_digit()).next().and_then(|n| n.parse().ok()).expect("a number")
}

#[test]
fn batched_sweep_writes_the_unbatched_table_with_one_call_per_bar() {
    let (batched, table) = sweep("batched", &["--batch-groups", "1"]);
    let (unbatched, want) = sweep("unbatched", &["--unbatched"]);
    assert_eq!(table, want, "the batched sweep must give the unbatched results");
    assert_eq!(table.lines().count(), 3, "header and two runs:\n{table}");
    let bars = number_after(&batched, "2 runs (2 valid) on ");
    // With a 20-close volatility window every run prices once per bar from bar 20 on.
    let priced = bars - 20;
    assert_eq!(number_after(&batched, "lockstep group(s): "), priced, "{batched}");
    // Two runs' requests of six products each per bar, either way.
    assert_eq!(number_after(&batched, " group bars, "), 2 * priced, "{batched}");
    assert_eq!(number_after(&batched, " requests, "), 12 * priced, "{batched}");
    assert_eq!(number_after(&unbatched, "pricing unbatched (one call per run and bar): "), 2 * priced, "{unbatched}");
    assert_eq!(number_after(&unbatched, "price_batch calls, "), 12 * priced, "{unbatched}");
    // Two lockstep groups of one run each: one call per group and bar, the same table.
    let (two, table2) = sweep("two_groups", &["--batch-groups", "2"]);
    assert_eq!(table2, want);
    assert_eq!(number_after(&two, "lockstep group(s): "), 2 * priced, "{two}");
}

/// More groups than runs: the sweep runs one group per run and says so (it used to print the
/// number asked for, "100000 lockstep group(s)").
#[test]
fn batch_groups_above_the_runs_are_lowered_to_the_runs_and_the_real_number_printed() {
    let (many, table) = sweep("many_groups", &["--batch-groups", "100000"]);
    let (_, want) = sweep("many_groups_ref", &["--batch-groups", "2"]);
    assert_eq!(table, want);
    assert!(many.contains("in 2 lockstep group(s)"), "2 runs, so 2 groups:\n{many}");
}
