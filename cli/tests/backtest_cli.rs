//! `tenor backtest` end to end: bad inputs are refused up front with the flag or parameter and
//! the value named (never a hang, never a run of nothing reported as success), and the output
//! files of a small hand-computed run.
use std::path::{Path, PathBuf};
use std::time::Duration;

mod common;

use common::{run, tenor, Run};

const HEADER: &str = "date,open,high,low,close,volume,dividend,split";

/// Four daily bars: opens 10, 10, 11.5, 12; closes 10, 11, 12, 12.5.
const BARS: &str = "2012-01-03,10,11,9,10,1000,0,1\n2012-01-04,10,11.5,9.5,11,1000,0,1\n2012-01-05,11.5,12.5,11,12,1000,0,1\n2012-01-06,12,13,11.5,12.5,1000,0,1\n";

fn dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("backtest_cli");
    std::fs::create_dir_all(&d).expect("tmp dir");
    d
}

fn file(name: &str, text: &str) -> PathBuf {
    let p = dir().join(name);
    std::fs::write(&p, text).expect("write data");
    p
}

fn tenor_backtest(data: &Path, out: &str, extra: &[&str]) -> Run {
    let out = dir().join(out);
    let _ = std::fs::remove_dir_all(&out);
    run(tenor()
        .env_remove("TENOR_BACKEND")
        .args(["backtest", "--data"])
        .arg(data)
        .arg("--out")
        .arg(&out)
        .args(extra)
        // A refusal is immediate; a hang (the old infinite chart axis) fails here instead.
        .timeout(Duration::from_secs(120)))
}

/// The four-bar file, written once (tests run in parallel and all read it).
fn good() -> PathBuf {
    static GOOD: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    GOOD.get_or_init(|| file("xyz.csv", &format!("{HEADER}\n{BARS}"))).clone()
}

/// Runs buy_and_hold with `extra` and checks it is refused with every `needle` in stderr.
fn refused(out: &str, extra: &[&str], needles: &[&str]) {
    let mut args = vec!["--strategy", "buy_and_hold"];
    args.extend_from_slice(extra);
    let r = tenor_backtest(&good(), out, &args);
    assert_ne!(r.code, 0, "{extra:?} must be refused:\n{}", r.stdout);
    for n in needles {
        assert!(r.stderr.contains(n), "{extra:?}: stderr should contain {n:?}:\n{}", r.stderr);
    }
    assert!(!dir().join(out).join("equity.csv").exists(), "{extra:?}: nothing is written");
}

#[test]
fn a_small_run_writes_iso_times_and_hand_computed_equity() {
    let r = tenor_backtest(
        &good(),
        "good",
        &["--strategy", "buy_and_hold", "--cash", "10000", "--commission-bps", "0", "--slippage-bps", "0"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = dir().join("good");
    // Sized on the first close 10: floor(0.99 x 10000 / 10) = 990 shares, bought at the 01-04
    // open 10, order id 1; daily bars are stamped 23:59:59 UTC of their date.
    let trades = std::fs::read_to_string(out.join("trades.csv")).expect("trades.csv");
    assert_eq!(trades, "time,symbol,quantity,price,commission,order\n2012-01-04T23:59:59Z,XYZ,990,10.000000,0.00,1\n");
    // Cash 100 after the buy; equity 10000, 100 + 990 x 11, x 12, x 12.5.
    let equity = std::fs::read_to_string(out.join("equity.csv")).expect("equity.csv");
    assert_eq!(
        equity,
        "time,equity\n2012-01-03T23:59:59Z,10000.00\n2012-01-04T23:59:59Z,10990.00\n\
         2012-01-05T23:59:59Z,11980.00\n2012-01-06T23:59:59Z,12475.00\n"
    );
    assert!(r.stdout.contains("equity.svg") && out.join("equity.svg").exists(), "{}", r.stdout);
}

#[test]
fn a_single_bar_does_not_claim_a_chart() {
    let p = file("one.csv", &format!("{HEADER}\n2012-01-03,10,11,9,10,1000,0,1\n"));
    let r = tenor_backtest(&p, "one", &["--strategy", "buy_and_hold"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!dir().join("one").join("equity.svg").exists());
    assert!(r.stdout.contains("no equity.svg") && !r.stdout.contains("metrics.json,equity.svg"), "{}", r.stdout);
}

#[test]
fn cash_must_be_finite_and_positive() {
    refused("cash_inf", &["--cash", "inf"], &["--cash inf", "finite"]);
    refused("cash_nan", &["--cash", "NaN"], &["--cash NaN"]);
    refused("cash_zero", &["--cash", "0"], &["--cash 0"]);
    refused("cash_neg", &["--cash=-5"], &["--cash -5"]);
}

#[test]
fn costs_must_be_finite_and_not_negative() {
    refused("bps", &["--commission-bps=-1"], &["--commission-bps -1", ">= 0"]);
    refused("slip", &["--slippage-bps", "nan"], &["--slippage-bps NaN"]);
    refused("share", &["--per-share", "inf"], &["--per-share inf"]);
    refused("min", &["--min-commission=-0.5"], &["--min-commission -0.5"]);
    refused("ppy", &["--periods-per-year", "inf"], &["--periods-per-year inf"]);
}

#[test]
fn data_without_bars_is_an_error_naming_the_file() {
    for (name, text) in [("header_only.csv", format!("{HEADER}\n")), ("empty.csv", String::new())] {
        let p = file(name, &text);
        let r = tenor_backtest(&p, name, &["--strategy", "buy_and_hold"]);
        assert_ne!(r.code, 0, "{name}: {}", r.stdout);
        assert!(r.stderr.contains(name) && r.stderr.contains("no bars"), "{name}: {}", r.stderr);
        assert!(!r.stdout.contains("wrote"), "{name}: {}", r.stdout);
    }
}

#[test]
fn sweep_bounds_must_be_finite_with_at_least_one_run() {
    let sma = |out: &str, sweep: &str| {
        let r = tenor_backtest(&good(), out, &["--strategy", "sma_crossover", "--param", "slow=3", "--sweep", sweep]);
        assert_ne!(r.code, 0, "{sweep}: {}", r.stdout);
        assert!(r.stderr.contains("--sweep") && r.stderr.contains(sweep), "{sweep}: {}", r.stderr);
        assert!(!dir().join(out).join("sweep.csv").exists());
    };
    sma("sw_nan", "fast=nan:10:1");
    sma("sw_inf", "fast=1:inf:1");
    sma("sw_step", "fast=1:2:0");
    sma("sw_back", "fast=5:1:1");
}

#[test]
fn straddle_parameters_are_refused_before_the_run() {
    for (param, needle) in [
        ("seed=-1", "seed = -1"),
        ("seed=1.7", "seed = 1.7"),
        ("rate=nan", "rate = NaN"),
        ("dividend=inf", "dividend = inf"),
    ] {
        let r = tenor_backtest(&good(), "straddle", &["--strategy", "short_straddle", "--param", param]);
        assert_ne!(r.code, 0, "{param}: {}", r.stdout);
        assert!(r.stderr.contains(needle), "{param}: stderr should contain {needle:?}:\n{}", r.stderr);
    }
}
