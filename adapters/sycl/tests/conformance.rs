//! The shared conformance suite on the SYCL backend (the OpenCL CPU device in CI).
#![cfg(feature = "runtime")]

#[test]
fn sycl_backend_conforms() {
    let dev = tenor_sycl::sycl_from_env().expect("a SYCL device (run scripts/install-sycl-runtime)");
    eprintln!("SYCL device: {:?}", tenor_ports::Compute::info(&dev));
    tenor_conformance::assert_all(&dev);
}
