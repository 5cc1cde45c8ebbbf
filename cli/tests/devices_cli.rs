//! Device selectors on the command line (ADR 0020): `--backend sim:*` over
//! `TENOR_SIM_DEVICES` simulated devices writes byte for byte the one-device output for a book,
//! a sweep and a Heston calibration; bad selectors are refused naming the part; `tenor
//! backends` lists every device.
use std::path::{Path, PathBuf};

mod common;

use common::{run, tenor, Run};

fn tmp(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("devices_cli");
    std::fs::create_dir_all(&d).expect("tmp dir");
    d.join(name)
}

fn book() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/spx_book.csv")
}

fn price(backend: &str, devices: &str, out: &Path) -> Run {
    run(tenor()
        .env_remove("TENOR_BACKEND")
        .env("TENOR_SIM_DEVICES", devices)
        .args(["price", "--portfolio"])
        .arg(book())
        .args(["--engine", "mc", "--paths", "400", "--steps", "8", "--backend", backend, "--out"])
        .arg(out))
}

#[test]
fn the_example_book_on_four_simulated_devices_is_byte_for_byte_one_device() {
    let (one, four) = (tmp("one.csv"), tmp("four.csv"));
    let a = price("sim", "4", &one);
    assert!(a.success(), "{}\n{}", a.stdout, a.stderr);
    let b = price("sim:*", "4", &four);
    assert!(b.success(), "{}\n{}", b.stdout, b.stderr);
    assert!(b.stdout.contains("sim:* over 4 devices, split by cost"), "{}", b.stdout);
    for d in 0..4 {
        assert!(b.stdout.contains(&format!("sim:{d} ")), "{}", b.stdout);
    }
    let (x, y) = (std::fs::read(&one).expect("one"), std::fs::read(&four).expect("four"));
    assert_eq!(x.len(), y.len());
    assert!(x == y, "the 4-device output differs from one device");
    // A range and the environment variable select the same way.
    let c = run(tenor()
        .env("TENOR_BACKEND", "sim:1..2")
        .env("TENOR_SIM_DEVICES", "4")
        .args(["price", "--portfolio"])
        .arg(book())
        .args(["--engine", "mc", "--paths", "400", "--steps", "8", "--out"])
        .arg(tmp("range.csv")));
    assert!(c.success(), "{}", c.stderr);
    assert!(c.stdout.contains("sim:1..2 over 2 devices"), "{}", c.stdout);
    assert!(std::fs::read(tmp("range.csv")).expect("range") == x);
}

#[test]
fn bad_selectors_are_refused_naming_the_part() {
    for (sel, devices, want) in [
        ("cuda:x", "1", "device part \"x\" is not a device number"),
        ("sim:0..9", "4", "device 4 requested, 4 present"),
        ("sim:3..1", "4", "device part \"3..1\" is an empty range"),
        ("simm:0", "1", "unknown backend \"simm\""),
        ("sim:*", "0", "TENOR_SIM_DEVICES=\"0\": must be a whole number from 1 to 64"),
    ] {
        let r = price(sel, devices, &tmp("bad.csv"));
        assert_eq!(r.code, 1, "{sel}: {}", r.stdout);
        assert!(r.stderr.contains(want), "{sel}: {}", r.stderr);
    }
    // A one-device command given several devices says so.
    let r = run(tenor()
        .env("TENOR_SIM_DEVICES", "2")
        .args(["surface", "--backend", "sim:*"])
        .arg(tenor_testdata::shared("data/options/spx_cboe_2025-10-01"))
        .arg("--out")
        .arg(tmp("surface")));
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("names 2 devices; this command runs on one"), "{}", r.stderr);
}

#[test]
fn backends_lists_every_simulated_device() {
    let r = run(tenor().env("TENOR_SIM_DEVICES", "3").arg("backends"));
    assert!(r.success(), "{}", r.stderr);
    for d in 0..3 {
        assert!(r.stdout.contains(&format!("sim:{d}")), "{}", r.stdout);
    }
    assert!(!r.stdout.contains("sim:3"), "{}", r.stdout);
    assert!(r.stdout.contains("sim peer   0 -> 1: n/a"), "{}", r.stdout);
}

#[test]
fn a_sweep_on_three_simulated_devices_writes_the_one_device_table() {
    let sweep = |backend: &str, out: &str| {
        let dir = tmp(out);
        let _ = std::fs::remove_dir_all(&dir);
        let r = run(tenor()
            .env_remove("TENOR_BACKEND")
            .env("TENOR_SIM_DEVICES", "3")
            .args(["backtest", "--strategy", "short_straddle", "--data"])
            .arg(tenor_testdata::shared("data/equities/spy_daily_1999_2020.csv"))
            .args(["--param", "paths=256", "--param", "window=20", "--sweep", "roll=5:25:5", "--backend", backend])
            .arg("--out")
            .arg(&dir));
        assert!(r.success(), "{}\n{}", r.stdout, r.stderr);
        (r.stdout, std::fs::read_to_string(dir.join("sweep.csv")).expect("sweep.csv"))
    };
    let (_, one) = sweep("sim", "sweep_one");
    let (text, three) = sweep("sim:*", "sweep_three");
    assert_eq!(three, one);
    assert!(text.contains("on each of 3 devices"), "{text}");
}
