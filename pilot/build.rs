//! Records the git commit and the lines of adapter code per backend for the pilot's report;
//! with the `sycl` feature, also embeds the DPC++ runtime's library directory (found by
//! tenor-sycl's build script, passed on through its `links` metadata) as the binary's rpath, so
//! `tenor` runs without LD_LIBRARY_PATH.
use std::path::Path;

fn count_lines(dir: &Path, exts: &[&str]) -> usize {
    let Ok(rd) = std::fs::read_dir(dir) else { return 0 };
    rd.filter_map(Result::ok)
        .map(|e| e.path())
        .map(|p| {
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n == "target" || n == "tests") {
                    0
                } else {
                    count_lines(&p, exts)
                }
            } else if p.extension().and_then(|e| e.to_str()).is_some_and(|e| exts.contains(&e)) {
                std::fs::read_to_string(&p).map_or(0, |s| s.lines().filter(|l| !l.trim().is_empty()).count())
            } else {
                0
            }
        })
        .sum()
}

fn kernel_sources(kernels: &Path, file: &str) -> usize {
    let Ok(rd) = std::fs::read_dir(kernels) else { return 0 };
    rd.filter_map(Result::ok)
        .map(|e| e.path().join(file))
        .filter(|p| p.is_file())
        .map(|p| std::fs::read_to_string(p).map_or(0, |s| s.lines().filter(|l| !l.trim().is_empty()).count()))
        .sum()
}

fn main() {
    println!("cargo:rerun-if-env-changed=DEP_TENOR_SYCL_SHIM_ROOT");
    if let Ok(root) = std::env::var("DEP_TENOR_SYCL_SHIM_ROOT") {
        println!("cargo:rustc-link-arg-bins=-Wl,-rpath,{root}/lib");
        println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{root}/lib");
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(&root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=TENOR_GIT_COMMIT={commit}");
    let kernels = root.join("kernels");
    let mut rows = Vec::new();
    for (backend, dir, src) in [
        ("cpu", "adapters/cpu", "cpu.rs"),
        ("cuda", "adapters/cuda", "cuda.cu"),
        ("sycl", "adapters/sycl", "sycl.cpp"),
        ("opencl", "adapters/opencl", "opencl.cl"),
    ] {
        let adapter = count_lines(&root.join(dir), &["rs", "cpp", "hpp", "h", "cu", "cuh"]);
        let kernel = kernel_sources(&kernels, src);
        rows.push(format!("(\"{backend}\", {adapter}, {kernel})"));
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
    }
    println!("cargo:rerun-if-changed={}", kernels.display());
    println!("cargo:rerun-if-changed={}", root.join(".git/HEAD").display());
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into()));
    let text = format!(
        "/// (backend, non-blank lines of adapter code, non-blank lines of kernel sources)\npub const CODE_LINES: &[(&str, usize, usize)] = &[{}];\n",
        rows.join(", ")
    );
    if let Err(e) = std::fs::write(out.join("code_lines.rs"), text) {
        println!("cargo:warning=cannot write code_lines.rs: {e}");
    }
}
