//! `tenor calibrate heston` on the shared SPX snapshot: outputs written, every model price in
//! fit.csv reproduced from params.json by the semi-analytic pricer, and the fit quality within
//! what Heston achieves on SPX (vega-weighted RMSE under 1 vol point).
mod common;

use common::{run, tenor};
use tenor_pricing::heston::{heston_price, HestonOption, HestonParams};
use tenor_pricing::types::OptionType;

#[test]
fn calibrates_heston_to_the_spx_snapshot() {
    let chain = tenor_testdata::shared("data/options/spx_cboe_2025-10-01");
    assert!(chain.is_dir(), "missing shared chain folder {}", chain.display());
    let out = std::env::temp_dir().join(format!("tenor-calibrate-{}", std::process::id()));
    tenor()
        .args(["calibrate", "heston"])
        .arg(&chain)
        .arg("--out")
        .arg(&out)
        .arg("--per-slice")
        .arg("6")
        .assert()
        .success();
    let params: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("params.json")).expect("params.json")).expect("json");
    let g = |k: &str| params[k].as_f64().unwrap_or_else(|| panic!("params.json lacks {k}"));
    let p = HestonParams { v0: g("v0"), kappa: g("kappa"), theta: g("theta"), sigma: g("sigma"), rho: g("rho") };
    p.validate().expect("admissible parameters");
    assert!(g("weighted_rmse_vol") < 0.01, "RMSE {}", g("weighted_rmse_vol"));
    let spot = g("spot");
    let mut rdr = csv::Reader::from_path(out.join("fit.csv")).expect("fit.csv");
    let mut n = 0;
    for rec in rdr.records() {
        let rec = rec.expect("row");
        let f = |i: usize| rec[i].parse::<f64>().expect("number");
        let (strike, t, fwd, df, model) = (f(2), f(3), f(4), f(5), f(7));
        let rate = -df.ln() / t;
        let o = HestonOption {
            option: if &rec[1] == "call" { OptionType::Call } else { OptionType::Put },
            spot,
            strike,
            maturity: t,
            rate,
            dividend: rate - (fwd / spot).ln() / t,
        };
        let again = heston_price(&p, &o).expect("price");
        // fit.csv rounds forward (4 dp), discount (8 dp), maturity (6 dp) and prices (4 dp).
        assert!((again - model).abs() < 2e-3 * model.max(1.0), "K {strike} T {t}: {again} vs {model}");
        n += 1;
    }
    assert_eq!(n as f64, g("quotes"));
    assert!(std::fs::metadata(out.join("fit.svg")).expect("fit.svg").len() > 1000);
    std::fs::remove_dir_all(&out).ok();
}

/// Runs `tenor calibrate heston` on the snapshot with `extra` arguments; returns params.json.
fn calibrate(chain: &std::path::Path, tag: &str, extra: &[&str]) -> serde_json::Value {
    let out = std::env::temp_dir().join(format!("tenor-calibrate-{tag}-{}", std::process::id()));
    tenor()
        .args(["calibrate", "heston"])
        .arg(chain)
        .arg("--out")
        .arg(&out)
        .args(["--per-slice", "4", "--slices", "6"])
        .args(extra)
        .assert()
        .success();
    let v =
        serde_json::from_str(&std::fs::read_to_string(out.join("params.json")).expect("params.json")).expect("json");
    std::fs::remove_dir_all(&out).ok();
    v
}

#[test]
fn port_and_host_pricers_reach_the_same_fit() {
    // The port path (heston_price kernel, fixed nodes) and the host path (adaptive integrator)
    // price to within 1e-9 of the spot scale on SPX-like parameters, so both calibrations end
    // at the same weighted RMSE (to 1e-6 vol) from the same start.
    let chain = tenor_testdata::shared("data/options/spx_cboe_2025-10-01");
    assert!(chain.is_dir(), "missing shared chain folder {}", chain.display());
    let port = calibrate(&chain, "port", &["--backend", "cpu"]);
    let host = calibrate(&chain, "host", &["--pricer", "host"]);
    let g = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap_or_else(|| panic!("params.json lacks {k}"));
    assert_eq!(g(&port, "quotes"), g(&host, "quotes"));
    let (rp, rh) = (g(&port, "weighted_rmse_vol"), g(&host, "weighted_rmse_vol"));
    assert!((rp - rh).abs() < 1e-6, "weighted RMSE: port {rp}, host {rh}");
    assert!(port["launches"].as_u64().unwrap_or(0) > 1, "{port}");
    assert_eq!(port["pricer"], "port");
    assert_eq!(port["backend"], "cpu");
    assert_eq!(host["pricer"], "host");
    // The host pricer integrates adaptively: no node count, no backend.
    assert!(host["quadrature_nodes"].is_null() && host["backend"].is_null(), "{host}");
    assert!(port["quadrature_nodes"].as_u64().is_some(), "{port}");
}

#[test]
fn running_out_of_iterations_is_a_warning_and_recorded() {
    let chain = tenor_testdata::shared("data/options/spx_cboe_2025-10-01");
    assert!(chain.is_dir(), "missing shared chain folder {}", chain.display());
    let out = std::env::temp_dir().join(format!("tenor-calibrate-limit-{}", std::process::id()));
    let mut cmd = tenor();
    cmd.args(["calibrate", "heston"]).arg(&chain).arg("--out").arg(&out);
    let r = run(cmd.args(["--per-slice", "4", "--slices", "6", "--max-iterations", "1"]));
    let stderr = &r.stderr;
    assert!(r.success(), "{stderr}");
    assert!(stderr.contains("warning") && stderr.contains("--max-iterations 1"), "{stderr}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("params.json")).expect("params.json")).expect("json");
    assert_eq!(v["stop"], "iteration limit", "{v}");
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn bad_selection_limits_are_refused_naming_the_parameter() {
    for (flag, bad) in [
        ("--max-sd", "nan"),
        ("--max-sd", "-1"),
        ("--max-sd", "0"),
        ("--max-years", "inf"),
        ("--max-years", "-2"),
        ("--min-days", "-1"),
        ("--min-days", "NaN"),
        ("--max-iterations", "0"),
    ] {
        let a = run(tenor().args(["calibrate", "heston", "no-such-chain", flag, bad]));
        let stderr = &a.stderr;
        assert_ne!(a.code, 0, "{flag} {bad}");
        assert!(stderr.contains(flag) && stderr.contains("must be"), "{flag} {bad}: {stderr}");
    }
}

#[test]
fn missing_chain_is_reported_with_its_path() {
    let out = tenor().args(["calibrate", "heston", "/nonexistent/chain.csv"]).assert().failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(stderr.contains("/nonexistent/chain.csv"), "{stderr}");
}

#[test]
fn out_of_range_nodes_are_refused_naming_the_parameter() {
    for bad in ["1", "3", "100000"] {
        let a = run(tenor().args(["calibrate", "heston", "no-such-chain", "--nodes", bad]));
        let stderr = &a.stderr;
        assert_ne!(a.code, 0);
        assert!(stderr.contains("--nodes") && stderr.contains("between 64 and 8192"), "{stderr}");
    }
}
