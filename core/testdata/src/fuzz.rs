//! A bounded fuzz harness for the readers' property tests: runs a proptest strategy for a fixed
//! number of cases (from `TENOR_FUZZ_CASES`, else the test's default), catches every panic of the
//! reader instead of stopping at the first, and counts what the closing note reports: cases
//! tried, panics, rows lost (a good row the reader dropped), and errors put on the wrong line.

use std::panic::{catch_unwind, AssertUnwindSafe};

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, TestRng, TestRunner};

/// What one case found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Finding {
    /// Good rows the reader did not return.
    pub lost_rows: u64,
    /// Errors that name another line than the bad one (or no error for a bad input).
    pub misplaced: u64,
}

/// Totals over a fuzz run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Cases generated and read.
    pub cases: u64,
    /// Cases in which the reader panicked.
    pub panics: u64,
    /// Good rows lost, over all cases.
    pub lost_rows: u64,
    /// Misplaced or missing errors, over all cases.
    pub misplaced: u64,
}

/// Cases to run: `TENOR_FUZZ_CASES` when set to a number, else `default`.
pub fn cases(default: u64) -> u64 {
    std::env::var("TENOR_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Runs `check` on `cases(default)` values of `strategy` (deterministic seed, so a failure
/// reproduces), counting panics and findings; prints one summary line `fuzz NAME: ...` and
/// returns the totals.
///
/// # Panics
/// When the strategy cannot generate a value (a bug in the test).
pub fn run<S, F>(name: &str, default: u64, strategy: S, check: F) -> Counts
where
    S: Strategy,
    F: Fn(&S::Value) -> Finding,
{
    let config = Config { cases: 0, failure_persistence: None, ..Config::default() };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::ChaCha));
    let mut counts = Counts::default();
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for _ in 0..cases(default) {
        let value = match strategy.new_tree(&mut runner) {
            Ok(tree) => tree.current(),
            Err(e) => {
                std::panic::set_hook(quiet);
                panic!("fuzz {name}: the strategy failed: {e}");
            }
        };
        counts.cases += 1;
        match catch_unwind(AssertUnwindSafe(|| check(&value))) {
            Ok(f) => {
                counts.lost_rows += f.lost_rows;
                counts.misplaced += f.misplaced;
            }
            Err(_) => counts.panics += 1,
        }
    }
    std::panic::set_hook(quiet);
    println!(
        "fuzz {name}: {} cases, {} panics, {} rows lost, {} errors misplaced",
        counts.cases, counts.panics, counts.lost_rows, counts.misplaced
    );
    counts
}

/// A line end: LF, CRLF or a bare CR.
pub fn line_end() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(vec!["\n", "\r\n", "\r"])
}
