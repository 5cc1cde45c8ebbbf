//! The pilot's own checks: the port and the adapter give the same results; the in-house sample's
//! reference file holds Tenor's closed-form prices on the seeded inputs; the pilot runs.

use std::path::Path;
use std::process::Command;

fn tenor() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tenor"))
}

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// SplitMix64 and the fill rule of `pilot.toml` (`uniform(a, b)` with seed 0x5eed + argument
/// position), as documented in docs/pilot.md: regenerated here independently of the pilot.
fn uniform(a: f64, b: f64, n: usize, seed: u64) -> Vec<f64> {
    let mut st = seed;
    (0..n)
        .map(|_| {
            st = st.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = st;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            a + (b - a) * ((z >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}

#[test]
fn in_house_reference_file_holds_closed_form_prices() {
    use tenor_pricing::analytic::black_scholes_price;
    use tenor_pricing::types::{OptionType, Vanilla};
    let n = 1024;
    let spot = uniform(50.0, 150.0, n, 0x5eed);
    let strike = uniform(50.0, 150.0, n, 0x5eed + 1);
    let vol = uniform(0.05, 0.8, n, 0x5eed + 2);
    let maturity = uniform(0.02, 3.0, n, 0x5eed + 3);
    let want: Vec<f64> = (0..n)
        .map(|i| {
            black_scholes_price(&Vanilla {
                option: OptionType::Call,
                spot: spot[i],
                strike: strike[i],
                maturity: maturity[i],
                rate: 0.03,
                dividend: 0.01,
                vol: vol[i],
            })
            .expect("valid inputs")
        })
        .collect();
    let path = root().join("examples/inhouse/bs_batch/reference_price_1024.f64");
    if std::env::var_os("TENOR_REGEN").is_some() {
        let bytes: Vec<u8> = want.iter().flat_map(|x| x.to_le_bytes()).collect();
        std::fs::write(&path, bytes).expect("write reference");
    }
    let bytes = std::fs::read(&path).expect("reference file");
    let got: Vec<f64> = bytes.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
    assert_eq!(got.len(), n);
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() <= 1e-12 * w.abs().max(1.0), "{g} vs {w}");
    }
}

#[test]
fn port_and_direct_adapter_calls_give_the_same_results() {
    for backend in ["cpu", "sim"] {
        let rows =
            tenor_backends::visit(backend, tenor::pilot::overhead::Measure { sizes: vec![2, 1 << 14], budget_s: 0.01 })
                .expect("backend")
                .expect("measure");
        assert_eq!(rows.len(), 2);
        assert!(rows.iter().all(|r| r.same_results), "{backend}: {rows:?}");
    }
}

#[test]
fn quick_pilot_on_cpu_writes_a_report_and_agrees() {
    let out = std::env::temp_dir().join(format!("tenor-pilot-{}", std::process::id()));
    let st = tenor()
        .args(["pilot", "run", "--backends", "cpu,sim", "--suite", "quick", "--max-mib", "16", "--out"])
        .arg(&out)
        .status()
        .expect("run tenor");
    assert!(st.success());
    let md = std::fs::read_to_string(out.join("pilot.md")).expect("pilot.md");
    assert!(md.contains("| sim | philox_bits | bitwise | 0.00e0"), "{md}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("pilot.json")).expect("json")).expect("valid json");
    assert!(json["throughput"].as_array().is_some_and(|a| !a.is_empty()));
}

#[test]
fn curve_workload_starts_from_the_treasury_file_and_its_scenarios_bootstrap() {
    use tenor::pilot::workloads::{curve_scenarios, CURVE_BASE_2025_07_11, CURVE_TENORS};
    let table =
        tenor_market::treasury::load_treasury(&tenor_testdata::shared("data/rates/us_treasury_par_yield_2025_h1.csv"))
            .expect("2025 par yields");
    let row = table.on(chrono::NaiveDate::from_ymd_opt(2025, 7, 11).expect("date")).expect("2025-07-11");
    for (t, y) in CURVE_TENORS.iter().zip(CURVE_BASE_2025_07_11) {
        let p = row.points.iter().find(|p| (p.0 - t).abs() < 1e-12).expect("tenor published");
        // The file's percent over 100 (rounded once) against the decimal literal.
        assert!((p.1 - y).abs() < 1e-15, "tenor {t}: file {} vs {y}", p.1);
    }
    // The scenarios are shocked (not all equal to the base) and each one bootstraps.
    let n = 64;
    let par = curve_scenarios(n);
    let m = CURVE_TENORS.len();
    let mut moved = 0;
    for c in 0..n {
        let points: Vec<(f64, f64)> = CURVE_TENORS.iter().enumerate().map(|(k, t)| (*t, par[k * n + c])).collect();
        moved += usize::from(points.iter().zip(CURVE_BASE_2025_07_11).any(|(p, b)| (p.1 - b).abs() > 1e-4));
        tenor_market::curve::DiscountCurve::bootstrap_par(&points).expect("scenario bootstraps");
    }
    assert!(moved > n - 2, "{moved} of {n} curves shocked");
    assert_eq!(par.len(), m * n);
}
