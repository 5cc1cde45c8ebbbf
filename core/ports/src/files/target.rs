//! What a results path names: a regular file to replace (after following this user's links), a
//! stream to write in place (`-`, the process's own standard output or error, a FIFO, a
//! character device), or something refused (a folder, a socket, a block device, a link another
//! user planted in a folder others can write). ADR 0029.

use std::fs::{File, Metadata};
use std::io;
use std::path::{Path, PathBuf};

use super::exclusive::parent_of;

/// Links followed before giving up (Linux's `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// Where the bytes for a results path go.
#[derive(Debug)]
pub(crate) enum Target {
    /// Replace the regular file (or create the new one) at this path, which is the given path
    /// with its links followed; `mode` is the existing file's permission bits.
    Replace { path: PathBuf, mode: Option<u32> },
    /// Write in place, in order, without a rename.
    Stream(File),
}

/// Why a path cannot take results (the message completes "PATH: ").
#[derive(Debug)]
pub(crate) struct Refused {
    /// The path the problem is at (the given one, or a link on the way).
    pub path: PathBuf,
    /// The error.
    pub error: io::Error,
}

fn refuse(path: &Path, kind: io::ErrorKind, what: String) -> Refused {
    Refused { path: path.to_path_buf(), error: io::Error::new(kind, what) }
}

/// The effective user id of this process.
#[cfg(unix)]
pub(crate) fn euid() -> u32 {
    // SAFETY: `geteuid` has no preconditions.
    unsafe { libc::geteuid() }
}

/// Resolves `path` for writing results.
pub(crate) fn resolve(path: &Path) -> Result<Target, Refused> {
    if path.as_os_str() == "-" {
        return own_stream(1, path);
    }
    let mut at = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        if let Some(fd) = own_fd(&at) {
            return own_stream(fd, path);
        }
        let meta = match std::fs::symlink_metadata(&at) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Target::Replace { path: at, mode: None }),
            Err(e) => return Err(Refused { path: at, error: e }),
        };
        let t = meta.file_type();
        if t.is_symlink() {
            trusted_link(&at, &meta)?;
            let to = std::fs::read_link(&at).map_err(|e| Refused { path: at.clone(), error: e })?;
            at = if to.is_absolute() { to } else { parent_of(&at).join(to) };
            continue;
        }
        if t.is_file() {
            #[cfg(unix)]
            let mode = {
                use std::os::unix::fs::MetadataExt;
                Some(meta.mode() & 0o7777)
            };
            #[cfg(not(unix))]
            let mode = None;
            return Ok(Target::Replace { path: at, mode });
        }
        if t.is_dir() {
            return Err(refuse(path, io::ErrorKind::IsADirectory, "is a folder, not a file".into()));
        }
        return special(path, &at, &meta);
    }
    Err(refuse(path, io::ErrorKind::InvalidInput, format!("more than {MAX_LINKS} symbolic links on the way")))
}

/// A FIFO or a character device is opened as a stream; a socket or a block device is refused.
fn special(given: &Path, at: &Path, meta: &Metadata) -> Result<Target, Refused> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        let what = if t.is_socket() {
            "a socket"
        } else if t.is_block_device() {
            "a block device"
        } else {
            ""
        };
        if !what.is_empty() {
            return Err(refuse(
                given,
                io::ErrorKind::InvalidInput,
                format!("is {what}, not a regular file, a FIFO or a character device; it is left alone"),
            ));
        }
        // A FIFO waits here for its reader, as the shell's `>` does.
        let f =
            std::fs::OpenOptions::new().write(true).open(at).map_err(|e| Refused { path: given.into(), error: e })?;
        Ok(Target::Stream(f))
    }
    #[cfg(not(unix))]
    {
        let _ = (at, meta);
        Err(refuse(given, io::ErrorKind::InvalidInput, "is not a regular file".into()))
    }
}

/// The descriptor number when `path` names one of this process's own descriptors:
/// `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`, `/proc/<own pid>/fd/N`.
/// Reading those links would give `pipe:[...]` or the file the shell opened, whose replacement
/// by a rename is not what the user asked.
fn own_fd(path: &Path) -> Option<i32> {
    let s = path.to_str()?;
    match s {
        "/dev/stdout" => return Some(1),
        "/dev/stderr" => return Some(2),
        _ => {}
    }
    let pid = format!("/proc/{}/fd/", std::process::id());
    let n = s.strip_prefix("/dev/fd/").or_else(|| s.strip_prefix("/proc/self/fd/")).or_else(|| s.strip_prefix(&pid))?;
    n.parse().ok()
}

/// A duplicate of this process's descriptor `fd`, written at its offset with its flags (an
/// `>>` of the shell keeps appending).
fn own_stream(fd: i32, given: &Path) -> Result<Target, Refused> {
    #[cfg(unix)]
    {
        use std::os::fd::FromRawFd;
        // SAFETY: `fcntl(F_DUPFD_CLOEXEC)` only reads `fd`; it fails with EBADF when `fd` is not
        // open, and returns a new descriptor this process owns otherwise.
        let new = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
        if new < 0 {
            return Err(Refused { path: given.into(), error: io::Error::last_os_error() });
        }
        // SAFETY: `new` is a fresh descriptor owned by nothing else.
        Ok(Target::Stream(unsafe { File::from_raw_fd(new) }))
    }
    #[cfg(not(unix))]
    {
        let _ = fd;
        Err(refuse(given, io::ErrorKind::Unsupported, "standard streams by name need Unix".into()))
    }
}

/// A link is followed when this user or root made it. A link of another user may have been
/// planted to point at a file of this user (a shared folder, or a folder that user owns, where
/// Linux's `fs.protected_symlinks` lets its owner's links through): it is refused, named, and
/// the user can name its target instead.
fn trusted_link(link: &Path, meta: &Metadata) -> Result<(), Refused> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let owner = meta.uid();
        if owner == euid() || owner == 0 {
            return Ok(());
        }
        Err(refuse(
            link,
            io::ErrorKind::PermissionDenied,
            format!(
                "is a symbolic link made by another user (uid {owner}); it is not followed, as it may \
                 point at a file of yours: name its target ({}) if that is meant",
                std::fs::read_link(link).map_or_else(|_| "?".into(), |t| t.display().to_string())
            ),
        ))
    }
    #[cfg(not(unix))]
    {
        let _ = (link, meta);
        Ok(())
    }
}

/// Checks that a folder results are staged in is not a link planted by another user (the rule
/// of [`trusted_link`], applied to `dir` itself when it is a link).
pub(crate) fn check_folder(dir: &Path) -> Result<(), Refused> {
    let mut at = dir.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                trusted_link(&at, &m)?;
                let to = std::fs::read_link(&at).map_err(|e| Refused { path: at.clone(), error: e })?;
                at = if to.is_absolute() { to } else { parent_of(&at).join(to) };
            }
            _ => return Ok(()),
        }
    }
    Err(refuse(dir, io::ErrorKind::InvalidInput, format!("more than {MAX_LINKS} symbolic links on the way")))
}
