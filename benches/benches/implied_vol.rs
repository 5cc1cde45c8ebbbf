//! Implied volatilities of a whole SPX chain through the `implied_vol` kernel on the CPU backend
//! (vols/s; the timed region includes upload, launch and download).
#![allow(missing_docs)] // criterion_group! generates undocumented functions
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tenor_market::iv::{implied_vols, IvRequest};
use tenor_market::quotes::Chain;

fn requests(chain: &Chain) -> Vec<IvRequest> {
    let (fwds, _) = tenor_market::parity::parity_forwards(chain);
    chain
        .quotes
        .iter()
        .filter(|q| q.is_two_sided())
        .filter_map(|q| {
            let f = fwds.iter().find(|f| f.slice == (q.expiry, q.settlement))?;
            Some(IvRequest {
                price: q.mid(),
                forward: f.forward,
                strike: q.strike,
                maturity: f.maturity,
                discount: f.discount,
                option_type: q.option_type,
            })
        })
        .collect()
}

fn implied_vol(c: &mut Criterion) {
    let dev = tenor_cpu::cpu().expect("cpu backend");
    let yahoo = tenor_market::yahoo::load_yahoo(
        &tenor_testdata::shared("data/options/spx_yahoo_chain_2026-01-30.csv"),
        chrono::NaiveDate::from_ymd_opt(2026, 1, 30).expect("date"),
    )
    .expect("yahoo chain");
    let cboe = tenor_market::cboe::load_cboe_dir(&tenor_testdata::shared("data/options/spx_cboe_2025-10-01"))
        .expect("cboe chain");
    let mut g = c.benchmark_group("implied_vol_chain");
    for (name, chain) in [("spx_yahoo_2026-01-30", &yahoo), ("spx_cboe_2025-10-01", &cboe)] {
        let reqs = requests(chain);
        g.throughput(Throughput::Elements(reqs.len() as u64));
        g.bench_function(format!("cpu/{name}/{}", reqs.len()), |b| {
            b.iter(|| implied_vols(&dev, &reqs).expect("vols"));
        });
    }
    g.finish();
}

criterion_group!(benches, implied_vol);
criterion_main!(benches);
