//! The fused Monte Carlo references agree with their manifest definitions written naively here
//! from `philox::normal_f64` (one normal at a time), and the unfused path kernels agree with the
//! fused ones' building blocks.

use tenor_kernels::cpu::{lookup, KernelCall};
use tenor_kernels::philox::normal_f64;
use tenor_ports::RawArg;

fn run(name: &str, items: u64, block: u32, args: &[RawArg]) {
    let f = lookup(name).expect("reference exists");
    // SAFETY: the buffers passed in `args` are live, aligned vectors of the callers below, not
    // otherwise used during the call (their lengths are checked by the views).
    let call = unsafe { KernelCall::new(items, block, args) };
    // SAFETY: one call over all blocks.
    unsafe { f(&call, 0..call.blocks()) };
}

fn ptr(v: &mut [f64]) -> RawArg {
    RawArg::Ptr(v.as_mut_ptr() as u64, (v.len() * 8) as u64)
}

#[test]
fn mc_european_is_its_definition() {
    // An odd pair count (the last Philox call's sine normal unused), a partial last block, and
    // blocks of the manifest's size and of a small odd size (a call split across two blocks).
    let seed = 77u64;
    let (spot, strike, drift, vol, disc) = (100.0, 103.0, 0.01, 0.2, 0.97);
    for (pairs, block, is_call) in [(5001u64, 4096u32, 1u32), (5001, 4096, 0), (1001, 77, 1), (4, 4096, 1)] {
        let blocks = pairs.div_ceil(u64::from(block)) as usize;
        let mut partials = vec![0.0; 2 * blocks];
        let args = [
            ptr(&mut partials),
            RawArg::U64(seed),
            RawArg::U64(pairs),
            RawArg::F64(spot),
            RawArg::F64(strike),
            RawArg::U32(is_call),
            RawArg::F64(drift),
            RawArg::F64(vol),
            RawArg::F64(disc),
        ];
        run("mc_european", pairs, block, &args);
        let w = if is_call == 1 { 1.0 } else { -1.0 };
        let mut want = vec![0.0; 2 * blocks];
        for p in 0..pairs {
            // Pair p: Philox call p / 2, its cosine (even p) or sine (odd p) normal.
            let z = normal_f64(seed, p / 2, (p % 2) as u32);
            let pay = |s: f64| (w * (s - strike)).max(0.0);
            let y = 0.5 * disc * (pay(spot * (drift + vol * z).exp()) + pay(spot * (drift - vol * z).exp()));
            let b = (p / u64::from(block)) as usize;
            want[2 * b] += y;
            want[2 * b + 1] += y * y;
        }
        for (g, w) in partials.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-12 * w.abs(), "pairs {pairs}, block {block}: {g} vs {w}");
        }
    }
}

#[test]
fn mc_asian_is_its_definition() {
    let (pairs, seed, steps) = (300u64, 5u64, 7u32);
    let (spot, strike, d1, v1, d, v, disc) = (100.0, 99.0, 0.002, 0.1, -0.001, 0.05, 0.95);
    for spot_fixing in [0u32, 1] {
        let mut partials = vec![0.0; 5];
        let args = [
            ptr(&mut partials),
            RawArg::U64(seed),
            RawArg::U64(pairs),
            RawArg::U32(steps),
            RawArg::F64(spot),
            RawArg::F64(strike),
            RawArg::U32(0),
            RawArg::U32(spot_fixing),
            RawArg::F64(d1),
            RawArg::F64(v1),
            RawArg::F64(d),
            RawArg::F64(v),
            RawArg::F64(disc),
        ];
        run("mc_asian", pairs, 4096, &args);
        let n = f64::from(steps + spot_fixing);
        let mut want = [0.0; 5];
        for i in 0..pairs {
            let mut vals = [(0.0, 0.0); 2];
            for (sign, out) in [1.0, -1.0].into_iter().zip(vals.iter_mut()) {
                let mut x = spot.ln();
                let mut fix: Vec<f64> = if spot_fixing == 1 { vec![spot] } else { vec![] };
                for j in 1..=steps {
                    let (dj, vj) = if j == 1 { (d1, v1) } else { (d, v) };
                    x += dj + sign * vj * normal_f64(seed, i, j - 1);
                    fix.push(x.exp());
                }
                let a = fix.iter().sum::<f64>() / n;
                let g = (fix.iter().map(|s| s.ln()).sum::<f64>() / n).exp();
                *out = (disc * (strike - a).max(0.0), disc * (strike - g).max(0.0));
            }
            let a = 0.5 * (vals[0].0 + vals[1].0);
            let g = 0.5 * (vals[0].1 + vals[1].1);
            for (w, x) in want.iter_mut().zip([a, a * a, g, g * g, a * g]) {
                *w += x;
            }
        }
        for (g, w) in partials.iter().zip(want) {
            assert!((g - w).abs() <= 1e-12 * w.abs(), "spot_fixing {spot_fixing}: {g} vs {w}");
        }
    }
}

#[test]
fn payoff_european_reads_the_last_step_of_gbm_paths() {
    let (paths, steps, seed) = (100u64, 5u32, 9u64);
    let (spot, d, v) = (50.0, 0.001, 0.1);
    let mut out = vec![0.0; (paths * u64::from(steps)) as usize];
    let args = [
        ptr(&mut out),
        RawArg::U64(seed),
        RawArg::U64(paths),
        RawArg::U32(steps),
        RawArg::F64(spot),
        RawArg::F64(d),
        RawArg::F64(v),
        RawArg::F64(d),
        RawArg::F64(v),
    ];
    run("gbm_paths", paths, 256, &args);
    for p in 0..paths {
        let x: f64 = spot.ln() + (0..steps).map(|s| d + v * normal_f64(seed, p, s)).sum::<f64>();
        let last = out[((steps - 1) as u64 * paths + p) as usize];
        assert!((last - x.exp()).abs() <= 1e-12 * last, "path {p}");
    }
    let mut pay = vec![0.0; paths as usize];
    let args = [
        ptr(&mut out),
        ptr(&mut pay),
        RawArg::U64(paths),
        RawArg::U32(steps),
        RawArg::F64(50.0),
        RawArg::U32(0),
        RawArg::F64(0.9),
    ];
    run("payoff_european", paths, 256, &args);
    for p in 0..paths as usize {
        let s = out[(steps as usize - 1) * paths as usize + p];
        assert_eq!(pay[p], 0.9 * (50.0 - s).max(0.0));
    }
}

/// The reference kernels write through bounds-checked views: launched directly (bypassing
/// `Device`'s length check) with partials one block short, `mc_european` panics at the first
/// write past the buffer instead of writing there.
#[test]
#[should_panic(expected = "outside its buffer of 2 elements")]
fn a_short_output_panics_in_the_view_instead_of_being_written_past() {
    let mut partials = vec![0.0; 2]; // 4097 pairs need 2 blocks: 4 values
    let args = [
        ptr(&mut partials),
        RawArg::U64(1),
        RawArg::U64(4097),
        RawArg::F64(100.0),
        RawArg::F64(100.0),
        RawArg::U32(1),
        RawArg::F64(0.0),
        RawArg::F64(0.2),
        RawArg::F64(0.97),
    ];
    run("mc_european", 4097, 4096, &args);
}

/// An input read past its end panics too (`reduce_sum_sumsq` over 5 items of a 4-value input).
#[test]
#[should_panic(expected = "index out of bounds")]
fn a_short_input_panics_instead_of_being_read_past() {
    let mut x = vec![1.0; 4];
    let mut partials = vec![0.0; 2];
    run("reduce_sum_sumsq", 5, 4096, &[ptr(&mut x), ptr(&mut partials), RawArg::U64(5)]);
}
