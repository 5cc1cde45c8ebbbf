//! Builds the C++ shim (shim/tenor_sycl.cpp) with g++ and the `cc` crate against Intel's DPC++
//! runtime, found at `TENOR_SYCL_ROOT` (a oneAPI installation or any prefix with
//! include/sycl/sycl.hpp and lib/libsycl.so) or in the repository's cache
//! `.cache/sycl-venv` that `scripts/install-sycl-runtime` fills from PyPI (pinned 2026.1.2).
use std::path::{Path, PathBuf};

fn usable(root: &Path) -> bool {
    root.join("include/sycl/sycl.hpp").is_file() && root.join("lib/libsycl.so").exists()
}

fn main() {
    println!("cargo:rerun-if-env-changed=TENOR_SYCL_ROOT");
    if std::env::var_os("CARGO_FEATURE_RUNTIME").is_none() {
        return; // the default build of the workspace needs no SYCL runtime
    }
    println!("cargo:rerun-if-changed=shim/tenor_sycl.cpp");
    println!("cargo:rerun-if-changed=shim/tenor_sycl.h");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR set by cargo"));
    let cache = manifest.join("../../.cache/sycl-venv");
    println!("cargo:rerun-if-changed={}", cache.join("lib/libsycl.so").display());
    let root = match std::env::var_os("TENOR_SYCL_ROOT") {
        Some(r) => {
            let r = PathBuf::from(r);
            if !usable(&r) {
                panic!(
                    "TENOR_SYCL_ROOT={} has no include/sycl/sycl.hpp and lib/libsycl.so; point it at a oneAPI \
                     compiler prefix (e.g. /opt/intel/oneapi/compiler/latest) or unset it and run \
                     scripts/install-sycl-runtime",
                    r.display()
                );
            }
            r
        }
        None if usable(&cache) => cache.canonicalize().unwrap_or(cache),
        None => panic!(
            "the `sycl` feature needs Intel's DPC++ runtime and none was found at {}: run \
             `scripts/install-sycl-runtime` (pip installs intel-sycl-rt, intel-cmplr-lib-ur, intel-cmplr-lib-rt and \
             intel-opencl-rt ==2026.1.2 into .cache/sycl-venv), or set TENOR_SYCL_ROOT to your oneAPI installation",
            cache.display()
        ),
    };
    let lib = root.join("lib");
    cc::Build::new()
        .cpp(true)
        .compiler("g++")
        .std("c++17")
        .file("shim/tenor_sycl.cpp")
        .include(root.join("include"))
        .define("SYCL_DISABLE_FSYCL_SYCLHPP_WARNING", None)
        .define("TENOR_SYCL_LIBDIR", Some(format!("{:?}", lib.display().to_string()).as_str()))
        .flag("-Wno-deprecated-declarations")
        .compile("tenor_sycl_shim");
    println!("cargo:rustc-link-search=native={}", lib.display());
    println!("cargo:rustc-link-lib=dylib=sycl");
    println!("cargo:rustc-link-lib=dylib=stdc++");
    // Test binaries, benches and the `tenor` binary find libsycl (and through it the Unified
    // Runtime and its OpenCL adapter) without LD_LIBRARY_PATH.
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.display());
    println!("cargo:root={}", root.display());
}
