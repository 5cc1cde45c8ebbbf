//! Batch launches (`mc_european_batch`, `mc_barrier_batch`, `mc_asian_batch`, `heston_qe_batch`) give bitwise the
//! prices, standard errors and Greeks of one launch per job (`BookRun { batch: false }`, the
//! pricer before batch kernels), on the CPU backend and on the simulated device with several
//! streams (whose hazard checker fails a missing wait), Greeks on and off, for a book of every
//! Monte Carlo kind: continuous and discrete barriers of every type (one already knocked out,
//! one already knocked in), geometric and arithmetic Asians with different fixing counts, and
//! Europeans, Heston calls and puts (QE Monte Carlo under `Engine::Mc`), replicated so each
//! batch holds many products.
use std::path::Path;

use tenor_conformance::compute::Counting;

use tenor_pricing::portfolio::{parse_portfolio, price_book_with, BookConfig, BookRun, Engine, PriceError, PricedRow};

const HEADER: &str =
    "id,kind,type,spot,strike,maturity,rate,dividend,vol,barrier,barrier_type,rebate,fixings,v0,kappa,theta,xi,rho\n";
const ROWS: [&str; 15] = [
    "c,european,call,100,95,0.75,0.04,0.015,0.25,,,,,,,,,",
    "p,european,put,100,105,0.5,0.04,0.015,0.3,,,,,,,,,",
    "bdo,barrier,call,100,100,1,0.05,0.01,0.2,90,down_out,2,,,,,,",
    "bdod,barrier,call,100,100,1,0.05,0.01,0.2,90,down_out,2,12,,,,,",
    "bui,barrier,put,100,100,1,0.05,0.01,0.2,110,up_in,0,,,,,,",
    "buid,barrier,put,100,95,0.6,0.03,0.0,0.25,110,up_in,1,52,,,,,",
    "bdi,barrier,call,100,105,0.8,0.02,0.01,0.3,85,down_in,0,7,,,,,",
    "buo,barrier,call,100,95,0.9,0.02,0.01,0.2,130,up_out,1.5,,,,,,",
    "knocked_out,barrier,call,100,100,1,0.05,0.01,0.2,100,down_out,3,,,,,,",
    "knocked_in,barrier,put,100,100,1,0.05,0.01,0.2,100,up_in,0,,,,,,",
    "g,asian_geo,call,100,100,1,0.05,0.01,0.2,,,,12,,,,,",
    "a,asian_arith,put,100,102,0.7,0.05,0.01,0.25,,,,5,,,,,",
    "a52,asian_arith,call,100,98,1.2,0.03,0.02,0.22,,,,52,,,,,",
    "h,heston,call,100,100,1,0.03,0.01,,,,,,0.04,1.5,0.04,0.5,-0.7",
    "hp,heston,put,100,110,2,0.02,0.0,,,,,,0.09,2,0.06,1,-0.5",
];

/// The rows, `copies` times with unique ids (so each batch holds several products per kernel).
fn book(copies: usize) -> Vec<tenor_pricing::portfolio::Trade> {
    let mut text = HEADER.to_owned();
    for k in 0..copies {
        for r in ROWS {
            let (id, rest) = r.split_once(',').expect("id");
            text += &format!("{id}_{k},{rest}\n");
        }
    }
    let p = parse_portfolio(text.as_bytes(), Path::new("batch.csv")).expect("readable");
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    p.trades
}

fn bits(r: &PricedRow) -> Vec<Option<u64>> {
    [Some(r.price), r.stderr, r.delta, r.gamma, r.vega, r.theta, r.rho].iter().map(|x| x.map(f64::to_bits)).collect()
}

fn assert_same(a: &[Result<PricedRow, PriceError>], b: &[Result<PricedRow, PriceError>], what: &str) {
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let (x, y) = (x.as_ref().expect("batched row"), y.as_ref().expect("per-job row"));
        assert_eq!((&x.id, &x.method), (&y.id, &y.method), "{what}: row {i}");
        assert_eq!(bits(x), bits(y), "{what}: row {i} ({}): batched {x:?} vs per-job {y:?}", x.id);
    }
}

#[test]
fn batched_book_is_bitwise_the_per_job_book_on_cpu_and_sim() {
    let trades = book(3);
    let cpu = Counting::cpu().expect("cpu");
    let sim = tenor_sim::sim(tenor_sim::SimConfig::default()).expect("sim");
    for (engine, greeks) in [(Engine::Mc, false), (Engine::Mc, true), (Engine::Auto, true)] {
        let cfg = BookConfig { engine, paths: 20_002, seed: 5, steps: 16, streams: 1, greeks };
        let per_job = price_book_with(&cpu, &trades, &cfg, &BookRun { batch: false }, &mut |_| {});
        let single = cpu.take_kernels();
        let mc_rows = per_job.iter().filter(|r| r.as_ref().is_ok_and(|r| r.method == "mc")).count();
        assert!(mc_rows >= 3 * 5, "{engine:?}: only {mc_rows} Monte Carlo rows");
        assert!(single.iter().any(|k| k == "mc_barrier") && single.iter().any(|k| k == "mc_asian"), "{single:?}");
        assert_eq!(single.iter().any(|k| k == "heston_qe_mc"), engine == Engine::Mc, "{engine:?}: {single:?}");
        let batched = price_book_with(&cpu, &trades, &cfg, &BookRun { batch: true }, &mut |_| {});
        // One chunk on one stream: one launch per kernel (European only under --engine mc).
        let mut launches = cpu.take_kernels();
        launches.sort();
        let want: &[&str] = match engine {
            Engine::Mc => &["heston_qe_batch", "mc_asian_batch", "mc_barrier_batch", "mc_european_batch"],
            Engine::Auto => &["mc_asian_batch", "mc_barrier_batch"],
        };
        assert_eq!(launches, want, "{engine:?} greeks {greeks}: batch launches");
        assert_same(&batched, &per_job, &format!("cpu {engine:?} greeks {greeks}"));
        let sim_cfg = BookConfig { streams: 3, ..cfg };
        let on_sim = price_book_with(&sim, &trades, &sim_cfg, &BookRun { batch: true }, &mut |_| {});
        assert_same(&on_sim, &per_job, &format!("sim {engine:?} greeks {greeks}"));
    }
}
