//! Issue 17, "Messages" and "Numbers that are wrong": cells the engines cannot price are
//! refused when the portfolio is read, naming file, line and column, and the Heston vol of
//! variance is called `xi` (its column), never `sigma`.
use std::path::Path;

use tenor_pricing::portfolio::{parse_portfolio, RowProblem};

const HEADER: &str =
    "id,kind,type,spot,strike,maturity,rate,dividend,vol,barrier,barrier_type,rebate,fixings,v0,kappa,theta,xi,rho";

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
    let vanilla = Vanilla {
        option: OptionType::Call,
        spot: 100.0,
        strike: 100.0,
        maturity: 1.0,
        rate: 0.05,
        dividend: 0.0,
        vol: 0.0,
    };
    let params = HestonParams { v0: 0.04, kappa: 2.0, theta: 0.04, xi: 0.0, rho: -0.7 };
    let trade = Trade { id: "h".into(), line: 2, kind: TradeKind::Heston(HestonTrade { vanilla, params }) };
    let dev = tenor_cpu::cpu().expect("cpu");
    let e = price_trade(&dev, &trade, &BookConfig::default()).expect_err("xi = 0 cannot be priced");
    let text = e.to_string();
    assert!(text.contains("xi = 0") && !text.contains("sigma"), "{text}");
}

/// Issue 17: `maturity` 0 was refused although the spec calls only negative values bad. An
/// option at expiry is priced at its payoff, with the Greeks' limits; hand-computed values and
/// the Black-Scholes closed form one second before expiry agree.
#[test]
fn maturity_zero_is_priced_at_its_payoff_with_the_greeks_limits() {
    use tenor_pricing::analytic::black_scholes;
    use tenor_pricing::portfolio::{price_book, BookConfig, Engine};
    use tenor_pricing::types::{OptionType, Vanilla};
    let text = format!(
        "{HEADER}\n\
         c_itm,european,call,110,100,0,0.05,0.02,0.2,,,,,,,,,\n\
         p_otm,european,put,110,100,0,0.05,0.02,0.2,,,,,,,,,\n\
         c_atm,european,call,100,100,0,0.05,0.02,0.2,,,,,,,,,\n\
         a_itm,american,put,90,100,0,0.05,0.02,0.2,,,,,,,,,\n\
         do_alive,barrier,call,110,100,0,0.05,0.02,0.2,95,down_out,3,,,,,,\n\
         di_dead,barrier,call,110,100,0,0.05,0.02,0.2,95,down_in,3,,,,,,\n\
         uo_hit,barrier,put,90,100,0,0.05,0.02,0.2,90,up_out,2,12,,,,,\n\
         g,asian_geo,call,104,100,0,0.05,0.02,0.2,,,,12,,,,,\n\
         r,asian_arith,put,96,100,0,0.05,0.02,0.2,,,,12,,,,,\n\
         h,heston,put,90,100,0,0.05,0.02,,,,,,0.04,2,0.04,0.5,-0.7\n"
    );
    let p = parse_portfolio(text.as_bytes(), Path::new("book.csv")).expect("readable");
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let dev = tenor_cpu::cpu().expect("cpu");
    // (price, delta, gamma, theta): hand-computed payoffs and limits; None = written empty.
    let want: [(f64, f64, Option<f64>, Option<f64>); 10] = [
        (10.0, 1.0, Some(0.0), Some(0.02 * 110.0 - 0.05 * 100.0)),
        (0.0, 0.0, Some(0.0), Some(0.0)),
        (0.0, 0.5, None, None),
        (10.0, -1.0, Some(0.0), Some(0.0)), // American put: r K > q S, exercised, theta 0
        (10.0, 1.0, Some(0.0), None),
        (3.0, 0.0, Some(0.0), None),
        (2.0, 0.0, Some(0.0), None), // checked apart below
        (4.0, 1.0, Some(0.0), None),
        (4.0, -1.0, Some(0.0), None),
        (10.0, -1.0, Some(0.0), Some(0.05 * 100.0 - 0.02 * 90.0)),
    ];
    for engine in [Engine::Auto, Engine::Mc] {
        let rows = price_book(&dev, &p.trades, &BookConfig { engine, ..BookConfig::default() }, &mut |_| {});
        for (r, (trade, w)) in rows.iter().zip(p.trades.iter().zip(want)) {
            let r = r.as_ref().unwrap_or_else(|e| panic!("{}: {e}", trade.id));
            let label = format!("{} ({engine:?}): {r:?}", trade.id);
            if trade.id == "uo_hit" {
                // On the barrier counts as breached: a knock-out pays its rebate.
                assert_eq!((r.price, r.delta, r.gamma), (2.0, Some(0.0), Some(0.0)), "{label}");
                continue;
            }
            assert_eq!((r.price, r.delta, r.gamma, r.theta), (w.0, Some(w.1), w.2, w.3), "{label}");
            assert_eq!(
                (r.vega, r.rho, r.method.as_str(), r.stderr),
                (Some(0.0), Some(0.0), "intrinsic", None),
                "{label}"
            );
        }
    }
    // The closed form one second before expiry tends to the same limits.
    let v = Vanilla {
        option: OptionType::Call,
        spot: 110.0,
        strike: 100.0,
        maturity: 1.0 / 31_557_600.0,
        rate: 0.05,
        dividend: 0.02,
        vol: 0.2,
    };
    let g = black_scholes(&v).expect("bs");
    assert!((g.price - 10.0).abs() < 1e-5 && (g.delta - 1.0).abs() < 1e-9 && g.gamma.abs() < 1e-9, "{g:?}");
    assert!((g.theta - (0.02 * 110.0 - 0.05 * 100.0)).abs() < 1e-3, "theta {}", g.theta);
}
