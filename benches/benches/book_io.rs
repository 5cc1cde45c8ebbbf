//! The host side of `tenor price` on the 20x example book (38,920 trades): reading the portfolio
//! CSV (`tenor_pricing::portfolio::parse_portfolio`, from memory) and formatting the output CSV
//! (`write_priced`, into a sink), the two costs issue 20 asked to bring to a few tens of
//! milliseconds (ADR 0019).
//!
//! `cargo bench -p tenor-benches --bench book_io`
#![allow(missing_docs)] // criterion_group! generates undocumented functions

use std::io::Write;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tenor_pricing::portfolio::{parse_portfolio, write_priced, PricedRow};

/// `examples/spx_book.csv` with every row `copies` times, ids suffixed `_0` .. (as
/// `scripts/gpu-book` builds the 20x book).
fn replicated_book(copies: usize) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/spx_book.csv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let mut out = Vec::new();
    let _ = writeln!(out, "{}", lines.next().unwrap_or_default());
    let rows: Vec<&str> = lines.filter(|l| !l.is_empty()).collect();
    for k in 0..copies {
        for l in &rows {
            let (id, rest) = l.split_once(',').unwrap_or((l, ""));
            let _ = writeln!(out, "{id}_{k},{rest}");
        }
    }
    out
}

fn book_io(c: &mut Criterion) {
    let bytes = replicated_book(20);
    let file = Path::new("book20.csv");
    let parsed = parse_portfolio(&bytes[..], file).expect("the 20x book reads");
    assert_eq!(parsed.trades.len(), 38_920);
    // Rows with as many significant digits as real prices and Greeks have.
    let rows: Vec<PricedRow> = parsed
        .trades
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let x = t.kind.vanilla().strike * (0.1 + i as f64 * 1.234_567_891e-7);
            PricedRow {
                id: t.id.clone(),
                price: x,
                stderr: (i % 20 == 0).then_some(x * 1.3e-4),
                delta: Some(0.5 + x * 1e-9),
                gamma: Some(x * 1.7e-8),
                vega: Some(x * 0.31),
                theta: Some(-x * 0.017),
                rho: Some(x * 0.27),
                method: "analytic".into(),
                backend: "host".into(),
            }
        })
        .collect();
    let mut g = c.benchmark_group("book_io_20x");
    g.sample_size(20);
    g.throughput(Throughput::Elements(38_920));
    g.bench_function("read_portfolio", |b| {
        b.iter(|| parse_portfolio(std::hint::black_box(&bytes[..]), file).map(|p| p.trades.len()))
    });
    g.bench_function("write_priced", |b| b.iter(|| write_priced(std::io::sink(), std::hint::black_box(&rows))));
    g.finish();
}

criterion_group!(benches, book_io);
criterion_main!(benches);
