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

/// A launch with a too-short buffer is a typed error, not a write (issue 16), on the CPU
/// backend (1 and 4 threads) and the simulated device.
#[test]
fn short_buffers_are_typed_errors_on_cpu_and_sim() {
    tenor_conformance::bounds::assert_short_buffers(&tenor_cpu::cpu().expect("cpu"));
    tenor_conformance::bounds::assert_short_buffers(&tenor_cpu::cpu_with_threads(4).expect("cpu x4"));
    tenor_conformance::bounds::assert_short_buffers(&tenor_sim::sim(tenor_sim::SimConfig::default()).expect("sim"));
}

mod foreign_events {
    //! One policy for events of another device or backend, the same on every adapter
    //! (`Stream::wait`): the host waits for them; events of the device's own streams are
    //! device-side waits.

    use tenor_ports::{Compute, ComputeError, ComputeExt};

    fn sim(seed: u64) -> tenor_sim::SimCompute {
        tenor_sim::sim(tenor_sim::SimConfig { seed, ..Default::default() }).expect("sim")
    }

    /// An event of simulated device A, still pending (the simulator runs work only when the
    /// host waits), and the buffer whose upload it follows.
    fn pending_event(a: &tenor_sim::SimCompute) -> (tenor_ports::Event, tenor_ports::DeviceBuffer) {
        let s = a.create_stream().expect("stream");
        let buf = a.upload_slice(&s, &[1.0f64; 64]).expect("upload");
        let ev = s.record().expect("record");
        assert!(!ev.is_complete().expect("query"), "precondition: the simulated upload is still pending");
        (ev, buf)
    }

    #[test]
    fn a_stream_of_another_simulated_device_waits_on_the_host() {
        let (a, b) = (sim(1), sim(2));
        let (ev, _buf) = pending_event(&a);
        let s = b.create_stream().expect("stream of B");
        s.wait(&ev).expect("wait on A's event from B");
        assert!(ev.is_complete().expect("query"), "the host waited for A's event");
        b.synchronize().expect("B still works");
        a.synchronize().expect("A still works");
    }

    #[test]
    fn a_cpu_stream_waits_for_a_pending_simulated_event() {
        let a = sim(3);
        let cpu = tenor_cpu::cpu().expect("cpu");
        let (ev, _buf) = pending_event(&a);
        cpu.default_stream().wait(&ev).expect("wait");
        assert!(ev.is_complete().expect("query"), "the CPU stream's later work is ordered after the event");
    }

    #[test]
    fn a_simulated_stream_accepts_an_event_of_the_cpu_backend() {
        let cpu = tenor_cpu::cpu().expect("cpu");
        let ev = cpu.default_stream().record().expect("record");
        let b = sim(4);
        b.default_stream().wait(&ev).expect("a CPU event is waited for, not refused");
        b.synchronize().expect("sync");
    }

    #[test]
    fn a_stream_of_another_device_is_refused() {
        let (a, b) = (tenor_cpu::cpu().expect("cpu"), tenor_cpu::cpu().expect("cpu"));
        let sa = a.default_stream().clone();
        match b.alloc(&sa, 64) {
            Err(ComputeError::ForeignHandle(m)) => assert!(m.contains("belongs to device"), "{m}"),
            other => panic!("expected ForeignHandle, got {other:?}"),
        }
        let buf = b.alloc_elems::<f64>(b.default_stream(), 2).expect("alloc on B");
        match b.upload(&sa, &buf, 0, &[0u8; 8]) {
            Err(ComputeError::ForeignHandle(_)) => {}
            other => panic!("expected ForeignHandle for an upload on A's stream, got {other:?}"),
        }
    }
}
