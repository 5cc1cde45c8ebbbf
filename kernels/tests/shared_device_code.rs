//! `kernels/common/shared.h` (device code written once for CUDA and SYCL) is in both backends'
//! preludes, after the spellings it is written in, and every spelling it uses is defined by
//! both `prelude.cuh` and `prelude.hpp` (NVRTC and the SYCL compiler then check the code itself).

const CUH: &str = include_str!("../common/prelude.cuh");
const HPP: &str = include_str!("../common/prelude.hpp");
const SHARED: &str = include_str!("../common/shared.h");

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

/// Whether `text` defines `name` as a macro or a typedef.
fn defines(text: &str, name: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim();
        (l.starts_with(&format!("#define {name}")) && l[8 + name.len()..].starts_with(['(', ' ']))
            || (l.starts_with("typedef ") && l.ends_with(&format!(" {name};")))
    })
}

#[test]
fn cuda_and_sycl_preludes_end_with_the_shared_code() {
    for (backend, own) in [("cuda", CUH), ("sycl", HPP)] {
        assert_eq!(tenor_kernels::prelude(backend), format!("{own}{SHARED}"), "{backend} prelude");
    }
    assert!(!tenor_kernels::prelude("opencl").contains(SHARED), "OpenCL C has no shared section");
}

#[test]
fn every_spelling_of_the_shared_code_is_defined_by_both_preludes() {
    let mut spellings: Vec<&str> = identifiers(SHARED, "TENOR_");
    spellings.retain(|s| !defines(SHARED, s));
    spellings.extend(["tenor_u32", "tenor_u64"]);
    assert!(spellings.len() >= 7, "spellings found: {spellings:?}");
    for s in spellings {
        assert!(defines(CUH, s), "prelude.cuh does not define {s}, which shared.h uses");
        assert!(defines(HPP, s), "prelude.hpp does not define {s}, which shared.h uses");
    }
}

#[test]
fn curve_build_and_heston_price_sources_call_the_shared_code() {
    for (kernel, call) in [("curve_build", "tenor_curve_build_one("), ("heston_price", "tenor_heston_price_item(")] {
        let def = tenor_kernels::get(kernel).expect("built-in kernel");
        for backend in ["cuda", "sycl"] {
            let src = &def.sources[backend];
            let words = identifiers(src, "");
            for f in ["exp", "expm1", "log", "log1p", "sqrt", "sin", "cos", "sincos", "erfc", "TENOR_MATH"] {
                assert!(!words.contains(&f), "{kernel} {backend} source calls {f} itself");
            }
            assert!(src.contains(call), "{kernel} {backend} source does not call {call}..)");
        }
    }
}
