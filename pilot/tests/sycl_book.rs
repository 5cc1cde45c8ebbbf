//! The example book (examples/spx_book.csv) priced by `tenor price --backend sycl` (the OpenCL
//! CPU device) agrees with `--backend cpu` row by row: every trade through Monte Carlo with the
//! same seed, so both backends draw the same Philox numbers and the prices and standard errors
//! agree within the conformance suite's fp64 tolerance (1e-12 relative).
#![cfg(feature = "sycl")]

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

#[test]
fn spx_book_on_sycl_matches_the_cpu_backend() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sycl_book");
    std::fs::create_dir_all(&tmp).expect("tmp");
    let cpu = price(&root, "cpu", &tmp.join("cpu.csv"));
    let sycl = price(&root, "sycl", &tmp.join("sycl.csv"));
    assert!(cpu.len() > 1000, "book has {} rows", cpu.len());
    assert_eq!(cpu.len(), sycl.len());
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(b.abs());
    for (id, (p, s)) in &cpu {
        let (q, t) = sycl.get(id).unwrap_or_else(|| panic!("{id} missing on sycl"));
        assert!(close(*p, *q), "{id}: price cpu {p} sycl {q}");
        // The standard error comes from E[Y^2] - E[Y]^2, which cancels when the spread is small
        // against the price (deep in the money): compare it at the price's scale.
        assert!((s - t).abs() <= 1e-12 * s.abs().max(t.abs()).max(p.abs()), "{id}: stderr cpu {s} sycl {t}");
    }
}
