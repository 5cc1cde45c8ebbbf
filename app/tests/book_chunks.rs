//! A book priced in chunks (`book_chunks`: the Dask door's library half) is the one-process
//! book bit for bit, whatever the chunk count, and names problems by the whole file's lines.

use std::path::{Path, PathBuf};

use tenor_app::book::chunks::{plan, price_chunk, trade_label, ChunkError};
use tenor_app::book::collect::{price_parsed, PricedBook};
use tenor_pricing::portfolio::{self, BookConfig, BookRun, Engine, PricedRow};

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/spx_book.csv")
}

fn bits(r: &PricedRow) -> (String, u64, Vec<Option<u64>>, String, String) {
    let o = |x: Option<f64>| x.map(f64::to_bits);
    (
        r.id.clone(),
        r.price.to_bits(),
        vec![o(r.stderr), o(r.delta), o(r.gamma), o(r.vega), o(r.theta), o(r.rho)],
        r.method.clone(),
        r.backend.clone(),
    )
}

/// Every chunk priced on its own, the rows put back in input order by line.
fn chunked(file: &Path, text: &[u8], config: &BookConfig, chunks: usize) -> (Vec<PricedRow>, Vec<String>) {
    let dev = tenor_registry::open("cpu").expect("cpu");
    let parsed = portfolio::parse_portfolio(text, file).expect("book");
    let mut rows: Vec<(u64, PricedRow)> = Vec::new();
    let mut failures: Vec<(u64, String)> = Vec::new();
    for c in plan(&parsed, file, config, chunks).expect("plan") {
        let b =
            price_chunk(dev.as_ref(), c.text.as_bytes(), &c.lines, file, config, &BookRun { batch: true }, &mut |_| {})
                .expect("chunk");
        assert!(b.read_errors.is_empty());
        rows.extend(b.lines.iter().copied().zip(b.rows));
        failures.extend(b.trade_failures.into_iter().map(|f| (f.line, f.message)));
    }
    rows.sort_by_key(|r| r.0);
    failures.sort();
    (rows.into_iter().map(|r| r.1).collect(), failures.into_iter().map(|f| f.1).collect())
}

fn whole(file: &Path, text: &[u8], config: &BookConfig) -> PricedBook {
    let dev = tenor_registry::open("cpu").expect("cpu");
    let parsed = portfolio::parse_portfolio(text, file).expect("book");
    price_parsed(dev.as_ref(), &parsed, file, config, &BookRun { batch: true }, &mut |_| {})
}

#[test]
fn chunks_give_the_one_process_rows_bit_for_bit() {
    let file = example();
    let text = std::fs::read(&file).expect("example book");
    let mc = BookConfig { engine: Engine::Mc, paths: 512, steps: 8, greeks: false, ..BookConfig::default() };
    let auto = BookConfig { paths: 1000, ..BookConfig::default() };
    for config in [mc, auto] {
        let one = whole(&file, &text, &config);
        assert_eq!(one.rows.len(), 1946);
        for chunks in [1, 2, 7, 5000] {
            let (rows, failures) = chunked(&file, &text, &config, chunks);
            assert_eq!(
                rows.iter().map(bits).collect::<Vec<_>>(),
                one.rows.iter().map(bits).collect::<Vec<_>>(),
                "{chunks} chunks"
            );
            assert!(failures.is_empty());
        }
    }
}

#[test]
fn the_plan_balances_cost_and_keeps_every_trade_once_in_order() {
    let file = example();
    let parsed = portfolio::read_portfolio(&file).expect("book");
    let config = BookConfig { paths: 1000, ..BookConfig::default() };
    let chunks = plan(&parsed, &file, &config, 4).expect("plan");
    assert_eq!(chunks.len(), 4);
    let mut lines: Vec<u64> = chunks.iter().flat_map(|c| c.lines.clone()).collect();
    assert!(chunks.iter().all(|c| c.lines.windows(2).all(|w| w[0] < w[1])), "input order inside a chunk");
    lines.sort_unstable();
    assert_eq!(lines, parsed.trades.iter().map(|t| t.line).collect::<Vec<_>>(), "every trade once");
    // longest processing time first: no chunk is over the mean by more than the largest trade
    let mean = chunks.iter().map(|c| c.load).sum::<f64>() / 4.0;
    let largest = parsed
        .trades
        .iter()
        .map(|t| match portfolio::trade_cost(t, &config) {
            portfolio::TradeCost::Device(c) | portfolio::TradeCost::Host(c) => c,
        })
        .fold(0.0, f64::max);
    assert!(chunks.iter().all(|c| c.load <= mean + largest), "{:?}", chunks.iter().map(|c| c.load).collect::<Vec<_>>());
    let t = &parsed.trades[0];
    assert_eq!(chunks.iter().find(|c| c.lines[0] == t.line).map(|c| c.labels[0].clone()), Some(trade_label(&file, t)));
    assert_eq!(trade_label(&file, t), format!("{}:2: trade {:?} ({})", file.display(), t.id, t.kind()));
}

#[test]
fn a_refused_trade_is_named_by_the_whole_files_line() {
    // A Heston row whose Monte Carlo work is over the row limit is refused by the pricer (not
    // the reader), on line 4 of the book; chunked, the message names line 4 of the book too.
    let file = Path::new("book.csv");
    let text = "id,kind,type,spot,strike,maturity,rate,dividend,vol,v0,kappa,theta,xi,rho\n\
                a,european,call,100,100,1,0.01,0,0.2,,,,,\n\
                b,european,put,100,90,1,0.01,0,0.2,,,,,\n\
                c,heston,call,100,100,1,0.01,0,,0.04,1000,0.04,0.5,-0.7\n";
    let config = BookConfig { engine: Engine::Mc, paths: 100_000, ..BookConfig::default() };
    let one = whole(file, text.as_bytes(), &config);
    assert_eq!(one.trade_failures.len(), 1, "the oracle refuses the Heston row");
    assert_eq!(one.trade_failures[0].line, 4);
    for chunks in [1, 3] {
        let (rows, failures) = chunked(file, text.as_bytes(), &config, chunks);
        assert_eq!(rows.iter().map(bits).collect::<Vec<_>>(), one.rows.iter().map(bits).collect::<Vec<_>>());
        assert_eq!(failures, vec![one.trade_failures[0].message.clone()]);
        assert!(failures[0].starts_with("book.csv:4: trade \"c\" (heston): "), "{}", failures[0]);
    }
}

#[test]
fn a_chunk_that_does_not_read_back_whole_is_refused() {
    let dev = tenor_registry::open("cpu").expect("cpu");
    let file = Path::new("book.csv");
    let text = "id,kind,type,spot,strike,maturity,rate,vol\na,european,call,100,100,1,0.01,0.2\n";
    let config = BookConfig::default();
    let run = BookRun { batch: true };
    let lines_mismatch = price_chunk(dev.as_ref(), text.as_bytes(), &[5, 9], file, &config, &run, &mut |_| {});
    assert!(
        matches!(lines_mismatch, Err(ChunkError::Unreadable { ref reason, .. }) if reason == "1 trades for 2 lines")
    );
    let bad = "id,kind,type,spot,strike,maturity,rate,vol\na,european,call,100,100,1,0.01,-0.2\n";
    let refused = price_chunk(dev.as_ref(), bad.as_bytes(), &[5], file, &config, &run, &mut |_| {});
    assert!(matches!(refused, Err(ChunkError::Unreadable { .. })));
}
