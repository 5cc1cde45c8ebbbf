//! Run-time compilation of `kernels/<name>/cuda.cu` with NVRTC, and the on-disk image cache.
//!
//! The source handed to NVRTC is `kernels/common/prelude.cuh` (Philox4x32-10 and Tenor's
//! normal mapping), two defines from the manifest (`TENOR_BLOCK`: work items per block;
//! `TENOR_THREADS`: CUDA threads per block), then the kernel's own source. It is compiled for
//! the device's real architecture (`--gpu-architecture=sm_XY`, so the driver loads machine
//! code and JIT-compiles nothing; NVRTC User Guide, "Supported Compile Options"), and the
//! resulting CUBIN is cached on disk under a key made of a 128-bit hash of the full source and
//! options, the compute capability and the NVRTC version. A changed kernel, device or compiler
//! therefore never reuses a stale image.

use std::ffi::{c_char, CString};
use std::path::PathBuf;

use cudarc::nvrtc::sys as nv;
use tenor_ports::{ComputeError, KernelDef};

use crate::error::BACKEND;
use crate::probe::probe_nvrtc;

/// CUDA threads per block for a manifest block of `block` work items: one thread per item up
/// to 256, then 256 threads each taking `block / 256` items.
pub fn threads_for(block: u32) -> u32 {
    block.clamp(1, 256)
}

/// The full NVRTC input for kernel `def`: prelude, launch-shape defines, source.
///
/// # Errors
/// [`ComputeError::UnknownKernel`] when the kernel has no `cuda.cu`.
pub fn full_source(def: &KernelDef) -> Result<String, ComputeError> {
    let src = def.sources.get("cuda").ok_or_else(|| ComputeError::UnknownKernel {
        kernel: def.name.clone(),
        backend: BACKEND.into(),
        reason: format!("kernels/{}/cuda.cu does not exist", def.name),
    })?;
    Ok(format!(
        "#define TENOR_BLOCK {}u\n#define TENOR_THREADS {}u\n{}\n#line 1 \"kernels/{}/cuda.cu\"\n{}",
        def.launch.block,
        threads_for(def.launch.block),
        tenor_kernels::prelude("cuda"),
        def.name,
        src
    ))
}

/// Extra NVRTC options, whitespace-separated, appended to every compilation (for `tenor
/// certify`'s defect demonstration, e.g. `--use_fast_math`; never set in production). They are
/// part of the image cache key, so images compiled with and without them never mix.
pub const NVRTC_EXTRA_ENV: &str = "TENOR_CUDA_NVRTC_EXTRA";

/// NVRTC options for compute capability `cc`, with [`NVRTC_EXTRA_ENV`]'s options appended.
pub fn options(cc: (u32, u32)) -> Vec<String> {
    options_with(cc, std::env::var(NVRTC_EXTRA_ENV).ok().as_deref())
}

/// NVRTC options for compute capability `cc` with `extra` (whitespace-separated) appended.
pub fn options_with(cc: (u32, u32), extra: Option<&str>) -> Vec<String> {
    let mut v = vec![format!("--gpu-architecture=sm_{}{}", cc.0, cc.1), "--std=c++17".into(), "-default-device".into()];
    v.extend(extra.unwrap_or("").split_whitespace().map(str::to_owned));
    v
}

/// The NVRTC version (major, minor).
///
/// # Errors
/// [`ComputeError::Unavailable`] without NVRTC; NVRTC errors.
pub fn version() -> Result<(i32, i32), ComputeError> {
    probe_nvrtc()?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: NVRTC is loadable (probed); out-pointers are valid.
    let r = unsafe { nv::nvrtcVersion(&mut major, &mut minor) };
    nvrtc_check(r, "nvrtcVersion", "-")?;
    Ok((major, minor))
}

fn nvrtc_check(r: nv::nvrtcResult, what: &str, kernel: &str) -> Result<(), ComputeError> {
    if r == nv::nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(ComputeError::Compile { kernel: kernel.into(), backend: BACKEND.into(), log: format!("{what}: {r:?}") })
    }
}

/// Compiles `source` (entry point `name`) for compute capability `cc` and returns the CUBIN.
///
/// # Errors
/// [`ComputeError::Unavailable`] without NVRTC; [`ComputeError::Compile`] with NVRTC's log.
pub fn compile(name: &str, source: &str, cc: (u32, u32)) -> Result<Vec<u8>, ComputeError> {
    probe_nvrtc()?;
    let cerr = |log: String| ComputeError::Compile { kernel: name.into(), backend: BACKEND.into(), log };
    let src = CString::new(source).map_err(|_| cerr("source contains a NUL byte".into()))?;
    let file = CString::new(format!("{name}.cu")).map_err(|_| cerr("name contains a NUL byte".into()))?;
    let opts: Vec<CString> = options(cc).into_iter().filter_map(|o| CString::new(o).ok()).collect();
    let opt_ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    let mut prog: nv::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: valid C strings; no headers.
    let r = unsafe {
        nv::nvrtcCreateProgram(&mut prog, src.as_ptr(), file.as_ptr(), 0, std::ptr::null(), std::ptr::null())
    };
    nvrtc_check(r, "nvrtcCreateProgram", name)?;
    let out = (|| {
        // SAFETY: `prog` is live; options are valid C strings kept alive by `opts`.
        let r = unsafe { nv::nvrtcCompileProgram(prog, opt_ptrs.len() as i32, opt_ptrs.as_ptr()) };
        if r != nv::nvrtcResult::NVRTC_SUCCESS {
            return Err(cerr(format!("{r:?}\n{}", program_log(prog))));
        }
        let mut size = 0usize;
        // SAFETY: `prog` compiled successfully.
        nvrtc_check(unsafe { nv::nvrtcGetCUBINSize(prog, &mut size) }, "nvrtcGetCUBINSize", name)?;
        let mut image = vec![0u8; size];
        // SAFETY: `image` has the size NVRTC reported.
        nvrtc_check(unsafe { nv::nvrtcGetCUBIN(prog, image.as_mut_ptr().cast()) }, "nvrtcGetCUBIN", name)?;
        Ok(image)
    })();
    // SAFETY: `prog` is live and destroyed once.
    let _ = unsafe { nv::nvrtcDestroyProgram(&mut prog) };
    out
}

fn program_log(prog: nv::nvrtcProgram) -> String {
    let mut size = 0usize;
    // SAFETY: live program.
    if unsafe { nv::nvrtcGetProgramLogSize(prog, &mut size) } != nv::nvrtcResult::NVRTC_SUCCESS || size == 0 {
        return String::new();
    }
    let mut log = vec![0u8; size];
    // SAFETY: buffer of the reported size.
    if unsafe { nv::nvrtcGetProgramLog(prog, log.as_mut_ptr().cast()) } != nv::nvrtcResult::NVRTC_SUCCESS {
        return String::new();
    }
    String::from_utf8_lossy(&log).trim_end_matches('\0').to_owned()
}

/// Compiles built-in kernel `def` for `cc` (no cache): what CI runs for every kernel.
///
/// # Errors
/// As [`full_source`] and [`compile`].
pub fn compile_kernel(def: &KernelDef, cc: (u32, u32)) -> Result<Vec<u8>, ComputeError> {
    compile(&def.name, &full_source(def)?, cc)
}

/// FNV-1a 64 over `bytes` from offset basis `basis` (Fowler, Noll, Vo).
fn fnv1a(basis: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(basis, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01B3))
}

/// Creates `dir` and its parents, each new one with mode 0700.
fn create_private(dir: &std::path::Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
}

/// The bytes of `path` when it is a regular file of this user (not a link: opened with
/// `O_NOFOLLOW`), else `None`.
fn read_own(path: &std::path::Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let mut f = o.open(path).ok()?;
    let m = f.metadata().ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // SAFETY: `geteuid` has no preconditions.
        if m.uid() != unsafe { libc::geteuid() } {
            return None;
        }
    }
    if !m.is_file() {
        return None;
    }
    let mut v = Vec::new();
    f.read_to_end(&mut v).ok()?;
    Some(v)
}

/// The on-disk cache of compiled kernel images.
#[derive(Debug, Clone)]
pub struct ImageCache {
    dir: Option<PathBuf>,
}

impl ImageCache {
    /// The cache in `TENOR_CUDA_CACHE` if set, else `$XDG_CACHE_HOME/tenor/cuda`, else
    /// `$HOME/.cache/tenor/cuda`; no cache when none can be created or it is not private
    /// ([`ImageCache::at`]).
    pub fn from_env() -> Self {
        Self::at(tenor_kernels::cache::cuda_cache_dir(&|k| std::env::var_os(k)))
    }

    /// A cache in `dir` (`None`: no caching), created with mode 0700 when missing. A folder that
    /// belongs to another user, or that its group or others can write, is not used: the images
    /// in it run on the device with this process's memory, so another user must not be able to
    /// put one there (ADR 0029).
    pub fn at(dir: Option<PathBuf>) -> Self {
        Self { dir: dir.filter(|d| create_private(d).is_ok() && tenor_ports::files::check_private_folder(d).is_ok()) }
    }
    /// The cache file for a source, device and compiler.
    pub fn key(name: &str, source: &str, cc: (u32, u32), nvrtc: (i32, i32)) -> String {
        let mut text = options(cc).join(" ");
        text.push('\n');
        text.push_str(source);
        let a = fnv1a(0xcbf2_9ce4_8422_2325, text.as_bytes());
        let b = fnv1a(0x6c62_272e_07bb_0142, text.as_bytes());
        format!("{name}-sm{}{}-nvrtc{}.{}-{a:016x}{b:016x}.cubin", cc.0, cc.1, nvrtc.0, nvrtc.1)
    }

    /// The image for `def` on `cc`: from the cache, or compiled and stored.
    ///
    /// # Errors
    /// As [`compile`]. Cache read/write failures only disable caching for that call.
    pub fn get_or_compile(&self, def: &KernelDef, cc: (u32, u32)) -> Result<Vec<u8>, ComputeError> {
        let source = full_source(def)?;
        let Some(dir) = &self.dir else { return compile(&def.name, &source, cc) };
        let path = dir.join(Self::key(&def.name, &source, cc, version()?));
        if let Some(image) = read_own(&path).filter(|i| !i.is_empty()) {
            return Ok(image);
        }
        let image = compile(&def.name, &source, cc)?;
        // Created exclusively under a random name and renamed (tenor_ports::files); a failure
        // only costs the cache.
        let _ = tenor_ports::files::write_atomic(&path, &image);
        Ok(image)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel cache others can write is a place to plant code that runs with this process's
    /// device memory: such a folder is not used (issue 29); a folder of this user's only is.
    #[test]
    #[cfg(unix)]
    fn a_cache_folder_others_can_write_is_not_used() {
        use std::os::unix::fs::PermissionsExt;
        let d = std::env::temp_dir().join(format!("tenor-cuda-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("tmp");
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o777)).expect("chmod");
        assert!(ImageCache::at(Some(d.clone())).dir.is_none(), "a folder everyone can write");
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        assert_eq!(ImageCache::at(Some(d.clone())).dir, Some(d.clone()), "a folder of this user's");
        std::fs::remove_dir_all(&d).expect("clean");
    }

    #[test]
    fn extra_options_are_appended_and_change_the_cache_key_input() {
        let base = options_with((9, 0), None);
        assert_eq!(base, ["--gpu-architecture=sm_90", "--std=c++17", "-default-device"]);
        let fast = options_with((9, 0), Some("  --use_fast_math  -lineinfo "));
        assert_eq!(&fast[..3], &base[..]);
        assert_eq!(&fast[3..], ["--use_fast_math", "-lineinfo"]);
        assert_eq!(options_with((9, 0), Some("   ")), base);
    }
}
