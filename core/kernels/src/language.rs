//! The kernel languages of the device backends, one row each ([`LANGUAGES`]): everything Tenor
//! knows about CUDA C++, SYCL C++ and OpenCL C outside the adapter that compiles it. The build
//! script (which embeds each kernel's source: the hand-written `kernels/<name>/<file>` or the
//! generated entry point), the library ([`crate::prelude`], [`crate::entry`]), the pilot's
//! in-house kernels (the files of a kernel folder) and its environment report (the on-disk
//! cache) read this table; adding a language is a row here, its prelude file in
//! `kernels/common/`, its entry-point writer in [`crate::entry`] and its cache in
//! [`crate::cache`]. Like [`crate::entry`], this module is compiled into the build script too.
//!
//! The CPU and simulated backends have no row: they run the Rust references (`cpu.rs`)
//! compiled into the binary.

use tenor_ports::{KernelDef, SourceSpec};

use crate::cache::{Env, KernelCache};

/// One kernel language.
#[derive(Debug, Clone, Copy)]
pub struct Language {
    /// The backend that compiles it (`cuda`, `sycl`, `opencl`): the key of
    /// [`tenor_ports::KernelDef::sources`] and of a manifest's `source.generate`.
    pub backend: &'static str,
    /// The language and its compiler, for messages.
    pub description: &'static str,
    /// A kernel's hand-written source in its folder (`kernels/<name>/cuda.cu`).
    pub file: &'static str,
    /// The language's own prelude (`kernels/common/prelude.cuh`, ...): Philox, the normals and
    /// the spellings the shared device code is written in.
    pub own_prelude: &'static str,
    /// What is prepended to every kernel of the language: the own prelude, then
    /// `kernels/common/shared.h`, `kernels/common/asian.h` twice and `kernels/common/basket.h`
    /// ([`crate::prelude`]).
    pub prelude: &'static str,
    /// Writes the entry point of a manifest with a `[source]` table ([`crate::entry`]).
    pub entry: fn(&KernelDef, &SourceSpec) -> String,
    /// The on-disk cache of compiled kernels, as found in the environment ([`crate::cache`]).
    pub cache: fn(Env<'_>) -> KernelCache,
}

// Around the two copies of kernels/common/asian.h in each prelude: its precision, whether it is
// fp64, and the suffix of the names it defines (asian.h explains why it is included twice).
macro_rules! asian_f64 {
    () => {
        "\n#define TENOR_T double\n#define TENOR_ASIAN_F64 1\n#define TENOR_ASIAN(name) name##_f64\n"
    };
}
macro_rules! asian_f32 {
    () => {
        "\n#undef TENOR_T\n#undef TENOR_ASIAN_F64\n#undef TENOR_ASIAN\n#define TENOR_T float\n#define TENOR_ASIAN_F64 0\n#define TENOR_ASIAN(name) name##_f32\n"
    };
}
macro_rules! asian_end {
    () => {
        "\n#undef TENOR_T\n#undef TENOR_ASIAN_F64\n#undef TENOR_ASIAN\n"
    };
}
// A language's prelude file, then the device code shared by all languages.
macro_rules! with_shared {
    ($prelude:expr) => {
        concat!(
            include_str!($prelude),
            include_str!("../../../kernels/common/shared.h"),
            asian_f64!(),
            include_str!("../../../kernels/common/asian.h"),
            asian_f32!(),
            include_str!("../../../kernels/common/asian.h"),
            asian_end!(),
            include_str!("../../../kernels/common/basket.h")
        )
    };
}

// One row: the backend, its description, the hand-written file, the prelude in kernels/common/,
// and the name of its entry-point writer in crate::entry and cache description in crate::cache.
macro_rules! language {
    ($backend:literal, $description:literal, $file:literal, $prelude:literal, $fns:ident) => {
        Language {
            backend: $backend,
            description: $description,
            file: $file,
            own_prelude: include_str!(concat!("../../../kernels/common/", $prelude)),
            prelude: with_shared!(concat!("../../../kernels/common/", $prelude)),
            entry: crate::entry::$fns,
            cache: crate::cache::$fns,
        }
    };
}

/// Every kernel language, the order in which a kernel's sources are listed.
pub const LANGUAGES: &[Language] = &[
    language!("cuda", "CUDA C++, compiled by NVRTC", "cuda.cu", "prelude.cuh", cuda),
    language!(
        "sycl",
        "SYCL 2020 C++, compiled by DPC++'s kernel compiler or AdaptiveCpp",
        "sycl.cpp",
        "prelude.hpp",
        sycl
    ),
    language!("opencl", "OpenCL C 1.2, compiled by the OpenCL runtime", "opencl.cl", "prelude.cl", opencl),
];

/// The row of `backend` (`cuda`, `sycl`, `opencl`; a device selector such as `cuda:1` names its
/// backend's row), or `None` for a backend without a kernel language (`cpu`, `sim`) or an
/// unknown one.
pub fn language(backend: &str) -> Option<&'static Language> {
    let backend = backend.split(':').next().unwrap_or(backend);
    LANGUAGES.iter().find(|l| l.backend == backend)
}
