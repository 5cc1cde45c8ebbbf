//! The basket job file (`../shared/spec/basket-job.md`): the example parses to the values it
//! holds, and every kind of bad input is refused before any work with the key named.

use tenor_pricing::basket::{price_basket, BasketError, BasketJob, Exercise, DEFAULT_SIMULATION};
use tenor_pricing::types::OptionType;

const BASELINE: &str = include_str!("../../../examples/basket/baseline.toml");

/// A valid two-asset job; `edit` replaces one line (`from` -> `to`).
const TWO: &str = r#"
[option]
payoff = "call"
exercise = "european"
strike = 100.0
maturity = 0.5
weights = [0.5, 0.5]

[market]
rate = -0.01

[[asset]]
name = "X"
spot = 100
dividend = 0.0
v0 = 0.04
kappa = 1.5
theta = 0.04
xi = 0.3
rho = -0.7

[[asset]]
name = "Y"
spot = 50.0
dividend = 0.02
v0 = 0.09
kappa = 2.0
theta = 0.05
xi = 0.5
rho = -0.2

[correlation]
prices = [[1.0, 0.3], [0.3, 1.0]]
"#;

fn edit(from: &str, to: &str) -> String {
    assert!(TWO.contains(from), "the fixture has no {from:?}");
    TWO.replacen(from, to, 1)
}

/// The key and reason of an `Invalid` or `WorkLimit` error.
fn refused(text: &str) -> (String, String) {
    match BasketJob::from_toml(text) {
        Err(BasketError::Invalid { key, reason } | BasketError::WorkLimit { key, reason }) => (key, reason),
        other => panic!("expected a refusal naming a key, got {other:?}"),
    }
}

#[test]
fn the_example_parses_to_its_values() {
    let job = BasketJob::from_toml(BASELINE).expect("the example is valid");
    assert_eq!(job.n(), 5);
    assert_eq!(job.option.payoff, OptionType::Put);
    assert_eq!(job.option.exercise, Exercise::American);
    assert_eq!((job.option.strike, job.option.maturity), (100.0, 1.0));
    assert_eq!(job.option.weights, vec![0.2; 5]);
    assert_eq!(job.rate, 0.02);
    assert_eq!(job.assets[1].name, "A2");
    assert_eq!((job.assets[1].spot, job.assets[1].dividend, job.assets[1].rho), (95.0, 0.01, -0.6));
    assert_eq!(job.prices[3][4], 0.4);
    assert_eq!((job.simulation.paths, job.simulation.steps, job.simulation.seed), (25_000, 252, 42));
    // The default factor correlation: prices, rho_i on (i, N + i), the rest 0.
    let c = job.factor_correlation();
    assert_eq!((c[1][6], c[6][1], c[1][7], c[6][6], c[5][6]), (-0.6, -0.6, 0.0, 1.0, 0.0));
}

#[test]
fn simulation_defaults_and_integers_for_numbers() {
    let job = BasketJob::from_toml(TWO).expect("valid");
    assert_eq!(job.simulation, DEFAULT_SIMULATION);
    assert_eq!(job.assets[0].spot, 100.0, "an integer where a number is expected");
    assert_eq!(job.option.payoff, OptionType::Call);
    assert_eq!(job.rate, -0.01, "a negative rate is allowed");
}

#[test]
fn a_syntax_error_names_its_line_and_column() {
    let text = TWO.replace("strike = 100.0", "strike = = 100.0");
    match BasketJob::from_toml(&text) {
        Err(BasketError::Syntax { line, column, .. }) => assert_eq!((line, column), (5, 10)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn bad_values_name_their_key() {
    let cases: Vec<(String, &str, &str)> = vec![
        (edit("strike = 100.0", "strike = -1.0"), "option.strike", "> 0"),
        (edit("maturity = 0.5", "maturity = 0"), "option.maturity", "> 0"),
        (edit("payoff = \"call\"", "payoff = \"straddle\""), "option.payoff", "\"call\" or \"put\""),
        (edit("exercise = \"european\"", "exercise = \"bermudan\""), "option.exercise", "american"),
        (edit("weights = [0.5, 0.5]", "weights = [0.5, 0.25, 0.25]"), "option.weights", "3 weights for 2 assets"),
        (edit("weights = [0.5, 0.5]", "weights = [0.5, nan]"), "option.weights[1]", "finite"),
        (edit("weights = [0.5, 0.5]", "weights = [0.5, \"a\"]"), "option.weights[1]", "expected a number"),
        (edit("rate = -0.01", "rate = inf"), "market.rate", "finite"),
        (edit("kappa = 2.0", "kappa = 0.0"), "asset[1].kappa", "> 0"),
        (edit("v0 = 0.09", "v0 = -0.09"), "asset[1].v0", "> 0"),
        // Past 1e150 QE's moment match overflows: the paths were NaN and the job priced 0 +/- 0.
        (edit("v0 = 0.09", "v0 = 1e308"), "asset[1].v0", "<= 1e150"),
        (edit("theta = 0.05", "theta = 1e200"), "asset[1].theta", "<= 1e150"),
        (edit("xi = 0.3", "xi = 0"), "asset[0].xi", "> 0"),
        (edit("rho = -0.2", "rho = -1.0"), "asset[1].rho", "(-1, 1)"),
        (edit("theta = 0.05", "theta = \"0.05\""), "asset[1].theta", "expected a number, found a string"),
        (edit("name = \"Y\"", "name = \"X\""), "asset[1].name", "unique"),
        (edit("spot = 50.0\n", ""), "asset[1].spot", "missing"),
        (edit("dividend = 0.0\n", "dividend = 0.0\nvol = 0.2\n"), "asset[0].vol", "unknown key"),
        (edit("[market]", "[markets]"), "markets", "unknown key"),
        (edit("[[asset]]\nname = \"X\"", "[[asset]]\nname = \"\""), "asset[0].name", "empty"),
        (
            edit("prices = [[1.0, 0.3], [0.3, 1.0]]", "prices = [[1.0, 0.3], [0.2, 1.0]]"),
            "correlation.prices[0][1]",
            "symmetric",
        ),
        (
            edit("prices = [[1.0, 0.3], [0.3, 1.0]]", "prices = [[0.9, 0.3], [0.3, 1.0]]"),
            "correlation.prices[0][0]",
            "diagonal",
        ),
        (
            edit("prices = [[1.0, 0.3], [0.3, 1.0]]", "prices = [[1.0, 1.3], [1.3, 1.0]]"),
            "correlation.prices[0][1]",
            "[-1, 1]",
        ),
        (
            edit("prices = [[1.0, 0.3], [0.3, 1.0]]", "prices = [[1.0, 0.3]]"),
            "correlation.prices",
            "1 rows; expected 2",
        ),
        (
            edit("prices = [[1.0, 0.3], [0.3, 1.0]]", "prices = [[1.0, 0.3], [0.3]]"),
            "correlation.prices[1]",
            "1 entries",
        ),
        (edit("prices = [[1.0, 0.3], [0.3, 1.0]]", ""), "correlation.prices", "required when N > 1"),
    ];
    for (text, key, why) in cases {
        let (k, reason) = refused(&text);
        assert_eq!(k, key, "{reason}");
        assert!(reason.contains(why), "{key}: {reason:?} does not say {why:?}");
    }
}

#[test]
fn no_assets_is_refused() {
    let (key, reason) = refused("[option]\npayoff = \"put\"\nexercise = \"american\"\nstrike = 1.0\nmaturity = 1.0\nweights = []\n[market]\nrate = 0.0\n");
    assert_eq!(key, "asset");
    assert!(reason.contains("at least one"), "{reason}");
    let (key, reason) = refused("asset = []\n[option]\npayoff = \"put\"\nexercise = \"american\"\nstrike = 1.0\nmaturity = 1.0\nweights = []\n[market]\nrate = 0.0\n");
    assert_eq!(key, "asset");
    assert!(reason.contains("N must be >= 1"), "{reason}");
}

/// Price correlations 0.9 and variance correlations of -0.9 and 0.9 cannot hold together:
/// `prices - diag(rho^2)` has a negative eigenvalue, and the message says so.
#[test]
fn a_matrix_that_is_not_positive_semi_definite_is_refused_with_why() {
    let text = edit("rho = -0.7", "rho = -0.9")
        .replacen("rho = -0.2", "rho = 0.9", 1)
        .replace("prices = [[1.0, 0.3], [0.3, 1.0]]", "prices = [[1.0, 0.9], [0.9, 1.0]]");
    let (key, reason) = refused(&text);
    assert_eq!(key, "correlation.prices");
    assert!(reason.contains("not positive semi-definite") && reason.contains("eigenvalue -"), "{reason}");
    // A singular but positive semi-definite matrix (perfectly correlated prices) is valid.
    let text = edit("prices = [[1.0, 0.3], [0.3, 1.0]]", "prices = [[1.0, 1.0], [1.0, 1.0]]")
        .replacen("rho = -0.7", "rho = 0.0", 1)
        .replacen("rho = -0.2", "rho = 0.0", 1);
    BasketJob::from_toml(&text).expect("positive semi-definite is enough");
}

#[test]
fn a_full_matrix_must_agree_with_prices_and_rho() {
    let full = |x: f64| {
        format!("full = [[1.0, 0.3, -0.7, 0.0], [0.3, 1.0, 0.0, -0.2], [-0.7, 0.0, 1.0, {x}], [0.0, -0.2, {x}, 1.0]]\n")
    };
    let ok = format!("{TWO}{}", full(0.1));
    let job = BasketJob::from_toml(&ok).expect("a valid full matrix");
    assert_eq!(job.factor_correlation()[2][3], 0.1);
    let bad_rho = ok
        .replace("[0.3, 1.0, 0.0, -0.2]", "[0.3, 1.0, 0.0, -0.3]")
        .replace("[0.0, -0.2, 0.1, 1.0]", "[0.0, -0.3, 0.1, 1.0]");
    let (key, reason) = refused(&bad_rho);
    assert_eq!(key, "correlation.full[1][3]");
    assert!(reason.contains("asset[1].rho"), "{reason}");
    let (key, reason) = refused(&format!("{TWO}{}", full(2.0)));
    assert_eq!(key, "correlation.full[2][3]");
    assert!(reason.contains("[-1, 1]"), "{reason}");
}

#[test]
fn sizes_over_the_limits_are_refused() {
    let sim = |s: &str| format!("{TWO}\n[simulation]\n{s}\n");
    let (key, reason) = refused(&sim("paths = 1"));
    assert_eq!(key, "simulation.paths");
    assert!(reason.contains(">= 2"), "{reason}");
    let (key, _) = refused(&sim("steps = 0"));
    assert_eq!(key, "simulation.steps");
    let (key, reason) = refused(&sim("paths = 100000000\nsteps = 100000"));
    assert_eq!(key, "simulation.paths");
    assert!(reason.contains("over"), "{reason}");
    let (key, _) = refused(&sim("steps = 200000"));
    assert_eq!(key, "simulation.steps");
    let (key, _) = refused(&sim("seed = -1"));
    assert_eq!(key, "simulation.seed");
    let (key, _) = refused(&sim("paths = 2.5"));
    assert_eq!(key, "simulation.paths");
    // 17 assets: over the kernels' 16.
    let mut many = String::from("[option]\npayoff = \"put\"\nexercise = \"european\"\nstrike = 1.0\nmaturity = 1.0\n");
    many += &format!("weights = [{}]\n[market]\nrate = 0.0\n", vec!["0.1"; 17].join(", "));
    for i in 0..17 {
        many += &format!("[[asset]]\nname = \"a{i}\"\nspot = 1.0\ndividend = 0.0\nv0 = 0.04\nkappa = 1.0\ntheta = 0.04\nxi = 0.1\nrho = 0.0\n");
    }
    let (key, reason) = refused(&many);
    assert_eq!(key, "asset");
    assert!(reason.contains("at most 16"), "{reason}");
}

/// The engine validates again, so a job changed after parsing cannot run with a bad size.
#[test]
fn the_engine_refuses_an_invalid_job_before_any_work() {
    let mut job = BasketJob::from_toml(TWO).expect("valid");
    job.simulation.paths = 1;
    let dev = tenor_cpu::cpu().expect("cpu");
    match price_basket(&dev, &job, false) {
        Err(BasketError::Invalid { key, .. }) => assert_eq!(key, "simulation.paths"),
        other => panic!("{other:?}"),
    }
}

/// `docs/basket-job.md` carries the shared specification into a clone: it must stay the same
/// text.
#[test]
fn the_format_document_in_docs_is_the_shared_specification() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let ours = std::fs::read_to_string(root.join("docs/basket-job.md")).expect("docs/basket-job.md");
    let spec_path = tenor_testdata::shared("spec/basket-job.md");
    let spec = std::fs::read_to_string(&spec_path).unwrap_or_else(|e| panic!("{}: {e}", spec_path.display()));
    let body = ours.split_once("-->\n\n").map_or(ours.as_str(), |(_, b)| b);
    assert_eq!(body, spec, "docs/basket-job.md differs from {}", spec_path.display());
}

/// `greeks.csv`: the spec's header, assets by name (quoted where the name needs it), shortest
/// round-trip numbers, an empty stderr where none is estimated.
#[test]
fn greeks_csv_names_the_assets_and_writes_round_trip_numbers() {
    use tenor_pricing::basket::{greeks_csv, GreekRow};
    let job = BasketJob::from_toml(&TWO.replacen("name = \"Y\"", "name = \"Y, \\\"b\\\"\"", 1)).expect("valid");
    let rows = vec![
        GreekRow { greek: "price", asset: None, other: None, value: 0.1 + 0.2, stderr: Some(1e-20) },
        GreekRow { greek: "cross_gamma", asset: Some(0), other: Some(1), value: -2.5, stderr: None },
    ];
    let text = greeks_csv(&job, &rows);
    assert_eq!(
        text,
        "greek,asset,other,value,stderr\nprice,,,0.30000000000000004,1e-20\ncross_gamma,X,\"Y, \"\"b\"\"\",-2.5,\n"
    );
}
