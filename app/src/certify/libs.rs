//! The shared libraries this process has loaded (`/proc/self/maps` on Linux), with the version
//! their file name carries and a SHA-256 of the file: which NVRTC, cuBLAS and runtime a run
//! really used, whatever the library path said.

use std::collections::BTreeSet;
use std::io::Read as _;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::format::Library;

/// SHA-256 of a file, lower-case hex.
///
/// # Errors
/// The file cannot be read.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut f = std::fs::File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// The version in a library file name: what follows `.so.` (`libnvrtc.so.13.0.88` gives
/// `13.0.88`), else empty.
pub fn version_of(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.split_once(".so.").map(|(_, v)| v.to_owned()).unwrap_or_default()
}

/// Every `.so` file mapped into this process, sorted by path (empty off Linux).
pub fn loaded() -> Vec<Library> {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else { return vec![] };
    let paths: BTreeSet<&str> = maps
        .lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .filter(|p| p.starts_with('/') && (p.ends_with(".so") || p.contains(".so.")))
        .collect();
    paths
        .into_iter()
        .map(|p| Library {
            path: p.to_owned(),
            version: version_of(p),
            sha256: sha256_file(Path::new(p)).unwrap_or_else(|e| format!("unreadable: {e}")),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_from_file_names_and_a_known_hash() {
        assert_eq!(version_of("/x/lib/libnvrtc.so.13.0.88"), "13.0.88");
        assert_eq!(version_of("/x/lib/libcublas.so"), "");
        let f = std::env::temp_dir().join(format!("tenor-certify-sha-{}", std::process::id()));
        std::fs::write(&f, b"abc").expect("tmp");
        // FIPS 180-2, appendix B.1: SHA-256("abc").
        assert_eq!(sha256_file(&f).expect("read"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let _ = std::fs::remove_file(&f);
        assert!(loaded().iter().any(|l| l.path.contains("libc")), "libc is mapped");
    }
}
