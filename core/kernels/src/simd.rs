//! Run-time selection of an instruction set for the CPU reference kernels.
//!
//! A kernel writes its inner loop once, in portable Rust shaped so that the compiler vectorises
//! it (loops over lanes, no branches between lanes, no fused multiply-add), and
//! [`avx2_dispatch!`] defines the entry point that runs it compiled for AVX2 when the CPU has
//! it (4 doubles per instruction) and as portable code otherwise. Both builds perform the same
//! IEEE operations in the same order, so they give bitwise the same results: each kernel's tests
//! check that with the generated `_avx2` function. Method: Rust's `#[target_feature]` with
//! `is_x86_feature_detected!` (the Rust reference, "The target_feature attribute"; Intel's
//! "Intel 64 and IA-32 Architectures Software Developer's Manual", vol. 1, ch. 14, for AVX2).

/// Defines `fn NAME(args) -> RET` that calls `PORTABLE(args)` compiled for AVX2 when the CPU
/// supports it and compiled for the baseline otherwise, and (on x86-64) the AVX2 build itself
/// as `unsafe fn AVX2_NAME(args) -> RET` for tests that compare the two bitwise.
///
/// ```ignore
/// avx2_dispatch! {
///     /// Doc comment of the entry point.
///     fn block_sums, block_sums_avx2 (p: &Params, pairs: Range<u64>) -> [f64; 5] = block_sums_portable
/// }
/// ```
///
/// `PORTABLE` should be `#[inline(always)]` so that its body is compiled inside each build.
macro_rules! avx2_dispatch {
    (
        $(#[$meta:meta])*
        fn $name:ident, $avx2:ident ($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty = $portable:path
    ) => {
        $(#[$meta])*
        fn $name($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2, the only feature the function enables.
                    return unsafe { $avx2($($arg),*) };
                }
            }
            $portable($($arg),*)
        }

        /// The portable inner loop compiled for AVX2.
        ///
        /// # Safety
        /// The CPU must support AVX2 (`is_x86_feature_detected!("avx2")`).
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn $avx2($($arg: $ty),*) -> $ret {
            $portable($($arg),*)
        }
    };
}

pub(crate) use avx2_dispatch;
