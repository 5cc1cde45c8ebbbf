//! The basket job's two valuation streams (`basket_value` on the device's stream, `basket_sens`
//! on a second one beside it) on the simulated device, which reports every access of one stream
//! not ordered after another stream's use or free of the same memory (a hazard) as an error.

use tenor_ports::{Compute, ComputeError};
use tenor_pricing::basket::{price_basket, BasketError, BasketJob};

fn job() -> BasketJob {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/basket/baseline.toml"))
        .expect("examples/basket/baseline.toml");
    let mut job = BasketJob::from_toml(&text).expect("the baseline job parses");
    job.simulation.paths = 400;
    job.simulation.steps = 8;
    job
}

/// Three jobs in a row on one simulated device (each job's allocations may reuse the memory the
/// previous job freed on the second stream), every Greek: no hazard, and each job's rows equal the
/// CPU reference backend's bit for bit (the simulator runs the CPU kernels, in another order of
/// streams).
#[test]
fn jobs_in_a_row_on_two_streams_are_ordered_and_equal_the_cpu_reference() {
    let job = job();
    let cpu = tenor_cpu::cpu().expect("cpu backend");
    let want = price_basket(&cpu, &job, true).expect("cpu");
    let sim = tenor_sim::sim(tenor_sim::SimConfig { seed: 7, ..Default::default() }).expect("sim");
    for k in 0..3 {
        let got = match price_basket(&sim, &job, true) {
            Ok(o) => o,
            Err(BasketError::Compute(ComputeError::Hazard(h))) => panic!("job {k}: hazard {h}"),
            Err(e) => panic!("job {k}: {e}"),
        };
        assert_eq!(got.rows, want.rows, "job {k}");
    }
    sim.synchronize().expect("no asynchronous error left");
}
