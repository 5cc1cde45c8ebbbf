//! Where a backend keeps compiled kernels on disk, found the same way by the adapter that writes
//! the cache and by the pilot that reports its state: one function per backend language, named
//! by its row of [`crate::language::LANGUAGES`].

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Environment variable naming the CUDA adapter's folder of compiled kernels.
pub const CUDA_CACHE_ENV: &str = "TENOR_CUDA_CACHE";

/// Environment lookups (`std::env::var_os`, or a table in tests).
pub type Env<'a> = &'a dyn Fn(&str) -> Option<OsString>;

/// The folder of the CUDA adapter's NVRTC image cache (one `.cubin` per kernel source, compute
/// capability and NVRTC version), with environment lookups through `get`:
/// `$TENOR_CUDA_CACHE`, else `$XDG_CACHE_HOME/tenor/cuda`, else `$HOME/.cache/tenor/cuda` (the XDG
/// Base Directory Specification's cache location). `None` when none of the three is set. The
/// folder may not exist yet.
pub fn cuda_cache_dir(get: Env<'_>) -> Option<PathBuf> {
    get(CUDA_CACHE_ENV)
        .map(PathBuf::from)
        .or_else(|| get("XDG_CACHE_HOME").map(|d| Path::new(&d).join("tenor/cuda")))
        .or_else(|| get("HOME").map(|d| Path::new(&d).join(".cache/tenor/cuda")))
}

/// A backend's on-disk kernel cache as found at the start of a run, before the backend was
/// opened: whether "cold" first calls compile kernels or load them from disk. Only read, never
/// cleared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KernelCache {
    /// The folder the backend would use (`None`: it has no on-disk cache, or it is switched off).
    pub dir: Option<String>,
    /// Files in the folder and its subfolders (`None` without a folder; 0 when it does not exist).
    pub files: Option<usize>,
    /// The environment settings that choose it, as found (`unset` when absent).
    pub settings: Vec<(String, String)>,
    /// In words: which cache, how its folder was chosen, and what it means for cold figures.
    pub summary: String,
}

impl KernelCache {
    /// A backend without an on-disk cache of its own, `summary` saying why.
    pub fn none(settings: Vec<(String, String)>, summary: impl Into<String>) -> Self {
        Self { dir: None, files: None, settings, summary: summary.into() }
    }

    /// The cache in folder `dir` (`what` it is; `compiles`: what a cold call does without it),
    /// its files counted.
    fn at(dir: &Path, settings: Vec<(String, String)>, what: &str, compiles: &str) -> Self {
        let n = count_files(dir);
        let state = if !dir.is_dir() {
            format!("{} does not exist: cold first calls include {compiles}", dir.display())
        } else if n == 0 {
            format!("{} is empty: cold first calls include {compiles}", dir.display())
        } else {
            format!("{} holds {n} files: cold first calls may load cached kernels instead of {compiles}", dir.display())
        };
        Self { dir: Some(dir.display().to_string()), files: Some(n), settings, summary: format!("{what}; {state}") }
    }
}

/// Files under `dir`, at most 8 folders deep (DPC++ nests its cache by device and kernel; the
/// CUDA cache is flat).
fn count_files(dir: &Path) -> usize {
    fn walk(dir: &Path, depth: u32) -> usize {
        let Ok(rd) = std::fs::read_dir(dir) else { return 0 };
        rd.filter_map(Result::ok)
            .map(|e| match e.file_type() {
                Ok(t) if t.is_dir() && depth < 8 => walk(&e.path(), depth + 1),
                Ok(t) if t.is_file() => 1,
                _ => 0,
            })
            .sum()
    }
    walk(dir, 0)
}

/// The settings `names` as found (`unset` when absent).
fn settings(get: Env<'_>, names: &[&str]) -> Vec<(String, String)> {
    names
        .iter()
        .map(|n| ((*n).to_owned(), get(n).map_or_else(|| "unset".to_owned(), |v| v.to_string_lossy().into_owned())))
        .collect()
}

/// CUDA: Tenor's NVRTC image cache ([`cuda_cache_dir`], as the adapter): one `.cubin` per
/// (kernel source, compute capability, NVRTC version). A cached image skips NVRTC; the module
/// load and first launch remain.
pub fn cuda(get: Env<'_>) -> KernelCache {
    let set = settings(get, &[CUDA_CACHE_ENV, "XDG_CACHE_HOME"]);
    match cuda_cache_dir(get) {
        Some(dir) => KernelCache::at(&dir, set, "Tenor's NVRTC image cache", "NVRTC compilation"),
        None => KernelCache::none(
            set,
            "no cache folder (neither TENOR_CUDA_CACHE, XDG_CACHE_HOME nor HOME set): every process compiles with NVRTC",
        ),
    }
}

/// SYCL: DPC++'s persistent device-code cache, used by the kernel compiler extension
/// (docs/sycl.md): on only with `SYCL_CACHE_PERSISTENT=1`; its folder is `SYCL_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/libsycl_cache`, else `$HOME/.cache/libsycl_cache` (DPC++
/// EnvironmentVariables.md). Off, every process compiles every kernel.
pub fn sycl(get: Env<'_>) -> KernelCache {
    let set = settings(get, &["SYCL_CACHE_PERSISTENT", "SYCL_CACHE_DIR", "XDG_CACHE_HOME"]);
    let persistent = get("SYCL_CACHE_PERSISTENT").is_some_and(|v| v == "1");
    let dir = get("SYCL_CACHE_DIR").map(PathBuf::from).or_else(|| {
        get("XDG_CACHE_HOME")
            .map(|d| Path::new(&d).join("libsycl_cache"))
            .or_else(|| get("HOME").map(|d| Path::new(&d).join(".cache").join("libsycl_cache")))
    });
    match (persistent, dir) {
        (true, Some(dir)) => KernelCache::at(&dir, set, "DPC++ persistent cache on", "run-time compilation"),
        (true, None) => KernelCache::none(
            set,
            "DPC++ persistent cache on but no folder (SYCL_CACHE_DIR, XDG_CACHE_HOME and HOME unset): every process \
             compiles",
        ),
        (false, _) => KernelCache::none(
            set,
            "DPC++ persistent cache off (SYCL_CACHE_PERSISTENT is not 1): every process compiles every kernel at its \
             first use",
        ),
    }
}

/// OpenCL: none of Tenor's: every process builds each program once (`clBuildProgram`, cached in
/// memory per device). NVIDIA's driver keeps built OpenCL binaries in its compute cache
/// (`CUDA_CACHE_PATH`, else `$HOME/.nv/ComputeCache`; off with `CUDA_CACHE_DISABLE=1`), so there
/// a cold first call may skip the compiler; other implementations compile.
pub fn opencl(get: Env<'_>) -> KernelCache {
    let set = settings(
        get,
        &[
            "OCL_ICD_FILENAMES",
            "OPENCL_DYLIB_PATH",
            "TENOR_OPENCL_BUILD_OPTIONS",
            "CUDA_CACHE_PATH",
            "CUDA_CACHE_DISABLE",
        ],
    );
    let nv = get("CUDA_CACHE_PATH")
        .map(PathBuf::from)
        .or_else(|| get("HOME").map(|h| Path::new(&h).join(".nv").join("ComputeCache")));
    let summary = "no Tenor cache: each process builds every program at its first use (clBuildProgram)";
    match nv {
        Some(dir) if get("CUDA_CACHE_DISABLE").is_none_or(|v| v != "1") => {
            let nv = KernelCache::at(&dir, set, "NVIDIA's compute cache (NVIDIA OpenCL only)", "the build");
            KernelCache { summary: format!("{summary}; {}", nv.summary), ..nv }
        }
        _ => KernelCache::none(set, summary),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| OsString::from(v))
    }

    #[test]
    fn the_variable_wins_then_xdg_then_home() {
        let all = [("TENOR_CUDA_CACHE", "/c"), ("XDG_CACHE_HOME", "/x"), ("HOME", "/h")];
        assert_eq!(cuda_cache_dir(&env(&all)), Some(PathBuf::from("/c")));
        assert_eq!(cuda_cache_dir(&env(&all[1..])), Some(PathBuf::from("/x/tenor/cuda")));
        assert_eq!(cuda_cache_dir(&env(&all[2..])), Some(PathBuf::from("/h/.cache/tenor/cuda")));
        assert_eq!(cuda_cache_dir(&env(&[])), None);
    }
}
