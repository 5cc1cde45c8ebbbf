//! The shared conformance suite on the OpenCL backend (Intel's OpenCL CPU runtime in CI,
//! NVIDIA's OpenCL on the H200). With `TENOR_REQUIRE_BACKENDS=opencl` (scripts/test) a missing
//! OpenCL device FAILS; without it the test says why it did nothing (as adapters/cuda's).

fn device() -> Option<tenor_opencl::OpenClCompute> {
    match tenor_opencl::opencl_from_env() {
        Ok(d) => Some(d),
        Err(e) => {
            let required = std::env::var("TENOR_REQUIRE_BACKENDS").unwrap_or_default();
            assert!(
                !required.split(',').any(|b| b == "opencl"),
                "TENOR_REQUIRE_BACKENDS={required} asks for opencl: {e}"
            );
            eprintln!("opencl unavailable, nothing run: {e}");
            None
        }
    }
}

#[test]
fn opencl_backend_conforms() {
    let Some(dev) = device() else { return };
    eprintln!("OpenCL device: {:?}", tenor_ports::Compute::info(&dev));
    tenor_conformance::assert_all(&dev);
}
