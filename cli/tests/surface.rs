//! `tenor surface` end to end on the Cboe SPX snapshot and the Yahoo chain's argument check.
use assert_cmd::Command;

#[test]
fn surface_writes_vols_parameters_calendar_and_plot() {
    let chain = tenor_testdata::shared("data/options/spx_cboe_2025-10-01");
    let out = std::env::temp_dir().join(format!("tenor_surface_cli_{}", std::process::id()));
    let assert = Command::cargo_bin("tenor")
        .expect("binary")
        .args(["surface", chain.to_str().expect("utf-8 path"), "--out", out.to_str().expect("utf-8 path")])
        .args(["--backend", "cpu"])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
    assert!(stdout.contains("1914 quotes, 12 slices"), "{stdout}");
    let vols = std::fs::read_to_string(out.join("implied_vols.csv")).expect("implied_vols.csv");
    assert_eq!(vols.lines().count(), 1 + 1914, "one line per quote, none dropped");
    let params = std::fs::read_to_string(out.join("svi_params.csv")).expect("svi_params.csv");
    assert_eq!(params.lines().count(), 1 + 12);
    let calendar = std::fs::read_to_string(out.join("calendar.csv")).expect("calendar.csv");
    assert_eq!(calendar.lines().count(), 1 + 11);
    let svg = std::fs::read_to_string(out.join("surface.svg")).expect("surface.svg");
    assert!(svg.starts_with("<svg"));
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn a_yahoo_chain_without_as_of_is_refused_with_the_reason() {
    let chain = tenor_testdata::shared("data/options/spx_yahoo_chain_2026-01-30.csv");
    let out = std::env::temp_dir().join(format!("tenor_surface_cli_y_{}", std::process::id()));
    let assert = Command::cargo_bin("tenor")
        .expect("binary")
        .args(["surface", chain.to_str().expect("utf-8 path"), "--out", out.to_str().expect("utf-8 path")])
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(stderr.contains("--as-of"), "{stderr}");
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn an_out_folder_that_is_the_chain_folder_is_refused_before_anything_is_written() {
    let dir = std::env::temp_dir().join(format!("tenor_surface_same_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let src = tenor_testdata::shared("data/options/spx_cboe_2025-10-01/spx_quotedata-3.csv");
    std::fs::copy(&src, dir.join("spx.csv")).expect("copy");
    let assert = Command::cargo_bin("tenor")
        .expect("binary")
        .args(["surface", dir.to_str().expect("utf-8 path"), "--out", dir.to_str().expect("utf-8 path")])
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(stderr.contains("--out") && stderr.contains("<CHAIN>") && stderr.contains("overwrite"), "{stderr}");
    let left: Vec<_> = std::fs::read_dir(&dir).expect("list").filter_map(|e| e.ok()).map(|e| e.file_name()).collect();
    assert_eq!(left, ["spx.csv"], "nothing written into the chain folder");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn book_spx_refuses_an_out_that_is_its_rates_file() {
    let dir = std::env::temp_dir().join(format!("tenor_book_same_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data");
    let rates = dir.join("rates.csv");
    std::fs::copy(examples.join("us_treasury_par_yield_2025_h1.csv"), &rates).expect("copy");
    let before = std::fs::read(&rates).expect("read");
    let assert = Command::cargo_bin("tenor")
        .expect("binary")
        .args(["book", "spx", "--cboe-dir"])
        .arg(examples.join("spx_cboe_2025-10-01"))
        .arg("--rates")
        .arg(&rates)
        .arg("--out")
        .arg(&rates)
        .arg("--misses")
        .arg(dir.join("misses.csv"))
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(stderr.contains("--out") && stderr.contains("--rates"), "{stderr}");
    assert_eq!(std::fs::read(&rates).expect("read"), before, "the rates file is untouched");
    std::fs::remove_dir_all(&dir).ok();
}
