//! The environment fingerprint written into every report (for baselines and driver-upgrade
//! validation: device, driver, runtime and library versions, Tenor's commit).

use serde::Serialize;
use tenor_core::DeviceInfo;

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
}

impl BackendEnv {
    /// From a probe result.
    pub fn from_probe(backend: &str, probe: &Result<DeviceInfo, tenor_core::ComputeError>) -> Self {
        match probe {
            Ok(i) => Self {
                backend: backend.into(),
                device: Some(i.name.clone()),
                driver: Some(i.driver_version.clone()).filter(|s| !s.is_empty()),
                versions: i.versions.clone(),
                unavailable: None,
            },
            Err(e) => Self {
                backend: backend.into(),
                device: None,
                driver: None,
                versions: vec![],
                unavailable: Some(e.to_string()),
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

/// Collects the fingerprint.
pub fn fingerprint(backends: Vec<BackendEnv>) -> Fingerprint {
    Fingerprint {
        tenor_version: env!("CARGO_PKG_VERSION").into(),
        commit: option_env!("TENOR_GIT_COMMIT").unwrap_or("unknown").into(),
        dirty: match option_env!("TENOR_GIT_DIRTY") {
            Some("true") => Some(true),
            Some("false") => Some(false),
            _ => None,
        },
        cpu: cpu_model(),
        cpus: std::thread::available_parallelism().map_or(1, usize::from),
        os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
        unix_time: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()),
        backends,
    }
}
