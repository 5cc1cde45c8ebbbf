//! With the `sycl` feature, `open("sycl")` gives the SYCL backend (TENOR_SYCL_DEVICE, here the
//! OpenCL CPU device in CI) and the probe lists it as available.
#![cfg(feature = "sycl")]

#[test]
fn sycl_opens_by_name_and_probes_available() {
    let dev = tenor_registry::open("sycl").expect("the SYCL backend (scripts/install-sycl-runtime)");
    assert_eq!(dev.info().backend, "sycl");
    let probe = tenor_registry::probe_all();
    let sycl = probe.iter().find(|(n, _)| n == "sycl").expect("sycl in the probe");
    assert!(sycl.1.is_ok(), "{:?}", sycl.1);
}
