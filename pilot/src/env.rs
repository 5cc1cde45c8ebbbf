//! The environment fingerprint written into every report (for baselines and driver-upgrade
//! validation: device, driver, runtime and library versions, Tenor's commit).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::Serialize;
use tenor_ports::DeviceInfo;

/// A backend's on-disk kernel cache as found at the start of the run, before the pilot opened
/// the backend: whether "cold" first calls compiled kernels or loaded them from disk.
/// The pilot only reads the cache; it never clears it.
#[derive(Debug, Clone, Serialize)]
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

fn setting(get: &dyn Fn(&str) -> Option<OsString>, name: &str) -> (String, String) {
    (name.to_owned(), get(name).map_or_else(|| "unset".to_owned(), |v| v.to_string_lossy().into_owned()))
}

/// The kernel cache state of `backend`, reading the process environment.
pub fn kernel_cache(backend: &str) -> KernelCache {
    // A device selector (`cuda:1`) shares its backend's cache.
    let backend = backend.split(':').next().unwrap_or(backend);
    kernel_cache_with(backend, &|k| std::env::var_os(k))
}

/// The kernel cache state of `backend` with environment lookups through `get`.
///
/// - `cuda`: Tenor's NVRTC image cache (`tenor_kernels::cache::cuda_cache_dir`, as the adapter):
///   `TENOR_CUDA_CACHE`, else `$XDG_CACHE_HOME/tenor/cuda`, else `$HOME/.cache/tenor/cuda`; one
///   `.cubin` per (kernel source, compute capability, NVRTC version). A cached image skips
///   NVRTC; the module load and first launch remain.
/// - `sycl`: DPC++'s persistent device-code cache, used by the kernel compiler extension
///   (docs/sycl.md): on only with `SYCL_CACHE_PERSISTENT=1`; its folder is `SYCL_CACHE_DIR`, else
///   `$XDG_CACHE_HOME/libsycl_cache`, else `$HOME/.cache/libsycl_cache` (DPC++
///   EnvironmentVariables.md). Off, every process compiles every kernel.
/// - `opencl`: none of Tenor's: every process builds each program once (`clBuildProgram`,
///   cached in memory per device). NVIDIA's driver keeps built OpenCL binaries in its compute
///   cache (`CUDA_CACHE_PATH`, else `$HOME/.nv/ComputeCache`; off with `CUDA_CACHE_DISABLE=1`),
///   so there a cold first call may skip the compiler; other implementations compile.
/// - `cpu`, `sim`: none; kernels are compiled into the binary.
pub fn kernel_cache_with(backend: &str, get: &dyn Fn(&str) -> Option<OsString>) -> KernelCache {
    let home_cache = |sub: &str| {
        get("XDG_CACHE_HOME")
            .map(|d| Path::new(&d).join(sub))
            .or_else(|| get("HOME").map(|d| Path::new(&d).join(".cache").join(sub)))
    };
    let describe = |dir: &PathBuf, what: &str, compiles: &str| {
        let n = count_files(dir);
        let state = if !dir.is_dir() {
            format!("{} does not exist: cold first calls include {compiles}", dir.display())
        } else if n == 0 {
            format!("{} is empty: cold first calls include {compiles}", dir.display())
        } else {
            format!("{} holds {n} files: cold first calls may load cached kernels instead of {compiles}", dir.display())
        };
        (n, format!("{what}; {state}"))
    };
    match backend {
        "cuda" => {
            let settings = vec![setting(get, tenor_kernels::cache::CUDA_CACHE_ENV), setting(get, "XDG_CACHE_HOME")];
            match tenor_kernels::cache::cuda_cache_dir(get) {
                Some(dir) => {
                    let (n, summary) = describe(&dir, "Tenor's NVRTC image cache", "NVRTC compilation");
                    KernelCache { dir: Some(dir.display().to_string()), files: Some(n), settings, summary }
                }
                None => KernelCache {
                    dir: None,
                    files: None,
                    settings,
                    summary: "no cache folder (neither TENOR_CUDA_CACHE, XDG_CACHE_HOME nor HOME set): every \
                              process compiles with NVRTC"
                        .into(),
                },
            }
        }
        "sycl" => {
            let settings = vec![
                setting(get, "SYCL_CACHE_PERSISTENT"),
                setting(get, "SYCL_CACHE_DIR"),
                setting(get, "XDG_CACHE_HOME"),
            ];
            let persistent = get("SYCL_CACHE_PERSISTENT").is_some_and(|v| v == "1");
            let dir = get("SYCL_CACHE_DIR").map(PathBuf::from).or_else(|| home_cache("libsycl_cache"));
            match (persistent, dir) {
                (true, Some(dir)) => {
                    let (n, summary) = describe(&dir, "DPC++ persistent cache on", "run-time compilation");
                    KernelCache { dir: Some(dir.display().to_string()), files: Some(n), settings, summary }
                }
                (true, None) => KernelCache {
                    dir: None,
                    files: None,
                    settings,
                    summary: "DPC++ persistent cache on but no folder (SYCL_CACHE_DIR, XDG_CACHE_HOME and HOME \
                              unset): every process compiles"
                        .into(),
                },
                (false, _) => KernelCache {
                    dir: None,
                    files: None,
                    settings,
                    summary: "DPC++ persistent cache off (SYCL_CACHE_PERSISTENT is not 1): every process compiles \
                              every kernel at its first use"
                        .into(),
                },
            }
        }
        "opencl" => {
            let settings = vec![
                setting(get, "OCL_ICD_FILENAMES"),
                setting(get, "OPENCL_DYLIB_PATH"),
                setting(get, "TENOR_OPENCL_BUILD_OPTIONS"),
                setting(get, "CUDA_CACHE_PATH"),
                setting(get, "CUDA_CACHE_DISABLE"),
            ];
            let nv = get("CUDA_CACHE_PATH")
                .map(PathBuf::from)
                .or_else(|| get("HOME").map(|h| Path::new(&h).join(".nv").join("ComputeCache")));
            let summary = "no Tenor cache: each process builds every program at its first use (clBuildProgram)";
            match nv {
                Some(dir) if get("CUDA_CACHE_DISABLE").is_none_or(|v| v != "1") => {
                    let (n, state) = describe(&dir, "NVIDIA's compute cache (NVIDIA OpenCL only)", "the build");
                    KernelCache {
                        dir: Some(dir.display().to_string()),
                        files: Some(n),
                        settings,
                        summary: format!("{summary}; {state}"),
                    }
                }
                _ => KernelCache { dir: None, files: None, settings, summary: summary.into() },
            }
        }
        "cpu" | "sim" => KernelCache {
            dir: None,
            files: None,
            settings: vec![],
            summary: "none: kernels are compiled into the binary".into(),
        },
        other => {
            KernelCache { dir: None, files: None, settings: vec![], summary: format!("unknown for backend {other}") }
        }
    }
}

/// One backend's device description, or why it is unavailable.
#[derive(Debug, Clone, Serialize)]
pub struct BackendEnv {
    /// Backend name.
    pub backend: String,
    /// Device name.
    pub device: Option<String>,
    /// Driver version.
    pub driver: Option<String>,
    /// Library versions.
    pub versions: Vec<(String, String)>,
    /// Why the backend is unavailable.
    pub unavailable: Option<String>,
    /// Its on-disk kernel cache at the start of the run, before the pilot opened it.
    pub kernel_cache: KernelCache,
}

impl BackendEnv {
    /// From the result of opening the backend and its cache state read before that.
    pub fn from_probe(
        backend: &str,
        probe: &Result<DeviceInfo, tenor_ports::ComputeError>,
        kernel_cache: KernelCache,
    ) -> Self {
        match probe {
            Ok(i) => Self {
                backend: backend.into(),
                device: Some(i.name.clone()),
                driver: Some(i.driver_version.clone()).filter(|s| !s.is_empty()),
                versions: i.versions.clone(),
                unavailable: None,
                kernel_cache,
            },
            Err(e) => Self {
                backend: backend.into(),
                device: None,
                driver: None,
                versions: vec![],
                unavailable: Some(e.to_string()),
                kernel_cache,
            },
        }
    }
}

/// Host and build facts.
#[derive(Debug, Clone, Serialize)]
pub struct Fingerprint {
    /// Tenor's version.
    pub tenor_version: String,
    /// Git commit the binary was built from (`unknown` outside a checkout).
    pub commit: String,
    /// Whether tracked files had uncommitted changes when the binary was built (`git status
    /// --porcelain --untracked-files=no` not empty); `None` outside a checkout.
    pub dirty: Option<bool>,
    /// Host CPU model.
    pub cpu: String,
    /// Logical CPUs.
    pub cpus: usize,
    /// Operating system.
    pub os: String,
    /// UTC time of the run (seconds since the epoch).
    pub unix_time: u64,
    /// Each backend.
    pub backends: Vec<BackendEnv>,
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// Collects the fingerprint of this machine, `backends` and the caller's `build`.
pub fn fingerprint(backends: Vec<BackendEnv>, build: &crate::BuildInfo) -> Fingerprint {
    Fingerprint {
        tenor_version: build.version.clone(),
        commit: build.commit.clone(),
        dirty: build.dirty,
        cpu: cpu_model(),
        cpus: std::thread::available_parallelism().map_or(1, usize::from),
        os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
        unix_time: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()),
        backends,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a Path)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.as_os_str().to_owned())
    }

    #[test]
    fn cuda_cache_folder_follows_the_adapters_order_and_is_counted() {
        let tmp = std::env::temp_dir().join(format!("tenor-pilot-env-{}", std::process::id()));
        let tenor = tmp.join("explicit");
        let xdg = tmp.join("xdg");
        std::fs::create_dir_all(&tenor).expect("tmp");
        std::fs::create_dir_all(xdg.join("tenor/cuda")).expect("tmp");
        std::fs::write(xdg.join("tenor/cuda/a.cubin"), b"x").expect("tmp");
        std::fs::write(xdg.join("tenor/cuda/b.cubin"), b"x").expect("tmp");
        // TENOR_CUDA_CACHE wins and is empty.
        let c = kernel_cache_with("cuda", &env(&[("TENOR_CUDA_CACHE", &tenor), ("XDG_CACHE_HOME", &xdg)]));
        assert_eq!((c.dir.as_deref(), c.files), (Some(tenor.display().to_string().as_str()), Some(0)));
        assert!(c.summary.contains("is empty"), "{}", c.summary);
        // Then $XDG_CACHE_HOME/tenor/cuda, with its two images.
        let c = kernel_cache_with("cuda", &env(&[("XDG_CACHE_HOME", &xdg), ("HOME", &tenor)]));
        assert_eq!(c.files, Some(2));
        assert!(c.summary.contains("holds 2 files"), "{}", c.summary);
        // Then $HOME/.cache/tenor/cuda, absent here.
        let c = kernel_cache_with("cuda", &env(&[("HOME", &tmp)]));
        assert_eq!(c.dir, Some(tmp.join(".cache/tenor/cuda").display().to_string()));
        assert!(c.summary.contains("does not exist"), "{}", c.summary);
        let _ = std::fs::remove_dir_all(&tmp);
    }

    #[test]
    fn opencl_cache_names_its_settings_and_nvidia_compute_cache() {
        let tmp = std::env::temp_dir().join(format!("tenor-env-ocl-{}", std::process::id()));
        let t = tmp.to_string_lossy().into_owned();
        let c = kernel_cache_with("opencl", &env(&[("CUDA_CACHE_PATH", &tmp)]));
        assert_eq!(c.dir.as_deref(), Some(t.as_str()));
        assert!(c.summary.contains("clBuildProgram") && c.summary.contains("does not exist"), "{}", c.summary);
        assert!(c.settings.iter().any(|(k, v)| k == "CUDA_CACHE_PATH" && v == &t));
        let one = Path::new("1");
        let off = kernel_cache_with("opencl", &env(&[("CUDA_CACHE_PATH", &tmp), ("CUDA_CACHE_DISABLE", one)]));
        assert!(off.dir.is_none() && off.summary.starts_with("no Tenor cache"), "{}", off.summary);
        assert!(!kernel_cache_with("opencl", &env(&[])).summary.starts_with("unknown"));
    }

    #[test]
    fn sycl_cache_counts_only_when_persistent() {
        let tmp = std::env::temp_dir().join(format!("tenor-pilot-env-sycl-{}", std::process::id()));
        // DPC++ nests entries by device and kernel: two files two folders down, one empty folder.
        std::fs::create_dir_all(tmp.join("dev/k1")).expect("tmp");
        std::fs::create_dir_all(tmp.join("empty")).expect("tmp");
        std::fs::write(tmp.join("dev/k1/a.bin"), b"x").expect("tmp");
        std::fs::write(tmp.join("dev/k1/a.src"), b"x").expect("tmp");
        let one = Path::new("1");
        let off = kernel_cache_with("sycl", &env(&[("SYCL_CACHE_DIR", &tmp)]));
        assert_eq!((off.dir, off.files), (None, None));
        assert!(off.summary.contains("off"), "{}", off.summary);
        assert!(off.settings.contains(&("SYCL_CACHE_PERSISTENT".into(), "unset".into())));
        let on = kernel_cache_with("sycl", &env(&[("SYCL_CACHE_PERSISTENT", one), ("SYCL_CACHE_DIR", &tmp)]));
        assert_eq!(on.files, Some(2));
        assert!(on.settings.contains(&("SYCL_CACHE_PERSISTENT".into(), "1".into())));
        // The default folder when SYCL_CACHE_DIR is unset.
        let dflt = kernel_cache_with("sycl", &env(&[("SYCL_CACHE_PERSISTENT", one), ("HOME", &tmp)]));
        assert_eq!(dflt.dir, Some(tmp.join(".cache/libsycl_cache").display().to_string()));
        let _ = std::fs::remove_dir_all(&tmp);
        assert!(kernel_cache_with("cpu", &env(&[])).summary.contains("compiled into the binary"));
    }
}
