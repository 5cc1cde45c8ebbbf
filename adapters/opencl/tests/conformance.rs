//! The shared conformance suite on the OpenCL backend (Intel's OpenCL CPU runtime in CI,
//! NVIDIA's OpenCL on the H200). With `TENOR_REQUIRE_BACKENDS` naming opencl (scripts/test) a
//! missing OpenCL device FAILS; without it the test says why it did nothing (as adapters/cuda's;
//! `tenor_conformance::require` parses the variable for both).

fn device() -> Option<tenor_opencl::OpenClCompute> {
    tenor_conformance::require::device_or_skip("opencl", tenor_opencl::opencl_from_env())
}

#[test]
fn opencl_backend_conforms() {
    let Some(dev) = device() else { return };
    eprintln!("OpenCL device: {:?}", tenor_ports::Compute::info(&dev));
    tenor_conformance::assert_all(&dev);
}

/// A second device on the same OpenCL device (the pilot opens one per workload) runs the kernels
/// the first one built: programs are cached per device, so both must share its context (they
/// did not: `CL_INVALID_CONTEXT` at the second device's first launch).
#[test]
fn a_second_device_runs_the_programs_the_first_built() {
    let (Some(a), Some(b)) = (device(), device()) else { return };
    tenor_conformance::kernels::curve_build(&a).expect("first device");
    tenor_conformance::kernels::curve_build(&b).expect("second device, programs from the cache");
    drop(a);
    let c = device().expect("a third device after the first is gone");
    tenor_conformance::kernels::curve_build(&c).expect("third device");
}
