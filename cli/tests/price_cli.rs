//! `tenor price` end to end: the binary on small portfolios, one test per bad input the spec
//! lists (`shared/spec/portfolio-csv.md`): the command exits non-zero, names the file, line
//! and column of every bad row, and still prices the good rows.
use std::path::PathBuf;

mod common;

use common::{run, tenor, Run};

const HEADER: &str = "id,kind,type,spot,strike,maturity,rate,dividend,vol,barrier,barrier_type,rebate,fixings";
const GOOD: &str = "good,european,call,100,100,1,0.05,0,0.2,,,,";

fn file(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("price_cli");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write portfolio");
    p
}

/// Prices the portfolio `text` (written to `name`) with 2000 paths and `extra`; returns the
/// run and the priced CSV (empty when none was written).
fn tenor_price(name: &str, text: &str, extra: &[&str]) -> (Run, String) {
    let input = file(name, text);
    let out = input.with_extension("out.csv");
    let _ = std::fs::remove_file(&out);
    let r = run(tenor()
        .env_remove("TENOR_BACKEND")
        .args(["price", "--portfolio"])
        .arg(&input)
        .arg("--out")
        .arg(&out)
        .args(["--paths", "2000"])
        .args(extra));
    (r, std::fs::read_to_string(&out).unwrap_or_default())
}

/// Runs a file whose line 3 is bad and checks the common contract; returns stderr.
fn bad_row(name: &str, bad: &str, column: &str) -> String {
    let (r, out) = tenor_price(name, &format!("{HEADER}\n{GOOD}\n{bad}\n"), &[]);
    assert_ne!(r.code, 0, "bad input must fail: {}", r.stderr);
    let at = format!("{name}:3: column `{column}`");
    assert!(r.stderr.contains(&at), "stderr should contain {at:?}:\n{}", r.stderr);
    assert!(out.lines().any(|l| l.starts_with("good,")), "the good row is still priced:\n{}", out);
    assert!(r.stdout.contains("rejected"), "summary names the rejection:\n{}", r.stdout);
    r.stderr
}

#[test]
fn prices_a_good_book_with_a_summary() {
    let text = format!(
        "{HEADER}\n{GOOD}\nasian,asian_arith,put,100,100,1,0.05,0,0.2,,,,12\nbar,barrier,call,100,100,1,0.05,0,0.2,120,up_out,,\n"
    );
    let (r, out) = tenor_price("good.csv", &text, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "id,price,stderr,delta,gamma,vega,theta,rho,method,backend");
    assert!(lines[1].starts_with("good,") && lines[1].ends_with(",analytic,host"), "{}", lines[1]);
    assert!(lines[2].starts_with("asian,") && lines[2].ends_with(",mc,cpu"), "{}", lines[2]);
    assert!(lines[3].starts_with("bar,") && lines[3].ends_with(",analytic,host"), "{}", lines[3]);
    for k in ["european", "asian_arith", "barrier", "total", "backend     cpu", "time"] {
        assert!(r.stdout.contains(k), "summary lacks {k:?}:\n{}", r.stdout);
    }
    // The Black-Scholes call at S = K = 100, T = 1, r = 5 %, sigma = 20 %: 10.4506 (Hull).
    let price: f64 = lines[1].split(',').nth(1).and_then(|p| p.parse().ok()).expect("price");
    assert!((price - 10.4506).abs() < 1e-4, "{price}");
}

#[test]
fn non_numeric_cell() {
    let e = bad_row("nonnum.csv", "bad,european,call,100,1oo,1,0.05,0,0.2,,,,", "strike");
    assert!(e.contains("not a number"), "{e}");
}

#[test]
fn negative_vol() {
    bad_row("negvol.csv", "bad,european,call,100,100,1,0.05,0,-0.2,,,,", "vol");
}

#[test]
fn negative_maturity() {
    bad_row("negmat.csv", "bad,european,call,100,100,-1,0.05,0,0.2,,,,", "maturity");
}

#[test]
fn strike_not_positive() {
    bad_row("zerostrike.csv", "bad,european,call,100,0,1,0.05,0,0.2,,,,", "strike");
}

#[test]
fn unknown_kind() {
    let e = bad_row("kind.csv", "bad,bermudan,call,100,100,1,0.05,0,0.2,,,,", "kind");
    assert!(e.contains("bermudan"), "{e}");
}

#[test]
fn duplicate_id() {
    let e = bad_row("dup.csv", "good,european,put,100,100,1,0.05,0,0.2,,,,", "id");
    assert!(e.contains("duplicate id") && e.contains("line 2"), "{e}");
}

#[test]
fn missing_required_column() {
    let (r, _) =
        tenor_price("nostrike.csv", "id,kind,type,spot,maturity,rate,vol\nx,european,call,100,1,0.05,0.2\n", &[]);
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("nostrike.csv:1: column `strike`: missing required column"), "{}", r.stderr);
}

#[test]
fn unknown_column() {
    let (r, _) = tenor_price("extra.csv", &format!("{HEADER},notional\n{GOOD},1000000\n"), &[]);
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("extra.csv:1: column `notional`: unknown column"), "{}", r.stderr);
}

#[test]
fn every_bad_row_is_named() {
    let text = format!(
        "{HEADER}\n{GOOD}\nb1,european,call,100,x,1,0.05,0,0.2,,,,\nok,european,put,100,100,1,0.05,0,0.2,,,,\nb2,european,call,100,100,1,0.05,0,-1,,,,\n"
    );
    let (r, out) = tenor_price("many.csv", &text, &[]);
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("many.csv:3:") && r.stderr.contains("many.csv:5:"), "{}", r.stderr);
    assert!(r.stdout.contains("lines 3, 5") || r.stdout.contains("line(s): 3, 5"), "{}", r.stdout);
    assert_eq!(out.lines().count(), 3, "header + two good rows:\n{}", out);
}

#[test]
fn american_and_heston_rows_are_priced() {
    let text = format!(
        "{HEADER},v0,kappa,theta,xi,rho\n{GOOD},,,,,\nam,american,put,100,100,1,0.05,0,0.2,,,,,,,,,\nhe,heston,call,100,100,1,0.05,0,,,,,,0.04,2,0.04,0.5,-0.7\n"
    );
    let (r, out) = tenor_price("american_heston.csv", &text, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Independent values: a CRR tree (6.0903) and the Heston formula integrated by the
    // trapezoidal rule (10.154627); see core/pricing/tests/portfolio_price.rs.
    let price = |id: &str| -> f64 {
        let line =
            out.lines().find(|l| l.starts_with(&format!("{id},"))).unwrap_or_else(|| panic!("no row {id}:\n{}", out));
        line.split(',').nth(1).and_then(|p| p.parse().ok()).unwrap_or_else(|| panic!("bad row {line}"))
    };
    assert!((price("am") - 6.0903).abs() < 5e-4, "{}", out);
    assert!((price("he") - 10.154627).abs() < 1e-4, "{}", out);
    assert!(out.contains(",pde,host") && out.contains(",analytic,host"), "{}", out);
}

#[test]
fn backend_from_environment() {
    let input = file("env.csv", &format!("{HEADER}\n{GOOD}\n"));
    let a = run(tenor().env("TENOR_BACKEND", "no_such_backend").args(["price", "--portfolio"]).arg(&input));
    assert!(!a.success());
    assert!(a.stderr.contains("no_such_backend"));
    let a = run(tenor()
        .env("TENOR_BACKEND", "sim")
        .args(["price", "--engine", "mc", "--paths", "2000", "--portfolio"])
        .arg(&input));
    assert!(a.success(), "{}", a.stderr);
    assert!(a.stdout.contains(",mc,sim"));
}

#[test]
fn a_duplicated_column_rejects_the_file_instead_of_guessing_which_value_is_meant() {
    let text = "id,kind,type,spot,strike,maturity,rate,dividend,vol,vol\nx,european,call,100,100,1,0.05,0,0.2,0.3\n";
    let (r, out) = tenor_price("dup.csv", text, &[]);
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("dup.csv:1") && r.stderr.contains("vol"), "{}", r.stderr);
    assert!(!out.contains("\nx,"), "no price when a column is ambiguous:\n{}", out);
}

#[test]
fn extreme_parameters_never_print_nan() {
    // A rate of -1e5 per year: the call is worth 0 (its forward is 0), and the theta and rho
    // differences overflow: they are left empty rather than printed as NaN.
    let text = format!("{HEADER}\n{GOOD}\nr,european,call,100,100,1,-100000,0,0.2,,,,\n");
    let (r, out) = tenor_price("overflow.csv", &text, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!out.to_lowercase().contains("nan"), "{}", out);
    assert!(out.lines().any(|l| l.starts_with("r,0,")), "{}", out);
}

#[test]
fn absurd_fixings_are_refused_with_the_limit() {
    let text = format!("{HEADER}\n{GOOD}\na,asian_arith,call,100,100,1,0.05,0,0.2,,,,100000000\n");
    let (r, _) = tenor_price("fixings.csv", &text, &[]);
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("fixings.csv:3") && r.stderr.contains("at most 100000"), "{}", r.stderr);
}

#[test]
fn zero_steps_is_refused_once_as_a_parameter() {
    let (r, _) = tenor_price("steps0.csv", &format!("{HEADER}\n{GOOD}\n"), &["--steps", "0"]);
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("--steps"), "names the parameter:\n{}", r.stderr);
    assert_eq!(r.stderr.matches("error").count(), 1, "one error, not one per row:\n{}", r.stderr);
}

#[test]
fn a_missing_portfolio_names_the_file_and_the_os_error_once() {
    let missing = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("price_cli/no-such-book.csv");
    let a = run(tenor().args(["price", "--portfolio"]).arg(&missing));
    let stderr = a.stderr;
    assert_ne!(a.code, 0);
    assert!(stderr.contains("no-such-book.csv"), "{stderr}");
    assert_eq!(stderr.matches("os error 2").count(), 1, "the OS error once:\n{stderr}");
}

#[test]
fn engine_mc_prices_american_rows_by_lsm_on_the_backend() {
    let text = format!("{HEADER}\n{GOOD}\nam,american,put,100,100,1,0.05,0,0.2,,,,\n");
    let (r, out) = tenor_price("mc_host.csv", &text, &["--engine", "mc", "--steps", "16"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(out.lines().any(|l| l.starts_with("good,") && l.contains(",mc,")), "{}", out);
    // Longstaff-Schwartz on the backend (ADR 0022), not finite differences on the host.
    assert!(out.lines().any(|l| l.starts_with("am,") && l.ends_with(",lsm,cpu")), "{}", out);
    assert!(!r.stdout.contains("no Monte Carlo engine"), "{}", r.stdout);
    // With the default engine there is nothing to point out.
    let (r, _) = tenor_price("auto_host.csv", &text, &[]);
    assert!(!r.stdout.contains("no Monte Carlo engine"), "{}", r.stdout);
}

/// An American call without dividends is never worth exercising early (Merton 1973): under
/// `--engine mc` its row is the European closed form (`analytic`, `host`), which the summary's
/// note names; Longstaff-Schwartz priced it 56.5 +/- 2.9 at vol 5 against 97.3.
#[test]
fn engine_mc_prices_an_american_call_without_dividends_by_the_european_closed_form() {
    let text = format!("{HEADER}\namc,american,call,100,100,1,0.05,0,5,,,,\n");
    let (r, out) = tenor_price("mc_merton.csv", &text, &["--engine", "mc", "--steps", "16"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let line = out.lines().find(|l| l.starts_with("amc,")).unwrap_or_else(|| panic!("{out}"));
    assert!(line.ends_with(",analytic,host"), "{out}");
    let price: f64 = line.split(',').nth(1).and_then(|p| p.parse().ok()).unwrap_or_else(|| panic!("{line}"));
    let european = tenor_pricing::analytic::black_scholes(&tenor_pricing::types::Vanilla {
        option: tenor_pricing::types::OptionType::Call,
        spot: 100.0,
        strike: 100.0,
        maturity: 1.0,
        rate: 0.05,
        dividend: 0.0,
        vol: 5.0,
    })
    .expect("closed form");
    assert_eq!(price, european.price, "{line}");
    assert!(
        r.stdout.contains("1 row(s) have no Monte Carlo engine") && r.stdout.contains("Merton 1973"),
        "{}",
        r.stdout
    );
}

/// An American call with a dividend may be exercised early: under `--engine mc` it is priced by
/// Longstaff-Schwartz as the American put of the put-call symmetry (McDonald and Schroder 1998),
/// which the summary's note names. The break test's row (vol 5, q 2 %) was the European floor,
/// 96.82; now within 3 standard errors of the finite differences (97.77).
#[test]
fn engine_mc_prices_an_american_call_with_a_dividend_as_the_symmetric_put() {
    let text =
        format!("{HEADER}\namq,american,call,100,100,1,0.05,0.02,5,,,,\nam,american,put,100,100,1,0.05,0,0.2,,,,\n");
    let (r, out) = tenor_price("mc_symmetry.csv", &text, &["--engine", "mc", "--steps", "16"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let line = out.lines().find(|l| l.starts_with("amq,")).unwrap_or_else(|| panic!("{out}"));
    assert!(line.ends_with(",lsm,cpu"), "{out}");
    let cell =
        |i: usize| -> f64 { line.split(',').nth(i).and_then(|p| p.parse().ok()).unwrap_or_else(|| panic!("{line}")) };
    let (price, stderr) = (cell(1), cell(2));
    let v = tenor_pricing::types::Vanilla {
        option: tenor_pricing::types::OptionType::Call,
        spot: 100.0,
        strike: 100.0,
        maturity: 1.0,
        rate: 0.05,
        dividend: 0.02,
        vol: 5.0,
    };
    let fd = tenor_pricing::american::american_fd(&v).expect("fd");
    let european = tenor_pricing::american::european::black_scholes(&v);
    assert!((price - fd).abs() <= 3.0 * stderr && price > european, "{line}: FD {fd}, European {european}");
    // One row, the call; the put is simulated as it is.
    assert!(
        r.stdout.contains("note        1 American call row(s) priced by Longstaff-Schwartz as the American put")
            && r.stdout.contains("McDonald and Schroder 1998"),
        "{}",
        r.stdout
    );
    let (r, _) = tenor_price("auto_symmetry.csv", &text, &[]);
    assert!(!r.stdout.contains("McDonald"), "{}", r.stdout);
}

/// `--engine mc` prices a Heston row by QE Monte Carlo (`mc`, the backend's name), the default
/// engine semi-analytically (`analytic`, `host`); the `memory` line counts the allocations made
/// while pricing: one batch of the trade and its eight bumped copies is one partials buffer and
/// twelve parameter columns (13), nothing on the device for the closed form (0).
#[test]
fn engine_mc_prices_heston_by_qe_and_the_summary_counts_allocations() {
    let text = "id,kind,type,spot,strike,maturity,rate,dividend,vol,v0,kappa,theta,xi,rho\n\
                h,heston,call,100,100,1,0.03,0.01,,0.04,1.5,0.04,0.5,-0.7\n";
    let (r, out) = tenor_price("mc_heston.csv", text, &["--engine", "mc"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(out.lines().any(|l| l.starts_with("h,") && l.ends_with(",mc,cpu")), "{out}");
    assert!(!r.stdout.contains("no Monte Carlo engine"), "{}", r.stdout);
    assert!(r.stdout.contains("; 13 allocation(s) of "), "{}", r.stdout);
    let (r, out) = tenor_price("auto_heston.csv", text, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(out.lines().any(|l| l.starts_with("h,") && l.ends_with(",analytic,host")), "{out}");
    assert!(r.stdout.contains("; 0 allocation(s) of 0.0 MiB"), "{}", r.stdout);
}

/// `docs/portfolio-csv.md` carries the shared specification into a clone: it must stay the same
/// text.
#[test]
fn the_format_document_in_docs_is_the_shared_specification() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let ours = std::fs::read_to_string(root.join("docs/portfolio-csv.md")).expect("docs/portfolio-csv.md");
    let spec_path = tenor_testdata::shared("spec/portfolio-csv.md");
    let spec = std::fs::read_to_string(&spec_path).unwrap_or_else(|e| panic!("{}: {e}", spec_path.display()));
    let body = ours.split_once("-->\n\n").map_or(ours.as_str(), |(_, b)| b);
    assert_eq!(body, spec, "docs/portfolio-csv.md differs from {}", spec_path.display());
}

const SHORT: &str = "id,kind,type,spot,strike,maturity,rate,dividend,vol";

#[test]
fn an_unterminated_quote_is_named_and_the_rows_after_it_are_still_priced() {
    let text = format!(
        "{SHORT}\n\"unterminated,european,call,100,100,1,0.05,0,0.2\nok1,european,call,100,100,1,0.05,0,0.2\nok2,european,put,100,100,1,0.05,0,0.2\n"
    );
    let (r, out) = tenor_price("quote2.csv", &text, &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("quote2.csv:2: column `id`: unterminated quote"), "{}", r.stderr);
    assert!(r.stderr.contains("character 1") && r.stderr.contains("lines 3-4"), "{}", r.stderr);
    assert!(!r.stderr.contains("cells, the header has"), "{}", r.stderr);
    assert!(out.lines().any(|l| l.starts_with("ok1,")) && out.lines().any(|l| l.starts_with("ok2,")), "{out}");
    assert!(r.stdout.contains("3 rows, 2 priced, 1 rejected"), "{}", r.stdout);
    assert!(r.stdout.contains("line(s): 2\n"), "{}", r.stdout);
}

#[test]
fn out_naming_the_portfolio_is_refused_and_the_portfolio_is_left_alone() {
    let text = format!("{HEADER}\n{GOOD}\n");
    let input = file("same.csv", &text);
    // The same file spelled another way.
    let other = input.parent().expect("dir").join(".").join("same.csv");
    let r =
        run(tenor().env_remove("TENOR_BACKEND").args(["price", "--portfolio"]).arg(&input).arg("--out").arg(&other));
    assert_ne!(r.code, 0);
    assert!(
        r.stderr.contains("--out") && r.stderr.contains("--portfolio") && r.stderr.contains("same.csv"),
        "{}",
        r.stderr
    );
    assert_eq!(std::fs::read_to_string(&input).expect("still there"), text);
}

#[test]
fn header_problems_are_reported_apart_from_the_rows() {
    // Unknown column: the row is priced, the header is not counted as a rejected row.
    let (r, out) = tenor_price("extra2.csv", &format!("{HEADER},notional\n{GOOD},1000000\n"), &[]);
    assert_eq!(r.code, 1);
    assert!(out.lines().any(|l| l.starts_with("good,")), "{out}");
    assert!(r.stdout.contains("1 rows, 1 priced, 0 rejected"), "{}", r.stdout);
    assert!(
        r.stdout.contains("header      line 1: 1 problem(s)") && r.stdout.contains("data rows read"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("line(s): 1"), "{}", r.stdout);
    // Missing column: the data rows are named as rejected, the header problem on its own.
    let (r, _) = tenor_price(
        "nostrike2.csv",
        "id,kind,type,spot,maturity,rate,vol\nx,european,call,100,1,0.05,0.2\ny,european,put,100,1,0.05,0.2\n",
        &[],
    );
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("2 rows, 0 priced, 2 rejected"), "{}", r.stdout);
    assert!(r.stdout.contains("line(s): 2, 3") && r.stdout.contains("no data row was priced"), "{}", r.stdout);
    assert!(r.stderr.contains("nostrike2.csv:1: column `strike`: missing required column"), "{}", r.stderr);
}

#[test]
fn an_empty_id_and_a_header_only_file() {
    let e = bad_row("noid.csv", ",european,call,100,100,1,0.05,0,0.2,,,,", "id");
    assert!(e.contains("every row needs an id"), "{e}");
    let (r, _) = tenor_price("headeronly.csv", &format!("{HEADER}\n"), &[]);
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("headeronly.csv") && r.stderr.contains("no trade rows"), "{}", r.stderr);
}

/// The summary's phases: the backend opened on a thread beside the read (its open time and the
/// wait for it apart), then read, pricing and write, and the backend left to the operating
/// system at exit; with TENOR_EXIT_TEARDOWN=1 it is torn down and the teardown timed (ADR 0019).
#[test]
fn the_summary_reports_open_read_pricing_write_and_exit_apart() {
    let text = format!("{HEADER}\n{GOOD}\n");
    let (r, out) = tenor_price("phases.csv", &text, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(out.lines().nth(1).is_some_and(|l| l.starts_with("good,")), "{out}");
    let phases = r.stdout.lines().find(|l| l.starts_with("phases ")).expect("phases line");
    let figure = |after: &str| -> f64 {
        let rest = &phases[phases.find(after).unwrap_or_else(|| panic!("{after:?} missing: {phases}")) + after.len()..];
        rest.split(' ').next().and_then(|x| x.parse().ok()).unwrap_or_else(|| panic!("{after:?}: {phases}"))
    };
    let time: f64 = r
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("time "))
        .and_then(|t| t.trim().trim_end_matches(" s").parse().ok())
        .expect("time line");
    let (open, wait, read, pricing, write) =
        (figure("open backend "), figure("waited "), figure(", read "), figure("pricing "), figure("write "));
    // The phases on the command's own thread (the wait for the opening thread included) fit in
    // its time; the open itself ran beside the read.
    assert!(open >= 0.0 && read + wait + pricing + write <= time + 0.002, "{phases} / {time}");
    assert!(r.stdout.contains("exit        backend left to the operating system"), "{}", r.stdout);

    let input = file("phases.csv", &text);
    let torn = run(tenor()
        .env_remove("TENOR_BACKEND")
        .env("TENOR_EXIT_TEARDOWN", "1")
        .args(["price", "--paths", "2000", "--portfolio"])
        .arg(&input)
        .arg("--out")
        .arg(input.with_extension("torn.csv")));
    assert_eq!(torn.code, 0, "{}", torn.stderr);
    assert!(torn.stdout.lines().any(|l| l.starts_with("exit        backend torn down in ")), "{}", torn.stdout);
}

/// The backend opens while the portfolio is read: an unknown backend is still reported as
/// such (after the read), and an unreadable portfolio is reported first, as before.
#[test]
fn a_bad_backend_or_portfolio_is_reported_with_the_backend_opening_beside_the_read() {
    let (r, _) = tenor_price("nobackend.csv", &format!("{HEADER}\n{GOOD}\n"), &["--backend", "nope"]);
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("opening backend \"nope\"") && r.stderr.contains("unknown backend"), "{}", r.stderr);
    let missing = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("price_cli/does-not-exist.csv");
    let r = run(tenor().env_remove("TENOR_BACKEND").args(["price", "--backend", "nope", "--portfolio"]).arg(&missing));
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("does-not-exist.csv") && !r.stderr.contains("unknown backend"), "{}", r.stderr);
}
