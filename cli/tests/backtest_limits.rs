//! Issue 17: `tenor backtest` bounds its cash and cost flags (naming the flag) and never lets a
//! fill borrow: buy_and_hold on a file whose next open doubles keeps its cash (refused) or buys
//! what the cash pays for (resized), as the summary says.
use std::path::PathBuf;

mod common;

use common::{run, tenor, Run};

const HEADER: &str = "date,open,high,low,close,volume,dividend,split";

fn dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("backtest_limits");
    std::fs::create_dir_all(&d).expect("tmp dir");
    d
}

/// Close 100 on day 1; day 2 opens at 200 (a gap up), closes 200; day 3 flat. One file per run
/// (`name`): the tests run in parallel, and rewriting one shared file let a run read it empty.
fn gap_up(name: &str) -> PathBuf {
    let p = dir().join(format!("gap-{name}.csv"));
    let bars = "2012-01-03,100,100,100,100,1000,0,1\n2012-01-04,200,200,200,200,1000,0,1\n2012-01-05,200,200,200,200,1000,0,1\n";
    // Both tests write this file while the other may be reading it: written atomically, a reader
    // never sees it truncated (it raced to "no bars" when written in place).
    tenor_ports::files::write_atomic(&p, format!("{HEADER}\n{bars}").as_bytes()).expect("write data");
    p
}

fn backtest(out: &str, extra: &[&str]) -> Run {
    let out = dir().join(out);
    let _ = std::fs::remove_dir_all(&out);
    run(tenor()
        .env_remove("TENOR_BACKEND")
        .args(["backtest", "--strategy", "buy_and_hold", "--data"])
        .arg(gap_up(out.file_name().and_then(|n| n.to_str()).unwrap_or("run")))
        .arg("--out")
        .arg(&out)
        .args(["--cash", "10000", "--commission-bps", "0", "--slippage-bps", "0"])
        .args(extra))
}

#[test]
fn cash_and_cost_flags_beyond_their_bounds_are_refused_by_name() {
    for (flag, value) in [
        ("--cash", "1e308"),
        ("--slippage-bps", "20000"),
        ("--commission-bps", "1e308"),
        ("--per-share", "1e308"),
        ("--min-commission", "1e308"),
    ] {
        let r = backtest(&format!("refused{flag}"), &[flag, value]);
        assert_ne!(r.code, 0, "{flag} {value} accepted:\n{}", r.stdout);
        assert!(r.stderr.contains(flag), "{flag}: {}", r.stderr);
        assert!(!dir().join(format!("refused{flag}")).join("equity.csv").exists(), "{flag}: wrote output");
    }
}

/// 99 shares sized on the close of 100 would cost 19,800 at the open of 200 (the old engine
/// went to cash -9,800): refused, equity stays 10,000; resized, floor(10000 / 200) = 50 shares,
/// cash 0, equity 50 x 200 = 10,000.
#[test]
fn a_gap_up_buy_is_refused_or_resized() {
    let r = backtest("gap_refuse", &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("buys refused for cash 1, resized 0"), "{}", r.stdout);
    let equity = std::fs::read_to_string(dir().join("gap_refuse").join("equity.csv")).expect("equity");
    assert!(equity.lines().skip(1).all(|l| l.ends_with(",10000") || l.ends_with(",10000.00")), "{equity}");
    let trades = std::fs::read_to_string(dir().join("gap_refuse").join("trades.csv")).expect("trades");
    assert_eq!(trades.lines().count(), 1, "{trades}");

    let r = backtest("gap_resize", &["--insufficient-cash", "resize"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("buys refused for cash 0, resized 1"), "{}", r.stdout);
    let trades = std::fs::read_to_string(dir().join("gap_resize").join("trades.csv")).expect("trades");
    let fill: Vec<&str> = trades.lines().nth(1).expect("one fill").split(',').collect();
    assert_eq!((fill[2], fill[3]), ("50", "200.000000"), "{trades}");
}
