//! With the `sycl` feature: gives this crate's tests and examples the DPC++ runtime's library
//! directory as rpath (found by tenor-sycl's build script, passed on through its `links`
//! metadata), and passes it on to crates that depend on this one (`DEP_TENOR_REGISTRY_SYCL_ROOT`,
//! read by the command line's build script), so they name no adapter themselves. Does nothing
//! otherwise.
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_TENOR_SYCL_SHIM_ROOT");
    if let Ok(root) = std::env::var("DEP_TENOR_SYCL_SHIM_ROOT") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{root}/lib");
        println!("cargo:sycl_root={root}");
    }
}
