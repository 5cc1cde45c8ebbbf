//! `curve_build`'s reference: the tenor-major layout, and the NaN cases of its manifest.
use tenor_kernels::cpu::{lookup, KernelCall};
use tenor_kernels::curve::{bootstrap, MAX_TENORS};
use tenor_ports::RawArg;

const CMT: [f64; 13] = [1. / 12., 2. / 12., 3. / 12., 4. / 12., 0.5, 1., 2., 3., 5., 7., 10., 20., 30.];

/// Launches the reference on tenor-major `par` (m x n) and returns tenor-major `ln D`.
fn launch(par: &mut [f64], tenors: &mut [f64], n: u64, m: u32) -> Vec<f64> {
    let mut out = vec![0.0; par.len()];
    let args = [
        RawArg::Ptr(par.as_mut_ptr() as u64, (par.len() * 8) as u64),
        RawArg::Ptr(tenors.as_mut_ptr() as u64, (tenors.len() * 8) as u64),
        RawArg::Ptr(out.as_mut_ptr() as u64, (out.len() * 8) as u64),
        RawArg::U64(n),
        RawArg::U32(m),
    ];
    // SAFETY: live, aligned vectors of this function, not otherwise used during the call (the
    // views check their lengths).
    let call = unsafe { KernelCall::new(n, 128, &args) };
    let f = lookup("curve_build").expect("reference exists");
    // SAFETY: one call over all blocks.
    unsafe { f(&call, 0..call.blocks()) };
    out
}

/// A smooth upward curve with a shift per curve (decimal yields).
fn curve(c: usize) -> Vec<f64> {
    CMT.iter().map(|t| 0.01 + 0.002 * c as f64 + 0.03 * (1.0 - (-t / 5.0f64).exp())).collect()
}

#[test]
fn tenor_major_layout_is_one_bootstrap_per_curve() {
    // 300 curves: three blocks of 128, the last partial.
    let (n, m) = (300usize, CMT.len());
    let mut par = vec![0.0; m * n];
    for c in 0..n {
        for (k, y) in curve(c % 40).into_iter().enumerate() {
            par[k * n + c] = y;
        }
    }
    let got = launch(&mut par, &mut CMT.to_vec(), n as u64, m as u32);
    for c in 0..n {
        let mut want = [0.0; 13];
        bootstrap(&CMT, &curve(c % 40), &mut want);
        for k in 0..m {
            assert_eq!(got[k * n + c].to_bits(), want[k].to_bits(), "curve {c}, tenor {}", CMT[k]);
        }
        // Rates positive and rising: ln D falls with the tenor.
        assert!((1..m).all(|k| got[k * n + c] < got[(k - 1) * n + c]), "curve {c}");
    }
}

#[test]
fn a_bad_yield_spoils_its_node_and_the_later_ones() {
    let good = curve(0);
    let mut want = [0.0; 13];
    bootstrap(&CMT, &good, &mut want);
    for (bad_at, bad) in [(3usize, f64::NAN), (7, f64::INFINITY), (9, -0.5), (0, -0.7)] {
        let mut y = good.clone();
        y[bad_at] = bad;
        let mut got = [0.0; 13];
        bootstrap(&CMT, &y, &mut got);
        for k in 0..CMT.len() {
            if k < bad_at {
                assert_eq!(got[k], want[k], "yield {bad} at {bad_at}: node {k} before it unchanged");
            } else {
                assert!(got[k].is_nan(), "yield {bad} at {bad_at}: node {k} is {}", got[k]);
            }
        }
    }
}

#[test]
fn bad_tenors_or_tenor_counts_give_nan_curves() {
    let y = curve(1);
    for tenors in [vec![0.5, 0.5, 2.0], vec![1.0, 0.5], vec![0.0, 1.0], vec![-1.0, 2.0], vec![0.5, f64::NAN]] {
        let mut out = vec![0.0; tenors.len()];
        bootstrap(&tenors, &y[..tenors.len()], &mut out);
        assert!(out.iter().all(|x| x.is_nan()), "{tenors:?}: {out:?}");
    }
    // m above the maximum through the kernel: every output NaN, nothing read past the tenors.
    let m = MAX_TENORS + 1;
    let n = 3usize;
    let mut tenors: Vec<f64> = (1..=m).map(|k| k as f64).collect();
    let mut par = vec![0.03; m * n];
    let out = launch(&mut par, &mut tenors, n as u64, m as u32);
    assert!(out.iter().all(|x| x.is_nan()));
    // The maximum itself is solved.
    let mut tenors: Vec<f64> = (1..=MAX_TENORS).map(|k| k as f64).collect();
    let mut par = vec![0.03; MAX_TENORS];
    let out = launch(&mut par, &mut tenors, 1, MAX_TENORS as u32);
    let want: Vec<f64> = tenors.iter().map(|t| -2.0 * t * 0.015f64.ln_1p()).collect();
    for (g, w) in out.iter().zip(&want) {
        assert!((g - w).abs() <= 1e-12 * w.abs(), "{g} vs {w}");
    }
}
