//! Without an OpenCL library the backend is a typed `Unavailable` naming the cause, never a
//! panic or a link error: this test binary points the run-time loader at a file that does not
//! exist (`OPENCL_DYLIB_PATH`; its own process, so the one-time load sees it), which holds
//! also where a loader is installed or on `LD_LIBRARY_PATH` (scripts/test).

#[test]
fn a_missing_library_is_unavailable_with_the_reason() {
    std::env::set_var("OPENCL_DYLIB_PATH", "/nonexistent/libOpenCL-for-tenor-test.so.1");
    match tenor_opencl::opencl("default") {
        Err(tenor_ports::ComputeError::Unavailable { backend, reason }) => {
            assert_eq!(backend, "opencl");
            assert!(reason.contains("cannot load the OpenCL library"), "{reason}");
            assert!(reason.contains("/nonexistent/libOpenCL-for-tenor-test.so.1"), "{reason}");
        }
        Err(other) => panic!("expected Unavailable, got {other}"),
        Ok(d) => panic!("opened {:?} without a library", tenor_ports::Compute::info(&d)),
    }
    // Listing the devices says the same, and a second attempt does not panic either.
    assert!(matches!(tenor_opencl::device_names(), Err(tenor_ports::ComputeError::Unavailable { .. })));
}
