//! Where tests find `shared/` (oracle tables, market data): the `TENOR_SHARED` environment
//! variable if set, else `../shared` beside the repository root (how CI lays it out).

use std::path::PathBuf;

pub mod fuzz;

/// The repository root (this crate lives in `core/testdata`).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The shared folder.
pub fn shared_dir() -> PathBuf {
    match std::env::var_os("TENOR_SHARED") {
        Some(p) => PathBuf::from(p),
        None => repo_root().join("../shared"),
    }
}

/// A file under `shared/`, e.g. `shared("oracles/european_haug.csv")`.
///
/// # Panics
/// When the file does not exist: a test that needs it must fail, naming the path, not skip.
pub fn shared(relative: &str) -> PathBuf {
    let p = shared_dir().join(relative);
    assert!(p.exists(), "shared test file missing: {} (set TENOR_SHARED to the shared folder)", p.display());
    p
}
