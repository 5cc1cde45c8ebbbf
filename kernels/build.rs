//! Scans `kernels/*/kernel.toml` and generates, from each manifest:
//!
//! * the registry: manifests and backend sources embedded with `include_str!`, and the table of
//!   Rust reference implementations (`cpu.rs`);
//! * one typed launch struct per kernel (`typed.rs`, see `src/typed.rs`): buffers and scalars as
//!   named fields of their Rust types, so a swapped or missing argument does not compile;
//! * `for_each_kernel!`, the list of kernel names that adapters/conformance builds its checks from;
//! * the entry points of kernels whose manifest has a `[source]` table (`src/entry.rs`): written
//!   to `OUT_DIR/entry/` and embedded in place of a hand-written `kernels/<name>/cuda.cu`.
//!
//! The manifests are parsed with `tenor_ports::KernelDef::from_toml`, the parser the registry uses
//! at run time, so a manifest the registry would refuse fails the build with the same message.
use std::fmt::Write as _;
use std::path::Path;

use tenor_ports::{Access, ArgType, KernelDef};

#[path = "src/entry.rs"]
mod entry;

/// `mc_barrier` -> `McBarrier`, `mc_european_f32` -> `McEuropeanF32`.
fn camel(name: &str) -> String {
    name.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next().map_or_else(String::new, |f| f.to_ascii_uppercase().to_string() + c.as_str())
        })
        .collect()
}

/// The Rust type of a scalar argument (`None` for a buffer).
fn scalar_type(t: ArgType) -> Option<&'static str> {
    match t {
        ArgType::U32 => Some("u32"),
        ArgType::I32 => Some("i32"),
        ArgType::U64 => Some("u64"),
        ArgType::F32 => Some("f32"),
        ArgType::F64 => Some("f64"),
        ArgType::PtrF64 | ArgType::PtrF32 | ArgType::PtrU32 | ArgType::PtrU64 => None,
    }
}

fn access_path(a: Option<Access>) -> &'static str {
    match a {
        Some(Access::Read) => "Access::Read",
        Some(Access::Write) => "Access::Write",
        Some(Access::ReadWrite) | None => "Access::ReadWrite",
    }
}

fn access_word(a: Option<Access>) -> &'static str {
    match a {
        Some(Access::Read) => "read",
        Some(Access::Write) => "written",
        Some(Access::ReadWrite) | None => "read and written",
    }
}

/// The first sentence of a manifest description, for a one-line doc comment.
fn first_sentence(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let end = flat.find(": ").or_else(|| flat.find(". ")).unwrap_or(flat.len());
    flat[..end].trim_end_matches('.').replace('[', "\\[").replace(']', "\\]")
}

/// One typed launch struct for `def`.
fn typed_struct(def: &KernelDef, folder: &str) -> String {
    let ty = camel(&def.name);
    let has_buffer = def.args.iter().any(|a| a.ty.is_pointer());
    let lt = if has_buffer { "<'a>" } else { "" };
    let mut s = String::new();
    writeln!(s, "/// `{}`: {}.", def.name, first_sentence(&def.description)).ok();
    writeln!(s, "///").ok();
    writeln!(
        s,
        "/// Typed launch generated from `kernels/{folder}/kernel.toml` (see the manifest for the method); \
         fields in manifest order, launched over `{}` work items in blocks of {}.",
        def.launch.items, def.launch.block
    )
    .ok();
    writeln!(s, "#[derive(Debug, Clone, Copy)]\npub struct {ty}{lt} {{").ok();
    for a in &def.args {
        match scalar_type(a.ty) {
            Some(t) => {
                writeln!(s, "    /// Scalar `{}`.\n    pub {}: {t},", a.ty.as_str(), a.name).ok();
            }
            None => {
                writeln!(
                    s,
                    "    /// Buffer of `{}` elements (`{}`), {} by the kernel.\n    pub {}: &'a DeviceBuffer,",
                    &a.ty.as_str()[..3],
                    a.ty.as_str(),
                    access_word(a.access),
                    a.name
                )
                .ok();
            }
        }
    }
    writeln!(s, "}}\n").ok();
    let n = def.args.len();
    let items = match def.args.iter().find(|a| a.name == def.launch.items) {
        Some(a) if a.ty == ArgType::U64 => format!("self.{}", a.name),
        Some(a) => format!("u64::from(self.{})", a.name),
        None => "0".to_owned(),
    };
    let anon = if has_buffer { "<'_>" } else { "" };
    writeln!(s, "impl {ty}{anon} {{").ok();
    writeln!(s, "    /// The kernel's name in the registry.\n    pub const NAME: &'static str = {:?};", def.name).ok();
    writeln!(
        s,
        "    /// Work items per block (`launch.block`); a kernel with per-block partials writes \
         `items.div_ceil(BLOCK)` of them.\n    pub const BLOCK: u32 = {};\n    \
         /// Blocks of a launch over `items` work items.\n    pub fn blocks(items: u64) -> u64 {{\n        \
         items.div_ceil(u64::from(Self::BLOCK))\n    }}",
        def.launch.block
    )
    .ok();
    writeln!(
        s,
        "    /// Work items of the launch: the `{}` field.\n    pub fn items(&self) -> u64 {{\n        {items}\n    }}",
        def.launch.items
    )
    .ok();
    writeln!(s, "    /// The positional arguments in manifest order, buffers with their manifest access.").ok();
    writeln!(s, "    pub fn args(&self) -> [Arg<'_>; {n}] {{\n        [").ok();
    for a in &def.args {
        let arg = match a.ty {
            ArgType::U32 => format!("Arg::U32(self.{})", a.name),
            ArgType::I32 => format!("Arg::I32(self.{})", a.name),
            ArgType::U64 => format!("Arg::U64(self.{})", a.name),
            ArgType::F32 => format!("Arg::F32(self.{})", a.name),
            ArgType::F64 => format!("Arg::F64(self.{})", a.name),
            _ => format!("Arg::Buf(self.{}, {})", a.name, access_path(a.access)),
        };
        writeln!(s, "            {arg},").ok();
    }
    writeln!(s, "        ]\n    }}").ok();
    writeln!(
        s,
        "    /// Loads the kernel on `compute` (compiled once and cached by the device), for \
         [`Self::launch_loaded`].\n    ///\n    /// # Errors\n    /// As [`Compute::load_kernel`].\n    \
         pub fn load<C: Compute + ?Sized>(compute: &C) -> Result<Kernel, ComputeError> {{\n        \
         compute.load_kernel(crate::get(Self::NAME)?)\n    }}"
    )
    .ok();
    writeln!(
        s,
        "    /// Loads the kernel through `compute` (compiled once and cached by the device) and \
         launches it on `stream`.\n    ///\n    /// # Errors\n    /// As [`Compute::load_kernel`] and \
         [`Compute::launch`].\n    pub fn launch<C: Compute + ?Sized>(&self, compute: &C, stream: &Stream) -> Result<(), ComputeError> {{\n        \
         launch_typed(compute, stream, Self::NAME, self.items(), &self.args())\n    }}"
    )
    .ok();
    writeln!(
        s,
        "    /// Launches on `stream` with `kernel` loaded earlier by [`Self::load`] (a hot loop's way to \
         skip the cache lookup).\n    ///\n    /// # Errors\n    /// [`ComputeError::KernelArg`] when `kernel` is not `{}`; \
         as [`Compute::launch`].\n    pub fn launch_loaded<C: Compute + ?Sized>(&self, compute: &C, stream: &Stream, kernel: &Kernel) -> Result<(), ComputeError> {{\n        \
         launch_loaded(compute, stream, kernel, Self::NAME, self.items(), &self.args())\n    }}",
        def.name
    )
    .ok();
    writeln!(s, "}}\n").ok();
    writeln!(
        s,
        "impl TypedLaunch for {ty}{anon} {{\n    const NAME: &'static str = {:?};\n    fn items(&self) -> u64 {{\n        \
         {ty}::items(self)\n    }}\n    fn to_args(&self) -> Vec<Arg<'_>> {{\n        self.args().to_vec()\n    }}\n}}\n",
        def.name
    )
    .ok();
    s
}

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
    let mut typed = String::new();
    let mut names = Vec::new();
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR set by cargo"));
    let generated_dir = out.join("entry");
    std::fs::create_dir_all(&generated_dir).expect("create OUT_DIR/entry");
    for d in &dirs {
        let name = d.file_name().and_then(|s| s.to_str()).expect("utf-8 kernel folder name").to_owned();
        println!("cargo:rerun-if-changed={}", d.display());
        let manifest = d.join("kernel.toml");
        println!("cargo:rerun-if-changed={}", manifest.display());
        let text = std::fs::read_to_string(&manifest).expect("kernel.toml readable");
        let origin = format!("kernels/{name}/kernel.toml");
        let def = KernelDef::from_toml(&text, &origin).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(def.name, name, "{origin}: name {} differs from its folder", def.name);
        if let Some(spec) = &def.source {
            for b in &spec.generate {
                assert!(
                    entry::GENERATED_BACKENDS.contains(&b.as_str()),
                    "{origin}: source.generate names {b:?}; entry points are generated for {:?} only",
                    entry::GENERATED_BACKENDS
                );
            }
        }
        let mut sources = String::new();
        for (backend, file) in [("cuda", "cuda.cu"), ("sycl", "sycl.cpp"), ("opencl", "opencl.cl")] {
            let f = d.join(file);
            let path = match (f.is_file(), entry::generated_source(&def, backend)) {
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
        typed.push_str(&typed_struct(&def, &name));
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
    for f in ["prelude.cuh", "prelude.hpp", "prelude.cl", "shared.h", "asian.h", "basket.h"] {
        println!("cargo:rerun-if-changed={}", root.join("common").join(f).display());
    }
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
