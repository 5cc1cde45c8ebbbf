//! Scans `kernels/*/kernel.toml` and generates the registry: manifests and backend sources
//! embedded with `include_str!`, and the table of Rust reference implementations (`cpu.rs`).
use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs: Vec<_> = std::fs::read_dir(root)
        .expect("kernels dir readable")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.join("kernel.toml").is_file())
        .collect();
    dirs.sort();
    println!("cargo:rerun-if-changed={}", root.display());
    let mut entries = String::new();
    let mut mods = String::new();
    let mut cpu_table = String::new();
    for d in &dirs {
        let name = d.file_name().and_then(|s| s.to_str()).expect("utf-8 kernel folder name").to_owned();
        println!("cargo:rerun-if-changed={}", d.display());
        let mut sources = String::new();
        for (backend, file) in [("cuda", "cuda.cu"), ("sycl", "sycl.cpp"), ("opencl", "opencl.cl")] {
            let f = d.join(file);
            if f.is_file() {
                println!("cargo:rerun-if-changed={}", f.display());
                write!(sources, "(\"{backend}\", include_str!({:?})),", f.display().to_string()).ok();
            }
        }
        let manifest = d.join("kernel.toml");
        println!("cargo:rerun-if-changed={}", manifest.display());
        writeln!(
            entries,
            "    Entry {{ folder: {name:?}, manifest: include_str!({:?}), sources: &[{sources}] }},",
            manifest.display().to_string()
        )
        .ok();
        let cpu = d.join("cpu.rs");
        if cpu.is_file() {
            println!("cargo:rerun-if-changed={}", cpu.display());
            writeln!(mods, "#[path = {:?}]\npub mod {name};", cpu.display().to_string()).ok();
            writeln!(cpu_table, "    ({name:?}, {name}::run as CpuKernelFn),").ok();
        }
    }
    for f in ["prelude.cuh", "prelude.hpp", "prelude.cl", "shared.h", "asian.h"] {
        println!("cargo:rerun-if-changed={}", root.join("common").join(f).display());
    }
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR set by cargo"));
    std::fs::write(out.join("registry.rs"), format!("static ENTRIES: &[Entry] = &[\n{entries}];\n"))
        .expect("write registry.rs");
    std::fs::write(
        out.join("cpu_kernels.rs"),
        format!("{mods}\n/// Name to reference implementation.\npub static TABLE: &[(&str, CpuKernelFn)] = &[\n{cpu_table}];\n"),
    )
    .expect("write cpu_kernels.rs");
}
