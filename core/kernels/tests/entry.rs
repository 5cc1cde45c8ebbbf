//! Entry points generated from the manifests' `[source]` tables (core/kernels/src/entry.rs, ADR 0015).

use std::path::Path;

use tenor_kernels::entry::generated_source;
use tenor_kernels::language::LANGUAGES;
use tenor_ports::KernelDef;

fn kernels_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels")
}

/// The registry holds, for every backend a manifest generates, exactly the generated text, and
/// no hand-written file of that backend exists beside the manifest (the build refuses both).
#[test]
fn generated_entry_points_are_what_the_registry_holds() {
    let reg = tenor_kernels::registry().expect("manifests parse");
    let mut generated = 0;
    for def in reg {
        for lang in LANGUAGES {
            let Some(text) = generated_source(def, lang.backend) else { continue };
            generated += 1;
            assert_eq!(def.sources.get(lang.backend), Some(&text), "{}: {} source", def.name, lang.backend);
            let hand = kernels_dir().join(&def.name).join(lang.file);
            assert!(!hand.exists(), "{} exists beside a generated entry point", hand.display());
        }
    }
    // The kernels converted when the generator was added (ADR 0015's table) and since (ADR 0027:
    // SYCL too, and 11 more kernels): the count can only grow, so a manifest that loses its
    // [source] table by accident fails here.
    assert!(generated >= 60, "{generated} generated entry points (20 kernels, CUDA, SYCL and OpenCL)");
}

/// mc_barrier's generated CUDA entry point is the hand-written one it replaced: the same
/// qualifiers, types (the prelude's u32/u64, double, a written buffer without const) and order,
/// and the shared function called with every argument.
#[test]
fn mc_barrier_cuda_entry_point_matches_the_hand_written_signature() {
    let def = tenor_kernels::get("mc_barrier").expect("mc_barrier");
    let text = generated_source(def, "cuda").expect("mc_barrier generates its CUDA entry point");
    let want_signature = "extern \"C\" __global__ void __launch_bounds__(TENOR_THREADS) mc_barrier(double* \
                          __restrict__ partials, u64 seed, u64 pairs, u32 steps, double spot, double strike, \
                          double barrier, double rebate, u32 is_call, u32 kind, u32 continuous, double drift_dt, \
                          double vol_sqrt_dt, double rate_dt, double discount) {";
    let want_call = "tenor_mc_barrier(partials, seed, pairs, steps, spot, strike, barrier, rebate, is_call, kind, \
                     continuous, drift_dt, vol_sqrt_dt, rate_dt, discount);";
    assert!(text.contains(want_signature), "{text}");
    assert!(text.contains(want_call), "{text}");
    let sycl = generated_source(def, "sycl").expect("mc_barrier generates its SYCL entry point");
    let want_sycl = "extern \"C\" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))\nvoid \
                     mc_barrier(double *partials, uint64_t seed, uint64_t pairs, uint32_t steps, double spot, double \
                     strike, double barrier, double rebate, uint32_t is_call, uint32_t kind, uint32_t continuous, \
                     double drift_dt, double vol_sqrt_dt, double rate_dt, double discount) {\n    tenor_mc_barrier(partials, \
                     seed, pairs, steps, spot, strike, barrier, rebate, is_call, kind, continuous, drift_dt, \
                     vol_sqrt_dt, rate_dt, discount);\n}";
    assert!(sycl.contains(want_sycl), "{sycl}");
    let cl = generated_source(def, "opencl").expect("mc_barrier generates its OpenCL entry point");
    let want_cl = "__kernel void mc_barrier(__global double* restrict partials, ulong seed, ulong pairs, uint steps, \
                   double spot, double strike, double barrier, double rebate, uint is_call, uint kind, uint continuous, \
                   double drift_dt, double vol_sqrt_dt, double rate_dt, double discount) {\n    TENOR_KERNEL_SCRATCH;\n    \
                   tenor_mc_barrier(partials, seed, pairs, steps, spot, strike, barrier, rebate, is_call, kind, \
                   continuous, drift_dt, vol_sqrt_dt, rate_dt, discount TENOR_SCRATCH_ARG);\n}";
    assert!(cl.contains(want_cl), "{cl}");
}

/// A read-only buffer is `const T* __restrict__`, a written one `T* __restrict__`; without
/// `cuda_launch_bounds` there are no launch bounds.
#[test]
fn read_buffers_are_const_and_launch_bounds_are_optional() {
    let def = tenor_kernels::get("payoff_european").expect("payoff_european");
    let text = generated_source(def, "cuda").expect("generated");
    assert!(
        text.contains(
            "extern \"C\" __global__ void payoff_european(const double* __restrict__ paths_in, double* __restrict__ \
             out, u64 paths, u32 steps, double strike, u32 is_call, double discount) {"
        ),
        "{text}"
    );
    assert!(!text.contains("__launch_bounds__"), "{text}");
    let cl = generated_source(def, "opencl").expect("generated");
    assert!(
        cl.contains(
            "__kernel void payoff_european(__global const double* restrict paths_in, __global double* restrict out, \
             ulong paths, uint steps, double strike, uint is_call, double discount) {\n    tenor_payoff_european("
        ),
        "{cl}"
    );
    assert!(!cl.contains("SCRATCH"), "{cl}");
    let sycl = generated_source(def, "sycl").expect("generated");
    assert!(
        sycl.contains(
            "void payoff_european(const double *paths_in, double *out, uint64_t paths, uint32_t steps, double strike, \
             uint32_t is_call, double discount) {\n    tenor_payoff_european("
        ),
        "{sycl}"
    );
}

const BASE: &str = "name = \"k\"\n[launch]\nitems = \"n\"\nblock = 256\n[[args]]\nname = \"x\"\ntype = \"f64*\"\n\
                    access = \"write\"\nlen = \"n\"\n[[args]]\nname = \"n\"\ntype = \"u64\"\n";

#[test]
fn a_bad_source_table_is_refused_naming_the_field() {
    let bad = KernelDef::from_toml(&format!("{BASE}[source]\nshared = \"1x\"\ngenerate = [\"cuda\"]\n"), "t.toml")
        .expect_err("not an identifier");
    assert!(bad.to_string().contains("source.shared") && bad.to_string().contains("t.toml"), "{bad}");
    let none = KernelDef::from_toml(&format!("{BASE}[source]\nshared = \"f\"\ngenerate = []\n"), "t.toml")
        .expect_err("no backend");
    assert!(none.to_string().contains("source.generate"), "{none}");
    let unknown =
        KernelDef::from_toml(&format!("{BASE}[source]\nshared = \"f\"\ngenerate = [\"cuda\"]\nfoo = 1\n"), "t.toml")
            .expect_err("unknown field");
    assert!(unknown.to_string().contains("foo"), "{unknown}");
    let ok = KernelDef::from_toml(&format!("{BASE}[source]\nshared = \"f\"\ngenerate = [\"cuda\"]\n"), "t.toml")
        .expect("valid");
    let text = generated_source(&ok, "cuda").expect("cuda generated");
    assert!(text.contains("void k(double* __restrict__ x, u64 n) {\n    f(x, n);\n}"), "{text}");
    // A language the manifest does not list is not generated; a backend without a kernel
    // language has none.
    assert_eq!(generated_source(&ok, "sycl"), None);
    assert_eq!(generated_source(&ok, "cpu"), None);
}

/// One row per kernel language (ADR 0027): backends and file names unique; the prelude the
/// library prepends is the row's own prelude followed by the shared code; a device selector
/// names its backend's row; the CPU and simulated backends (Rust references) have none; every
/// row writes an entry point, so a manifest may generate any language.
#[test]
fn the_language_table_is_what_the_library_reads() {
    use tenor_kernels::language::language;
    let backends: Vec<&str> = LANGUAGES.iter().map(|l| l.backend).collect();
    let files: Vec<&str> = LANGUAGES.iter().map(|l| l.file).collect();
    assert_eq!(backends, ["cuda", "sycl", "opencl"]);
    assert_eq!(files, ["cuda.cu", "sycl.cpp", "opencl.cl"]);
    for l in LANGUAGES {
        assert_eq!(tenor_kernels::prelude(l.backend), l.prelude);
        assert!(l.prelude.starts_with(l.own_prelude) && l.prelude.len() > l.own_prelude.len());
        assert_eq!(language(&format!("{}:1", l.backend)).map(|r| r.file), Some(l.file));
    }
    assert!(language("cpu").is_none() && language("sim").is_none() && tenor_kernels::prelude("cpu").is_empty());
    let all = format!("{BASE}[source]\nshared = \"f\"\ngenerate = [\"cuda\", \"sycl\", \"opencl\"]\n");
    let def = KernelDef::from_toml(&all, "t.toml").expect("valid");
    for l in LANGUAGES {
        let text = generated_source(&def, l.backend).unwrap_or_else(|| panic!("{} not generated", l.backend));
        assert!(text.contains(" k(") && text.contains("f(x, n"), "{}: {text}", l.backend);
    }
}

/// `cuda_min_blocks = 3` bounds the entry by a macro named after the kernel that defaults to 3 and
/// that a compilation may define (a tuning run's `-DTENOR_MIN_BLOCKS_k=4`); a manifest without it
/// has no such bound. A manifest of the test's own, so that tuning the shipped kernels' bounds
/// does not change what this checks.
#[test]
fn min_blocks_default_to_the_manifest_and_can_be_defined() {
    let src = "[source]\nshared = \"f\"\ngenerate = [\"cuda\"]\n";
    let bounded = KernelDef::from_toml(&format!("{BASE}{src}cuda_min_blocks = 3\n"), "t.toml").expect("valid");
    let text = generated_source(&bounded, "cuda").expect("generated");
    assert!(
        text.contains(
            "#ifndef TENOR_MIN_BLOCKS_k\n#define TENOR_MIN_BLOCKS_k 3\n#endif\nextern \"C\" __global__ \
             void __launch_bounds__(TENOR_THREADS, TENOR_MIN_BLOCKS_k) k("
        ),
        "{text}"
    );
    let plain = KernelDef::from_toml(&format!("{BASE}{src}"), "t.toml").expect("valid");
    let text = generated_source(&plain, "cuda").expect("generated");
    assert!(!text.contains("TENOR_MIN_BLOCKS"), "{text}");
}
