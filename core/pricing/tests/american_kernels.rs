//! The Longstaff-Schwartz kernels against host computations of their documented semantics.
use tenor_kernels::typed::{LsmBasis, LsmPaths};
use tenor_ports::{Compute, ComputeExt};

#[test]
fn lsm_paths_are_antithetic_pairs_of_the_documented_gbm() {
    let dev = tenor_cpu::cpu().expect("cpu");
    let s = dev.default_stream().clone();
    let (paths, steps, spot, drift, vsd) = (64u64, 5u32, 100.0, 0.001, 0.05);
    let out = dev.alloc_elems::<f64>(&s, (paths * u64::from(steps)) as usize).expect("alloc");
    LsmPaths { out: &out, seed: 5, paths, steps, spot, drift_dt: drift, vol_sqrt_dt: vsd }
        .launch(&dev, &s)
        .expect("launch");
    let v = dev.download_vec::<f64>(&s, &out).expect("download");
    for p in 0..paths / 2 {
        let mut x = f64::ln(spot);
        for st in 0..steps {
            x += drift + vsd * tenor_kernels::philox::normal_f64(5, p, st);
            let up = v[(u64::from(st) * paths + p) as usize];
            let down = v[(u64::from(st) * paths + p + paths / 2) as usize];
            assert!((up.ln() - x).abs() < 1e-12, "path {p} step {st}");
            // Mirror image: ln S+ + ln S- = 2 (ln S0 + drift (s + 1)).
            let mid = 2.0 * (f64::ln(spot) + drift * f64::from(st + 1));
            assert!((up.ln() + down.ln() - mid).abs() < 1e-12);
        }
    }
}

#[test]
fn lsm_basis_and_gemm_give_the_normal_equations() {
    let dev = tenor_cpu::cpu().expect("cpu");
    let s = dev.default_stream().clone();
    let paths = 300usize;
    let nb = 3usize;
    // Two dates of spots; regress at date 1.
    let spots: Vec<f64> = (0..2 * paths).map(|i| 70.0 + (i % paths) as f64 * 0.2).collect();
    let cash: Vec<f64> = (0..paths).map(|i| (i % 7) as f64).collect();
    let (strike, df) = (100.0, 0.99);
    let sb = dev.upload_slice(&s, &spots).expect("up");
    let cb = dev.upload_slice(&s, &cash).expect("up");
    let design = dev.alloc_elems::<f64>(&s, paths * (nb + 1)).expect("alloc");
    LsmBasis {
        spots: &sb,
        cash: &cb,
        design: &design,
        paths: paths as u64,
        step: 1,
        nbasis: nb as u32,
        strike,
        sign: -1.0,
        df,
    }
    .launch(&dev, &s)
    .expect("launch");
    let normal = dev.alloc_elems::<f64>(&s, nb * (nb + 1)).expect("alloc");
    let desc = tenor_ports::GemmDesc::new(
        tenor_ports::Precision::F64,
        tenor_ports::Transpose::Yes,
        tenor_ports::Transpose::No,
        nb,
        nb + 1,
        paths,
    );
    let desc = tenor_ports::GemmDesc { lda: paths, ldb: paths, ..desc };
    dev.gemm(&s, &desc, &design, &design, &normal).expect("gemm");
    let ne = dev.download_vec::<f64>(&s, &normal).expect("download");
    // Host: Laguerre L0 = 1, L1 = 1 - x, L2 = 1 - 2x + x^2 / 2 on in-the-money put paths.
    let mut xtx = [[0.0; 3]; 3];
    let mut xty = [0.0; 3];
    for p in 0..paths {
        let sp = spots[paths + p];
        if strike - sp <= 0.0 {
            continue;
        }
        let x = sp / strike;
        let l = [1.0, 1.0 - x, 1.0 - 2.0 * x + 0.5 * x * x];
        for i in 0..3 {
            xty[i] += l[i] * df * cash[p];
            for j in 0..3 {
                xtx[i][j] += l[i] * l[j];
            }
        }
    }
    for i in 0..3 {
        for j in 0..3 {
            assert!((ne[i + 3 * j] - xtx[i][j]).abs() < 1e-9 * xtx[i][j].abs().max(1.0), "XtX[{i}][{j}]");
        }
        assert!((ne[i + 9] - xty[i]).abs() < 1e-9 * xty[i].abs().max(1.0), "Xty[{i}]");
    }
    assert_eq!(ne[0], 150.0, "in-the-money count"); // spots 70 .. 99.8 are below the strike
}
