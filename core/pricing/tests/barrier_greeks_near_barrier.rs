//! Barrier Greeks by bump-and-revalue with the spot within one bump of the barrier, on the
//! closed-form path (`barrier_greeks`, `greeks_by_bump`) and the Monte Carlo path
//! (`mc::price_with_greeks`), against independent references:
//! - the analytic spot derivatives of the Reiner-Rubinstein down-and-out call without rebate
//!   and `K >= H`, written out here from the reflection form `V = c(S) - (H/S)^{2 mu} c(H^2/S)`
//!   of Haug's `A - C` (Haug 2007 section 4.17.1; `c` the Black-Scholes-Merton call, whose
//!   delta and gamma come from its closed form `black_scholes`);
//! - Richardson-extrapolated one-sided differences of the closed form `barrier_price` on the
//!   alive side (any rebate, any of the eight cases);
//! - in-out parity for the knock-in, and the vanilla's closed-form Greeks once knocked in.
//!
//! Parameters from `shared/oracles/barrier_haug.csv` (Haug 1998 p. 72): its down-and-out calls
//! with `H = 95 < S`.

mod common;

use proptest::prelude::*;
use tenor_pricing::analytic::{barrier_greeks, barrier_price, black_scholes, greeks_by_bump, BumpSteps};
use tenor_pricing::mc::{self, BarrierOption, McConfig, McProduct, Monitoring};
use tenor_pricing::types::{BarrierSpec, BarrierType, Greeks, OptionType, Vanilla};

/// The down-and-out calls of Haug's table with the barrier below the spot (H = 95, S = 100;
/// K = 90, 100, 110; vol 0.25 and 0.30; rebate 3), each checked against its published price first.
fn haug_down_out_calls() -> Vec<BarrierSpec> {
    let mut out = Vec::new();
    for row in common::oracle("barrier_haug.csv") {
        if row.barrier_type() != BarrierType::DownOut
            || row.option() != OptionType::Call
            || row.f("barrier") >= row.f("spot")
        {
            continue;
        }
        let b = BarrierSpec {
            vanilla: row.vanilla("t"),
            barrier: row.f("barrier"),
            barrier_type: BarrierType::DownOut,
            rebate: row.f("rebate"),
        };
        let p = barrier_price(&b).expect("valid row");
        let expected = row.f("expected");
        assert!((p - expected).abs() <= row.f("tolerance"), "{}:{}: {b:?}: {p} vs Haug {expected}", row.file, row.line);
        out.push(b);
    }
    assert_eq!(out.len(), 6, "barrier_haug.csv: expected 6 down-and-out calls with H < S");
    out
}

fn with_spot(b: &BarrierSpec, s: f64) -> BarrierSpec {
    BarrierSpec { vanilla: Vanilla { spot: s, ..b.vanilla }, ..*b }
}

/// Price, delta and gamma of a down-and-out call without rebate, `K >= H`, from the reflection
/// form `V = c(S) - g(S) c(X)`, `g = (H/S)^{2 mu}`, `X = H^2/S`, `mu = (r - q - sigma^2/2)/sigma^2`
/// (Haug's `A - C`): `V' = c'(S) - g' c(X) - g c'(X) X'` and
/// `V'' = c''(S) - g'' c(X) - 2 g' c'(X) X' - g (c''(X) X'^2 + c'(X) X'')` with
/// `g' = -2 mu g / S`, `g'' = 2 mu (2 mu + 1) g / S^2`, `X' = -X/S`, `X'' = 2X/S^2`.
fn down_out_call_analytic(b: &BarrierSpec) -> (f64, f64, f64) {
    let v = &b.vanilla;
    assert!(b.barrier_type == BarrierType::DownOut && v.option == OptionType::Call);
    assert!(b.rebate == 0.0 && v.strike >= b.barrier && v.spot > b.barrier);
    let (s, h) = (v.spot, b.barrier);
    let sig2 = v.vol * v.vol;
    let mu = (v.rate - v.dividend - 0.5 * sig2) / sig2;
    let g = (h / s).powf(2.0 * mu);
    let g1 = -2.0 * mu * g / s;
    let g2 = 2.0 * mu * (2.0 * mu + 1.0) * g / (s * s);
    let x = h * h / s;
    let (x1, x2) = (-x / s, 2.0 * x / (s * s));
    let at_s = black_scholes(v).expect("valid");
    let at_x = black_scholes(&Vanilla { spot: x, ..*v }).expect("valid");
    let price = at_s.price - g * at_x.price;
    let delta = at_s.delta - g1 * at_x.price - g * at_x.delta * x1;
    let gamma =
        at_s.gamma - g2 * at_x.price - 2.0 * g1 * at_x.delta * x1 - g * (at_x.gamma * x1 * x1 + at_x.delta * x2);
    (price, delta, gamma)
}

/// Richardson extrapolation of `d(h_k)`, `h_k = h0 / 2^k` (k = 0..levels), for an estimate
/// whose error is a full power series in `h` (one-sided differences): Neville's table
/// `R[k][j] = (2^j R[k][j-1] - R[k-1][j-1]) / (2^j - 1)`.
fn richardson(d: impl Fn(f64) -> f64, h0: f64, levels: usize) -> f64 {
    let mut prev: Vec<f64> = Vec::new();
    for k in 0..=levels {
        let mut row = vec![d(h0 / f64::powi(2.0, k as i32))];
        for j in 1..=k {
            let p = f64::powi(2.0, j as i32);
            row.push((p * row[j - 1] - prev[j - 1]) / (p - 1.0));
        }
        prev = row;
    }
    prev[levels]
}

/// Delta and gamma from one-sided differences of the closed form away from the barrier (into
/// the alive side: forward for down, backward for up), Richardson-extrapolated from
/// `h0 = 0.05 sigma sqrt(T) S` over six halvings (truncation far below 1e-10 relative,
/// rounding ~1e-11).
fn one_sided_reference(b: &BarrierSpec) -> (f64, f64) {
    let v = &b.vanilla;
    let dir = if b.barrier_type.is_down() { 1.0 } else { -1.0 };
    let f = |s: f64| barrier_price(&with_spot(b, s)).expect("valid");
    let (s, f0) = (v.spot, f(v.spot));
    let h0 = 0.05 * v.vol * v.maturity.sqrt() * s;
    let delta = richardson(|h| dir * (f(s + dir * h) - f0) / h, h0, 6);
    let gamma = richardson(|h| (f(s + 2.0 * dir * h) - 2.0 * f(s + dir * h) + f0) / (h * h), h0, 6);
    (delta, gamma)
}

fn close(name: &str, got: f64, want: f64, rel: f64, abs: f64) {
    let tol = rel * want.abs() + abs;
    assert!((got - want).abs() <= tol, "{name}: {got} vs reference {want} (tol {tol:e})");
}

/// (a) Down-and-out calls of Haug's table moved to within one bump of the barrier: spot
/// `H (1 + 1e-5)` and `H (1 + 1e-7)` with the default relative step 1e-4 (which crosses), and
/// `H (1 + 1e-3)` with a relative step 1e-2 (crosses too). Without rebate (K >= H) against the
/// analytic derivatives; with Haug's rebate 3 against the Richardson one-sided reference.
#[test]
fn down_out_call_within_one_bump_of_the_barrier() {
    for base in haug_down_out_calls() {
        let h = base.barrier;
        for (offset, rel_step) in [(1e-5, 1e-4), (1e-7, 1e-4), (1e-3, 1e-2)] {
            let b = with_spot(&base, h * (1.0 + offset));
            let steps = BumpSteps { spot: rel_step, ..BumpSteps::default() };
            // Truncation of the one-sided differences: h^2 |f'''|/3 (delta), 11 h^2 |f''''|/12
            // (gamma), h = rel_step S. Over the scale sigma sqrt(T) S ~ 17 of these contracts
            // |f'''| ~ 2e-3 and |f''''| ~ 2e-4: tolerances 5e-3 h^2 and 1e-3 h^2, plus rounding.
            let step = rel_step * b.vanilla.spot;
            let (tol_delta, tol_gamma) = (5e-3 * step * step + 1e-9, 1e-3 * step * step + 1e-8);
            let g = greeks_by_bump(barrier_price, &b, &steps).expect("valid");
            let (d_ref, g_ref) = one_sided_reference(&b);
            let label = format!("K {} vol {} S {} step {rel_step}", b.vanilla.strike, b.vanilla.vol, b.vanilla.spot);
            close(&format!("{label} delta (rebate 3)"), g.delta, d_ref, 0.0, tol_delta);
            close(&format!("{label} gamma (rebate 3)"), g.gamma, g_ref, 0.0, tol_gamma);
            if b.vanilla.strike >= h {
                let nr = BarrierSpec { rebate: 0.0, ..b };
                let g = greeks_by_bump(barrier_price, &nr, &steps).expect("valid");
                let (price, delta, gamma) = down_out_call_analytic(&nr);
                close(&format!("{label} price (no rebate)"), g.price, price, 1e-10, 1e-12);
                close(&format!("{label} delta (no rebate)"), g.delta, delta, 0.0, tol_delta);
                close(&format!("{label} gamma (no rebate)"), g.gamma, gamma, 0.0, tol_gamma);
                // The same references agree with each other (two independent routes).
                let (d_ref, g_ref) = one_sided_reference(&nr);
                close(&format!("{label} delta references"), d_ref, delta, 1e-8, 1e-10);
                close(&format!("{label} gamma references"), g_ref, gamma, 1e-6, 1e-8);
            }
        }
    }
}

/// The default steps at `S = 1.001 H` (not within a bump) and the analytic derivatives; and the
/// crossing central difference at step 1e-2 is far off, which the one-sided one fixes.
#[test]
fn crossing_central_difference_would_be_wrong() {
    let base = haug_down_out_calls().into_iter().find(|b| b.vanilla.strike == 100.0).expect("K = 100 row");
    let b = BarrierSpec { rebate: 0.0, ..with_spot(&base, base.barrier * 1.001) };
    let (_, delta, gamma) = down_out_call_analytic(&b);
    let g = barrier_greeks(&b).expect("valid");
    close("delta at default steps", g.delta, delta, 1e-7, 1e-10);
    close("gamma at default steps", g.gamma, gamma, 1e-5, 1e-9);
    // Step 1e-2: S - h lies below the barrier, where the price is the rebate.
    let s = b.vanilla.spot;
    let step = 1e-2 * s;
    let at = |x: f64| barrier_price(&with_spot(&b, x)).expect("valid");
    let crossing_delta = (at(s + step) - at(s - step)) / (2.0 * step);
    let fixed = greeks_by_bump(barrier_price, &b, &BumpSteps { spot: 1e-2, ..BumpSteps::default() }).expect("valid");
    let (err_old, err_new) = ((crossing_delta - delta).abs(), (fixed.delta - delta).abs());
    assert!(err_old > 0.1 * delta.abs(), "crossing central delta {crossing_delta} vs {delta}");
    assert!(err_new < 1e-2 * err_old, "one-sided delta {} vs {delta} (crossing error {err_old})", fixed.delta);
}

/// (b) Away from the barrier (Haug's rows at S = 100, H = 95) every Greek is exactly the central
/// difference at the old step (relative 1e-4; vol, rate floors 0.1; maturity floor 1/365).
#[test]
fn far_from_the_barrier_unchanged() {
    for b in haug_down_out_calls() {
        let g = barrier_greeks(&b).expect("valid");
        let v = b.vanilla;
        let central = |set: &dyn Fn(&mut Vanilla, f64), x: f64, h: f64| {
            let at = |y: f64| {
                let mut q = b;
                set(&mut q.vanilla, y);
                barrier_price(&q).expect("valid")
            };
            let (up, down, mid) = (at(x + h), at(x - h), at(x));
            ((up - down) / (2.0 * h), (up - 2.0 * mid + down) / (h * h))
        };
        let (delta, gamma) = central(&|q, y| q.spot = y, v.spot, 1e-4 * v.spot);
        let (vega, _) = central(&|q, y| q.vol = y, v.vol, 1e-4 * v.vol.max(0.1));
        let (rho, _) = central(&|q, y| q.rate = y, v.rate, 1e-4 * v.rate.abs().max(0.1));
        let (dt, _) = central(&|q, y| q.maturity = y, v.maturity, 1e-4 * v.maturity.max(1.0 / 365.0));
        let want = Greeks { price: barrier_price(&b).expect("valid"), delta, gamma, vega, theta: -dt, rho };
        assert_eq!(g, want, "{b:?}");
    }
}

/// (b) on the Monte Carlo path: away from the barrier delta and gamma are exactly the central
/// differences of the Monte Carlo prices at `S +/- 1 %` (same seed, common random numbers).
#[test]
fn far_from_the_barrier_unchanged_monte_carlo() {
    let dev = tenor_cpu::cpu().expect("cpu");
    let cfg = McConfig { paths: 20_000, seed: 5, steps: 16, ..McConfig::default() };
    let b = haug_down_out_calls()[1];
    let product = |s: f64| {
        McProduct::Barrier(BarrierOption {
            vanilla: Vanilla { spot: s, ..b.vanilla },
            barrier_type: b.barrier_type,
            barrier: b.barrier,
            rebate: b.rebate,
            monitoring: Monitoring::Continuous,
        })
    };
    let s = b.vanilla.spot;
    let g = mc::price_with_greeks(&dev, &product(s), &cfg).expect("price").greeks.expect("greeks");
    let at = |x: f64| mc::price(&dev, &product(x), &cfg).expect("price").price;
    let h = 0.01 * s;
    let (up, down, mid) = (at(s + h), at(s - h), at(s));
    assert_eq!(g.delta, (up - down) / (2.0 * h));
    assert_eq!(g.gamma, (up - 2.0 * mid + down) / (h * h));
}

/// Monte Carlo path (the book's `engine = mc` and discretely monitored rows): a continuously
/// monitored down-and-out call at `S = 1.001 H`, where the 1 % spot bump crosses the barrier,
/// against the analytic delta and gamma; the crossing central difference is far off.
#[test]
fn monte_carlo_within_one_bump_of_the_barrier() {
    let dev = tenor_cpu::cpu().expect("cpu");
    let cfg = McConfig { paths: 200_000, seed: 11, steps: 32, ..McConfig::default() };
    let base = haug_down_out_calls().into_iter().find(|b| b.vanilla.strike == 100.0).expect("K = 100 row");
    let b = BarrierSpec { rebate: 0.0, ..with_spot(&base, base.barrier * 1.001) };
    let product = |s: f64| {
        McProduct::Barrier(BarrierOption {
            vanilla: Vanilla { spot: s, ..b.vanilla },
            barrier_type: b.barrier_type,
            barrier: b.barrier,
            rebate: b.rebate,
            monitoring: Monitoring::Continuous,
        })
    };
    let s = b.vanilla.spot;
    let (_, delta, gamma) = down_out_call_analytic(&b);
    let g = mc::price_with_greeks(&dev, &product(s), &cfg).expect("price").greeks.expect("greeks");
    // Tolerances: the Monte Carlo noise of the common-random-number differences (over seeds
    // 1..10 at 2e5 paths the errors against the analytic values have a standard deviation of
    // ~0.011 for delta and ~0.010 for gamma, whose one-sided weights 2, -5, 4, -1 amplify the
    // noise) plus the O(h^2) one-sided truncation at h = 1 % of spot (6e-4 and 1.3e-4, from the
    // closed-form case above): 0.04 for both, about 4 standard deviations.
    close("MC delta", g.delta, delta, 0.0, 0.04);
    close("MC gamma", g.gamma, gamma, 0.0, 0.04);
    // What the crossing central differences give: S - h is knocked out (price 0).
    let h = 0.01 * s;
    let at = |x: f64| mc::price(&dev, &product(x), &cfg).expect("price").price;
    let (up, mid, down) = (at(s + h), at(s), at(s - h));
    assert_eq!(down, 0.0, "S - h is below the barrier");
    let (crossing_delta, crossing_gamma) = ((up - down) / (2.0 * h), (up - 2.0 * mid + down) / (h * h));
    assert!((crossing_delta - delta).abs() > 0.3, "crossing central MC delta {crossing_delta} vs {delta}");
    assert!((crossing_gamma - gamma).abs() > 0.5, "crossing central MC gamma {crossing_gamma} vs {gamma}");
}

/// (d) Knock-in near and on the barrier: a down-and-in call (no rebate, K >= H) at
/// `S = H (1 + 1e-6)` has delta and gamma `vanilla - down-and-out` (in-out parity, both sides
/// from closed forms); at `S = H` it is knocked in and its Greeks are the vanilla's closed-form
/// Greeks, while the down-and-out there is its rebate, paid now, with zero Greeks.
#[test]
fn knock_in_near_and_on_the_barrier() {
    for base in haug_down_out_calls().into_iter().filter(|b| b.vanilla.strike >= b.barrier) {
        let h = base.barrier;
        let near = BarrierSpec { rebate: 0.0, barrier_type: BarrierType::DownIn, ..with_spot(&base, h * (1.0 + 1e-6)) };
        let (_, out_delta, out_gamma) =
            down_out_call_analytic(&BarrierSpec { barrier_type: BarrierType::DownOut, ..near });
        let van = black_scholes(&near.vanilla).expect("valid");
        let g = barrier_greeks(&near).expect("valid");
        close("knock-in delta near H", g.delta, van.delta - out_delta, 1e-6, 1e-9);
        close("knock-in gamma near H", g.gamma, van.gamma - out_gamma, 1e-6, 1e-7);

        let on = with_spot(&near, h);
        let g = barrier_greeks(&on).expect("valid");
        let van = black_scholes(&on.vanilla).expect("valid");
        close("knocked-in price", g.price, van.price, 1e-12, 0.0);
        close("knocked-in delta", g.delta, van.delta, 1e-7, 1e-10);
        close("knocked-in gamma", g.gamma, van.gamma, 1e-5, 1e-9);
        close("knocked-in vega", g.vega, van.vega, 1e-6, 1e-8);
        close("knocked-in theta", g.theta, van.theta, 1e-5, 1e-8);
        close("knocked-in rho", g.rho, van.rho, 1e-6, 1e-8);

        let out = BarrierSpec { barrier_type: BarrierType::DownOut, rebate: 3.0, ..on };
        let g = barrier_greeks(&out).expect("valid");
        assert_eq!(g, Greeks { price: 3.0, ..Greeks::default() }, "knocked-out Greeks");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// (c) All four barrier types, calls and puts, with spots on the alive side within
    /// `H e^{+/-u}`, `u` from 1e-10 to 1e-3 (mostly within one bump of relative 1e-4): delta
    /// and gamma are finite and equal the Richardson one-sided reference.
    #[test]
    fn delta_near_the_barrier_matches_the_one_sided_reference(
        call in any::<bool>(),
        type_index in 0usize..4,
        log_u in -23.0f64..-6.9,
        log_k in -0.3f64..0.3,
        t in 0.1f64..3.0,
        r in -0.02f64..0.08,
        q in -0.02f64..0.08,
        vol in 0.1f64..0.6,
        rebate in 0.0f64..5.0,
    ) {
        let ty = [BarrierType::DownOut, BarrierType::DownIn, BarrierType::UpOut, BarrierType::UpIn][type_index];
        let h = 100.0;
        let u = log_u.exp();
        let s = if ty.is_down() { h * u.exp() } else { h * (-u).exp() };
        let option = if call { OptionType::Call } else { OptionType::Put };
        let b = BarrierSpec {
            vanilla: Vanilla { option, spot: s, strike: h * log_k.exp(), maturity: t, rate: r, dividend: q, vol },
            barrier: h,
            barrier_type: ty,
            rebate,
        };
        prop_assume!(!ty.breached(s, h));
        let g = barrier_greeks(&b).expect("valid");
        let (d_ref, g_ref) = one_sided_reference(&b);
        prop_assert!(g.delta.is_finite() && g.gamma.is_finite(), "{:?}: {:?}", b, g);
        // Truncation (1e-4 / sigma sqrt T)^2 <= 1e-5 of delta's scale (1: a spot move of one
        // unit moves a vanilla by at most about one unit), plus rounding of the reference. Not
        // relative to delta itself: near a knock-in's barrier delta can be 2e-3 while the
        // truncation error keeps the scale of the vanilla's derivatives (seen: 2.2e-7 absolute).
        // A bump across the barrier is off by 0.1 to 0.5, so this still catches it.
        prop_assert!((g.delta - d_ref).abs() <= 1e-5 * d_ref.abs().max(1.0) + 1e-8, "{:?}: delta {} vs {}", b, g.delta, d_ref);
        prop_assert!((g.gamma - g_ref).abs() <= 1e-4 * g_ref.abs() + 1e-6, "{:?}: gamma {} vs {}", b, g.gamma, g_ref);
    }
}

/// The book pricer takes both fixed paths: a down-and-out call at `S = 1.001 H` (Haug's
/// K = 100 row, no rebate) priced by the closed form (`engine = auto`) and by Monte Carlo
/// (`engine = mc`, where the 1 % spot bump crosses the barrier) has the analytic delta and
/// gamma, and so has the closed-form row at `S = 95.005`, within one closed-form bump; the same
/// contract on the barrier is knocked out (zero delta and gamma).
#[test]
fn book_rows_near_the_barrier() {
    use std::path::Path;
    use tenor_pricing::portfolio::{parse_portfolio, price_book, BookConfig, Engine};
    let book =
        "id,kind,type,spot,strike,maturity,rate,dividend,vol,barrier,barrier_type,rebate,fixings,v0,kappa,theta,xi,rho
near,barrier,call,95.095,100,0.5,0.08,0.04,0.25,95,down_out,0,,,,,,
on,barrier,call,95,100,0.5,0.08,0.04,0.25,95,down_out,0,,,,,,
close,barrier,call,95.005,100,0.5,0.08,0.04,0.25,95,down_out,0,,,,,,
";
    let parsed = parse_portfolio(book.as_bytes(), Path::new("near.csv")).expect("readable");
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let b = haug_down_out_calls().into_iter().find(|b| b.vanilla.strike == 100.0).expect("K = 100 row");
    let (_, delta, gamma) = down_out_call_analytic(&BarrierSpec { rebate: 0.0, ..with_spot(&b, 95.095) });
    let dev = tenor_cpu::cpu().expect("cpu");
    // Tolerances: closed form as in the tests above; Monte Carlo as in
    // `monte_carlo_within_one_bump_of_the_barrier` (2e5 paths, ~4 standard deviations).
    for (engine, tol_delta, tol_gamma) in [(Engine::Auto, 1e-6, 1e-6), (Engine::Mc, 0.04, 0.04)] {
        let cfg = BookConfig { engine, paths: 200_000, seed: 11, steps: 32, streams: 1, greeks: true };
        let rows = price_book(&dev, &parsed.trades, &cfg, &mut |_| {});
        let near = rows[0].as_ref().expect("near row priced");
        let (d, g) = (near.delta.expect("delta"), near.gamma.expect("gamma"));
        close(&format!("{engine:?} book delta"), d, delta, 0.0, tol_delta);
        close(&format!("{engine:?} book gamma"), g, gamma, 0.0, tol_gamma);
        let on = rows[1].as_ref().expect("on row priced");
        assert_eq!((on.price, on.delta, on.gamma), (0.0, Some(0.0), Some(0.0)), "{engine:?} knocked out");
    }
    // Within one closed-form bump (h = 1e-4 S = 0.0095 > S - H = 0.005).
    let (_, delta, gamma) = down_out_call_analytic(&BarrierSpec { rebate: 0.0, ..with_spot(&b, 95.005) });
    let cfg = BookConfig { engine: Engine::Auto, greeks: true, ..BookConfig::default() };
    let rows = price_book(&dev, &parsed.trades, &cfg, &mut |_| {});
    let close_row = rows[2].as_ref().expect("close row priced");
    close("auto book delta at 95.005", close_row.delta.expect("delta"), delta, 0.0, 1e-6);
    close("auto book gamma at 95.005", close_row.gamma.expect("gamma"), gamma, 0.0, 1e-6);
}
