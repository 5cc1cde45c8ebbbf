//! SVI calibration (recovery of known parameters), the Gatheral-Jacquier butterfly condition on
//! their published counter-example, and the SPX surface with its no-arbitrage checks and plot.
use tenor_market::cboe::load_cboe_dir;
use tenor_market::iv::chain_vols;
use tenor_market::parity::parity_forwards;
use tenor_market::plot::plot_surface;
use tenor_market::surface::{fit_slice, slice_points, VolSurface};
use tenor_market::svi::{fit_svi, SviParams};

#[test]
fn svi_fit_recovers_known_parameters() {
    let truth = SviParams { a: 0.02, b: 0.08, rho: -0.6, m: 0.05, sigma: 0.15 };
    let pts: Vec<(f64, f64)> = (0..41).map(|i| -0.6 + 0.025 * i as f64).map(|k| (k, truth.total_variance(k))).collect();
    let fit = fit_svi(&pts, 1.0).expect("fit");
    assert!(fit.rmse_w < 1e-9, "{fit:?}");
    let p = fit.params;
    for (got, want) in [(p.a, truth.a), (p.b, truth.b), (p.rho, truth.rho), (p.m, truth.m), (p.sigma, truth.sigma)] {
        assert!((got - want).abs() < 1e-5, "{p:?} vs {truth:?}");
    }
}

#[test]
fn butterfly_check_flags_the_gatheral_jacquier_counterexample() {
    // Gatheral and Jacquier (2014), example 3.1 (from Axel Vogt): raw SVI with these parameters
    // and T = 1 has a negative density (g < 0) near k = 0.6 although w > 0.
    let vogt = SviParams { a: -0.0410, b: 0.1331, rho: 0.3060, m: 0.3586, sigma: 0.4153 };
    let c = vogt.butterfly_check(-1.5, 1.5, 3001);
    assert!(c.min_w > 0.0 && c.min_g < 0.0 && (0.3..1.0).contains(&c.at), "{c:?}");
    // a symmetric slice well inside the bounds is free of butterfly arbitrage
    let fine = SviParams { a: 0.04, b: 0.1, rho: 0.0, m: 0.0, sigma: 0.2 };
    assert!(fine.butterfly_check(-2.0, 2.0, 801).is_free());
}

#[test]
fn spx_surface_fits_checks_and_plots() {
    let chain = load_cboe_dir(&tenor_testdata::shared("data/options/spx_cboe_2025-10-01")).expect("chain");
    let (fwds, _) = parity_forwards(&chain);
    let cpu = tenor_cpu::cpu().expect("cpu");
    let vols = chain_vols(&cpu, &chain, &fwds).expect("vols");
    let slices: Vec<_> = fwds.iter().map(|f| fit_slice(&chain, &vols, f).expect("fit")).collect();
    for s in &slices {
        eprintln!(
            "{} {} T {:.4} points {} rmse {:.5} max {:.5} min g {:.4} at k {:.3} (wide: {:.4} at {:.3}) params {:?}",
            s.slice.0,
            s.slice.1.as_str(),
            s.maturity,
            s.fit.points,
            s.fit.rmse_vol,
            s.fit.max_vol_error,
            s.butterfly.min_g,
            s.butterfly.at,
            s.butterfly_wide.min_g,
            s.butterfly_wide.at,
            s.fit.params
        );
        assert!(s.fit.rmse_vol < 0.004, "{:?}: rmse {} vol", s.slice, s.fit.rmse_vol);
        assert!(s.butterfly.is_free(), "{:?}: {:?}", s.slice, s.butterfly);
    }
    let surface = VolSurface::new(slices).expect("surface");
    let checks = surface.calendar_checks(-3.0, 1.0, 401);
    for c in &checks {
        eprintln!("calendar {} -> {}: min gap {:.3e} at k {:.3}", c.earlier.0, c.later.0, c.min_gap, c.at);
    }
    let violations = checks.iter().filter(|c| c.min_gap < 0.0).count();
    eprintln!("{violations} of {} consecutive pairs cross in total variance", checks.len());
    // Calendar arbitrage is reported, not removed: where slices cross inside their common quoted
    // range, the crossing is smaller than the fits' errors in total variance (2 sigma T d sigma,
    // about 2e-3 for d sigma = 0.4 vol points at sigma = 0.25 and T = 1).
    assert!(checks.iter().all(|c| c.min_gap > -2e-3), "{checks:?}");
    // queried at a slice, the surface returns that slice's fit; at market strikes within 1 vol point
    let s0 = &surface.slices[0];
    let fwd0 = fwds.iter().find(|f| f.slice == s0.slice).expect("fwd");
    for (k, w) in slice_points(&chain, &vols, fwd0) {
        let strike = s0.forward * k.exp();
        let v = surface.vol(strike, s0.maturity).expect("vol");
        assert!((v - (w / s0.maturity).sqrt()).abs() < 0.01, "k {k}: {v}");
    }
    // between two slices the total variance lies between theirs (linear in T at fixed k)
    let (a, b) = (&surface.slices[3], &surface.slices[4]);
    let t = 0.5 * (a.maturity + b.maturity);
    let wa = a.fit.params.total_variance(0.0);
    let wb = b.fit.params.total_variance(0.0);
    assert!((surface.total_variance(0.0, t) - 0.5 * (wa + wb)).abs() < 1e-15);
    assert!(surface.vol(-1.0, 1.0).is_err() && surface.vol(7000.0, 0.0).is_err());

    let out = std::env::temp_dir().join(format!("tenor_market_surface_{}.svg", std::process::id()));
    plot_surface(&out, "SPX 2025-10-01", &chain, &vols, &fwds, &surface, 12).expect("plot");
    let svg = std::fs::read_to_string(&out).expect("svg");
    assert!(svg.contains("<svg") && svg.matches("<circle").count() > 500, "{} bytes", svg.len());
    std::fs::remove_file(&out).ok();
}

#[test]
fn yahoo_spx_slices_keep_a_non_negative_variance_and_unclamped_vols() {
    // Issue 29 (the SVI fit's non-negativity condition): on this chain some slices fitted a < 0
    // with rho = -1, the model vol of quotes whose market vol is 1.07 printed as 0 (a negative
    // total variance clamped), and the summary still said butterfly free. The fit must keep
    // a + b sigma sqrt(1 - rho^2) >= 0 (the minimum of w over all k, Gatheral and Jacquier 2014,
    // section 3) and |rho| < 1, and every quote of a fitted slice gets the model vol
    // sqrt(w / T) of a non-negative w.
    let chain = tenor_market::yahoo::load_yahoo(
        &tenor_testdata::shared("data/options/spx_yahoo_chain_2026-01-30.csv"),
        chrono::NaiveDate::from_ymd_opt(2026, 1, 30).expect("date"),
    )
    .expect("chain");
    let (fwds, _) = parity_forwards(&chain);
    let cpu = tenor_cpu::cpu().expect("cpu");
    let vols = chain_vols(&cpu, &chain, &fwds).expect("vols");
    let mut fitted = 0;
    for f in &fwds {
        let Ok(s) = fit_slice(&chain, &vols, f) else { continue };
        fitted += 1;
        let p = s.fit.params;
        eprintln!(
            "{} {} T {:.3}: {p:?} min w {:.3e} rmse {:.4} butterfly {} ({:?})",
            s.slice.0,
            s.slice.1.as_str(),
            s.maturity,
            p.min_total_variance(),
            s.fit.rmse_vol,
            s.butterfly.is_free(),
            s.butterfly
        );
        let floor = p.a + p.b * p.sigma * (1.0 - p.rho * p.rho).sqrt();
        assert!(p.rho.abs() < 1.0 && floor >= 0.0, "{:?}: {p:?}, min w {floor:e}", s.slice);
        // The check's minimum covers the whole line, not only the quoted range.
        assert!(s.butterfly.min_w <= floor + 1e-15, "{:?}: {:?} vs {floor:e}", s.slice, s.butterfly);
        for v in vols.iter().filter(|v| (chain.quotes[v.index].expiry, chain.quotes[v.index].settlement) == f.slice) {
            let k = (chain.quotes[v.index].strike / s.forward).ln();
            let w = p.total_variance(k);
            let model = p.implied_vol(k, s.maturity).expect("a non-negative variance");
            assert!(w >= 0.0 && (model - (w / s.maturity).sqrt()).abs() <= 1e-15 * model.max(1.0), "k {k}: {w}");
        }
    }
    assert!(fitted > 20, "{fitted} slices fitted");
}
