//! A small book priced on the SYCL backend and on the CPU backend with the same seeds: every
//! price agrees within 1e-12 relative (same random numbers, only the summation order within a
//! block differs), and each is within 5 standard errors (plus the source's tolerance) of the
//! published value. The book is the Haug European table, the discrete geometric Asian and the
//! Haug barrier table of `shared/oracles/`, through the fused kernels directly; the example
//! book (examples/spx_book.csv) through `tenor price` is cli/tests/sycl_book.rs.
#![cfg(feature = "runtime")]

use std::collections::HashMap;

use tenor_kernels::typed::{McAsian, McBarrier, McEuropean};
use tenor_ports::{Compute, ComputeError, ComputeExt, DeviceBuffer};

/// Rows of an oracle CSV as column name to text.
fn rows(file: &str) -> Vec<HashMap<String, String>> {
    let path = tenor_testdata::shared(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().expect("header").split(',').map(str::to_owned).collect();
    lines.map(|l| header.iter().cloned().zip(l.split(',').map(str::to_owned)).collect()).collect()
}

fn num(r: &HashMap<String, String>, k: &str) -> f64 {
    r[k].parse().unwrap_or_else(|e| panic!("column {k} = {:?}: {e}", r[k]))
}

/// Mean and standard error of the first of `stride` interleaved block sums (the second being
/// the sum of squares) from a fused Monte Carlo kernel over `pairs` pairs.
fn estimate(
    dev: &dyn Compute,
    pairs: u64,
    stride: usize,
    launch: impl Fn(&dyn Compute, &DeviceBuffer) -> Result<(), ComputeError>,
) -> (f64, f64) {
    let s = dev.default_stream().clone();
    let partials = dev.alloc_elems::<f64>(&s, stride * pairs.div_ceil(4096) as usize).expect("alloc");
    launch(dev, &partials).expect("launch");
    let p: Vec<f64> = dev.download_vec(&s, &partials).expect("download");
    let (sum, sq): (f64, f64) = p.chunks(stride).fold((0.0, 0.0), |(a, b), c| (a + c[0], b + c[1]));
    let mean = sum / pairs as f64;
    (mean, ((sq / pairs as f64 - mean * mean).max(0.0) / pairs as f64).sqrt())
}

struct Priced {
    what: String,
    sycl: f64,
    cpu: f64,
    se: f64,
    expected: f64,
    tolerance: f64,
}

fn price_book(sycl: &dyn Compute, cpu: &dyn Compute) -> Vec<Priced> {
    let mut out = Vec::new();
    let seed = 20_261_130u64;
    let is_call = |r: &HashMap<String, String>| u32::from(r["type"] == "call");
    for (i, r) in rows("oracles/european_haug.csv").iter().enumerate() {
        let (spot, strike, q, rate, t, v) =
            (num(r, "spot"), num(r, "strike"), num(r, "q"), num(r, "r"), num(r, "t"), num(r, "v"));
        let pairs = 1u64 << 16;
        let launch = |dev: &dyn Compute, partials: &DeviceBuffer| {
            McEuropean {
                partials,
                seed: seed + i as u64,
                pairs,
                spot,
                strike,
                is_call: is_call(r),
                drift: (rate - q - 0.5 * v * v) * t,
                vol_sqrt_t: v * t.sqrt(),
                discount: (-rate * t).exp(),
            }
            .launch(dev, dev.default_stream())
        };
        let (a, se) = estimate(sycl, pairs, 2, launch);
        let (b, _) = estimate(cpu, pairs, 2, launch);
        out.push(Priced {
            what: format!("european_haug line {}", r["source_line"]),
            sycl: a,
            cpu: b,
            se,
            expected: num(r, "expected"),
            tolerance: num(r, "tolerance"),
        });
    }
    // The discrete geometric average-price call: fixings 0.1, 0.2, .., 1.0 (uniform, no spot fixing).
    for r in rows("oracles/asian_geometric.csv")
        .iter()
        .filter(|r| r["averaging"] == "discrete" && r["payoff"] == "average_price")
    {
        let (spot, strike, q, rate, t, v) =
            (num(r, "spot"), num(r, "strike"), num(r, "q"), num(r, "r"), num(r, "t"), num(r, "v"));
        let n = r["fixing_times"].split(';').count() as u32;
        let dt = t / f64::from(n);
        let (d, vol) = ((rate - q - 0.5 * v * v) * dt, v * dt.sqrt());
        let pairs = 1u64 << 15;
        // partials: a, a^2, g, g^2, a g per block; the geometric price is the third.
        let geo = |dev: &dyn Compute| {
            let s = dev.default_stream().clone();
            let p = dev.alloc_elems::<f64>(&s, 5 * pairs.div_ceil(4096) as usize).expect("alloc");
            McAsian {
                partials: &p,
                seed,
                pairs,
                steps: n,
                spot,
                strike,
                is_call: is_call(r),
                spot_fixing: 0,
                drift_first: d,
                vol_first: vol,
                drift_dt: d,
                vol_sqrt_dt: vol,
                discount: (-rate * t).exp(),
            }
            .launch(dev, &s)
            .expect("launch");
            let v: Vec<f64> = dev.download_vec(&s, &p).expect("download");
            let (g, gg) = v.chunks(5).fold((0.0, 0.0), |(x, y), c| (x + c[2], y + c[3]));
            let mean = g / pairs as f64;
            (mean, ((gg / pairs as f64 - mean * mean).max(0.0) / pairs as f64).sqrt())
        };
        let ((a, se), (b, _)) = (geo(sycl), geo(cpu));
        out.push(Priced {
            what: format!("asian_geometric line {}", r["source_line"]),
            sycl: a,
            cpu: b,
            se,
            expected: num(r, "expected"),
            tolerance: num(r, "tolerance"),
        });
    }
    let kinds = ["down_out", "down_in", "up_out", "up_in"];
    for r in rows("oracles/barrier_haug.csv").iter().step_by(4) {
        let Some(kind) = kinds.iter().position(|k| *k == r["barrier_type"]) else { continue };
        let (spot, strike, q, rate, t, v) =
            (num(r, "spot"), num(r, "strike"), num(r, "q"), num(r, "r"), num(r, "t"), num(r, "v"));
        let (barrier, rebate) = (num(r, "barrier"), num(r, "rebate"));
        if (kind < 2 && spot <= barrier) || (kind >= 2 && spot >= barrier) {
            continue; // already knocked: the host's case, not the kernel's
        }
        let (steps, pairs) = (32u32, 1u64 << 14);
        let dt = t / f64::from(steps);
        let launch = |dev: &dyn Compute, partials: &DeviceBuffer| {
            McBarrier {
                partials,
                seed,
                pairs,
                steps,
                spot,
                strike,
                barrier,
                rebate,
                is_call: is_call(r),
                kind: kind as u32,
                continuous: 1,
                drift_dt: (rate - q - 0.5 * v * v) * dt,
                vol_sqrt_dt: v * dt.sqrt(),
                rate_dt: rate * dt,
                discount: (-rate * t).exp(),
            }
            .launch(dev, dev.default_stream())
        };
        let (a, se) = estimate(sycl, pairs, 2, launch);
        let (b, _) = estimate(cpu, pairs, 2, launch);
        out.push(Priced {
            what: format!("barrier_haug line {} ({})", r["source_line"], r["barrier_type"]),
            sycl: a,
            cpu: b,
            se,
            expected: num(r, "expected"),
            tolerance: num(r, "tolerance"),
        });
    }
    out
}

#[test]
fn book_on_sycl_agrees_with_the_cpu_backend_and_the_oracles() {
    let sycl = tenor_sycl::sycl("cpu").expect("the OpenCL CPU device (scripts/install-sycl-runtime)");
    let cpu = tenor_cpu::cpu().expect("cpu");
    let book = price_book(&sycl, &cpu);
    assert!(book.len() >= 50, "book has {} options", book.len());
    let worst_rel = book.iter().map(|p| (p.sycl - p.cpu).abs() / p.cpu.abs().max(1e-300)).fold(0.0, f64::max);
    let worst_z = book.iter().map(|p| (p.sycl - p.expected).abs() / p.se.max(1e-300)).fold(0.0, f64::max);
    eprintln!(
        "{} options; largest SYCL-CPU relative difference {worst_rel:e}; largest |SYCL - published| / SE {worst_z:.2}",
        book.len()
    );
    for p in &book {
        let rel = (p.sycl - p.cpu).abs() / p.cpu.abs().max(1e-300);
        assert!(
            rel <= tenor_conformance::FP64_RTOL || p.cpu == p.sycl,
            "{}: sycl {} cpu {} (rel {rel:e})",
            p.what,
            p.sycl,
            p.cpu
        );
        let band = 5.0 * p.se + p.tolerance;
        assert!(
            (p.sycl - p.expected).abs() <= band,
            "{}: {} vs published {} (band {band})",
            p.what,
            p.sycl,
            p.expected
        );
    }
}
