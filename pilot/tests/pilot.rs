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
