//! The simulated device catches a missing cross-stream wait, and the tracker prevents it.

use tenor_kernels::typed::{PhiloxNormals, ReduceSumSumsq};
use tenor_ports::{Compute, ComputeError, ComputeExt};
use tenor_sim::{sim, SimConfig};

const PATHS: u64 = 3000;

fn launch_pair(tracked: bool, seed: u64) -> (Result<(), ComputeError>, Vec<f64>) {
    let dev = sim(SimConfig { seed, ..SimConfig::default() }).expect("sim device");
    let a = dev.create_stream().expect("stream a");
    let b = dev.create_stream().expect("stream b");
    let kn = PhiloxNormals::load(&dev).expect("load");
    let kr = ReduceSumSumsq::load(&dev).expect("load");
    let x = dev.alloc_elems::<f64>(&a, PATHS as usize).expect("alloc x");
    let partials = dev.alloc_elems::<f64>(&b, 2 * ReduceSumSumsq::blocks(PATHS) as usize).expect("alloc partials");
    let gen = PhiloxNormals { out: &x, seed: 42, path_offset: 0, paths: PATHS, steps: 1 };
    let red = ReduceSumSumsq { x: &x, partials: &partials, n: PATHS };
    if tracked {
        gen.launch_loaded(&dev, &a, &kn).expect("launch");
        red.launch_loaded(&dev, &b, &kr).expect("launch");
    } else {
        dev.launch_untracked(&a, &kn, gen.items(), &gen.args()).expect("launch");
        dev.launch_untracked(&b, &kr, red.items(), &red.args()).expect("launch");
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
