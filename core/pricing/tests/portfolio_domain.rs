//! Issue 17, "Messages" and "Numbers that are wrong": cells the engines cannot price are
//! refused when the portfolio is read, naming file, line and column, and the Heston vol of
//! variance is called `xi` (its column), never `sigma`.
use std::path::Path;

use tenor_pricing::portfolio::{parse_portfolio, RowProblem};

const HEADER: &str = "id,kind,type,spot,strike,maturity,rate,dividend,vol,barrier,barrier_type,rebate,fixings,v0,kappa,theta,xi,rho";

/// The Heston pricer needs `v0, kappa, theta, xi > 0` and `-1 < rho < 1`
/// (`HestonParams::validate`); each boundary value is refused at its cell.
#[test]
fn heston_cells_outside_the_pricers_domain_are_refused_at_parse_time() {
    let good = ["0.04", "2", "0.04", "0.5", "-0.7"];
    let names = ["v0", "kappa", "theta", "xi", "rho"];
    let cases = [(0, "0"), (2, "0"), (3, "0"), (4, "1"), (4, "-1"), (4, "1.5")];
    for (i, (col, value)) in cases.iter().enumerate() {
        let mut cells = good;
        cells[*col] = value;
        let text = format!("{HEADER}\nh,heston,call,100,100,1,0.05,0,,,,,,{}\n", cells.join(","));
        let p = parse_portfolio(text.as_bytes(), Path::new("book.csv")).expect("readable");
        assert!(p.trades.is_empty(), "case {i}: {} = {value} was accepted", names[*col]);
        assert_eq!(p.errors.len(), 1, "case {i}: {:?}", p.errors);
        let e = &p.errors[0];
        assert_eq!((e.location.line, e.location.column.as_deref()), (2, Some(names[*col])), "case {i}");
        assert!(matches!(e.problem, RowProblem::OutOfRange { .. }), "case {i}: {:?}", e.problem);
        assert!(e.to_string().starts_with("book.csv:") && !e.to_string().contains("sigma"), "{e}");
    }
    // Just inside the domain still parses.
    let text = format!("{HEADER}\nh,heston,call,100,100,1,0.05,0,,,,,,0.04,2,0.04,1e-3,0.999\n");
    let p = parse_portfolio(text.as_bytes(), Path::new("book.csv")).expect("readable");
    assert!(p.errors.is_empty(), "{:?}", p.errors);
}

/// A trade built in code (not read from a file) with `xi = 0` reaches the pricer: its error
/// names `xi`, the portfolio's name, not the pricer's internal `sigma`.
#[test]
fn heston_pricer_errors_name_xi() {
    use tenor_pricing::portfolio::{price_trade, BookConfig, HestonParams, HestonTrade, Trade, TradeKind};
    use tenor_pricing::types::{OptionType, Vanilla};
    let vanilla =
        Vanilla { option: OptionType::Call, spot: 100.0, strike: 100.0, maturity: 1.0, rate: 0.05, dividend: 0.0, vol: 0.0 };
    let params = HestonParams { v0: 0.04, kappa: 2.0, theta: 0.04, xi: 0.0, rho: -0.7 };
    let trade = Trade { id: "h".into(), line: 2, kind: TradeKind::Heston(HestonTrade { vanilla, params }) };
    let dev = tenor_cpu::cpu().expect("cpu");
    let e = price_trade(&dev, &trade, &BookConfig::default()).expect_err("xi = 0 cannot be priced");
    let text = e.to_string();
    assert!(text.contains("xi = 0") && !text.contains("sigma"), "{text}");
}
