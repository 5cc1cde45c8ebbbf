//! Traces recorded from Tenor's own pricing kernels (`crate::alloc::pricing`, moved here
//! from `core/alloc` with the module, ADR 0016): the run prices its calls within Monte Carlo
//! error of Black-Scholes, its recorded trace has the expected allocations per job, and the trace
//! replays cleanly against every strategy on the simulated device.

use std::sync::Arc;

use tenor_alloc::replay::{replay, Kind, ReplayOptions};
use tenor_alloc::{Recorder, Trace, TraceEvent, TraceOp};
use tenor_app::alloc::pricing::{run_pricing, PricingRun, MATURITY, RATE, SPOT, VOL};

/// Black-Scholes call (Black and Scholes 1973), with the normal CDF from erfc
/// (Abramowitz and Stegun 7.1.26, absolute error below 1.5e-7).
fn black_scholes_call(s: f64, k: f64, r: f64, v: f64, t: f64) -> f64 {
    let n = |x: f64| {
        let z = x.abs() / std::f64::consts::SQRT_2;
        let u = 1.0 / (1.0 + 0.327_591_1 * z);
        let poly =
            u * (0.254_829_592 + u * (-0.284_496_736 + u * (1.421_413_741 + u * (-1.453_152_027 + u * 1.061_405_429))));
        let erfc = poly * (-z * z).exp();
        if x >= 0.0 {
            1.0 - 0.5 * erfc
        } else {
            0.5 * erfc
        }
    };
    let d1 = ((s / k).ln() + (r + 0.5 * v * v) * t) / (v * t.sqrt());
    let d2 = d1 - v * t.sqrt();
    s * n(d1) - k * (-r * t).exp() * n(d2)
}

#[test]
fn pricing_run_is_recorded_and_replays_cleanly() {
    let recorder = Arc::new(Recorder::new(tenor_registry::host_memory()));
    let dev = tenor_registry::open_over("cpu", recorder.clone()).expect("cpu over the recorder");
    let run_cfg = PricingRun::default();
    let priced = run_pricing(dev.as_ref(), &run_cfg).expect("pricing run");
    for p in &priced {
        let bs = black_scholes_call(SPOT, p.strike, RATE, VOL, MATURITY);
        assert!(
            (p.price - bs).abs() < 4.0 * p.std_error + 1e-3,
            "job {}: {} vs {bs} (se {})",
            p.job,
            p.price,
            p.std_error
        );
    }
    let trace = Trace::parse(&recorder.trace().to_text(), "recorded").expect("recorded trace parses");
    let allocs: Vec<&TraceEvent> = trace.events.iter().filter(|e| e.op == TraceOp::Alloc).collect();
    // One strike upload, then normals and partial sums per job.
    let jobs = run_cfg.jobs;
    assert_eq!(allocs.len(), 1 + 2 * jobs);
    for j in 1..=jobs as u64 {
        assert_eq!(allocs.iter().filter(|e| e.job == j).count(), 2, "job {j}");
    }
    assert_eq!(allocs.iter().filter(|e| e.job == 0).count(), 1);
    assert_eq!(trace.events.iter().filter(|e| e.op == TraceOp::Free).count(), allocs.len());
    assert_eq!(trace.streams().len(), run_cfg.streams);
    for kind in Kind::ALL {
        let r = replay(&trace, kind, &ReplayOptions::default(), &tenor_registry::checked_device, &mut |_| {})
            .expect("replay");
        assert!(r.hazards.is_empty(), "{kind:?}: {:?}", r.hazards.first());
        assert_eq!(r.left_reserved, 0, "{kind:?} returns every byte to the device");
        assert_eq!(r.peak_used, trace.peak_live_bytes(), "{kind:?}: used follows the trace");
    }
}
