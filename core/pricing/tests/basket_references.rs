//! The basket job (`tenor_pricing::basket`) against references computed here independently of
//! its code, each within 4 standard errors plus a stated discretisation allowance:
//!
//! * one asset under Heston, European, against the characteristic-function price
//!   (`heston::heston_price`) and its central differences for every Greek;
//! * `xi -> 0` with `rho_i = 0` (deterministic variances: the basket of two lognormals),
//!   European, every Greek against a quadrature of the exact distribution (written below: the
//!   inner asset by Black's formula, the outer normal by Simpson's rule);
//! * one asset American at `xi -> 0` (geometric Brownian motion) against the finite
//!   differences (`american::american_fd`), with the allowance for exercise on the grid's dates
//!   only measured by a Bermudan binomial tree written below.
//!
//! QuantLib's American basket engine and a fine-grid Euler simulation of correlated Heston
//! baskets are compared in `basket_peers.rs` (they need the pinned Python environment).

use tenor_pricing::american::american_fd;
use tenor_pricing::basket::{price_basket, BasketJob, BasketOutcome, GAMMA_BUMP};
use tenor_pricing::heston::{heston_price, HestonOption, HestonParams};
use tenor_pricing::types::{OptionType, Vanilla};

/// One asset of a test job: (name, spot, dividend, v0, kappa, theta, xi, rho).
type Asset = (&'static str, f64, f64, f64, f64, f64, f64, f64);

/// A job's TOML text.
#[allow(clippy::too_many_arguments)]
fn job_text(
    payoff: &str,
    exercise: &str,
    strike: f64,
    maturity: f64,
    weights: &[f64],
    rate: f64,
    assets: &[Asset],
    prices: &[Vec<f64>],
    paths: u64,
    steps: u32,
    seed: u64,
) -> String {
    let list = |v: &[f64]| v.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>().join(", ");
    let mut s = format!(
        "[option]\npayoff = \"{payoff}\"\nexercise = \"{exercise}\"\nstrike = {strike:?}\nmaturity = {maturity:?}\nweights = [{}]\n\n[market]\nrate = {rate:?}\n\n",
        list(weights)
    );
    for a in assets {
        s += &format!(
            "[[asset]]\nname = \"{}\"\nspot = {:?}\ndividend = {:?}\nv0 = {:?}\nkappa = {:?}\ntheta = {:?}\nxi = {:?}\nrho = {:?}\n\n",
            a.0, a.1, a.2, a.3, a.4, a.5, a.6, a.7
        );
    }
    let rows: Vec<String> = prices.iter().map(|r| format!("[{}]", list(r))).collect();
    s += &format!("[correlation]\nprices = [{}]\n\n", rows.join(", "));
    s += &format!("[simulation]\npaths = {paths}\nsteps = {steps}\nseed = {seed}\n");
    s
}

fn run(text: &str) -> BasketOutcome {
    let job = BasketJob::from_toml(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let dev = tenor_cpu::cpu().expect("cpu backend");
    price_basket(&dev, &job, true).unwrap_or_else(|e| panic!("{e}"))
}

/// The estimate and standard error of `greek` (asset `a`, other `b`).
fn get(out: &BasketOutcome, greek: &str, a: Option<usize>, b: Option<usize>) -> (f64, f64) {
    let r = out
        .rows
        .iter()
        .find(|r| r.greek == greek && r.asset == a && r.other == b)
        .unwrap_or_else(|| panic!("no row {greek} {a:?} {b:?}"));
    (r.value, r.stderr.expect("a Monte Carlo standard error"))
}

/// Checks `|estimate - reference| <= 4 se + allowance`.
fn check(out: &BasketOutcome, greek: &str, a: Option<usize>, b: Option<usize>, reference: f64, allowance: f64) {
    let (v, se) = get(out, greek, a, b);
    let tol = 4.0 * se + allowance;
    assert!(
        (v - reference).abs() <= tol,
        "{greek} {a:?} {b:?}: {v} +/- {se} against the reference {reference} (tolerance {tol}: 4 se + {allowance})"
    );
    eprintln!(
        "{greek:18} {a:?} {b:?}: {v:.6} +/- {se:.6}, reference {reference:.6} (|d| {:.2} se)",
        (v - reference).abs() / se.max(1e-300)
    );
}

// ---------------------------------------------------------------------------------------------
// One asset under Heston against the characteristic function.

/// An at-the-money put, one asset, Heston with a strong skew, 1 year: every Greek the CF gives.
#[test]
fn one_asset_european_heston_against_the_characteristic_function() {
    let (spot, q, v0, kappa, theta, xi, rho, r, k, t) = (100.0, 0.01, 0.05, 2.0, 0.04, 0.5, -0.7, 0.03, 100.0, 1.0);
    let steps = 32;
    let text = job_text(
        "put",
        "european",
        k,
        t,
        &[1.0],
        r,
        &[("S", spot, q, v0, kappa, theta, xi, rho)],
        &[vec![1.0]],
        40_000,
        steps,
        7,
    );
    let out = run(&text);
    let cf = |spot: f64, v0: f64, kappa: f64, theta: f64, xi: f64, r: f64, t: f64| {
        let p = HestonParams { v0, kappa, theta, sigma: xi, rho };
        let o = HestonOption { option: OptionType::Put, spot, strike: k, maturity: t, rate: r, dividend: q };
        heston_price(&p, &o).expect("CF price")
    };
    let base = cf(spot, v0, kappa, theta, xi, r, t);
    let d = |f: &dyn Fn(f64) -> f64, x: f64, h: f64| (f(x + h) - f(x - h)) / (2.0 * h);
    // Andersen's QE with 32 steps a year: his tables put the bias of an at-the-money European
    // under 0.05 % of spot at this step; 1 % of each Greek's size covers the Greeks' share.
    let allowance = |x: f64| 0.01 * x.abs() + 1e-3;
    check(&out, "price", None, None, base, 0.05);
    let sd = v0.sqrt();
    let refs = [
        ("delta", d(&|s| cf(s, v0, kappa, theta, xi, r, t), spot, 0.01)),
        ("vega", d(&|s| cf(spot, s * s, kappa, theta, xi, r, t), sd, 1e-4)),
        ("model_vega_kappa", d(&|x| cf(spot, v0, x, theta, xi, r, t), kappa, 1e-4)),
        ("model_vega_theta", d(&|x| cf(spot, v0, kappa, x, xi, r, t), theta, 1e-5)),
        ("model_vega_xi", d(&|x| cf(spot, v0, kappa, theta, x, r, t), xi, 1e-4)),
    ];
    for (greek, reference) in refs {
        check(&out, greek, Some(0), None, reference, allowance(reference));
    }
    let gamma = (cf(spot * (1.0 + GAMMA_BUMP), v0, kappa, theta, xi, r, t) - 2.0 * base
        + cf(spot * (1.0 - GAMMA_BUMP), v0, kappa, theta, xi, r, t))
        / (GAMMA_BUMP * spot).powi(2);
    check(&out, "gamma", Some(0), None, gamma, allowance(gamma));
    let rho_ref = d(&|x| cf(spot, v0, kappa, theta, xi, x, t), r, 1e-5);
    check(&out, "rho", None, None, rho_ref, allowance(rho_ref));
    let theta_ref = -d(&|x| cf(spot, v0, kappa, theta, xi, r, x), t, 1e-5);
    check(&out, "theta", None, None, theta_ref, allowance(theta_ref));
}

// ---------------------------------------------------------------------------------------------
// Two lognormals (xi -> 0, rho_i = 0) against a quadrature.

/// Standard normal CDF (statrs's erfc).
fn ncdf(x: f64) -> f64 {
    0.5 * statrs::function::erf::erfc(-x / std::f64::consts::SQRT_2)
}

/// Undiscounted Black call on a lognormal with forward `f` and total standard deviation `s`
/// at strike `k` (any sign: `f - k` for `k <= 0`).
fn black_call(f: f64, k: f64, s: f64) -> f64 {
    if k <= 0.0 {
        return f - k;
    }
    if s <= 0.0 {
        return (f - k).max(0.0);
    }
    let d1 = ((f / k).ln() + 0.5 * s * s) / s;
    f * ncdf(d1) - k * ncdf(d1 - s)
}

/// A two-asset market with deterministic variances.
#[derive(Clone, Copy)]
struct Two {
    spot: [f64; 2],
    q: [f64; 2],
    v0: [f64; 2],
    kappa: [f64; 2],
    theta: [f64; 2],
    w: [f64; 2],
    corr: f64,
    r: f64,
    t: f64,
    k: f64,
}

impl Two {
    /// `int_0^T v_i(t) dt` for `v_i(t) = theta + (v0 - theta) e^(-kappa t)` (exact).
    fn var(&self, i: usize) -> f64 {
        let (a, b, c) = (self.theta[i], self.v0[i] - self.theta[i], self.kappa[i]);
        a * self.t + b * (1.0 - (-c * self.t).exp()) / c
    }

    /// `int_0^T sqrt(v_1 v_2) dt` by Gauss-Legendre (Simpson on 2000 intervals).
    fn cov(&self) -> f64 {
        let v = |i: usize, s: f64| self.theta[i] + (self.v0[i] - self.theta[i]) * (-self.kappa[i] * s).exp();
        simpson(|s| (v(0, s) * v(1, s)).sqrt(), 0.0, self.t, 2000)
    }

    /// The European call on `w1 S1 + w2 S2` by the exact lognormal distribution: conditional
    /// on the first asset's normal, the second asset's part is a Black call.
    fn call(&self) -> f64 {
        let (v1, v2) = (self.var(0), self.var(1));
        let c = self.corr * self.cov() / (v1 * v2).sqrt();
        let f = |i: usize| self.spot[i] * ((self.r - self.q[i]) * self.t).exp();
        let (s1, s2) = (v1.sqrt(), v2.sqrt());
        let inner = |z: f64| {
            let a = self.w[0] * f(0) * (s1 * z - 0.5 * v1).exp();
            // w2 S2 | z: lognormal with forward w2 F2 exp(c s2 z - c^2 v2 / 2), variance (1 - c^2) v2.
            let fwd = self.w[1] * f(1) * (c * s2 * z - 0.5 * c * c * v2).exp();
            let density = (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt();
            density * black_call(fwd, self.k - a, ((1.0 - c * c) * v2).sqrt())
        };
        (-self.r * self.t).exp() * simpson(inner, -10.0, 10.0, 4000)
    }

    /// The put by parity: `C - e^(-rT) (sum w_i F_i - K)`.
    fn put(&self) -> f64 {
        let fwd: f64 = (0..2).map(|i| self.w[i] * self.spot[i] * ((self.r - self.q[i]) * self.t).exp()).sum();
        self.call() - (-self.r * self.t).exp() * (fwd - self.k)
    }
}

fn simpson(f: impl Fn(f64) -> f64, a: f64, b: f64, n: usize) -> f64 {
    let h = (b - a) / n as f64;
    let mut s = f(a) + f(b);
    for i in 1..n {
        s += if i % 2 == 1 { 4.0 } else { 2.0 } * f(a + h * i as f64);
    }
    s * h / 3.0
}

/// A put on two assets at deterministic variances (xi = 1e-4, rho_i = 0), v0 away from theta
/// so kappa and theta matter: every Greek of the spec against central differences of the
/// quadrature (gamma and cross gamma with the engine's relative bump of the spot, so the
/// estimator's own O(h^2) is not in the comparison; the allowance is the exact second
/// derivative's distance from it plus the variance integral's trapezoid error below).
#[test]
fn two_lognormals_every_greek_against_quadrature() {
    let m = Two {
        spot: [100.0, 90.0],
        q: [0.01, 0.0],
        v0: [0.09, 0.02],
        kappa: [2.0, 1.0],
        theta: [0.04, 0.05],
        w: [0.5, 0.6],
        corr: 0.4,
        r: 0.03,
        t: 1.0,
        k: 100.0,
    };
    let steps = 24;
    let xi = 1e-4;
    let assets = [
        ("A", m.spot[0], m.q[0], m.v0[0], m.kappa[0], m.theta[0], xi, 0.0),
        ("B", m.spot[1], m.q[1], m.v0[1], m.kappa[1], m.theta[1], xi, 0.0),
    ];
    let text = job_text(
        "put",
        "european",
        m.k,
        m.t,
        &m.w,
        m.r,
        &assets,
        &[vec![1.0, m.corr], vec![m.corr, 1.0]],
        40_000,
        steps,
        11,
    );
    let out = run(&text);
    let put = |x: &Two| x.put();
    let base = put(&m);
    let d = |f: &dyn Fn(f64) -> f64, x: f64, h: f64| (f(x + h) - f(x - h)) / (2.0 * h);
    let with = |g: &dyn Fn(&mut Two)| {
        let mut x = m;
        g(&mut x);
        put(&x)
    };
    // The scheme integrates the variance by the trapezoid rule over 24 steps: its relative
    // error kappa^2 dt^2 / 12 (under 6e-4 at kappa 2) moves the price by under 1e-3; each
    // Greek gets 0.5 % of its size for the same reason.
    let allow = |x: f64| 0.005 * x.abs() + 2e-4;
    check(&out, "price", None, None, base, 1e-3);
    for i in 0..2 {
        let delta = d(&|s| with(&|x| x.spot[i] = s), m.spot[i], 1e-3 * m.spot[i]);
        check(&out, "delta", Some(i), None, delta, allow(delta));
        let h = GAMMA_BUMP * m.spot[i];
        let gamma =
            (with(&|x| x.spot[i] = m.spot[i] + h) - 2.0 * base + with(&|x| x.spot[i] = m.spot[i] - h)) / (h * h);
        check(&out, "gamma", Some(i), None, gamma, allow(gamma));
        let sd = m.v0[i].sqrt();
        let vega = d(&|s| with(&|x| x.v0[i] = s * s), sd, 1e-4);
        check(&out, "vega", Some(i), None, vega, allow(vega));
        let kv = d(&|s| with(&|x| x.kappa[i] = s), m.kappa[i], 1e-4);
        check(&out, "model_vega_kappa", Some(i), None, kv, allow(kv));
        let tv = d(&|s| with(&|x| x.theta[i] = s), m.theta[i], 1e-5);
        check(&out, "model_vega_theta", Some(i), None, tv, allow(tv));
        // The price depends on xi through xi^2 at rho = 0: its derivative at xi = 1e-4 is 0.
        check(&out, "model_vega_xi", Some(i), None, 0.0, 1e-3);
    }
    let (h0, h1) = (GAMMA_BUMP * m.spot[0], GAMMA_BUMP * m.spot[1]);
    let at = |a: f64, b: f64| {
        with(&|x| {
            x.spot[0] = m.spot[0] + a;
            x.spot[1] = m.spot[1] + b;
        })
    };
    let cross = (at(h0, h1) - at(h0, -h1) - at(-h0, h1) + at(-h0, -h1)) / (4.0 * h0 * h1);
    check(&out, "cross_gamma", Some(0), Some(1), cross, allow(cross));
    let cv = d(&|c| with(&|x| x.corr = c), m.corr, 1e-4);
    check(&out, "correlation_vega", Some(0), Some(1), cv, allow(cv));
    let rho = d(&|r| with(&|x| x.r = r), m.r, 1e-5);
    check(&out, "rho", None, None, rho, allow(rho));
    let theta = -d(&|t| with(&|x| x.t = t), m.t, 1e-5);
    check(&out, "theta", None, None, theta, allow(theta));
}

// ---------------------------------------------------------------------------------------------
// One asset American against finite differences.

/// A Bermudan put on a Jarrow-Rudd tree of `n` steps exercisable at steps `every, 2 every, ..,
/// n` only (not today), as the basket's grid dates.
fn bermudan_tree(v: &Vanilla, n: usize, every: usize) -> f64 {
    let dt = v.maturity / n as f64;
    let mu = v.rate - v.dividend - 0.5 * v.vol * v.vol;
    let (up, down) = (mu * dt + v.vol * dt.sqrt(), mu * dt - v.vol * dt.sqrt());
    let p = (((v.rate - v.dividend) * dt).exp() - down.exp()) / (up.exp() - down.exp());
    let disc = (-v.rate * dt).exp();
    let s = |i: usize, j: usize| v.spot * (up * j as f64 + down * (i - j) as f64).exp();
    let mut values: Vec<f64> = (0..=n).map(|j| v.option.payoff(s(n, j), v.strike)).collect();
    for i in (0..n).rev() {
        for j in 0..=i {
            let cont = disc * (p * values[j + 1] + (1.0 - p) * values[j]);
            values[j] = if i > 0 && i % every == 0 { cont.max(v.option.payoff(s(i, j), v.strike)) } else { cont };
        }
    }
    values[0]
}

/// An American put at deterministic variance v0 = theta (geometric Brownian motion at vol 0.25)
/// on 50 exercise dates: the price against the finite differences less the early-exercise value
/// the grid's dates cannot capture (American minus Bermudan on a 5000-step tree, about 0.02),
/// with 0.02 for the regression's policy (Longstaff-Schwartz out of sample is low-biased: its
/// exercise rule is not the optimal one).
#[test]
fn one_asset_american_against_finite_differences() {
    let v = Vanilla {
        option: OptionType::Put,
        spot: 100.0,
        strike: 105.0,
        maturity: 1.0,
        rate: 0.05,
        dividend: 0.0,
        vol: 0.25,
    };
    let steps = 50;
    let var = v.vol * v.vol;
    let text = job_text(
        "put",
        "american",
        v.strike,
        v.maturity,
        &[1.0],
        v.rate,
        &[("S", v.spot, v.dividend, var, 1.0, var, 1e-4, 0.0)],
        &[vec![1.0]],
        40_000,
        steps,
        3,
    );
    let out = run(&text);
    let fd = american_fd(&v).expect("finite differences");
    let gap = bermudan_tree(&v, 5000, 100) - bermudan_tree(&v, 5000, 1);
    eprintln!("finite differences {fd}, Bermudan gap on the tree {gap}");
    assert!(gap < 0.0 && gap > -0.1, "the tree's Bermudan gap {gap}");
    let (price, se) = get(&out, "price", None, None);
    let reference = fd + gap;
    assert!(
        price <= reference + 4.0 * se && price >= reference - 4.0 * se - 0.02,
        "American put {price} +/- {se} against FD {fd} + Bermudan gap {gap} (low-biased by at most 0.02)"
    );
}

// ---------------------------------------------------------------------------------------------
// Measurements for ADR 0031 (not checks: `cargo test --release -p tenor-pricing --test
// basket_references -- --ignored --nocapture measure_`).

/// CPU seconds of this process so far (user + system, from /proc/self/stat; 10 ms resolution):
/// on a shared machine wall time measures the neighbours too.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    let after = &stat[stat.rfind(')').expect("comm") + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>().expect("utime") + fields[12].parse::<f64>().expect("stime");
    ticks / 100.0
}

fn lognormals() -> (Two, [Asset; 2]) {
    let m = Two {
        spot: [100.0, 90.0],
        q: [0.01, 0.0],
        v0: [0.09, 0.02],
        kappa: [2.0, 1.0],
        theta: [0.04, 0.05],
        w: [0.5, 0.6],
        corr: 0.4,
        r: 0.03,
        t: 1.0,
        k: 100.0,
    };
    let assets = [
        ("A", m.spot[0], m.q[0], m.v0[0], m.kappa[0], m.theta[0], 1e-4, 0.0),
        ("B", m.spot[1], m.q[1], m.v0[1], m.kappa[1], m.theta[1], 1e-4, 0.0),
    ];
    (m, assets)
}

/// ADR 0031's table of the gamma bump: per relative bump h, the estimator's O(h^2) bias (the
/// quadrature's difference of deltas at +/- h against its exact second derivative) and its
/// noise (the standard error at 100,000 paths, and the estimate averaged over 4 seeds).
#[test]
#[ignore = "a measurement for ADR 0031, not a check"]
fn measure_gamma_bump() {
    use tenor_pricing::basket::{price_basket_with, BasketSettings};
    let dev = tenor_cpu::cpu().expect("cpu");
    let (m, assets) = lognormals();
    let at = |s: f64| {
        let mut x = m;
        x.spot[0] = s;
        x.put()
    };
    let s0 = m.spot[0];
    let delta = |s: f64| (at(s + 1e-3) - at(s - 1e-3)) / 2e-3;
    let exact = (at(s0 + 0.05) - 2.0 * at(s0) + at(s0 - 0.05)) / 0.0025;
    println!("gamma of asset 0 (two lognormals, European put, 100,000 paths x 24 steps, 4 seeds); exact {exact:.6}");
    println!("| relative bump | bias of the difference of deltas | standard error (one seed) | mean of 4 seeds |");
    for bump in [0.0025, 0.005, 0.01, 0.02, 0.05] {
        let h = bump * s0;
        let bias = (delta(s0 + h) - delta(s0 - h)) / (2.0 * h) - exact;
        let (mut mean, mut se) = (0.0, 0.0);
        for seed in 0..4u64 {
            let text = job_text(
                "put",
                "european",
                m.k,
                m.t,
                &m.w,
                m.r,
                &assets,
                &[vec![1.0, m.corr], vec![m.corr, 1.0]],
                100_000,
                24,
                40 + seed,
            );
            let job = BasketJob::from_toml(&text).expect("job");
            let out = price_basket_with(&dev, &job, &BasketSettings { gamma_bump: bump, ..BasketSettings::default() })
                .expect("price");
            let (g, e) = get(&out, "gamma", Some(0), None);
            mean += g / 4.0;
            se += e / 4.0;
        }
        println!("| {bump} | {bias:.2e} | {se:.6} | {mean:.6} |");
    }
}

/// ADR 0031's table of the regression basis: the out-of-sample price of the baseline basket (a
/// low-biased estimate: higher is a better exercise policy) by the number of basis functions.
#[test]
#[ignore = "a measurement for ADR 0031, not a check"]
fn measure_basis() {
    use tenor_pricing::basket::{price_basket_with, BasketSettings};
    let dev = tenor_cpu::cpu().expect("cpu");
    let base = BasketJob::from_toml(include_str!("../../../examples/basket/baseline.toml")).expect("baseline");
    println!("out-of-sample price of the baseline job at 20,000 paths x 100 steps by basis (mean of 4 seeds)");
    println!("| basis | price | standard error of the mean |");
    for nb in 1..=6u32 {
        let mut prices = Vec::new();
        for seed in 0..4u64 {
            let mut job = base.clone();
            job.simulation.paths = 20_000;
            job.simulation.steps = 100;
            job.simulation.seed = 100 + seed;
            let s = BasketSettings { greeks: false, nbasis: nb, ..BasketSettings::default() };
            prices.push(get(&price_basket_with(&dev, &job, &s).expect("price"), "price", None, None));
        }
        let mean = prices.iter().map(|p| p.0).sum::<f64>() / 4.0;
        let se = (prices.iter().map(|p| p.1 * p.1).sum::<f64>()).sqrt() / 4.0;
        println!("| {nb} | {mean:.4} | {se:.4} |");
    }
}

/// ADR 0031's table of the first-order estimators: each pathwise Greek's spread over 6 seeds
/// against central bump-and-revalue (1 %, common random numbers, a fresh regression per bumped
/// job, as a user of a price-only engine would do), and the CPU cost of a job with every Greek
/// against one price-only valuation (one thread).
#[test]
#[ignore = "a measurement for ADR 0031, not a check"]
fn measure_estimators() {
    let dev = tenor_cpu::cpu_with_threads(1).expect("cpu");
    let base = BasketJob::from_toml(include_str!("../../../examples/basket/baseline.toml")).expect("baseline");
    let seeds = 6u64;
    type Bump = (&'static str, Option<usize>, Option<usize>, fn(&mut BasketJob, f64) -> f64);
    let bumps: [Bump; 8] = [
        ("delta", Some(0), None, |j, h| {
            let d = h * j.assets[0].spot;
            j.assets[0].spot += d;
            d
        }),
        ("vega", Some(0), None, |j, h| {
            let s = j.assets[0].v0.sqrt();
            j.assets[0].v0 = (s * (1.0 + h)).powi(2);
            h * s
        }),
        ("model_vega_kappa", Some(0), None, |j, h| {
            let d = h * j.assets[0].kappa;
            j.assets[0].kappa += d;
            d
        }),
        ("model_vega_theta", Some(0), None, |j, h| {
            let d = h * j.assets[0].theta;
            j.assets[0].theta += d;
            d
        }),
        ("model_vega_xi", Some(0), None, |j, h| {
            let d = h * j.assets[0].xi;
            j.assets[0].xi += d;
            d
        }),
        ("correlation_vega", Some(0), Some(1), |j, h| {
            let d = h * j.prices[0][1];
            j.prices[0][1] += d;
            j.prices[1][0] += d;
            d
        }),
        ("rho", None, None, |j, h| {
            let d = h * j.rate;
            j.rate += d;
            d
        }),
        ("theta", None, None, |j, h| {
            let d = h * j.option.maturity;
            j.option.maturity += d;
            -d
        }),
    ];
    let mut small = base.clone();
    small.simulation.paths = 10_000;
    small.simulation.steps = 50;
    let mut pathwise: Vec<Vec<f64>> = vec![Vec::new(); bumps.len()];
    let mut pathwise_se: Vec<f64> = vec![0.0; bumps.len()];
    let mut revalued: Vec<Vec<f64>> = vec![Vec::new(); bumps.len()];
    let (mut t_greeks, mut t_price, mut n_price) = (0.0, 0.0, 0u32);
    for seed in 0..seeds {
        let mut job = small.clone();
        job.simulation.seed = 500 + seed;
        let t = cpu_seconds();
        let out = price_basket(&dev, &job, true).expect("greeks");
        t_greeks += cpu_seconds() - t;
        for (k, (g, a, b, _)) in bumps.iter().enumerate() {
            let (v, se) = get(&out, g, *a, *b);
            pathwise[k].push(v);
            pathwise_se[k] += se / seeds as f64;
        }
        for (k, (_, _, _, f)) in bumps.iter().enumerate() {
            let mut up = job.clone();
            let mut dn = job.clone();
            let d = f(&mut up, 0.01);
            f(&mut dn, -0.01);
            let t = cpu_seconds();
            let pu = get(&price_basket(&dev, &up, false).expect("up"), "price", None, None).0;
            let pd = get(&price_basket(&dev, &dn, false).expect("down"), "price", None, None).0;
            t_price += cpu_seconds() - t;
            n_price += 2;
            revalued[k].push((pu - pd) / (2.0 * d));
        }
    }
    let stats = |v: &[f64]| {
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        (mean, (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt())
    };
    println!("baseline basket, 10,000 paths x 50 steps, {seeds} seeds, one thread");
    println!(
        "CPU seconds: one job with every Greek {:.3}; one price-only job {:.3}",
        t_greeks / seeds as f64,
        t_price / f64::from(n_price)
    );
    println!("| Greek | pathwise mean | spread over seeds | mean standard error | bump-and-revalue mean | spread over seeds |");
    for (k, (g, a, b, _)) in bumps.iter().enumerate() {
        let (pm, ps) = stats(&pathwise[k]);
        let (rm, rs) = stats(&revalued[k]);
        println!("| {g} {a:?} {b:?} | {pm:.5} | {ps:.5} | {:.5} | {rm:.5} | {rs:.5} |", pathwise_se[k]);
    }
}
