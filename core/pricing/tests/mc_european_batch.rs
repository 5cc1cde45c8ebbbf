//! `price_batch` runs the fp64 European products of a stream as one `mc_european_batch`
//! launch: bitwise the valuations of pricing each product alone (its own `mc_european`
//! launch), with one launch per stream instead of one per product.

use tenor_conformance::compute::Counting;
use tenor_pricing::mc::{self, AsianOption, FixingSchedule, McConfig, McProduct, McValuation};
use tenor_pricing::types::{OptionType, Vanilla};

/// Twelve Europeans: calls and puts, different spots, strikes, maturities, rates and vols.
fn europeans() -> Vec<McProduct> {
    (0..12)
        .map(|k| {
            let f = f64::from(k);
            McProduct::European(Vanilla {
                option: if k % 2 == 0 { OptionType::Call } else { OptionType::Put },
                spot: 80.0 + 5.0 * f,
                strike: 100.0 - 2.0 * f,
                maturity: 0.1 + 0.2 * f,
                rate: 0.01 * (f % 4.0),
                dividend: 0.005 * (f % 3.0),
                vol: 0.1 + 0.04 * f,
            })
        })
        .collect()
}

/// An odd pair count over three blocks (the last one partial).
fn cfg(streams: usize) -> McConfig {
    McConfig { paths: 2 * 9_001, seed: 7, streams, ..McConfig::default() }
}

fn bits(v: &McValuation) -> Vec<u64> {
    let mut out = vec![v.price.price.to_bits(), v.price.stderr.to_bits(), v.price.paths];
    if let Some(g) = &v.greeks {
        out.extend([g.delta, g.gamma, g.vega, g.theta, g.rho].iter().map(|x| x.to_bits()));
    }
    out
}

fn alone(dev: &Counting, products: &[McProduct], greeks: bool) -> Vec<Vec<u64>> {
    products
        .iter()
        .map(|p| {
            let v = if greeks {
                mc::price_with_greeks(dev, p, &cfg(1)).expect("alone")
            } else {
                McValuation { price: mc::price(dev, p, &cfg(1)).expect("alone"), greeks: None }
            };
            bits(&v)
        })
        .collect()
}

#[test]
fn twelve_europeans_price_bitwise_as_alone_in_one_launch() {
    let dev = Counting::cpu().expect("cpu");
    let products = europeans();
    let want = alone(&dev, &products, false);
    let singles = dev.take_kernels();
    assert_eq!(singles, vec!["mc_european"; products.len()], "alone: one mc_european launch each");
    let got = mc::price_batch(&dev, &products, &cfg(1), false).expect("batch");
    assert_eq!(dev.take_kernels(), vec!["mc_european_batch"], "batch: one launch for all twelve");
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(&bits(g.as_ref().expect("priced")), w, "product {k}");
    }
}

#[test]
fn streams_greeks_and_other_products_keep_their_bits_with_one_batch_per_stream() {
    let dev = Counting::cpu().expect("cpu");
    let asian = AsianOption {
        vanilla: Vanilla {
            option: OptionType::Call,
            spot: 100.0,
            strike: 100.0,
            maturity: 1.0,
            rate: 0.02,
            dividend: 0.0,
            vol: 0.3,
        },
        schedule: FixingSchedule::uniform(1.0, 12),
    };
    let mut products = europeans();
    products.insert(5, McProduct::AsianArithmetic(asian));
    let want = alone(&dev, &products, true);
    dev.take_kernels();
    let got = mc::price_batch(&dev, &products, &cfg(3), true).expect("batch");
    let mut launches = dev.take_kernels();
    launches.sort();
    // The Asian trade (on stream 5 mod 3 = 2) and its bumped copies are one mc_asian_batch
    // launch; every stream's Europeans and their bumped copies are one mc_european_batch launch.
    assert!(got[5].as_ref().expect("asian").greeks.is_some(), "Greeks asked for");
    assert_eq!(
        launches,
        ["mc_asian_batch", "mc_european_batch", "mc_european_batch", "mc_european_batch"],
        "one batch per stream and kernel"
    );
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(&bits(g.as_ref().expect("priced")), w, "trade {k}");
    }
}
