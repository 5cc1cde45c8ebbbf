//! `kernels/common/shared.h` and `kernels/common/asian.h` (device code written once for CUDA,
//! SYCL and OpenCL C) are in the three backends' preludes, after the spellings they are written
//! in; every spelling they use (macros, integer types, the Philox and normal functions, the
//! launch spellings) is defined by `prelude.cuh`, `prelude.hpp` and `prelude.cl`; and the kernels
//! they hold are only entry points in their `cuda.cu`, `sycl.cpp` and `opencl.cl` (NVRTC, the
//! SYCL compiler and the OpenCL conformance run then check the code itself).

const SHARED_H: &str = include_str!("../../../kernels/common/shared.h");
const ASIAN: &str = include_str!("../../../kernels/common/asian.h");
const BASKET: &str = include_str!("../../../kernels/common/basket.h");
/// Every language's own prelude, by backend (`tenor_kernels::language::LANGUAGES`).
fn preludes() -> impl Iterator<Item = (&'static str, &'static str)> {
    tenor_kernels::language::LANGUAGES.iter().map(|l| (l.backend, l.own_prelude))
}
/// What tenor_kernels::prelude defines around the two copies of asian.h (not the preludes).
const INSTANTIATION: [&str; 3] = ["TENOR_T", "TENOR_ASIAN", "TENOR_ASIAN_F64"];
/// What every adapter defines before the prelude: the manifest's `launch.block` (the CUDA
/// adapter's NVRTC unit, the SYCL adapter's translation unit, the OpenCL adapter's program text).
const LAUNCH_DEFINES: [&str; 1] = ["TENOR_BLOCK"];

/// shared.h, asian.h and basket.h, the text the preludes must serve.
fn shared() -> String {
    format!("{SHARED_H}\n{ASIAN}\n{BASKET}")
}

/// The built-in kernels whose code is in `shared.h`, with the call each of their two sources
/// makes.
const SHARED_KERNELS: [(&str, &str); 29] = [
    ("curve_build", "tenor_curve_build_one("),
    ("heston_price", "tenor_heston_price_item("),
    ("implied_vol", "tenor_implied_vol_item("),
    ("mc_asian", "tenor_mc_asian_f64("),
    ("mc_asian_f32", "tenor_mc_asian_f32("),
    ("mc_barrier", "tenor_mc_barrier("),
    ("mc_barrier_batch", "tenor_mc_barrier_batch("),
    ("mc_asian_batch", "tenor_mc_asian_batch_f64("),
    ("reduce_sum_sumsq", "tenor_reduce_sum_sumsq("),
    ("heston_qe", "tenor_heston_qe("),
    ("heston_qe_mc", "tenor_heston_qe_mc("),
    ("heston_qe_batch", "tenor_heston_qe_batch("),
    ("lsm_paths", "tenor_lsm_paths("),
    ("lsm_basis", "tenor_lsm_basis("),
    ("lsm_exercise", "tenor_lsm_exercise("),
    ("lsm_paths_batch", "tenor_lsm_paths_batch("),
    ("lsm_exercise_batch", "tenor_lsm_exercise_batch("),
    ("lsm_normal_batch", "tenor_lsm_normal_batch("),
    ("gbm_paths", "tenor_gbm_paths("),
    ("philox_normals", "tenor_philox_normals("),
    ("payoff_european", "tenor_payoff_european("),
    ("payoff_asian", "tenor_payoff_asian("),
    ("payoff_barrier", "tenor_payoff_barrier("),
    ("basket_paths", "tenor_basket_paths("),
    ("basket_backward", "tenor_basket_backward("),
    ("basket_gram", "tenor_basket_gram("),
    ("basket_value", "tenor_basket_value("),
    ("basket_sens", "tenor_basket_sens("),
    ("basket_moments", "tenor_basket_moments("),
];

/// The built-in kernels whose CUDA and SYCL sources compute differently on purpose (docs/kernels.md):
/// the CUDA ones are tuned with CUDA's own intrinsics (sincospi, reciprocals, fast fp32 math,
/// vector stores), so one shared code would change one backend's bits.
const BACKEND_SPECIFIC: [&str; 4] = ["mc_european", "mc_european_batch", "mc_european_f32", "philox_bits"];

/// The identifiers starting with `prefix` in `text` (outside `//` comments), in order.
fn identifiers<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for word in code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if word.starts_with(prefix) && !out.contains(&word) {
                out.push(word);
            }
        }
    }
    out
}

/// Whether `text` defines `name` as a macro (possibly empty) or a typedef.
fn defines(text: &str, name: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim();
        (l.starts_with(&format!("#define {name}")) && {
            let rest = &l[8 + name.len()..];
            rest.is_empty() || rest.starts_with(['(', ' '])
        }) || (l.starts_with("typedef ") && l.ends_with(&format!(" {name};")))
    })
}

/// Whether `text` defines `name` at file scope as a function, a struct or a typedef: a line
/// that is not indented, a comment or a preprocessor line and names `name(` or `struct name`.
fn defines_at_file_scope(text: &str, name: &str) -> bool {
    text.lines().any(|l| {
        if l.starts_with([' ', '#', '/', '}']) {
            return false;
        }
        let code = l.split("//").next().unwrap_or("");
        let words = identifiers(code, "");
        let pos = code.find(&format!("{name}("));
        let called =
            pos.is_some_and(|p| p == 0 || !code[..p].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_'));
        called || words.windows(2).any(|w| w == ["struct", name]) || defines(l, name)
    })
}

#[test]
fn every_prelude_ends_with_the_shared_code_and_both_asian_instantiations() {
    for (backend, own) in preludes() {
        let p = tenor_kernels::prelude(backend);
        assert!(p.starts_with(&format!("{own}{SHARED_H}")), "{backend} prelude");
        assert_eq!(p.matches(ASIAN).count(), 2, "{backend}: asian.h twice (fp64, fp32)");
        let f64_at = p.find("#define TENOR_T double").unwrap_or(usize::MAX);
        let f32_at = p.find("#define TENOR_T float").unwrap_or(usize::MAX);
        assert!(f64_at < f32_at && f32_at < p.len(), "{backend}: fp64 then fp32");
        assert!(p.ends_with(BASKET), "{backend}: basket.h last");
    }
}

#[test]
fn every_spelling_of_the_shared_code_is_defined_by_every_prelude() {
    let text = shared();
    let mut spellings: Vec<&str> = identifiers(&text, "TENOR_");
    spellings.retain(|s| !defines(&text, s) && !INSTANTIATION.contains(s) && !LAUNCH_DEFINES.contains(s));
    spellings.extend(["tenor_u32", "tenor_u64"]);
    for s in [
        "TENOR_MATH",
        "TENOR_FOR_ITEMS",
        "TENOR_BLOCK_SUMS",
        "TENOR_FOR_ITEM_PER_THREAD",
        "TENOR_INF_F64",
        "TENOR_FOR_ITEMS_IN",
        "TENOR_BLOCK_SUMS_IN",
        "TENOR_BLOCK_INDEX",
        "TENOR_GROUP_SUMS",
        "TENOR_GROUP_BROADCAST",
        "TENOR_PREFETCH",
        "TENOR_GRID_SYNC",
        "TENOR_HAS_GRID_SYNC",
        "TENOR_GLOBAL",
        "TENOR_SCRATCH_PARAM",
        "TENOR_SCRATCH_ARG",
    ] {
        assert!(spellings.contains(&s), "the shared code no longer uses {s}: {spellings:?}");
    }
    for s in spellings {
        for (backend, own) in preludes() {
            assert!(defines(own, s), "the {backend} prelude does not define {s}, which the shared code uses");
        }
    }
}

#[test]
fn every_function_the_shared_code_calls_is_defined_by_it_or_by_every_prelude() {
    let text = shared();
    let mut outside: Vec<&str> = identifiers(&text, "tenor_");
    outside.retain(|s| !defines_at_file_scope(&text, s) && !defines(&text, s) && !in_asian(s));
    for s in ["tenor_normal_pair_f64", "tenor_normal_quad_f32", "tenor_philox4x32_10", "tenor_u32x4"] {
        assert!(outside.contains(&s), "the shared code no longer takes {s} from the preludes: {outside:?}");
    }
    for s in outside {
        for (backend, own) in preludes() {
            assert!(
                defines_at_file_scope(own, s) || defines(own, s),
                "the {backend} prelude does not define {s}, which the shared code uses"
            );
        }
    }
}

/// Whether asian.h defines `name` (without its precision suffix) through `TENOR_ASIAN(name)`.
fn in_asian(name: &str) -> bool {
    let base = name.strip_suffix("_f64").or_else(|| name.strip_suffix("_f32")).unwrap_or(name);
    ASIAN.contains(&format!("TENOR_ASIAN({base})"))
}

#[test]
fn the_shared_kernels_sources_are_entry_points_calling_the_shared_code() {
    for (kernel, call) in SHARED_KERNELS {
        let def = tenor_kernels::get(kernel).expect("built-in kernel");
        let name = call.split(['<', '(']).next().unwrap_or(call);
        assert!(
            defines_at_file_scope(SHARED_H, name) || defines_at_file_scope(BASKET, name) || in_asian(name),
            "shared.h, asian.h and basket.h do not define {name}"
        );
        for (backend, _) in preludes() {
            let src = def.sources.get(backend).unwrap_or_else(|| panic!("{kernel} has no {backend} source"));
            let words = identifiers(src, "");
            for f in ["exp", "expm1", "log", "log1p", "sqrt", "sin", "cos", "sincos", "erfc", "fmax", "TENOR_MATH"] {
                assert!(!words.contains(&f), "{kernel} {backend} source calls {f} itself");
            }
            assert!(src.contains(call), "{kernel} {backend} source does not call {call}..)");
        }
    }
}

#[test]
fn every_built_in_kernel_has_an_opencl_c_source() {
    for def in tenor_kernels::registry().expect("manifests parse") {
        let src = def.sources.get("opencl").unwrap_or_else(|| panic!("kernels/{}/opencl.cl missing", def.name));
        assert!(src.contains(&format!("__kernel void {}(", def.name)), "{}: no entry point of that name", def.name);
    }
}

#[test]
fn every_built_in_kernel_is_either_shared_or_listed_as_backend_specific() {
    let reg = tenor_kernels::registry().expect("manifests parse");
    for def in reg {
        let shared = SHARED_KERNELS.iter().any(|(k, _)| *k == def.name);
        let specific = BACKEND_SPECIFIC.contains(&def.name.as_str());
        assert!(shared != specific, "{}: shared {shared}, listed as backend-specific {specific}", def.name);
    }
    assert_eq!(SHARED_KERNELS.len() + BACKEND_SPECIFIC.len(), reg.len());
}
