//! Loading the OpenCL library and choosing a device.

use opencl3::device::{Device, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU};
use opencl3::platform::get_platforms;
use opencl3::types::cl_device_id;
use tenor_ports::ComputeError;

use crate::error::unavailable;

/// One OpenCL device with the platform it belongs to.
#[derive(Debug, Clone)]
pub struct DeviceChoice {
    /// The device handle (valid for the life of the process).
    pub id: cl_device_id,
    /// Device name.
    pub name: String,
    /// Platform name.
    pub platform: String,
    /// Whether the device reports `CL_DEVICE_TYPE_GPU`.
    pub gpu: bool,
    /// Whether the device reports `CL_DEVICE_TYPE_CPU`.
    pub cpu: bool,
}

// SAFETY: a cl_device_id is a process-wide handle that OpenCL allows to be used from any thread.
unsafe impl Send for DeviceChoice {}
// SAFETY: as above; the handle is never mutated.
unsafe impl Sync for DeviceChoice {}

/// Environment variable naming the OpenCL library files to try, `;`-separated (read by `cl3`).
pub const DYLIB_ENV: &str = "OPENCL_DYLIB_PATH";

/// Opens the OpenCL library once (`libOpenCL.so.1`, or the files `OPENCL_DYLIB_PATH` names).
///
/// Where `OPENCL_DYLIB_PATH` names files by path (with a `/`) and none of them exists, the
/// library is unavailable: `cl3` would otherwise fall back to whatever `libOpenCL.so.1` the
/// dynamic loader finds, which is not what was asked for.
///
/// # Errors
/// [`ComputeError::Unavailable`] with the dynamic loader's message and what to set.
pub fn load() -> Result<(), ComputeError> {
    if let Ok(list) = std::env::var(DYLIB_ENV) {
        let entries: Vec<&str> = list.split(';').filter(|e| !e.is_empty()).collect();
        let by_path = !entries.is_empty() && entries.iter().all(|e| e.contains('/'));
        if by_path && !entries.iter().any(|e| std::path::Path::new(e).is_file()) {
            return Err(unavailable(format!(
                "cannot load the OpenCL library: {DYLIB_ENV}={list} names no existing file; install an ICD \
                 loader (ocl-icd-libopencl1) or set {DYLIB_ENV} to libOpenCL.so.1"
            )));
        }
    }
    match cl3::load_library() {
        Ok(_) => Ok(()),
        Err(e) => Err(unavailable(format!(
            "cannot load the OpenCL library ({e}); install an ICD loader (ocl-icd-libopencl1) or set \
             {DYLIB_ENV} to libOpenCL.so.1"
        ))),
    }
}

/// Every device of every platform, in platform then device order.
///
/// # Errors
/// [`ComputeError::Unavailable`] when the library is missing or no platform is installed.
pub fn devices() -> Result<Vec<DeviceChoice>, ComputeError> {
    load()?;
    let platforms = get_platforms().map_err(|e| {
        unavailable(format!(
            "no OpenCL platform ({e}); register one in /etc/OpenCL/vendors or name its library in \
             OCL_ICD_FILENAMES"
        ))
    })?;
    let mut out = Vec::new();
    for p in platforms {
        let platform = p.name().unwrap_or_else(|_| "?".into());
        // A platform without devices answers CL_DEVICE_NOT_FOUND: skip it.
        for id in p.get_devices(CL_DEVICE_TYPE_ALL).unwrap_or_default() {
            let d = Device::new(id);
            let ty = d.dev_type().unwrap_or(0);
            out.push(DeviceChoice {
                id,
                name: d.name().unwrap_or_else(|_| "?".into()),
                platform: platform.clone(),
                gpu: ty & CL_DEVICE_TYPE_GPU != 0,
                cpu: ty & CL_DEVICE_TYPE_CPU != 0,
            });
        }
    }
    if out.is_empty() {
        return Err(unavailable(
            "OpenCL platforms have no devices (set OCL_ICD_FILENAMES to an implementation's library)".into(),
        ));
    }
    Ok(out)
}

/// The names of the visible devices, `name [platform]`, for error messages and `tenor backends`.
///
/// # Errors
/// As [`devices`].
pub fn device_names() -> Result<Vec<String>, ComputeError> {
    Ok(devices()?.iter().map(|d| format!("{} [{}]", d.name, d.platform)).collect())
}

/// The device `selector` names among `all`: `default` (the first GPU, else the first device),
/// `cpu`, `gpu` (the first of that type), `index:N`, or a case-insensitive part of
/// `name [platform]`.
///
/// # Errors
/// [`ComputeError::Unavailable`] naming the selector and the visible devices.
pub fn choose(all: &[DeviceChoice], selector: &str) -> Result<DeviceChoice, ComputeError> {
    let sel = selector.trim().to_ascii_lowercase();
    let found = match sel.as_str() {
        "default" | "" => all.iter().find(|d| d.gpu).or_else(|| all.first()),
        "gpu" => all.iter().find(|d| d.gpu),
        "cpu" => all.iter().find(|d| d.cpu),
        s if s.starts_with("index:") => s["index:".len()..].parse::<usize>().ok().and_then(|i| all.get(i)),
        s => all.iter().find(|d| format!("{} [{}]", d.name, d.platform).to_ascii_lowercase().contains(s)),
    };
    found.cloned().ok_or_else(|| {
        let names: Vec<String> =
            all.iter().enumerate().map(|(i, d)| format!("index:{i} {} [{}]", d.name, d.platform)).collect();
        unavailable(format!("no OpenCL device matches {selector:?}; visible: {}", names.join(", ")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(name: &str, platform: &str, gpu: bool) -> DeviceChoice {
        DeviceChoice { id: std::ptr::null_mut(), name: name.into(), platform: platform.into(), gpu, cpu: !gpu }
    }

    #[test]
    fn selectors_pick_by_type_index_and_name() {
        let all = [dev("cpu-x", "Intel OpenCL", false), dev("NVIDIA H200", "NVIDIA CUDA", true)];
        assert_eq!(choose(&all, "default").map(|d| d.name).ok().as_deref(), Some("NVIDIA H200"));
        assert_eq!(choose(&all, "cpu").map(|d| d.name).ok().as_deref(), Some("cpu-x"));
        assert_eq!(choose(&all, "index:0").map(|d| d.name).ok().as_deref(), Some("cpu-x"));
        assert_eq!(choose(&all, "h200").map(|d| d.name).ok().as_deref(), Some("NVIDIA H200"));
        assert_eq!(choose(&all, "intel").map(|d| d.name).ok().as_deref(), Some("cpu-x"));
        match choose(&all, "index:7") {
            Err(ComputeError::Unavailable { reason, .. }) => {
                assert!(reason.contains("index:7") && reason.contains("NVIDIA H200 [NVIDIA CUDA]"), "{reason}")
            }
            other => panic!("expected Unavailable, got {other:?}"),
        }
        // Only a CPU: default falls back to it, gpu finds none.
        let cpu_only = [dev("cpu-x", "PoCL", false)];
        assert_eq!(choose(&cpu_only, "default").map(|d| d.name).ok().as_deref(), Some("cpu-x"));
        assert!(choose(&cpu_only, "gpu").is_err());
    }
}
