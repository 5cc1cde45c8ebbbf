//! Chain implied volatilities through the port: round trip on every SPX quote inside the
//! no-arbitrage bounds, every quote accounted for, CPU and simulated backends agree bitwise with
//! the scalar reference.
use chrono::NaiveDate;
use tenor_kernels::black::{black_price, implied_vol};
use tenor_market::cboe::load_cboe_dir;
use tenor_market::iv::{chain_vols, implied_vols, IvRequest, IvStatus, NoVol, QuoteVol};
use tenor_market::parity::parity_forwards;
use tenor_market::quotes::Chain;
use tenor_market::yahoo::load_yahoo;
use tenor_pricing::types::OptionType;

/// Reprices every solved quote from its vol and checks the mid comes back; returns the count
/// solved and the worst relative error in units of the tolerance.
fn round_trip(chain: &Chain, vols: &[QuoteVol]) -> (usize, f64) {
    let mut solved = 0;
    let mut worst = 0.0f64;
    for v in vols {
        let q = &chain.quotes[v.index];
        let call = q.option_type == OptionType::Call;
        let undiscounted = v.mid / v.discount;
        let inside = undiscounted > (if call { v.forward - q.strike } else { q.strike - v.forward }).max(0.0)
            && undiscounted < if call { v.forward } else { q.strike };
        match v.vol {
            Ok(sigma) => {
                assert!(inside, "solved a quote outside the bounds: {q:?}");
                let back = v.discount * black_price(v.forward, q.strike, sigma, v.maturity, call);
                // tolerance: 16 ulp times the vega elasticity 1 + h^2 (h = ln(F/K) / s): the vol
                // is rounded twice (s = sigma sqrt T and back) and exp(-h^2/2) carries h's rounding
                let h = (v.forward / q.strike).ln() / (sigma * v.maturity.sqrt());
                let tol = 16.0 * f64::EPSILON * (1.0 + h * h);
                let rel = ((back - v.mid) / v.mid).abs();
                worst = worst.max(rel / tol);
                assert!(rel <= tol, "{} mid {} back {back}: {rel:e} > {tol:e}", q.symbol, v.mid);
                solved += 1;
            }
            Err(NoVol::Iv(IvStatus::BelowIntrinsic)) | Err(NoVol::Iv(IvStatus::AboveUpperBound)) => {
                assert!(!inside, "{} inside the bounds but unsolved", q.symbol)
            }
            Err(NoVol::NoTwoSidedQuote) => assert!(q.bid <= 0.0 || q.ask <= 0.0),
            Err(NoVol::Crossed) => assert!(q.bid > q.ask),
            Err(NoVol::NoForward) => assert!(v.forward.is_nan()),
            Err(e) => panic!("{}: unexpected {e:?}", q.symbol),
        }
    }
    (solved, worst)
}

#[test]
fn cboe_chain_round_trips_every_quote_inside_the_bounds() {
    let chain = load_cboe_dir(&tenor_testdata::shared("data/options/spx_cboe_2025-10-01")).expect("chain");
    let (fwds, _) = parity_forwards(&chain);
    let cpu = tenor_cpu::cpu().expect("cpu");
    let vols = chain_vols(&cpu, &chain, &fwds).expect("vols");
    assert_eq!(vols.len(), 1914);
    let (solved, worst) = round_trip(&chain, &vols);
    let below = vols.iter().filter(|v| v.vol == Err(NoVol::Iv(IvStatus::BelowIntrinsic))).count();
    eprintln!("cboe: {solved} solved, {below} below intrinsic, worst error / tolerance {worst:.3}");
    assert!(solved >= 1850, "{solved}");
    // ATM vols 15-17 % and call/put vols agree within 0.1 vol (README); compare at the strike nearest each forward
    for f in &fwds {
        let at = |t: OptionType| {
            vols.iter()
                .filter(|v| {
                    let q = &chain.quotes[v.index];
                    (q.expiry, q.settlement) == f.slice && q.option_type == t
                })
                .min_by(|a, b| {
                    let ka = chain.quotes[a.index].strike;
                    let kb = chain.quotes[b.index].strike;
                    (ka - f.forward).abs().total_cmp(&(kb - f.forward).abs())
                })
                .and_then(|v| v.vol.ok())
                .expect("atm vol")
        };
        let (c, p) = (at(OptionType::Call), at(OptionType::Put));
        assert!((0.14..0.18).contains(&c) && (c - p).abs() < 0.001, "{:?}: call {c} put {p}", f.slice);
    }
}

#[test]
fn yahoo_chain_accounts_for_every_quote_and_round_trips() {
    let chain = load_yahoo(
        &tenor_testdata::shared("data/options/spx_yahoo_chain_2026-01-30.csv"),
        NaiveDate::from_ymd_opt(2026, 1, 30).expect("date"),
    )
    .expect("chain");
    let (fwds, errs) = parity_forwards(&chain);
    let sim = tenor_sim::sim(tenor_sim::SimConfig::default()).expect("sim");
    let vols = chain_vols(&sim, &chain, &fwds).expect("vols");
    assert_eq!(vols.len(), 17107);
    let count = |r: NoVol| vols.iter().filter(|v| v.vol == Err(r)).count();
    // README: 17107 - 16185 rows lack a positive bid and ask; 13 rows have bid > ask, of which 12
    // have a zero ask (so count as one-sided) and one is crossed with both sides positive
    assert_eq!(count(NoVol::NoTwoSidedQuote), 17107 - 16185);
    let crossed_positive = chain.quotes.iter().filter(|q| q.bid > q.ask && q.ask > 0.0).count();
    assert_eq!(count(NoVol::Crossed), crossed_positive);
    assert_eq!(chain.quotes.iter().filter(|q| q.bid > q.ask).count(), 13);
    let (solved, worst) = round_trip(&chain, &vols);
    eprintln!(
        "yahoo: {} slices with forwards ({} without: {:?}), {solved} solved, {} below intrinsic, {} above bound, {} no forward, worst {worst:.3}",
        fwds.len(),
        errs.len(),
        errs.iter().map(|e| e.to_string()).collect::<Vec<_>>(),
        count(NoVol::Iv(IvStatus::BelowIntrinsic)),
        count(NoVol::Iv(IvStatus::AboveUpperBound)),
        count(NoVol::NoForward)
    );
    assert!(solved > 14000, "{solved}");
    // README: parity gives a forward of 6936.4 for 2026-02-02 and 6940.5 for 2026-02-06
    let f = |d: u32| fwds.iter().find(|f| f.slice.0 == NaiveDate::from_ymd_opt(2026, 2, d).expect("d")).expect("fwd");
    assert!(
        (f(2).forward - 6936.4).abs() < 1.0 && (f(6).forward - 6940.5).abs() < 1.0,
        "{} {}",
        f(2).forward,
        f(6).forward
    );
}

#[test]
fn kernel_on_cpu_and_sim_equals_the_scalar_reference_bitwise() {
    let mut reqs = Vec::new();
    for (i, &k) in [50.0, 80.0, 99.0, 100.0, 101.0, 130.0, 250.0].iter().enumerate() {
        for &t in &[0.01, 0.5, 3.0] {
            for ty in [OptionType::Call, OptionType::Put] {
                let call = ty == OptionType::Call;
                let price = 0.97 * black_price(100.0, k, 0.1 + 0.05 * i as f64, t, call);
                reqs.push(IvRequest { price, forward: 100.0, strike: k, maturity: t, discount: 0.97, option_type: ty });
            }
        }
    }
    // bad inputs get their status
    let base = reqs[0];
    reqs.push(IvRequest { price: 0.0, ..base });
    reqs.push(IvRequest { price: 1e6, ..base });
    reqs.push(IvRequest { maturity: -1.0, ..base });
    reqs.push(IvRequest { discount: 0.0, ..base });
    let cpu = tenor_cpu::cpu().expect("cpu");
    let sim = tenor_sim::sim(tenor_sim::SimConfig::default()).expect("sim");
    let a = implied_vols(&cpu, &reqs).expect("cpu");
    let b = implied_vols(&sim, &reqs).expect("sim");
    for (i, r) in reqs.iter().enumerate() {
        let call = r.option_type == OptionType::Call;
        let want = implied_vol(r.price / r.discount, r.forward, r.strike, r.maturity, call);
        let same = |x: &Result<f64, IvStatus>| match (x, &want) {
            (Ok(u), Ok(v)) => u.to_bits() == v.to_bits(),
            (Err(u), Err(v)) => u == v || (r.discount == 0.0 && *u == IvStatus::InvalidInput),
            _ => false,
        };
        assert!(same(&a[i]) && same(&b[i]), "request {i}: cpu {:?} sim {:?} scalar {want:?}", a[i], b[i]);
    }
    let n = reqs.len();
    assert_eq!(a[n - 4], Err(IvStatus::BelowIntrinsic));
    assert_eq!(a[n - 3], Err(IvStatus::AboveUpperBound));
    assert_eq!(a[n - 2], Err(IvStatus::InvalidInput));
    assert_eq!(a[n - 1], Err(IvStatus::InvalidInput));
    assert!(implied_vols(&cpu, &[]).expect("empty").is_empty());
}
