//! The environment fingerprint written into every report (for baselines and driver-upgrade
//! validation: device, driver, runtime and library versions, Tenor's commit).

use std::ffi::OsString;

use serde::Serialize;
use tenor_ports::DeviceInfo;

pub use tenor_kernels::cache::KernelCache;

/// The kernel cache state of `backend`, reading the process environment.
pub fn kernel_cache(backend: &str) -> KernelCache {
    kernel_cache_with(backend, &|k| std::env::var_os(k))
}

/// The kernel cache state of `backend` (a device selector such as `cuda:1` shares its backend's
/// cache) with environment lookups through `get`: the cache of its kernel language's row of
/// `tenor_kernels::language::LANGUAGES` (`tenor_kernels::cache` says where each language keeps
/// compiled kernels); none for the backends of the registry without a kernel language (`cpu`,
/// `sim`: kernels are compiled into the binary).
pub fn kernel_cache_with(backend: &str, get: &dyn Fn(&str) -> Option<OsString>) -> KernelCache {
    match tenor_kernels::language::language(backend) {
        Some(lang) => (lang.cache)(get),
        None if tenor_registry::backend(backend.split(':').next().unwrap_or(backend)).is_some() => {
            KernelCache::none(vec![], "none: kernels are compiled into the binary")
        }
        None => KernelCache::none(vec![], format!("unknown for backend {backend}")),
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
    use std::path::Path;

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
