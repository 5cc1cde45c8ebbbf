//! The shared conformance suite on the SYCL backend (the OpenCL CPU device in CI).
#![cfg(feature = "runtime")]

#[test]
fn sycl_backend_conforms() {
    let dev = tenor_sycl::sycl_from_env().expect("a SYCL device (run scripts/install-sycl-runtime)");
    eprintln!("SYCL device: {:?}", tenor_ports::Compute::info(&dev));
    tenor_conformance::assert_all(&dev);
}

/// A launch with a too-short buffer is a typed error before anything is enqueued, not a write
/// past the USM allocation (issue 16).
#[test]
fn short_buffers_are_typed_errors_on_sycl() {
    let dev = tenor_sycl::sycl_from_env().expect("a SYCL device (run scripts/install-sycl-runtime)");
    tenor_conformance::bounds::assert_short_buffers(&dev);
}
