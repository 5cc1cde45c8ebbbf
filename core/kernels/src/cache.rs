//! Where a backend keeps compiled kernels on disk, found the same way by the adapter that writes
//! the cache and by the pilot that reports its state.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Environment variable naming the CUDA adapter's folder of compiled kernels.
pub const CUDA_CACHE_ENV: &str = "TENOR_CUDA_CACHE";

/// The folder of the CUDA adapter's NVRTC image cache (one `.cubin` per kernel source, compute
/// capability and NVRTC version), with environment lookups through `get`:
/// `$TENOR_CUDA_CACHE`, else `$XDG_CACHE_HOME/tenor/cuda`, else `$HOME/.cache/tenor/cuda` (the XDG
/// Base Directory Specification's cache location). `None` when none of the three is set. The
/// folder may not exist yet.
pub fn cuda_cache_dir(get: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    get(CUDA_CACHE_ENV)
        .map(PathBuf::from)
        .or_else(|| get("XDG_CACHE_HOME").map(|d| Path::new(&d).join("tenor/cuda")))
        .or_else(|| get("HOME").map(|d| Path::new(&d).join(".cache/tenor/cuda")))
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
