//! Kernel manifests (`kernels/<name>/kernel.toml`) and loaded-kernel handles.
//!
//! A manifest names the kernel, lists its positional arguments with their types and, for
//! buffers, their access, and gives the launch shape. CUDA `extern "C" __global__` functions,
//! SYCL free-function kernels and OpenCL `__kernel` functions all take positional arguments, so
//! one launch call serves every backend (docs/kernels.md).
//!
//! ```toml
//! name = "reduce_sum_sumsq"
//! description = "Per-block sum and sum of squares of an f64 array"
//! [launch]
//! items = "n"          # the argument whose value is the number of work items
//! block = 256          # work items per block (CUDA block, SYCL work-group)
//! [[args]]
//! name = "x"
//! type = "f64*"
//! access = "read"
//! len = "n"            # required elements (of f64) as a length expression
//! [[args]]
//! name = "partials"
//! type = "f64*"
//! access = "write"
//! len = "2*blocks"     # blocks = ceil(items / block)
//! [[args]]
//! name = "n"
//! type = "u64"
//! ```

use std::any::Any;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde::Deserialize;

use crate::expr::Expr;
use crate::{Access, ComputeError};

/// Type of one kernel argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum ArgType {
    /// Pointer to `f64` device memory.
    #[serde(rename = "f64*")]
    PtrF64,
    /// Pointer to `f32` device memory.
    #[serde(rename = "f32*")]
    PtrF32,
    /// Pointer to `u32` device memory.
    #[serde(rename = "u32*")]
    PtrU32,
    /// Pointer to `u64` device memory.
    #[serde(rename = "u64*")]
    PtrU64,
    /// Scalar `u32`.
    #[serde(rename = "u32")]
    U32,
    /// Scalar `i32`.
    #[serde(rename = "i32")]
    I32,
    /// Scalar `u64`.
    #[serde(rename = "u64")]
    U64,
    /// Scalar `f32`.
    #[serde(rename = "f32")]
    F32,
    /// Scalar `f64`.
    #[serde(rename = "f64")]
    F64,
}

impl ArgType {
    /// Whether the argument is a buffer.
    pub fn is_pointer(self) -> bool {
        matches!(self, Self::PtrF64 | Self::PtrF32 | Self::PtrU32 | Self::PtrU64)
    }
    /// Element size in bytes of a pointer argument (0 for scalars).
    pub fn element_bytes(self) -> usize {
        match self {
            Self::PtrF64 | Self::PtrU64 => 8,
            Self::PtrF32 | Self::PtrU32 => 4,
            _ => 0,
        }
    }
    /// The spelling used in manifests.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PtrF64 => "f64*",
            Self::PtrF32 => "f32*",
            Self::PtrU32 => "u32*",
            Self::PtrU64 => "u64*",
            Self::U32 => "u32",
            Self::I32 => "i32",
            Self::U64 => "u64",
            Self::F32 => "f32",
            Self::F64 => "f64",
        }
    }
}

/// One positional argument in a manifest.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgDef {
    /// Argument name (documentation and error messages).
    pub name: String,
    /// Argument type.
    #[serde(rename = "type")]
    pub ty: ArgType,
    /// Access for pointer arguments (`read`, `write`, `read_write`); absent for scalars.
    #[serde(default)]
    pub access: Option<Access>,
    /// Pointer arguments: the number of ELEMENTS (of the pointer's type) the kernel may touch,
    /// a length expression ([`crate::expr`]) over `items`, `blocks` (`ceil(items / block)`) and
    /// the kernel's integer scalar arguments. Required for pointers, absent for scalars;
    /// [`crate::Device`] checks every buffer against it before each launch.
    #[serde(default)]
    pub len: Option<Expr>,
}

/// How a kernel is launched.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchShape {
    /// Name of the scalar argument whose value is the number of work items.
    pub items: String,
    /// Work items per block (CUDA block size, SYCL work-group size). Kernels that write one
    /// partial result per block write `ceil(items / block)` of them.
    pub block: u32,
    /// The `u32` scalar argument whose value above 1 makes the launch's blocks wait on each
    /// other (a grid-wide barrier; `basket_backward`'s `dates`, ADR 0036): such a launch is only
    /// taken through `Compute::launch_cooperative` (every block resident at once); a plain
    /// `Compute::launch` of it is refused (blocks that are not resident would wait forever).
    #[serde(default)]
    pub waits: Option<String>,
}

/// Per-item work counts, used by the pilot to turn times into GB/s and FLOP/s.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Metrics {
    /// Floating-point operations per work item (may depend on arguments: then per step).
    #[serde(default)]
    pub flops_per_item: f64,
    /// Bytes read and written in device memory per work item.
    #[serde(default)]
    pub bytes_per_item: f64,
}

/// A manifest's `[source]` table: the kernel's whole body is one function of the shared device
/// code (`kernels/common/shared.h`), called with the arguments in manifest order, so the entry
/// points of the backends in `generate` are written from the manifest (`tenor_kernels::entry`)
/// instead of by hand.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    /// The shared function (a C identifier, e.g. `tenor_mc_barrier`).
    pub shared: String,
    /// Backends whose entry point is generated (`["cuda", "opencl"]`); the others keep their
    /// own files.
    pub generate: Vec<String>,
    /// CUDA: the entry point carries `__launch_bounds__(TENOR_THREADS)` (kernels whose block
    /// reduction assumes the block's thread count).
    #[serde(default)]
    pub cuda_launch_bounds: bool,
    /// CUDA: blocks that must fit on one SM at once (`__launch_bounds__(TENOR_THREADS, n)`: the
    /// compiler keeps registers per thread at or under 65,536 / (n TENOR_THREADS)); implies
    /// `cuda_launch_bounds`. For kernels whose occupancy is bounded by registers (the basket's
    /// lane kernels, ADR 0035).
    #[serde(default)]
    pub cuda_min_blocks: Option<u32>,
    /// OpenCL: the entry point declares the work-group scratch (`TENOR_KERNEL_SCRATCH`) and
    /// passes it last (`TENOR_SCRATCH_ARG`), for shared functions that reduce over the group.
    #[serde(default)]
    pub opencl_scratch: bool,
}

/// A manifest's `[variant]` table: this kernel takes the arguments of kernel `of` in another
/// form, and `tenor_kernels::typed` converts `of`'s owned scalars into this kernel's launch.
///
/// ```toml
/// [variant]
/// of = "mc_barrier"
/// kind = "batch"
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantSpec {
    /// The kernel this one is a variant of (a built-in kernel's name).
    pub of: String,
    /// How this kernel's arguments relate to `of`'s.
    pub kind: VariantKind,
}

/// How a variant's arguments relate to those of the kernel it is a variant of ([`VariantSpec`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VariantKind {
    /// One launch for many products of `of` (ADR 0009): each scalar of `of` that differs per
    /// product is a read-only column (a buffer of `len = "products"` elements of the scalar's
    /// type, of the same name); the scalars that do not are scalars here too (the same for
    /// every product); `of`'s buffers hold every product's values; `products` and the launch's
    /// `items` are scalars of their own.
    Batch,
    /// `of` in single precision: the same arguments in the same order, every `f64` scalar an
    /// `f32`.
    Fp32,
}

/// A parsed kernel manifest plus the sources available for it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelDef {
    /// Kernel (and entry-point) name.
    pub name: String,
    /// One-line description.
    #[serde(default)]
    pub description: String,
    /// Launch shape.
    pub launch: LaunchShape,
    /// Positional arguments.
    pub args: Vec<ArgDef>,
    /// Work counts for reports.
    #[serde(default)]
    pub metrics: Metrics,
    /// Entry points generated from the manifest (`[source]`), if any.
    #[serde(default)]
    pub source: Option<SourceSpec>,
    /// The kernel this one is a variant of (`[variant]`), if any.
    #[serde(default)]
    pub variant: Option<VariantSpec>,
    /// Backend name (`cuda`, `sycl`, `opencl`) to source text. Filled by the registry, not the
    /// manifest.
    #[serde(skip)]
    pub sources: BTreeMap<String, String>,
}

impl KernelDef {
    /// Parses and validates a manifest. `origin` names the file in error messages.
    ///
    /// # Errors
    /// [`ComputeError::InvalidArgument`] naming `origin` and what is wrong: TOML syntax, an
    /// unknown field, a pointer without access or without `len`, a scalar with either, a `len`
    /// that does not parse or names something other than `items`, `blocks` or an integer
    /// scalar argument, a launch `items` that is not a `u64`/`u32` argument, or a zero block
    /// size.
    pub fn from_toml(text: &str, origin: &str) -> Result<Self, ComputeError> {
        let def: KernelDef =
            toml::from_str(text).map_err(|e| ComputeError::InvalidArgument(format!("{origin}: {e}")))?;
        def.validate(origin)?;
        Ok(def)
    }

    fn validate(&self, origin: &str) -> Result<(), ComputeError> {
        let bad = |m: String| Err(ComputeError::InvalidArgument(format!("{origin}: kernel {}: {m}", self.name)));
        if self.launch.block == 0 {
            return bad("launch.block must be positive".into());
        }
        if let Some(src) = &self.source {
            let ident = |s: &str| {
                s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            };
            if !ident(&src.shared) {
                return bad(format!("source.shared {:?} is not a C identifier", src.shared));
            }
            if src.generate.is_empty() {
                return bad("source.generate names no backend".into());
            }
            if let Some(n) = src.cuda_min_blocks {
                if !(1..=32).contains(&n) || u64::from(n) * u64::from(self.launch.block.min(256)) > 2048 {
                    return bad(format!(
                        "source.cuda_min_blocks = {n}: must be 1 to 32 with at most 2048 threads on one SM"
                    ));
                }
            }
        }
        if let Some(v) = &self.variant {
            if v.of == self.name {
                return bad("variant.of names the kernel itself".into());
            }
        }
        for (i, a) in self.args.iter().enumerate() {
            if a.ty.is_pointer() && a.access.is_none() {
                return bad(format!("argument {i} ({}) is a pointer without access", a.name));
            }
            if !a.ty.is_pointer() && a.access.is_some() {
                return bad(format!("argument {i} ({}) is a scalar with an access", a.name));
            }
            match (&a.len, a.ty.is_pointer()) {
                (None, true) => {
                    return bad(format!(
                        "argument {i} ({}) is a pointer without len (its length in elements, e.g. len = \"items\")",
                        a.name
                    ))
                }
                (Some(_), false) => return bad(format!("argument {i} ({}) is a scalar with a len", a.name)),
                (Some(e), true) => {
                    let known = |n: &str| {
                        n == "items"
                            || n == "blocks"
                            || self
                                .args
                                .iter()
                                .any(|b| b.name == n && matches!(b.ty, ArgType::U32 | ArgType::U64 | ArgType::I32))
                    };
                    if let Err(e) = e.check_names(known, "items, blocks or an integer scalar argument") {
                        return bad(format!("argument {i} ({}) len: {e}", a.name));
                    }
                }
                (None, false) => {}
            }
        }
        if let Some(w) = &self.launch.waits {
            match self.args.iter().find(|a| &a.name == w) {
                Some(a) if a.ty == ArgType::U32 => {}
                Some(a) => return bad(format!("launch.waits names {} of type {}, not u32", a.name, a.ty.as_str())),
                None => return bad(format!("launch.waits names {w}, which is not an argument")),
            }
        }
        match self.args.iter().find(|a| a.name == self.launch.items) {
            Some(a) if matches!(a.ty, ArgType::U64 | ArgType::U32) => Ok(()),
            Some(a) => bad(format!("launch.items names {} of type {}, not u32/u64", a.name, a.ty.as_str())),
            None => bad(format!("launch.items names {}, which is not an argument", self.launch.items)),
        }
    }

    /// Position of the argument named by `launch.waits`, if any.
    pub fn waits_position(&self) -> Option<usize> {
        let w = self.launch.waits.as_ref()?;
        self.args.iter().position(|a| &a.name == w)
    }

    /// Position of the argument that gives the item count.
    pub fn items_position(&self) -> Option<usize> {
        self.args.iter().position(|a| a.name == self.launch.items)
    }

    /// The number of elements pointer argument `position` must hold for a launch over `items`
    /// work items whose scalar arguments are `args` (the manifest's `len`, evaluated), or
    /// `None` for a scalar.
    ///
    /// # Errors
    /// [`crate::expr::ExprError`] when the expression overflows, goes negative, divides by zero
    /// or names a scalar that is negative.
    pub fn required_len(
        &self,
        position: usize,
        items: u64,
        args: &[crate::RawArg],
    ) -> Option<Result<u64, crate::expr::ExprError>> {
        let e = self.args.get(position)?.len.as_ref()?;
        Some(e.eval(|n| match n {
            "items" => Some(items),
            "blocks" => Some(self.blocks(items)),
            _ => {
                let p = self.args.iter().position(|a| a.name == n)?;
                match args.get(p)? {
                    crate::RawArg::U64(v) => Some(*v),
                    crate::RawArg::U32(v) => Some(u64::from(*v)),
                    crate::RawArg::I32(v) => u64::try_from(*v).ok(),
                    _ => None,
                }
            }
        }))
    }

    /// Number of blocks for `items` work items.
    pub fn blocks(&self, items: u64) -> u64 {
        items.div_ceil(u64::from(self.launch.block))
    }

    /// Adds a backend source.
    pub fn with_source(mut self, backend: &str, source: impl Into<String>) -> Self {
        self.sources.insert(backend.to_owned(), source.into());
        self
    }
}

/// A kernel loaded (compiled, cached) on one device.
#[derive(Clone)]
pub struct Kernel {
    def: Arc<KernelDef>,
    backend: Arc<dyn Any + Send + Sync>,
}

impl Kernel {
    /// Wraps the adapter's loaded kernel.
    pub fn new(def: Arc<KernelDef>, backend: Arc<dyn Any + Send + Sync>) -> Self {
        Self { def, backend }
    }
    /// The manifest.
    pub fn def(&self) -> &KernelDef {
        &self.def
    }
    /// The adapter's object.
    pub fn backend(&self) -> &(dyn Any + Send + Sync) {
        &*self.backend
    }
}

impl fmt::Debug for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Kernel({})", self.def.name)
    }
}
