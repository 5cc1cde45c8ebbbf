//! Files and folders created exclusively, under unpredictable names, never through a link.
//!
//! A temporary name in a folder other users can write is a target: if it can be guessed, another
//! user plants a symbolic link there first and a create-and-truncate writes through it into a
//! file only the victim may write. Every temporary file and staging folder Tenor makes is
//! therefore created with `O_CREAT | O_EXCL` (`open(2)`: "symbolic links are not followed") or
//! `mkdir(2)` (which never follows a link at the last component), under a name with 64 random
//! bits from the operating system (`getrandom(2)`), retried under a new name when the name
//! exists (ADR 0029).

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// Names tried before giving up (each collision is a 2^-64 chance, or a name planted by someone
/// who read the random bits: either way, a few tries suffice).
const TRIES: usize = 64;

/// 16 hex digits of fresh operating-system randomness.
///
/// # Errors
/// The operating system's random source failed.
pub fn random_suffix() -> io::Result<String> {
    let mut b = [0u8; 8];
    getrandom::getrandom(&mut b).map_err(|e| io::Error::other(format!("no random name: {e}")))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// The folder holding `path` (`.` for a bare file name).
pub(crate) fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// `.NAME.tenor-tmp-` for the target `path` (its last component, lossy).
pub(crate) fn hidden_prefix(path: &Path) -> String {
    let name = path.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    format!(".{name}.tenor-tmp-")
}

/// Tries `make` on `dir/prefix<suffix>` for suffixes from `next` until one does not exist.
fn first_free<T>(
    dir: &Path,
    prefix: &str,
    next: &mut dyn FnMut() -> io::Result<String>,
    make: &dyn Fn(&Path) -> io::Result<T>,
) -> io::Result<(T, PathBuf)> {
    for _ in 0..TRIES {
        let path = dir.join(format!("{prefix}{}", next()?));
        match make(&path) {
            Ok(t) => return Ok((t, path)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("{TRIES} random names {prefix}* in {} were all taken", dir.display()),
    ))
}

/// Creates a new file `dir/prefix<random>` for writing (`O_CREAT | O_EXCL`, mode 0666 less the
/// umask, close-on-exec), with a new name when one exists. Never opens an existing file or a link.
///
/// # Errors
/// The `open(2)` error, or every name tried was taken.
pub fn create_file_in(dir: &Path, prefix: &str) -> io::Result<(File, PathBuf)> {
    create_file_with(dir, prefix, &mut random_suffix)
}

/// [`create_file_in`] with the suffixes from `next` (tests plant names first).
pub(crate) fn create_file_with(
    dir: &Path,
    prefix: &str,
    next: &mut dyn FnMut() -> io::Result<String>,
) -> io::Result<(File, PathBuf)> {
    first_free(dir, prefix, next, &|p| {
        let mut o = std::fs::OpenOptions::new();
        o.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            o.custom_flags(libc::O_NOFOLLOW);
        }
        o.open(p)
    })
}

/// Creates a new, empty folder `dir/prefix<random>` (`mkdir(2)` with `mode` less the umask:
/// 0o700 for a staging folder only this user enters, 0o777 for a folder that becomes a result),
/// with a new name when one exists.
///
/// # Errors
/// The `mkdir(2)` error, or every name tried was taken.
pub fn create_dir_in(dir: &Path, prefix: &str, mode: u32) -> io::Result<PathBuf> {
    create_dir_with(dir, prefix, mode, &mut random_suffix)
}

/// [`create_dir_in`] with the suffixes from `next`.
pub(crate) fn create_dir_with(
    dir: &Path,
    prefix: &str,
    mode: u32,
    next: &mut dyn FnMut() -> io::Result<String>,
) -> io::Result<PathBuf> {
    first_free(dir, prefix, next, &|p| {
        let mut b = std::fs::DirBuilder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            b.mode(mode);
        }
        #[cfg(not(unix))]
        let _ = mode;
        b.create(p)
    })
    .map(|((), p)| p)
}

/// Opens `path` for writing only if it is new (`O_CREAT | O_EXCL | O_NOFOLLOW`): for files
/// written inside a folder this process created (a staging folder).
///
/// # Errors
/// The `open(2)` error; `AlreadyExists` when anything (a link included) is there.
pub fn create_new(path: &Path) -> io::Result<File> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW);
    }
    o.open(path)
}

/// Renames `from` to `to` only if nothing is at `to` (`renameat2(RENAME_NOREPLACE)` on Linux;
/// elsewhere a check before `rename(2)`, which a concurrent creator can race).
///
/// # Errors
/// `AlreadyExists` when `to` exists; the rename's error.
pub fn rename_new(from: &Path, to: &Path) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| {
            CString::new(p.as_os_str().as_bytes())
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in path"))
        };
        let (f, t) = (c(from)?, c(to)?);
        // SAFETY: both are NUL-terminated paths alive for the call; AT_FDCWD resolves them as
        // `rename(2)` would.
        let rc =
            unsafe { libc::renameat2(libc::AT_FDCWD, f.as_ptr(), libc::AT_FDCWD, t.as_ptr(), libc::RENAME_NOREPLACE) };
        if rc == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        // File systems without RENAME_NOREPLACE (some network ones) fall back below.
        if e.raw_os_error() != Some(libc::EINVAL) && e.raw_os_error() != Some(libc::ENOSYS) {
            return Err(e);
        }
    }
    if std::fs::symlink_metadata(to).is_ok() {
        return Err(io::Error::new(io::ErrorKind::AlreadyExists, "exists"));
    }
    std::fs::rename(from, to)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tenor-excl-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("tmp");
        d
    }

    #[test]
    fn random_suffixes_are_sixteen_hex_digits_and_differ() {
        let a = random_suffix().expect("random");
        let b = random_suffix().expect("random");
        assert_eq!(a.len(), 16);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b, "two draws of 64 random bits");
    }

    #[test]
    #[cfg(unix)]
    fn a_planted_link_at_the_chosen_name_is_never_written_through() {
        let d = tmp("planted");
        let victim = d.join("victim");
        std::fs::write(&victim, "precious").expect("seed");
        // Someone planted the first name this process will draw, as a link to the victim's file,
        // and a dangling link at the second.
        std::os::unix::fs::symlink(&victim, d.join(".res.csv.tenor-tmp-aaaa")).expect("plant");
        std::os::unix::fs::symlink(d.join("nowhere"), d.join(".res.csv.tenor-tmp-bbbb")).expect("plant");
        let mut names = ["aaaa", "bbbb", "cccc"].into_iter().map(|s| Ok(s.to_owned()));
        let mut next = || names.next().expect("a name");
        let (mut f, p) = create_file_with(&d, ".res.csv.tenor-tmp-", &mut next).expect("create");
        use std::io::Write;
        f.write_all(b"results").expect("write");
        assert_eq!(p, d.join(".res.csv.tenor-tmp-cccc"));
        assert_eq!(std::fs::read_to_string(&victim).expect("read"), "precious");
        assert!(!d.join("nowhere").exists(), "the dangling link was not followed");
        // A folder likewise.
        std::os::unix::fs::symlink(&d, d.join(".s.tenor-tmp-aaaa")).expect("plant");
        let mut names = ["aaaa", "dddd"].into_iter().map(|s| Ok(s.to_owned()));
        let mut next = || names.next().expect("a name");
        let stage = create_dir_with(&d, ".s.tenor-tmp-", 0o700, &mut next).expect("mkdir");
        assert_eq!(stage, d.join(".s.tenor-tmp-dddd"));
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&stage).expect("stat").permissions().mode() & 0o777, 0o700);
        std::fs::remove_dir_all(&d).expect("clean");
    }

    #[test]
    fn every_name_taken_is_an_error_not_a_loop() {
        let d = tmp("taken");
        std::fs::write(d.join("x-same"), "").expect("seed");
        let mut next = || Ok("same".to_owned());
        let e = create_file_with(&d, "x-", &mut next).expect_err("all taken");
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        std::fs::remove_dir_all(&d).expect("clean");
    }

    #[test]
    fn rename_new_never_replaces() {
        let d = tmp("noreplace");
        std::fs::create_dir(d.join("a")).expect("a");
        std::fs::create_dir(d.join("b")).expect("b");
        let e = rename_new(&d.join("a"), &d.join("b")).expect_err("b exists, even empty");
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        rename_new(&d.join("a"), &d.join("c")).expect("new name");
        assert!(d.join("c").is_dir() && !d.join("a").exists());
        std::fs::remove_dir_all(&d).expect("clean");
    }
}
