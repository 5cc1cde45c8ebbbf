//! # tenor-kernels: the built-in kernel registry
//!
//! One folder per kernel under `kernels/`: `kernel.toml` (the manifest, see
//! [`tenor_ports::KernelDef`]), `cpu.rs` (the Rust reference implementation, the numerical
//! oracle for every backend), and one source per kernel language ([`language::LANGUAGES`]:
//! `cuda.cu`, `sycl.cpp`, `opencl.cl`), written by hand or generated from the manifest's
//! `[source]` table ([`entry`]). `build.rs` embeds them; [`registry`] parses and validates the
//! manifests once. From the same manifests `build.rs` generates [`typed`], one typed launch
//! struct per kernel (`McBarrier { partials: &p, seed, pairs, .. }.launch(compute, stream)`)
//! with its owned scalars and, for a `[variant]` ([`variant`]), a batch kernel's host-side
//! columns; and [`for_each_kernel!`], the kernel list adapters/conformance builds its checks from.
//!
//! Random numbers come from Philox4x32-10 ([`philox`]) indexed by (seed, path, step), so every
//! backend generates the same paths and no result depends on launch geometry or thread count.

pub mod barrier;
pub mod basket;
pub mod black;
pub mod cache;
pub mod cpu;
pub mod curve;
pub mod entry;
pub mod fastmath;
pub mod heston;
pub mod language;
pub mod philox;
mod simd;
pub mod typed;
pub mod variant;

use std::sync::OnceLock;

use tenor_ports::{ComputeError, KernelDef};

struct Entry {
    folder: &'static str,
    manifest: &'static str,
    sources: &'static [(&'static str, &'static str)],
}

include!(concat!(env!("OUT_DIR"), "/registry.rs"));

/// The shared device-code prelude for a backend (`cuda`, `sycl`, `opencl`), prepended to every
/// kernel source of that backend: Philox and the normal transform written once per language
/// (`kernels/common/prelude.{cuh,hpp,cl}`), then `kernels/common/shared.h`,
/// `kernels/common/asian.h` (twice: fp64, then fp32) and `kernels/common/basket.h` (the STAC-A2
/// basket's kernels), the code of every built-in kernel except the tuned `mc_european` family and
/// `philox_bits`, written once for the three languages (the
/// common subset of CUDA C++, SYCL C++ and OpenCL C 1.2) through the spellings
/// (`TENOR_DEVICE_INLINE`, `TENOR_MATH`, `TENOR_FOR_ITEMS`, `TENOR_GLOBAL`, ...) each prelude
/// defines: the `prelude` of the backend's row of [`language::LANGUAGES`]. A backend without a
/// kernel language has an empty prelude.
pub fn prelude(backend: &str) -> &'static str {
    language::language(backend).map_or("", |l| l.prelude)
}

static REGISTRY: OnceLock<Result<Vec<KernelDef>, ComputeError>> = OnceLock::new();

/// All built-in kernels, parsed and validated once.
///
/// # Errors
/// [`ComputeError::InvalidArgument`] naming the manifest file when one is malformed (a test
/// parses all of them, so a shipped build never sees this).
pub fn registry() -> Result<&'static [KernelDef], ComputeError> {
    REGISTRY
        .get_or_init(|| {
            ENTRIES
                .iter()
                .map(|e| {
                    let origin = format!("kernels/{}/kernel.toml", e.folder);
                    let mut def = KernelDef::from_toml(e.manifest, &origin)?;
                    if def.name != e.folder {
                        return Err(ComputeError::InvalidArgument(format!(
                            "{origin}: name {} differs from its folder",
                            def.name
                        )));
                    }
                    for (backend, src) in e.sources {
                        def.sources.insert((*backend).to_owned(), (*src).to_owned());
                    }
                    Ok(def)
                })
                .collect()
        })
        .as_ref()
        .map(Vec::as_slice)
        .map_err(Clone::clone)
}

/// The built-in kernel called `name`.
///
/// # Errors
/// [`ComputeError::UnknownKernel`] when no built-in kernel has that name.
pub fn get(name: &str) -> Result<&'static KernelDef, ComputeError> {
    registry()?.iter().find(|k| k.name == name).ok_or_else(|| ComputeError::UnknownKernel {
        kernel: name.to_owned(),
        backend: "registry".into(),
        reason: "no built-in kernel of that name".into(),
    })
}
