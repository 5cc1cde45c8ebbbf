//! The conformance suite on the CPU backend (1 and 4 threads) and on the simulated device.

#[test]
fn cpu_backend_conforms() {
    tenor_conformance::assert_all(&tenor_cpu::cpu().expect("cpu"));
    tenor_conformance::assert_all(&tenor_cpu::cpu_with_threads(4).expect("cpu x4"));
}

#[test]
fn simulated_device_conforms() {
    for seed in 1..4 {
        tenor_conformance::assert_all(
            &tenor_sim::sim(tenor_sim::SimConfig { seed, ..Default::default() }).expect("sim"),
        );
    }
}
