//! The example book (examples/spx_book.csv) priced by `tenor price --backend sycl` (the OpenCL
//! CPU device) and `--backend opencl` (Intel's OpenCL CPU runtime in CI) agrees with
//! `--backend cpu` row by row: every trade through Monte Carlo with the same seed, so the
//! backends draw the same Philox numbers and the prices and standard errors agree within the
//! conformance suite's fp64 tolerance (1e-12 relative).
#![cfg(any(feature = "sycl", feature = "opencl"))]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

mod common;

use common::{run, tenor};

fn price(root: &Path, backend: &str, out: &Path) -> HashMap<String, (f64, f64)> {
    let r = run(tenor()
        .current_dir(root)
        .env("TENOR_SYCL_DEVICE", "cpu")
        .args(["price", "--portfolio", "examples/spx_book.csv", "--engine", "mc", "--paths", "20000"])
        .args(["--no-greeks", "--backend", backend, "--out"])
        .arg(out));
    assert!(r.success(), "{backend}: {}", r.stderr);
    let mut rows = HashMap::new();
    let mut reader = csv::Reader::from_path(out).expect("priced CSV");
    let headers = reader.headers().expect("header").clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap_or_else(|| panic!("column {name}"));
    let (id, pr, se, be) = (col("id"), col("price"), col("stderr"), col("backend"));
    for rec in reader.records() {
        let rec = rec.expect("row");
        assert_eq!(&rec[be], backend);
        let num = |i: usize| rec[i].parse::<f64>().unwrap_or_else(|e| panic!("{}: {e}", &rec[i]));
        rows.insert(rec[id].to_owned(), (num(pr), num(se)));
    }
    rows
}

fn book_matches_the_cpu_backend(backend: &str) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{backend}_book"));
    std::fs::create_dir_all(&tmp).expect("tmp");
    let cpu = price(&root, "cpu", &tmp.join("cpu.csv"));
    let dev = price(&root, backend, &tmp.join(format!("{backend}.csv")));
    assert!(cpu.len() > 1000, "book has {} rows", cpu.len());
    assert_eq!(cpu.len(), dev.len());
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(b.abs());
    for (id, (p, s)) in &cpu {
        let (q, t) = dev.get(id).unwrap_or_else(|| panic!("{id} missing on {backend}"));
        assert!(close(*p, *q), "{id}: price cpu {p} {backend} {q}");
        // The standard error comes from E[Y^2] - E[Y]^2, which cancels when the spread is small
        // against the price (deep in the money): compare it at the price's scale.
        assert!((s - t).abs() <= 1e-12 * s.abs().max(t.abs()).max(p.abs()), "{id}: stderr cpu {s} {backend} {t}");
    }
}

#[cfg(feature = "sycl")]
#[test]
fn spx_book_on_sycl_matches_the_cpu_backend() {
    book_matches_the_cpu_backend("sycl");
}

#[cfg(feature = "opencl")]
#[test]
fn spx_book_on_opencl_matches_the_cpu_backend() {
    book_matches_the_cpu_backend("opencl");
}
