//! Kernel loading: run-time compilation of SYCL kernel sources (DPC++), or the kernels compiled
//! ahead of time into the shim (AdaptiveCpp), and the process-wide kernel cache.
//!
//! A kernel's translation unit is `#define TENOR_BLOCK <block>`, the SYCL prelude
//! (`kernels/common/prelude.hpp`: Philox and the normal mapping) and the kernel's `sycl.cpp`,
//! compiled by `sycl_ext_oneapi_kernel_compiler`. Bundles are cached per (device, kernel, source)
//! for the life of the process, so every `Device` opened on the same SYCL device shares them;
//! across processes DPC++'s persistent cache (`SYCL_CACHE_PERSISTENT=1`, `SYCL_CACHE_DIR`)
//! keeps the compiled binaries (scripts/test sets both).

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use tenor_ports::{ComputeError, KernelDef};

use super::handle::{Bundle, DeviceHandle};

/// Largest work-group the adapter uses; a launch block larger than this is covered by one
/// work-group whose work-items take strided shares of the block's items.
pub const MAX_LOCAL: u32 = 256;

/// A loaded kernel: the compiled bundle and the launch geometry of its manifest.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The compiled kernel.
    pub bundle: Arc<Bundle>,
    /// Work items per block (one work-group per block).
    pub block: u32,
    /// Work-items per work-group.
    pub local: u32,
}

type Key = (String, String, u64);

fn cache() -> &'static Mutex<HashMap<Key, Arc<Bundle>>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, Arc<Bundle>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The source the shim builds for kernels `names` of `source` at launch block `block`: the
/// complete translation unit ([`crate::unit::translation_unit`]) under DPC++; under AdaptiveCpp
/// its [`crate::unit::acpp_unit`] form, whose built-in kernels the shim finds compiled ahead of
/// time by name and hash (any other is compiled by acpp at run time, see docs/sycl.md).
pub fn unit_for(block: u32, source: &str, names: &[&str]) -> String {
    let tu = crate::unit::translation_unit(block, tenor_kernels::prelude("sycl"), source);
    if cfg!(tenor_sycl_acpp) {
        crate::unit::acpp_unit(&tu, names)
    } else {
        tu
    }
}

/// Which SYCL implementation the adapter was built with: `"AdaptiveCpp"` or `"DPC++"`
/// (build.rs, `TENOR_SYCL_IMPL`).
pub const IMPLEMENTATION: &str = if cfg!(tenor_sycl_acpp) { "AdaptiveCpp" } else { "DPC++" };

/// Compiles (or takes from the cache) kernel `name` of `source` for the device `device_key`.
///
/// # Errors
/// [`ComputeError::Compile`] with the compiler log.
pub fn build_cached(
    dev: &Arc<DeviceHandle>,
    device_key: &str,
    name: &str,
    source: &str,
) -> Result<Arc<Bundle>, ComputeError> {
    let mut h = DefaultHasher::new();
    source.hash(&mut h);
    let key = (device_key.to_owned(), name.to_owned(), h.finish());
    let mut map = cache().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(b) = map.get(&key) {
        return Ok(b.clone());
    }
    let b = Arc::new(Bundle::build(dev, source, name)?);
    map.insert(key, b.clone());
    Ok(b)
}

/// Loads manifest kernel `def` from its `sycl` source.
///
/// # Errors
/// [`ComputeError::UnknownKernel`] when the manifest has no SYCL source; compile errors.
pub fn load(dev: &Arc<DeviceHandle>, device_key: &str, max_wg: u32, def: &KernelDef) -> Result<Loaded, ComputeError> {
    let src = def.sources.get("sycl").ok_or_else(|| ComputeError::UnknownKernel {
        kernel: def.name.clone(),
        backend: "sycl".into(),
        reason: "no SYCL source (kernels/<name>/sycl.cpp)".into(),
    })?;
    let block = def.launch.block.max(1);
    let bundle = build_cached(dev, device_key, &def.name, &unit_for(block, src, &[def.name.as_str()]))?;
    Ok(Loaded { bundle, block, local: block.min(MAX_LOCAL).min(max_wg.max(1)) })
}
