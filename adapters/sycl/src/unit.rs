//! The text of a SYCL kernel's translation unit, written once for the adapter and its build
//! script (`build.rs` includes this file to compile the built-in kernels ahead of time with
//! AdaptiveCpp; the adapter builds the same text at run time and the shim finds the compiled
//! kernel by name and [`fnv1a64`] of the text).

/// Work-items per work-group of the gemm kernel (one 4x4 tile of C each).
pub const GEMM_LOCAL: u32 = 64;

/// The gemm kernels' source (`src/imp/gemm.cpp`): `tenor_gemm_f64` and `tenor_gemm_f32`.
pub const GEMM_SOURCE: &str = include_str!("imp/gemm.cpp");

/// The names of the kernels [`GEMM_SOURCE`] defines.
pub const GEMM_KERNELS: &[&str] = &["tenor_gemm_f64", "tenor_gemm_f32"];

/// The launchers AdaptiveCpp needs (`shim/tenor_sycl_acpp.hpp`), appended by [`acpp_unit`].
pub const ACPP_LAUNCHERS: &str = include_str!("../shim/tenor_sycl_acpp.hpp");

/// The complete translation unit of a kernel of launch block `block` (work-items per block):
/// `#define TENOR_BLOCK <block>u`, the SYCL prelude (`tenor_kernels::prelude("sycl")`) and the
/// kernel's source.
pub fn translation_unit(block: u32, prelude: &str, source: &str) -> String {
    format!("#define TENOR_BLOCK {block}u\n{prelude}\n{source}\n")
}

/// The AdaptiveCpp form of `unit` (a [`translation_unit`]): the same text, the launchers and
/// one `TENOR_ACPP_KERNEL(name)` per kernel of `names`.
pub fn acpp_unit(unit: &str, names: &[&str]) -> String {
    let mut s = String::with_capacity(unit.len() + ACPP_LAUNCHERS.len() + 64 * names.len());
    s.push_str(unit);
    s.push_str(ACPP_LAUNCHERS);
    for n in names {
        s.push_str("TENOR_ACPP_KERNEL(");
        s.push_str(n);
        s.push_str(")\n");
    }
    s
}

/// FNV-1a, 64 bits (Fowler, Noll and Vo), of `text`'s bytes: the key of a translation unit
/// (the shim's `fnv1a64` is the same function).
pub fn fnv1a64(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_matches_the_published_test_vectors() {
        // Fowler, Noll and Vo's FNV-1a 64-bit test vectors (the offset basis for the empty
        // string; "a" and "foobar").
        assert_eq!(fnv1a64(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64("foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn the_acpp_unit_is_the_translation_unit_then_the_launchers_then_one_line_per_kernel() {
        let tu = translation_unit(64, "// prelude", "void k(double *x) {}");
        assert_eq!(tu, "#define TENOR_BLOCK 64u\n// prelude\nvoid k(double *x) {}\n");
        let unit = acpp_unit(&tu, &["k", "k2"]);
        assert!(unit.starts_with(&tu));
        let rest = &unit[tu.len()..];
        assert!(rest.starts_with(ACPP_LAUNCHERS));
        assert_eq!(&rest[ACPP_LAUNCHERS.len()..], "TENOR_ACPP_KERNEL(k)\nTENOR_ACPP_KERNEL(k2)\n");
        // A one-character change of the source is another key.
        assert_ne!(
            fnv1a64(&unit),
            fnv1a64(&acpp_unit(&translation_unit(64, "// prelude", "void k(double *y) {}"), &["k", "k2"]))
        );
    }
}
