//! Builds the C++ shim (shim/tenor_sycl.cpp) with the SYCL implementation `TENOR_SYCL_IMPL`
//! names (docs/sycl.md, ADR 0018); the same shim source and C ABI for both:
//!
//! - `dpcpp` (default): g++ and the `cc` crate against Intel's DPC++ runtime, found at
//!   `TENOR_SYCL_ROOT` (a oneAPI installation or any prefix with include/sycl/sycl.hpp and
//!   lib/libsycl.so) or in the repository's cache `.cache/sycl-venv` that
//!   `scripts/install-sycl-runtime` fills from PyPI (pinned 2026.1.2). Kernels are compiled at
//!   run time (kernel_compiler).
//! - `acpp`: AdaptiveCpp's `acpp` at `TENOR_ACPP_ROOT` (the prefix `scripts/install-acpp`
//!   prints), for the targets `TENOR_ACPP_TARGETS` (default `generic`: one binary, JIT-compiled
//!   to PTX or to the host CPU at run time; e.g. `cuda:sm_90` ahead of time). Every built-in
//!   kernel (tenor_kernels' registry) and the gemm kernels are compiled ahead of time, one
//!   translation unit each (`unit.rs`, the text the adapter builds at run time), into the shim's
//!   static library with a table of (name, hash of the unit, launcher) the shim looks kernels
//!   up in. Units are compiled in parallel and kept by hash beside the AdaptiveCpp install.
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "src/unit.rs"]
#[allow(dead_code)]
mod unit;

fn usable(root: &Path) -> bool {
    root.join("include/sycl/sycl.hpp").is_file() && root.join("lib/libsycl.so").exists()
}

fn main() {
    println!("cargo:rerun-if-env-changed=TENOR_SYCL_ROOT");
    println!("cargo:rerun-if-env-changed=TENOR_SYCL_IMPL");
    println!("cargo:rerun-if-env-changed=TENOR_ACPP_ROOT");
    println!("cargo:rerun-if-env-changed=TENOR_ACPP_TARGETS");
    println!("cargo::rustc-check-cfg=cfg(tenor_sycl_acpp)");
    if std::env::var_os("CARGO_FEATURE_RUNTIME").is_none() {
        return; // the default build of the workspace needs no SYCL runtime
    }
    println!("cargo:rerun-if-changed=shim/tenor_sycl.cpp");
    println!("cargo:rerun-if-changed=shim/tenor_sycl.h");
    println!("cargo:rerun-if-changed=shim/tenor_sycl_acpp.hpp");
    println!("cargo:rerun-if-changed=src/unit.rs");
    println!("cargo:rerun-if-changed=src/imp/gemm.cpp");
    match std::env::var("TENOR_SYCL_IMPL").as_deref() {
        Ok("acpp") | Ok("adaptivecpp") => acpp(),
        Ok("dpcpp") | Ok("") | Err(_) => dpcpp(),
        Ok(other) => panic!("TENOR_SYCL_IMPL={other}: the SYCL implementations are `dpcpp` (default) and `acpp`"),
    }
}

fn dpcpp() {
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
             intel-opencl-rt ==2026.1.2 into .cache/sycl-venv), or set TENOR_SYCL_ROOT to your oneAPI installation \
             (or build with AdaptiveCpp: TENOR_SYCL_IMPL=acpp TENOR_ACPP_ROOT=$(scripts/install-acpp))",
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

/// One translation unit to compile: its file name stem and text.
struct Unit {
    stem: String,
    names: Vec<String>,
    hash: u64,
    text: String,
}

fn units() -> Vec<Unit> {
    let prelude = tenor_kernels::prelude("sycl");
    let mut out = Vec::new();
    let mut push = |block: u32, source: &str, names: Vec<String>| {
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let text = unit::acpp_unit(&unit::translation_unit(block, prelude, source), &refs);
        let hash = unit::fnv1a64(&text);
        out.push(Unit { stem: format!("{}_{hash:016x}", names[0]), names, hash, text });
    };
    let registry = tenor_kernels::registry().unwrap_or_else(|e| panic!("the kernel registry does not parse: {e}"));
    for def in registry {
        if let Some(src) = def.sources.get("sycl") {
            push(def.launch.block.max(1), src, vec![def.name.clone()]);
        }
    }
    push(unit::GEMM_LOCAL, unit::GEMM_SOURCE, unit::GEMM_KERNELS.iter().map(|s| (*s).to_owned()).collect());
    out
}

fn acpp() {
    let root = match std::env::var_os("TENOR_ACPP_ROOT") {
        Some(r) => PathBuf::from(r),
        None => panic!(
            "TENOR_SYCL_IMPL=acpp needs TENOR_ACPP_ROOT, the AdaptiveCpp prefix: \
             export TENOR_ACPP_ROOT=$(scripts/install-acpp) (builds it once into ~/.cache/tenor)"
        ),
    };
    let acpp = root.join("bin/acpp");
    if !acpp.is_file() {
        panic!("TENOR_ACPP_ROOT={}: no bin/acpp there; run scripts/install-acpp", root.display());
    }
    let targets = std::env::var("TENOR_ACPP_TARGETS").unwrap_or_else(|_| "generic".into());
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR set by cargo")).join("acpp");
    std::fs::create_dir_all(&out).expect("create OUT_DIR/acpp");
    // Compiled units are kept beside the AdaptiveCpp install (its folder name holds every pin),
    // by unit hash and target list: the same text with the same flags is the same object for
    // every profile, worktree and CI run (TENOR_ACPP_UNIT_CACHE overrides the folder).
    println!("cargo:rerun-if-env-changed=TENOR_ACPP_UNIT_CACHE");
    let objs = std::env::var_os("TENOR_ACPP_UNIT_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.parent().map_or_else(|| out.clone(), |p| p.join("units")));
    std::fs::create_dir_all(&objs).unwrap_or_else(|e| panic!("cannot create {}: {e}", objs.display()));
    let mut flags =
        vec!["-O3".to_owned(), "-std=c++17".to_owned(), "-fPIC".to_owned(), format!("--acpp-targets={targets}")];
    flags.extend(cuda_aot_flags(&root, &targets));
    let all = units();
    // The built-in table, then every unit whose object is not there yet, `jobs` at a time.
    let mut table = String::from(
        "#include <cstddef>\n#include <cstdint>\ntypedef void (*acpp_launch_fn)(void *, uint64_t, uint32_t, const void *, size_t);\n\
         struct tenor_acpp_builtin { const char *name; uint64_t unit_hash; acpp_launch_fn launch; };\n",
    );
    let mut rows = String::new();
    for u in &all {
        for n in &u.names {
            table.push_str(&format!(
                "extern \"C\" void tenor_acpp_launch_{n}(void *, uint64_t, uint32_t, const void *, size_t);\n"
            ));
            rows.push_str(&format!("    {{\"{n}\", 0x{:016x}ull, tenor_acpp_launch_{n}}},\n", u.hash));
        }
    }
    let count = all.iter().map(|u| u.names.len()).sum::<usize>();
    table.push_str(&format!(
        "extern \"C\" const tenor_acpp_builtin tenor_acpp_builtins[] = {{\n{rows}}};\n\
         extern \"C\" const size_t tenor_acpp_builtin_count = {count};\n"
    ));
    let table_src = out.join("builtins.cpp");
    std::fs::write(&table_src, table).expect("write builtins.cpp");
    // Every unit's text beside its object (rewritten each build: the newest is the current one,
    // which scripts/gpu-stacks.d/sycl.sh compiles again for other targets).
    for u in &all {
        let src = objs.join(format!("{}.cpp", u.stem));
        std::fs::write(&src, &u.text).unwrap_or_else(|e| panic!("cannot write {}: {e}", src.display()));
    }
    let todo: Vec<&Unit> =
        all.iter().filter(|u| !objs.join(format!("{}-{}.o", u.stem, fnv(&targets))).is_file()).collect();
    println!("cargo:rerun-if-env-changed=TENOR_ACPP_JOBS");
    let jobs = ["TENOR_ACPP_JOBS", "NUM_JOBS"]
        .iter()
        .find_map(|v| std::env::var(v).ok().and_then(|j| j.parse::<usize>().ok()))
        .unwrap_or(2)
        .max(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::<String>::new());
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(u) = todo.get(i) else { break };
                let src = objs.join(format!("{}.cpp", u.stem));
                let obj = objs.join(format!("{}-{}.o", u.stem, fnv(&targets)));
                let tmp = objs.join(format!("{}-{}.{}.o.tmp", u.stem, fnv(&targets), std::process::id()));
                let result = {
                    Command::new(&acpp)
                        .args(&flags)
                        .arg("-c")
                        .arg(&src)
                        .arg("-o")
                        .arg(&tmp)
                        .output()
                        .map_err(|e| format!("cannot run {}: {e}", acpp.display()))
                };
                match result {
                    Ok(o) if o.status.success() => {
                        if let Err(e) = std::fs::rename(&tmp, &obj) {
                            failures.lock().unwrap_or_else(|p| p.into_inner()).push(format!("{}: {e}", obj.display()));
                        }
                    }
                    Ok(o) => failures.lock().unwrap_or_else(|p| p.into_inner()).push(format!(
                        "acpp failed on {} ({}):\n{}",
                        u.names.join(", "),
                        src.display(),
                        String::from_utf8_lossy(&o.stderr)
                    )),
                    Err(e) => failures.lock().unwrap_or_else(|p| p.into_inner()).push(e),
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap_or_else(|p| p.into_inner());
    if !failures.is_empty() {
        panic!("AdaptiveCpp could not compile {} kernel unit(s):\n{}", failures.len(), failures.join("\n"));
    }
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .compiler(&acpp)
        .std("c++17")
        .opt_level(3)
        .debug(false)
        .flag(format!("--acpp-targets={targets}"))
        .flag("-Wno-unused-parameter")
        .file("shim/tenor_sycl.cpp")
        .file(&table_src)
        .define("TENOR_ACPP_ROOT", Some(format!("{:?}", root.display().to_string()).as_str()))
        .define("TENOR_ACPP_TARGETS", Some(format!("{targets:?}").as_str()));
    for f in cuda_aot_flags(&root, &targets) {
        build.flag(f);
    }
    for u in &all {
        build.object(objs.join(format!("{}-{}.o", u.stem, fnv(&targets))));
    }
    build.compile("tenor_sycl_shim");
    let lib = root.join("lib");
    println!("cargo:rustc-link-search=native={}", lib.display());
    println!("cargo:rustc-link-lib=dylib=acpp-rt");
    println!("cargo:rustc-link-lib=dylib=acpp-common");
    println!("cargo:rustc-link-lib=dylib=stdc++");
    println!("cargo:rustc-link-lib=dylib=dl");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.display());
    println!("cargo:rustc-cfg=tenor_sycl_acpp");
    println!("cargo:root={}", root.display());
    println!("cargo:implementation=acpp");
}

/// For ahead-of-time CUDA targets (`cuda:sm_XX`): clang 16's CUDA toolchain against CUDA 13
/// through what scripts/install-acpp puts in `<cache>/cuda-aot` (the prefix's sibling).
fn cuda_aot_flags(root: &Path, targets: &str) -> Vec<String> {
    if !targets.split(';').any(|t| t.starts_with("cuda:")) {
        return Vec::new();
    }
    let aot = root.parent().map(|p| p.join("cuda-aot")).unwrap_or_default();
    if !aot.join("root/bin/fatbinary").is_file() {
        panic!("TENOR_ACPP_TARGETS={targets}: {} is missing; run scripts/install-acpp", aot.display());
    }
    vec![
        format!("--acpp-cuda-path={}", aot.join("root").display()),
        format!("-I{}", aot.join("compat").display()),
        format!("-I{}", aot.join("cccl/include").display()),
        "-Wno-unknown-cuda-version".to_owned(),
    ]
}

/// A short tag of the target list for object names (objects of other targets stay apart).
fn fnv(s: &str) -> String {
    format!("{:08x}", unit::fnv1a64(s) as u32)
}
