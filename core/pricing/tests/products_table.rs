//! The product and engine tables (ADR 0033) against what the spec and the documentation say:
//! the kinds and columns of `docs/portfolio-csv.md` (a copy of `shared/spec/portfolio-csv.md`,
//! kept identical by a test), each kind's route under `--engine auto|mc` as the pricer's
//! documentation tables give it, every route on an engine row its product lists, and the engine
//! rows' codes.
use std::path::Path;

use tenor_pricing::engines::{Engine, Place, Route, ENGINES, NOT_PRICED_C_CODE};
use tenor_pricing::portfolio::{is_monte_carlo, parse_portfolio, Trade, COLUMNS};
use tenor_pricing::products::Kind;

fn spec() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/portfolio-csv.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The backticked words of the spec's table row for `column`.
fn spec_row_values(spec: &str, column: &str) -> Vec<String> {
    let row = spec.lines().find(|l| l.starts_with(&format!("| {column} |"))).expect("row in the spec");
    let values = row.split('|').nth(2).expect("meaning cell");
    values.split('`').skip(1).step_by(2).map(str::to_owned).collect()
}

#[test]
fn the_kinds_and_columns_are_the_specs() {
    let spec = spec();
    let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(kinds, spec_row_values(&spec, "kind"), "the product table's kinds, in the spec's order");
    // The spec's column table: one row per column, the Heston parameters in one row.
    let start = spec.find("| column | meaning").expect("column table");
    let columns: Vec<String> = spec[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .flat_map(|l| {
            l.split('|').nth(1).unwrap_or_default().split(',').map(|c| c.trim().to_owned()).collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(COLUMNS.to_vec(), columns, "common columns, then each kind's own in the table's order");
}

/// One trade per case, under each engine choice, and the engine row the pricer's
/// documentation gives it (`tenor price`'s table: closed forms under auto where they exist,
/// the Monte Carlo engines under mc, an American call without dividends by the European closed
/// form, every trade at maturity 0 by its payoff).
#[test]
fn every_kind_routes_as_documented_and_only_to_engines_it_lists() {
    let book = "id,kind,type,spot,strike,maturity,rate,dividend,vol,barrier,barrier_type,rebate,fixings,v0,kappa,theta,xi,rho\n\
        e,european,call,100,100,1,0.05,0,0.2,,,,,,,,,\n\
        ap,american,put,100,100,1,0.05,0,0.2,,,,,,,,,\n\
        ac,american,call,100,100,1,0.05,0,0.2,,,,,,,,,\n\
        bc,barrier,call,100,100,1,0.05,0,0.2,90,down_out,,,,,,,\n\
        bd,barrier,call,100,100,1,0.05,0,0.2,90,down_out,,12,,,,,\n\
        g,asian_geo,call,100,100,1,0.05,0,0.2,,,,12,,,,,\n\
        r,asian_arith,call,100,100,1,0.05,0,0.2,,,,12,,,,,\n\
        h,heston,call,100,100,1,0.05,0,,,,,,0.04,2,0.04,0.5,-0.7\n\
        x,asian_arith,put,100,100,0,0.05,0,0.2,,,,12,,,,,\n";
    let parsed = parse_portfolio(book.as_bytes(), Path::new("routes.csv")).expect("readable");
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let want: [(&str, &str, &str); 9] = [
        ("e", "analytic", "mc"),
        ("ap", "pde", "lsm"),
        ("ac", "pde", "analytic"),
        ("bc", "analytic", "mc"),
        ("bd", "mc", "mc"),
        ("g", "analytic", "mc"),
        ("r", "mc", "mc"),
        ("h", "analytic", "mc"),
        ("x", "intrinsic", "intrinsic"),
    ];
    for (t, (id, auto, mc)) in parsed.trades.iter().zip(want) {
        assert_eq!(t.id, id);
        for (engine, method) in [(Engine::Auto, auto), (Engine::Mc, mc)] {
            let route = t.kind.route(engine);
            assert_eq!(route.engine().method, method, "{id} under {}", engine.as_str());
            assert!(t.kind().engines().contains(&route.engine()), "{id}: {} is not among its engines", method);
            let on_device = matches!(route, Route::Mc(_) | Route::Lsm(_));
            assert_eq!(on_device, route.engine().place == Place::Device, "{id}");
        }
    }
    let kinds: Vec<Kind> = parsed.trades.iter().map(Trade::kind).collect();
    assert!(Kind::ALL.iter().all(|k| kinds.contains(k)), "every kind of the table is covered");
}

#[test]
fn engine_rows_have_distinct_methods_and_codes_and_the_monte_carlo_ones_are_mc_and_lsm() {
    let mut methods: Vec<&str> = ENGINES.iter().map(|e| e.method).collect();
    let mut codes: Vec<u32> = ENGINES.iter().map(|e| e.c_code).collect();
    methods.sort_unstable();
    methods.dedup();
    codes.sort_unstable();
    codes.dedup();
    assert_eq!((methods.len(), codes.len()), (ENGINES.len(), ENGINES.len()));
    assert!(!codes.contains(&NOT_PRICED_C_CODE));
    // The C ABI's codes before the table (TENOR_METHOD_ANALYTIC 0 ... INTRINSIC 5) stay.
    let code = |m: &str| ENGINES.iter().find(|e| e.method == m).map(|e| e.c_code);
    assert_eq!(
        [code("analytic"), code("pde"), code("mc"), code("lsm"), code("intrinsic")],
        [Some(0), Some(1), Some(2), Some(4), Some(5)]
    );
    let mc: Vec<&str> = ENGINES.iter().map(|e| e.method).filter(|m| is_monte_carlo(m)).collect();
    assert_eq!(mc, ["mc", "lsm"]);
    assert!(!is_monte_carlo("tree"), "a method no row has");
    // The C kind codes before the table stay, and none repeats; heston has no C fields.
    let kinds: Vec<(&str, Option<u32>)> = Kind::ALL.iter().map(|k| (k.as_str(), k.c_code())).collect();
    assert_eq!(
        kinds,
        [
            ("european", Some(0)),
            ("american", Some(1)),
            ("barrier", Some(2)),
            ("asian_geo", Some(3)),
            ("asian_arith", Some(4)),
            ("heston", None)
        ]
    );
    for k in Kind::ALL {
        assert_eq!(k.c_code().and_then(Kind::from_c_code), k.c_code().map(|_| k));
    }
    assert_eq!(Engine::ALL.map(|e| (e.as_str(), e.code())), [("auto", 0), ("mc", 1)]);
    assert_eq!(Engine::parse("mc"), Some(Engine::Mc));
    assert_eq!(Engine::from_code(2), None);
}
