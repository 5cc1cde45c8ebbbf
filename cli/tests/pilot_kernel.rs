//! `tenor pilot kernel DIR` (in-house kernels, pilot/src/inhouse.rs): load errors name the
//! file (and the line where the TOML parser gives one) and the field; an unusable `--reference`
//! backend is an error naming it; and, with the SYCL backend built in (scripts/test's SYCL step,
//! as only SYCL, CUDA and OpenCL run in-house kernels: the CPU and sim backends run built-in
//! kernels only), the sample examples/inhouse/bs_batch matches its reference output file, whose
//! values cli/tests/pilot.rs checks against the Black-Scholes-Merton closed form.

mod common;

use std::path::{Path, PathBuf};

use common::{run, tenor};
use tenor_pilot::inhouse;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// A fresh copy of examples/inhouse/bs_batch in a temporary folder named after `tag`.
fn sample(tag: &str) -> PathBuf {
    let src = root().join("examples/inhouse/bs_batch");
    let dst = std::env::temp_dir().join(format!("tenor-pilot-kernel-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dst);
    std::fs::create_dir_all(&dst).expect("temp dir");
    for e in std::fs::read_dir(&src).expect("sample folder") {
        let e = e.expect("entry");
        std::fs::copy(e.path(), dst.join(e.file_name())).expect("copy sample file");
    }
    dst
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).expect("read");
    assert!(text.contains(from), "{} has no {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).expect("write");
}

fn load_err(dir: &Path) -> String {
    match inhouse::load(dir) {
        Ok(_) => panic!("{} loaded, an error was expected", dir.display()),
        Err(e) => format!("{e:#}"),
    }
}

#[test]
fn the_sample_loads_with_its_sources() {
    let k = inhouse::load(&root().join("examples/inhouse/bs_batch")).expect("sample loads");
    assert_eq!(k.def.name, "bs_batch");
    for b in ["cuda", "sycl", "opencl"] {
        assert!(k.def.sources.contains_key(b), "no {b} source");
    }
    let r = inhouse::reference_outputs(&k).expect("reference").expect("a reference file");
    assert_eq!(r["price"].len(), 1024);
}

#[test]
fn missing_manifest_is_named() {
    let d = sample("nomanifest");
    std::fs::remove_file(d.join("kernel.toml")).expect("rm");
    let e = load_err(&d);
    assert!(e.contains(&d.join("kernel.toml").display().to_string()), "{e}");
}

#[test]
fn unknown_manifest_field_is_named_with_file_and_line() {
    let d = sample("unknownfield");
    edit(&d.join("kernel.toml"), "block = 256", "block = 256\nwarps = 8");
    let e = load_err(&d);
    assert!(e.contains("kernel.toml"), "{e}");
    assert!(e.contains("warps"), "{e}");
    // block is on line 6 of the sample's manifest, the added field on line 7.
    assert!(e.contains("line 7"), "{e}");
}

#[test]
fn unknown_pilot_field_is_named_with_file_and_line() {
    let d = sample("pilotfield");
    edit(&d.join("pilot.toml"), "fill = \"uniform(50, 150)\"", "fil = \"uniform(50, 150)\"");
    let e = load_err(&d);
    assert!(e.contains("pilot.toml"), "{e}");
    assert!(e.contains("fil"), "{e}");
    assert!(e.contains("line 6"), "{e}");
}

#[test]
fn out_of_range_scalar_is_an_error_naming_the_field() {
    // n is a u64: a negative value must not wrap to 2^64 - 1.
    let d = sample("negative");
    edit(&d.join("pilot.toml"), "value = \"items\"", "value = -1");
    let e = load_err(&d);
    assert!(e.contains("pilot.toml") && e.contains("[args.n].value"), "{e}");
    assert!(e.contains("-1 is out of range for u64"), "{e}");
    // nor may a fraction be truncated.
    let d = sample("fraction");
    edit(&d.join("pilot.toml"), "value = \"items\"", "value = 2.5");
    let e = load_err(&d);
    assert!(e.contains("[args.n].value") && e.contains("2.5 is not a whole number"), "{e}");
}

#[test]
fn bad_sizes_are_named() {
    let d = sample("sizes");
    edit(&d.join("pilot.toml"), "sizes = [1024, 65536, 1048576, 16777216]", "sizes = [1024, 0]");
    let e = load_err(&d);
    assert!(e.contains("pilot.toml") && e.contains("sizes"), "{e}");
}

#[test]
fn missing_reference_file_is_named() {
    let d = sample("noref");
    std::fs::remove_file(d.join("reference_price_1024.f64")).expect("rm");
    let k = inhouse::load(&d).expect("loads: the file is read when checking");
    let e = format!("{:#}", inhouse::reference_outputs(&k).expect_err("missing file"));
    assert!(e.contains(&d.join("reference_price_1024.f64").display().to_string()), "{e}");
}

#[test]
fn unusable_reference_backend_is_an_error_naming_it() {
    let dir = root().join("examples/inhouse/bs_batch");
    let out = std::env::temp_dir().join(format!("tenor-pilot-kernel-{}-refout", std::process::id()));
    for (reference, says) in [
        ("nope", "--reference nope"),
        // the CPU backend runs built-in kernels only: no source for an in-house kernel.
        ("cpu", "--reference cpu: "),
    ] {
        let o = run(tenor()
            .args(["pilot", "kernel"])
            .arg(&dir)
            .args(["--backends", "cpu", "--reference", reference, "--out"])
            .arg(&out));
        let err = &o.stderr;
        assert!(!o.success(), "--reference {reference} succeeded: {err}");
        assert!(err.contains(says), "{err}");
    }
}

/// The sample on `backend` against its reference output file, at two small sizes; and a
/// reference file with one value changed must fail the run.
#[cfg(any(feature = "sycl", feature = "opencl"))]
fn sample_matches_its_reference_file(backend: &str) {
    let d = sample(backend);
    edit(&d.join("pilot.toml"), "sizes = [1024, 65536, 1048576, 16777216]", "sizes = [1024, 4096]");
    let run_on = |dir: &Path, tag: &str| {
        let out = std::env::temp_dir().join(format!("tenor-pilot-kernel-{}-{tag}-out", std::process::id()));
        let o = run(tenor()
            .env("TENOR_SYCL_DEVICE", "cpu")
            .args(["pilot", "kernel"])
            .arg(dir)
            .args(["--backends", backend, "--budget", "0.01", "--out"])
            .arg(&out));
        let rows: serde_json::Value = if o.success() || out.join("kernel.json").is_file() {
            serde_json::from_str(&std::fs::read_to_string(out.join("kernel.json")).expect("kernel.json")).expect("json")
        } else {
            serde_json::Value::Null
        };
        (o, rows)
    };
    let (o, rows) = run_on(&d, "good");
    assert!(o.success(), "{}", o.stderr);
    let rows = rows.as_array().expect("rows").clone();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows.iter().all(|r| r["backend"] == backend));
    assert_eq!(rows[0]["check"], "ok against reference file", "{rows:?}");

    // One price changed by 1e-6 relative (above rtol 1e-12): the check fails.
    let f = d.join("reference_price_1024.f64");
    let mut bytes = std::fs::read(&f).expect("reference");
    let v = f64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
    bytes[..8].copy_from_slice(&(v * (1.0 + 1e-6)).to_le_bytes());
    std::fs::write(&f, bytes).expect("write");
    let (o, rows) = run_on(&d, "bad");
    assert!(!o.success());
    let check = rows[0]["check"].as_str().unwrap_or_default().to_owned();
    assert!(check.starts_with("FAILED against reference file"), "{check}");
}

/// The sample on SYCL (Intel's OpenCL CPU device in CI).
#[cfg(feature = "sycl")]
#[test]
fn sample_on_sycl_matches_its_reference_file() {
    sample_matches_its_reference_file("sycl");
}

/// The sample's OpenCL C source on the OpenCL backend (Intel's OpenCL CPU runtime in CI).
#[cfg(feature = "opencl")]
#[test]
fn sample_on_opencl_matches_its_reference_file() {
    sample_matches_its_reference_file("opencl");
}

/// `--budget` must be finite and > 0: NaN, infinity, 0 and negatives are refused before
/// anything runs, naming the flag (NaN used to be accepted).
#[test]
fn non_finite_or_non_positive_budget_is_refused_naming_the_flag() {
    let dir = root().join("examples/inhouse/bs_batch");
    let out = std::env::temp_dir().join(format!("tenor-pilot-kernel-{}-budget", std::process::id()));
    for bad in ["NaN", "inf", "0", "-1"] {
        let o = run(tenor()
            .args(["pilot", "kernel"])
            .arg(&dir)
            .args(["--backends", "cpu"])
            .arg(format!("--budget={bad}"))
            .arg("--out")
            .arg(&out));
        let err = &o.stderr;
        assert!(!o.success(), "--budget {bad} accepted: {err}");
        assert!(err.contains("--budget") && err.contains("finite and > 0"), "--budget {bad}: {err}");
    }
}
