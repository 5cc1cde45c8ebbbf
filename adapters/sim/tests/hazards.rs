//! The simulated device catches a missing cross-stream wait, and the tracker prevents it.

use tenor_ports::{Access, Arg, Compute, ComputeError, ComputeExt};
use tenor_sim::{sim, SimConfig};

const PATHS: u64 = 3000;

fn launch_pair(tracked: bool, seed: u64) -> (Result<(), ComputeError>, Vec<f64>) {
    let dev = sim(SimConfig { seed, ..SimConfig::default() }).expect("sim device");
    let a = dev.create_stream().expect("stream a");
    let b = dev.create_stream().expect("stream b");
    let normals = tenor_kernels::get("philox_normals").expect("kernel");
    let reduce = tenor_kernels::get("reduce_sum_sumsq").expect("kernel");
    let kn = dev.load_kernel(normals).expect("load");
    let kr = dev.load_kernel(reduce).expect("load");
    let x = dev.alloc_elems::<f64>(&a, PATHS as usize).expect("alloc x");
    let blocks = PATHS.div_ceil(u64::from(reduce.launch.block));
    let partials = dev.alloc_elems::<f64>(&b, 2 * blocks as usize).expect("alloc partials");
    let gen = [Arg::Buf(&x, Access::Write), Arg::U64(42), Arg::U64(0), Arg::U64(PATHS), Arg::U32(1)];
    let red = [Arg::Buf(&x, Access::Read), Arg::Buf(&partials, Access::Write), Arg::U64(PATHS)];
    if tracked {
        dev.launch(&a, &kn, PATHS, &gen).expect("launch");
        dev.launch(&b, &kr, PATHS, &red).expect("launch");
    } else {
        dev.launch_untracked(&a, &kn, PATHS, &gen).expect("launch");
        dev.launch_untracked(&b, &kr, PATHS, &red).expect("launch");
    }
    let result = dev.synchronize();
    let sums = dev.download_vec::<f64>(&b, &partials).unwrap_or_default();
    (result, sums)
}

#[test]
fn missing_cross_stream_wait_is_caught() {
    for seed in 1..6 {
        let (r, _) = launch_pair(false, seed);
        match &r {
            Err(e) if matches!(e_or(e), ComputeError::Hazard(_)) => {}
            other => panic!("seed {seed}: expected a hazard, got {other:?}"),
        }
    }
}

fn e_or(e: &ComputeError) -> &ComputeError {
    match e {
        ComputeError::Async(inner) => inner,
        other => other,
    }
}

#[test]
fn tracked_launches_are_ordered_and_match_the_generator() {
    let expected: f64 = (0..PATHS).map(|p| tenor_kernels::philox::normal_f64(42, p, 0)).sum();
    for seed in 1..6 {
        let (r, sums) = launch_pair(true, seed);
        r.expect("no hazard with tracking");
        let total: f64 = sums.iter().step_by(2).sum();
        assert!((total - expected).abs() < 1e-9 * PATHS as f64, "seed {seed}: {total} vs {expected}");
    }
}
