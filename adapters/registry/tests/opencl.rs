//! With the `opencl` feature, `open("opencl")` gives the OpenCL backend (TENOR_OPENCL_DEVICE;
//! Intel's OpenCL CPU runtime in CI) and the probe lists it as available; without an OpenCL
//! library the probe says why (adapters/opencl/tests/no_library.rs covers that case).
#![cfg(feature = "opencl")]

#[test]
fn opencl_opens_by_name_and_probes_available() {
    let dev = tenor_registry::open("opencl").expect("the OpenCL backend (an ICD: see docs/opencl.md)");
    assert_eq!(dev.info().backend, "opencl");
    let probe = tenor_registry::probe_all();
    let cl = probe.iter().find(|(n, _)| n == "opencl").expect("opencl in the probe");
    assert!(cl.1.is_ok(), "{:?}", cl.1);
}
