//! Entry points generated from the manifests' `[source]` tables (core/kernels/src/entry.rs, ADR 0015).

use std::path::Path;

use tenor_kernels::entry::{generated_source, GENERATED_BACKENDS};
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
        for (backend, file) in [("cuda", "cuda.cu"), ("sycl", "sycl.cpp"), ("opencl", "opencl.cl")] {
            let Some(text) = generated_source(def, backend) else { continue };
            generated += 1;
            assert_eq!(def.sources.get(backend), Some(&text), "{}: {backend} source", def.name);
            let hand = kernels_dir().join(&def.name).join(file);
            assert!(!hand.exists(), "{} exists beside a generated entry point", hand.display());
        }
    }
    // The kernels converted when the generator was added (ADR 0015's table): the count can only
    // grow, so a manifest that loses its [source] table by accident fails here.
    assert!(generated >= 18, "{generated} generated entry points (9 kernels, CUDA and OpenCL)");
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
    assert_eq!(generated_source(def, "sycl"), None, "SYCL entry points stay hand-written");
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
    assert!(GENERATED_BACKENDS.contains(&"cuda"));
}
