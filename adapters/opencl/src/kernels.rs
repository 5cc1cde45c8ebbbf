//! Run-time builds of OpenCL C kernel sources (`clBuildProgram`) and the process-wide program
//! cache.
//!
//! A kernel's program is `#define TENOR_BLOCK <block>u`, `#define TENOR_LOCAL <work-items>u`,
//! the OpenCL prelude and shared device code (`tenor_kernels::prelude("opencl")`:
//! `kernels/common/prelude.cl` then `kernels/common/shared.h`) and the kernel's `opencl.cl`.
//! Programs are cached per (device, kernel, source) for the life of the process, so every
//! `Device` opened on the same OpenCL device shares them. The build options are empty by
//! default (IEEE fp64 and fp32 division and square root, no contraction beyond what the
//! OpenCL C compiler does by default); `TENOR_OPENCL_BUILD_OPTIONS` appends options (for
//! measurements: `-cl-mad-enable`, `-cl-fast-relaxed-math` change results and are off unless
//! asked for).

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use opencl3::kernel::Kernel as ClKernel;
use opencl3::program::Program;
use tenor_ports::{ComputeError, KernelDef};

use crate::driver::Ctx;
use crate::error::BACKEND;

/// Largest work-group the adapter uses; a launch block larger than this is covered by one
/// work-group whose work-items take strided shares of the block's items.
pub const MAX_LOCAL: u32 = 256;

/// Environment variable whose value is appended to the build options.
pub const BUILD_OPTIONS_ENV: &str = "TENOR_OPENCL_BUILD_OPTIONS";

/// Environment variable that overrides the platform's choice of native fp32 math: `1` builds
/// with `-DTENOR_NATIVE_F32` on any platform, `0` never (any other value is ignored).
pub const NATIVE_F32_ENV: &str = "TENOR_OPENCL_NATIVE_F32";

/// Whether programs for a device of platform `platform` and vendor `vendor` are built with
/// `-DTENOR_NATIVE_F32` (see the module documentation): on NVIDIA's platform unless
/// [`NATIVE_F32_ENV`] says otherwise (`override_value` is that variable's value, if set).
pub fn native_f32_default(platform: &str, vendor: &str, override_value: Option<&str>) -> bool {
    match override_value.map(str::trim) {
        Some("1") => true,
        Some("0") => false,
        _ => platform.contains("NVIDIA") || vendor.contains("NVIDIA"),
    }
}

/// A loaded kernel: its program, the kernel object (arguments are state of the object, so a
/// launch sets them and enqueues under this lock) and the launch geometry.
#[derive(Debug)]
pub struct Loaded {
    /// The built program.
    pub program: Arc<Program>,
    /// The kernel object.
    pub kernel: Mutex<ClKernel>,
    /// Work items per block (one work-group per block).
    pub block: u32,
    /// Work-items per work-group (`TENOR_LOCAL` of the program).
    pub local: u32,
}

type Key = (String, String, u64);

fn cache() -> &'static Mutex<HashMap<Key, Arc<Program>>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, Arc<Program>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The options passed to `clBuildProgram`: `-DTENOR_NATIVE_F32` when `native_f32` (the
/// device's choice, [`native_f32_default`]), then the value of `TENOR_OPENCL_BUILD_OPTIONS`.
pub fn build_options(native_f32: bool) -> String {
    let extra = std::env::var(BUILD_OPTIONS_ENV).unwrap_or_default();
    match (native_f32, extra.trim().is_empty()) {
        (true, true) => "-DTENOR_NATIVE_F32".to_owned(),
        (true, false) => format!("-DTENOR_NATIVE_F32 {}", extra.trim()),
        (false, _) => extra.trim().to_owned(),
    }
}

/// The complete program source of a kernel of launch block `block` run by work-groups of
/// `local` work-items.
pub fn translation_unit(block: u32, local: u32, source: &str) -> String {
    format!(
        "#define TENOR_BLOCK {block}u\n#define TENOR_LOCAL {local}u\n{}\n{source}\n",
        tenor_kernels::prelude("opencl")
    )
}

/// Builds (or takes from the cache) the program of `source` for the device `device_key`.
///
/// # Errors
/// [`ComputeError::Compile`] with the build log.
fn build_cached(ctx: &Ctx, device_key: &str, name: &str, source: &str) -> Result<Arc<Program>, ComputeError> {
    let options = build_options(ctx.native_f32());
    let mut h = DefaultHasher::new();
    source.hash(&mut h);
    options.hash(&mut h);
    let key = (device_key.to_owned(), name.to_owned(), h.finish());
    if let Some(p) = cache().lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(p.clone());
    }
    let compile = |log: String| ComputeError::Compile { kernel: name.to_owned(), backend: BACKEND.into(), log };
    let mut program = Program::create_from_source(ctx_context(ctx), source)
        .map_err(|e| compile(format!("clCreateProgramWithSource: {e}")))?;
    if let Err(e) = program.build(&[ctx.device()], &options) {
        let log = program.get_build_log(ctx.device()).unwrap_or_default();
        return Err(compile(format!("clBuildProgram: {e}\n{log}")));
    }
    let p = Arc::new(program);
    cache().lock().unwrap_or_else(|p| p.into_inner()).insert(key, p.clone());
    Ok(p)
}

fn ctx_context(ctx: &Ctx) -> &opencl3::context::Context {
    ctx.context()
}

/// Builds kernel `name` of `source` for launch block `block`: work-groups of
/// min(block, [`MAX_LOCAL`], the device's and the kernel's largest work-group) work-items.
///
/// # Errors
/// [`ComputeError::Compile`] with the build log; [`ComputeError::UnknownKernel`] when the
/// program has no kernel of that name.
pub(crate) fn load_source(
    ctx: &Ctx,
    device_key: &str,
    max_work_group: usize,
    name: &str,
    block: u32,
    source: &str,
) -> Result<Loaded, ComputeError> {
    let block = block.max(1);
    let device_max = u32::try_from(max_work_group).unwrap_or(u32::MAX).max(1);
    let mut local = block.min(MAX_LOCAL).min(device_max);
    loop {
        let program = build_cached(ctx, device_key, name, &translation_unit(block, local, source))?;
        let kernel = ClKernel::create(&program, name).map_err(|e| ComputeError::UnknownKernel {
            kernel: name.to_owned(),
            backend: BACKEND.into(),
            reason: format!("clCreateKernel: {e} (the OpenCL C source has no kernel of that name)"),
        })?;
        // The compiler may allow fewer work-items for this kernel than the device (registers):
        // rebuild for the largest power of two it allows.
        let allowed = kernel.get_work_group_size(ctx.device()).map_or(local, |w| u32::try_from(w).unwrap_or(u32::MAX));
        if allowed >= local || local == 1 {
            return Ok(Loaded { program, kernel: Mutex::new(kernel), block, local });
        }
        local = 1 << (31 - allowed.max(1).leading_zeros());
    }
}

/// Loads manifest kernel `def` from its `opencl` source.
///
/// # Errors
/// [`ComputeError::UnknownKernel`] when the manifest has no OpenCL C source; build errors.
pub(crate) fn load(
    ctx: &Ctx,
    device_key: &str,
    max_work_group: usize,
    def: &KernelDef,
) -> Result<Loaded, ComputeError> {
    let src = def.sources.get("opencl").ok_or_else(|| ComputeError::UnknownKernel {
        kernel: def.name.clone(),
        backend: BACKEND.into(),
        reason: "no OpenCL C source (kernels/<name>/opencl.cl)".into(),
    })?;
    load_source(ctx, device_key, max_work_group, &def.name, def.launch.block, src)
}

#[cfg(test)]
mod tests {
    use super::native_f32_default;

    #[test]
    fn native_fp32_math_is_the_default_on_nvidia_only_and_the_variable_overrides_it() {
        assert!(native_f32_default("NVIDIA CUDA", "NVIDIA Corporation", None));
        assert!(native_f32_default("Some ICD", "NVIDIA Corporation", None));
        assert!(!native_f32_default("Intel(R) OpenCL", "Intel(R) Corporation", None));
        assert!(!native_f32_default("Portable Computing Language", "GenuineIntel", None));
        assert!(!native_f32_default("NVIDIA CUDA", "NVIDIA Corporation", Some("0")));
        assert!(native_f32_default("Intel(R) OpenCL", "Intel(R) Corporation", Some(" 1 ")));
        // Anything else leaves the platform's choice.
        assert!(native_f32_default("NVIDIA CUDA", "NVIDIA Corporation", Some("yes")));
        assert!(!native_f32_default("Intel(R) OpenCL", "Intel(R) Corporation", Some("")));
    }
}
