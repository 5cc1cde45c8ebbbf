//! With the `sycl` feature: embeds the DPC++ runtime's library directory (found by tenor-sycl's
//! build script, passed on through its `links` metadata) as the binary's rpath, so `tenor`
//! runs without LD_LIBRARY_PATH. Does nothing otherwise.
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_TENOR_SYCL_SHIM_ROOT");
    if let Ok(root) = std::env::var("DEP_TENOR_SYCL_SHIM_ROOT") {
        println!("cargo:rustc-link-arg-bins=-Wl,-rpath,{root}/lib");
    }
}
