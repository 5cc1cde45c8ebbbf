//! Scans `kernels/*/kernel.toml` and generates, from each manifest:
//!
//! * the registry: manifests and backend sources embedded with `include_str!`, and the table of
//!   Rust reference implementations (`cpu.rs`);
//! * one typed launch struct per kernel (`typed.rs`, see `src/typed.rs`): buffers and scalars as
//!   named fields of their Rust types, so a swapped or missing argument does not compile; with
//!   its owned scalars and borrowed buffers, and, from a `[variant]` table, a batch kernel's
//!   host-side columns and an fp32 kernel's conversion (`build/typed.rs`);
//! * `for_each_kernel!`, the list of kernel names that adapters/conformance builds its checks from;
//! * the entry points of kernels whose manifest has a `[source]` table (`src/entry.rs`): written
//!   to `OUT_DIR/entry/` and embedded in place of a hand-written `kernels/<name>/cuda.cu`; the
//!   languages, their files and writers are the rows of `src/language.rs`.
//!
//! The manifests are parsed with `tenor_ports::KernelDef::from_toml`, the parser the registry uses
//! at run time, so a manifest the registry would refuse fails the build with the same message.
use std::fmt::Write as _;
use std::path::Path;

use tenor_ports::KernelDef;

// The library's modules the build script needs, compiled here too: the entry-point writers, the
// language table (which names them and the caches) and the variant rules.
#[path = "src/cache.rs"]
#[allow(dead_code)] // the build script reads no cache; the table names the functions
mod cache;
#[path = "src/entry.rs"]
mod entry;
#[path = "src/language.rs"]
#[allow(dead_code)] // the build script walks the table; the lookup by name is the library's
mod language;
#[path = "build/typed.rs"]
mod typed;
#[path = "src/variant.rs"]
mod variant;

fn main() {
    // The kernel folders live at the top of the repository (`kernels/<name>/`); this crate, the
    // Rust side of them, lives in core (ADR 0028: no folder imports one that imports it back).
    let root_buf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels");
    let root_buf = root_buf.canonicalize().unwrap_or(root_buf);
    let root = root_buf.as_path();
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
    let mut typed = String::new();
    let mut names = Vec::new();
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR set by cargo"));
    let generated_dir = out.join("entry");
    std::fs::create_dir_all(&generated_dir).expect("create OUT_DIR/entry");
    let defs: Vec<KernelDef> = dirs
        .iter()
        .map(|d| {
            let name = d.file_name().and_then(|s| s.to_str()).expect("utf-8 kernel folder name");
            println!("cargo:rerun-if-changed={}", d.display());
            let manifest = d.join("kernel.toml");
            println!("cargo:rerun-if-changed={}", manifest.display());
            let text = std::fs::read_to_string(&manifest).expect("kernel.toml readable");
            let origin = format!("kernels/{name}/kernel.toml");
            let def = KernelDef::from_toml(&text, &origin).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(def.name, name, "{origin}: name {} differs from its folder", def.name);
            def
        })
        .collect();
    for (d, def) in dirs.iter().zip(&defs) {
        let name = def.name.clone();
        let manifest = d.join("kernel.toml");
        let origin = format!("kernels/{name}/kernel.toml");
        if let Some(spec) = &def.source {
            for b in &spec.generate {
                let known: Vec<&str> = language::LANGUAGES.iter().map(|l| l.backend).collect();
                assert!(
                    known.contains(&b.as_str()),
                    "{origin}: source.generate names {b:?}, which is no kernel language; the languages are {known:?}"
                );
            }
        }
        let mut sources = String::new();
        for lang in language::LANGUAGES {
            let (backend, file) = (lang.backend, lang.file);
            let f = d.join(file);
            let path = match (f.is_file(), entry::generated_source(def, backend)) {
                (true, Some(_)) => panic!(
                    "kernels/{name}/{file} is written by hand but {origin}'s [source] table generates it: delete one"
                ),
                (true, None) => {
                    println!("cargo:rerun-if-changed={}", f.display());
                    f
                }
                (false, Some(generated)) => {
                    let g = generated_dir.join(format!("{name}.{file}"));
                    std::fs::write(&g, generated).expect("write a generated entry point");
                    g
                }
                (false, None) => continue,
            };
            write!(sources, "(\"{backend}\", include_str!({:?})),", path.display().to_string()).ok();
        }
        typed.push_str(&typed::generate(def, &name, &defs));
        names.push(name.clone());
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
    // kernels/common (the preludes, shared.h, asian.h, basket.h): under the folder above, and included by
    // the language table compiled into this script.
    let list = names.join(" ");
    let quoted = names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ");
    std::fs::write(
        out.join("registry.rs"),
        format!(
            "static ENTRIES: &[Entry] = &[\n{entries}];\n\n\
             /// The names of every built-in kernel (one per `kernels/*/kernel.toml`), sorted.\n\
             pub const NAMES: &[&str] = &[{quoted}];\n\n\
             /// Calls the macro `$m` with the name of every built-in kernel, as identifiers in sorted order\n\
             /// (`$m! {{ curve_build gbm_paths ... }}`): generated from `kernels/*/kernel.toml`, so a list\n\
             /// built with it (adapters/conformance's checks) names every kernel of the manifests.\n\
             #[macro_export]\n\
             macro_rules! for_each_kernel {{\n    ($m:ident) => {{\n        $m! {{ {list} }}\n    }};\n}}\n"
        ),
    )
    .expect("write registry.rs");
    std::fs::write(
        out.join("cpu_kernels.rs"),
        format!("{mods}\n/// Name to reference implementation.\npub static TABLE: &[(&str, CpuKernelFn)] = &[\n{cpu_table}];\n"),
    )
    .expect("write cpu_kernels.rs");
    std::fs::write(out.join("typed.rs"), typed).expect("write typed.rs");
}
