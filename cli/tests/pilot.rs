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
            tenor_registry::visit(backend, tenor_pilot::overhead::Measure { sizes: vec![2, 1 << 14], budget_s: 0.01 })
                .expect("backend")
                .expect("measure");
        assert_eq!(rows.len(), 2);
        assert!(rows.iter().all(|r| r.same_results), "{backend}: {rows:?}");
        // Interleaved pairs: both ways timed the same number of times, at least 5 pairs, and the
        // relative overhead is the per-launch figure over the direct median.
        assert_eq!(rows.iter().map(|r| r.paths).collect::<Vec<_>>(), [2, 1 << 14]);
        for r in &rows {
            assert!(r.pairs >= 5 && r.port.repeats == r.pairs && r.direct.repeats == r.pairs, "{r:?}");
            assert!(r.overhead_us.is_finite() && r.overhead_iqr_us.0 <= r.overhead_iqr_us.1, "{r:?}");
            let rel = r.overhead_us * 1e-6 / r.direct.median_s;
            assert!((r.overhead_rel - rel).abs() <= 1e-12 * rel.abs().max(1.0), "{r:?}");
        }
    }
}

#[test]
fn quick_pilot_on_cpu_writes_a_report_and_agrees() {
    let out = std::env::temp_dir().join(format!("tenor-pilot-{}", std::process::id()));
    std::fs::create_dir_all(&out).expect("out dir");
    // A peer at a size the quick sweep does not run (1.5e6 paths): compared with the pilot's
    // largest size below it, 2^20; and one below every measured size.
    let peers = out.join("peers.jsonl");
    std::fs::write(
        &peers,
        "{\"peer\":\"numpy-test\",\"workload\":\"mc_european_f64\",\"size\":1500000,\"unit\":\"paths/s\",\"rate\":1e6}\n\
         {\"peer\":\"numpy-test\",\"workload\":\"mc_asian_f64\",\"size\":16,\"unit\":\"path-steps/s\",\"rate\":1e6}\n",
    )
    .expect("peers file");
    let st = tenor()
        .args(["pilot", "run", "--backends", "cpu,sim", "--suite", "quick", "--max-mib", "16", "--peers"])
        .arg(&peers)
        .arg("--out")
        .arg(&out)
        .status()
        .expect("run tenor");
    assert!(st.success());
    let md = std::fs::read_to_string(out.join("pilot.md")).expect("pilot.md");
    assert!(md.contains("| sim | philox_bits | bitwise | 0.00e0"), "{md}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("pilot.json")).expect("json")).expect("valid json");
    assert!(json["throughput"].as_array().is_some_and(|a| !a.is_empty()));
    // Fingerprint: the dirty flag and each backend's kernel cache state.
    // (a boolean in a git checkout, null in a tarball build)
    let dirty = &json["env"]["dirty"];
    assert!(json["env"].as_object().is_some_and(|e| e.contains_key("dirty")), "{}", json["env"]);
    assert!(dirty.is_boolean() || dirty.is_null(), "{dirty}");
    for b in json["env"]["backends"].as_array().expect("backends") {
        assert!(b["kernel_cache"]["summary"].as_str().is_some_and(|s| s.contains("compiled into the binary")), "{b}");
    }
    // The switch runs first: it compiled mc_european, so that cold row names it as loaded
    // before, and the first cold workload (path generation) found nothing loaded.
    for backend in ["cpu", "sim"] {
        let cold = |w: &str| {
            json["cold"]
                .as_array()
                .expect("cold")
                .iter()
                .find(|c| c["backend"] == backend && c["workload"] == w)
                .map(|c| c["loaded_before"].clone())
                .expect("cold row")
        };
        assert_eq!(cold("mc_european_f64"), serde_json::json!(["mc_european"]));
        assert_eq!(cold("path_generation"), serde_json::json!([]));
        // Port overhead at 2, 2^10, 2^16 and 2^20 paths from interleaved pairs.
        let paths: Vec<u64> = json["overhead"]
            .as_array()
            .expect("overhead")
            .iter()
            .filter(|o| o["backend"] == backend)
            .map(|o| o["paths"].as_u64().expect("paths"))
            .collect();
        assert_eq!(paths, [2, 1 << 10, 1 << 16, 1 << 20]);
        // --max-mib 16: path generation's scaling total is the largest quick size within it:
        // 2^13 paths x (64 steps x 8 + 16) bytes = 4.1 MiB (2^16 would be 33 MiB).
        let sizes: Vec<(u64, String)> = json["scaling"]
            .as_array()
            .expect("scaling")
            .iter()
            .filter(|s| s["backend"] == backend && s["workload"] == "path_generation")
            .map(|s| (s["size"].as_u64().expect("size"), s["unit"].as_str().expect("unit").to_owned()))
            .collect();
        assert_eq!(sizes.len(), 4);
        assert!(sizes.iter().all(|(n, u)| *n == 1 << 13 && u == "path-steps/s"), "{sizes:?}");
    }
    // The book workload: every kind, Greeks off and on, on both backends.
    for backend in ["cpu", "sim"] {
        let book: Vec<&serde_json::Value> =
            json["book"].as_array().expect("book").iter().filter(|b| b["backend"] == backend).collect();
        assert_eq!(book.len(), 10, "{backend}: {book:?}");
        for kind in ["european", "barrier", "barrier_discrete", "asian_geo", "asian_arith"] {
            for greeks in [false, true] {
                let row = book.iter().find(|b| b["kind"] == kind && b["greeks"] == greeks).expect("book row");
                let (trades, s, rate) = (row["trades"].as_f64(), row["seconds"].as_f64(), row["trades_per_s"].as_f64());
                let (trades, s, rate) = (trades.expect("trades"), s.expect("seconds"), rate.expect("rate"));
                assert!(trades == 16.0 && s > 0.0 && (rate - trades / s).abs() <= 1e-9 * rate, "{row}");
            }
        }
    }
    assert!(md.contains("| cpu | asian_arith | on | 16 | 4000 |"), "{md}");
    // The basket workloads (the STAC-A2 job at the quick suite's sizes): both on both backends,
    // the same price on cpu and sim (the same reference code), every Greek at the baseline.
    let basket = |backend: &str, w: &str| {
        json["basket"]
            .as_array()
            .expect("basket")
            .iter()
            .find(|b| b["backend"] == backend && b["workload"] == w)
            .cloned()
            .unwrap_or_else(|| panic!("no basket row {backend} {w}"))
    };
    for w in ["basket_baseline", "basket_large"] {
        let (c, s) = (basket("cpu", w), basket("sim", w));
        assert_eq!(c["price"], s["price"], "{w}: {c} vs {s}");
        assert!(c["price"].as_f64().is_some_and(|p| p > 0.0), "{c}");
        for k in ["open_s", "cold_s", "warm_s"] {
            assert!(c[k].as_f64().is_some_and(|x| x >= 0.0), "{w}: {k} in {c}");
        }
    }
    let b = basket("cpu", "basket_baseline");
    assert_eq!((b["assets"].as_u64(), b["paths"].as_u64(), b["steps"].as_u64()), (Some(5), Some(2000), Some(50)));
    assert_eq!((b["greeks"].as_bool(), b["valuations"].as_u64()), (Some(true), Some(43)));
    let l = basket("cpu", "basket_large");
    assert_eq!(
        (l["assets"].as_u64(), l["greeks"].as_bool(), l["valuations"].as_u64()),
        (Some(10), Some(false), Some(1))
    );
    assert!(md.contains("| cpu | basket_baseline | 5 x 2000 x 50 | all | 43 |"), "{md}");
    // One scaling chart per unit (paths/s, path-steps/s).
    assert!(out.join("scaling_0.svg").is_file() && out.join("scaling_1.svg").is_file());
    assert!(["(dirty: ", "(clean: ", "(no git checkout"].iter().any(|h| md.contains(h)), "{md}");
    let cpu_rate = json["throughput"]
        .as_array()
        .and_then(|a| {
            a.iter().find(|t| t["backend"] == "cpu" && t["workload"] == "mc_european_f64" && t["size"] == 1u64 << 20)
        })
        .and_then(|t| t["rate"].as_f64())
        .expect("cpu mc_european_f64 at 2^20");
    let ratios = json["peer_ratios"].as_array().expect("peer_ratios");
    let eu = ratios
        .iter()
        .find(|c| c["peer"]["workload"] == "mc_european_f64" && c["tenor"]["backend"] == "cpu")
        .expect("european peer compared with cpu");
    assert_eq!(eu["tenor"]["size"], 1u64 << 20, "{eu}");
    let ratio = eu["tenor"]["ratio"].as_f64().expect("ratio");
    assert!((ratio - cpu_rate / 1e6).abs() <= 1e-12 * ratio, "{ratio} vs {}", cpu_rate / 1e6);
    let asian: Vec<_> = ratios.iter().filter(|c| c["peer"]["workload"] == "mc_asian_f64").collect();
    assert_eq!(asian.len(), 1, "{asian:?}");
    assert!(asian[0]["tenor"].is_null(), "a peer below every measured size has no comparison: {:?}", asian[0]);
    assert!(md.contains("| numpy-test | mc_european_f64 | 1500000 | 1.000M | cpu | 1048576 |"), "{md}");
    assert!(md.contains("no Tenor row at or below the peer's size"), "{md}");
}

#[test]
fn curve_workload_starts_from_the_treasury_file_and_its_scenarios_bootstrap() {
    use tenor_pilot::workloads::{curve_scenarios, CURVE_BASE_2025_07_11, CURVE_TENORS};
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
