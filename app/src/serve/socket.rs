//! Where the server's socket lives and how it is bound: a Unix domain socket only its owner can
//! connect to (mode 0600, created under a 0700 folder for the default path), a stale socket left
//! by a killed server replaced, a live one refused. Both ends trust a socket only in a folder of
//! their own user (or root) that nobody else can write, and only a peer of their own uid
//! (`SO_PEERCRED`): ADR 0029.

use std::io;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

use thiserror::Error;

/// Longest socket path (bytes): `sun_path` holds 108 bytes on Linux, one of them the final NUL
/// (`unix(7)`).
pub const MAX_PATH_BYTES: usize = 107;

/// A socket path that cannot be used.
#[derive(Debug, Error)]
pub enum SocketError {
    /// Neither `XDG_RUNTIME_DIR` nor `HOME` is set.
    #[error("no default socket: neither XDG_RUNTIME_DIR nor HOME is set; pass --socket PATH")]
    NoDefault,
    /// The path is too long for a Unix socket.
    #[error("socket path {path}: {len} bytes, over the {MAX_PATH_BYTES} a Unix socket path can have; choose a shorter --socket")]
    TooLong {
        /// The path.
        path: PathBuf,
        /// Its length in bytes.
        len: usize,
    },
    /// Something other than a socket is at the path; it is left alone.
    #[error("--socket {0}: {1} is there, not a socket; it is left alone, choose another path")]
    NotASocket(PathBuf, &'static str),
    /// The folder of a path given with `--socket` does not exist (only the default folder is
    /// created).
    #[error("--socket {0}: its folder does not exist (only the default socket's folder is created)")]
    NoFolder(PathBuf),
    /// A server answers at the path already.
    #[error("--socket {0}: a Tenor server already listens there (`tenor serve --stop --socket {0}` ends it)")]
    InUse(PathBuf),
    /// The socket's folder belongs to another user or others can write it: someone else could
    /// have put a socket of theirs at the name (a fake server that reads the portfolio and
    /// answers forged prices, or a fake client).
    #[error("socket folder {}: {why}; another user could put a socket of theirs there. Use a folder of your own that only you can write (the default is $XDG_RUNTIME_DIR/tenor)", folder.display())]
    UntrustedFolder {
        /// The folder.
        folder: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// The process at the other end runs as another user.
    #[error("refused the {what} at {}: it runs as uid {peer}, this command as uid {own}", path.display())]
    OtherUser {
        /// The socket.
        path: PathBuf,
        /// `server` or `client`.
        what: &'static str,
        /// The peer's uid.
        peer: u32,
        /// This process's uid.
        own: u32,
    },
    /// Creating the folder, removing a stale socket or binding failed.
    #[error("--socket {path}: cannot {what}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// What was being done.
        what: &'static str,
        /// The error.
        source: io::Error,
    },
}

/// The default socket: `$XDG_RUNTIME_DIR/tenor/serve.sock`, else `$HOME/.cache/tenor/serve.sock`.
///
/// # Errors
/// [`SocketError::NoDefault`] when neither variable is set.
pub fn default_path() -> Result<PathBuf, SocketError> {
    let base = std::env::var_os("XDG_RUNTIME_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".cache")))
        .ok_or(SocketError::NoDefault)?;
    Ok(base.join("tenor").join("serve.sock"))
}

/// `given`, or the default path, made absolute and checked for length.
///
/// # Errors
/// [`SocketError::NoDefault`], [`SocketError::TooLong`], or [`SocketError::Io`] when the working
/// directory is unknown.
pub fn resolve(given: Option<&Path>) -> Result<PathBuf, SocketError> {
    let path = match given {
        Some(p) => p.to_path_buf(),
        None => default_path()?,
    };
    let path = std::path::absolute(&path).map_err(|source| SocketError::Io {
        path: path.clone(),
        what: "make the path absolute",
        source,
    })?;
    let len = path.as_os_str().len();
    if len > MAX_PATH_BYTES {
        return Err(SocketError::TooLong { path, len });
    }
    Ok(path)
}

/// Checks the folder of the socket `path` ([`tenor_ports::files::check_private_folder`]: it and,
/// when it is a link, the link belong to this user or root, and neither its group nor others can
/// write it; a sticky `/tmp` is refused too: another user can create a socket at an unused name
/// there first).
///
/// # Errors
/// [`SocketError::UntrustedFolder`] naming the folder and what is wrong.
pub fn check_folder(path: &Path) -> Result<(), SocketError> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    tenor_ports::files::check_private_folder(folder)
        .map_err(|why| SocketError::UntrustedFolder { folder: folder.to_path_buf(), why })
}

/// Checks that the process at the other end of `stream` runs as this process's user.
///
/// # Errors
/// [`SocketError::OtherUser`]; [`SocketError::Io`] when the credentials are unknown.
pub fn check_peer(stream: &UnixStream, path: &Path, what: &'static str) -> Result<(), SocketError> {
    // SAFETY: `getuid` has no preconditions.
    let own = unsafe { libc::getuid() };
    let peer = peer_uid(stream).map_err(|source| SocketError::Io {
        path: path.to_path_buf(),
        what: "read the peer's credentials",
        source,
    })?;
    if peer == own {
        Ok(())
    } else {
        Err(SocketError::OtherUser { path: path.to_path_buf(), what, peer, own })
    }
}

/// Fails when a server already answers at `path`, removes a stale socket (one nobody listens on),
/// and leaves anything that is not a socket alone.
///
/// # Errors
/// [`SocketError::InUse`], [`SocketError::NotASocket`], or [`SocketError::Io`] when a stale
/// socket cannot be removed.
pub fn claim(path: &Path) -> Result<(), SocketError> {
    let Ok(meta) = std::fs::symlink_metadata(path) else { return Ok(()) };
    let t = meta.file_type();
    if !t.is_socket() {
        let what = if t.is_dir() {
            "a folder"
        } else if t.is_symlink() {
            "a symbolic link"
        } else if t.is_file() {
            "a regular file"
        } else {
            "a special file"
        };
        return Err(SocketError::NotASocket(path.to_path_buf(), what));
    }
    if UnixStream::connect(path).is_ok() {
        return Err(SocketError::InUse(path.to_path_buf()));
    }
    std::fs::remove_file(path).map_err(|source| SocketError::Io {
        path: path.to_path_buf(),
        what: "remove the stale socket",
        source,
    })
}

/// Binds `path` (after [`claim`]) with mode 0600; the `default` path's folder is created with
/// mode 0700 when missing; the folder must pass [`check_folder`].
///
/// # Errors
/// As [`claim`] and [`check_folder`]; [`SocketError::NoFolder`] for a missing folder of a given
/// path; [`SocketError::Io`] when the folder cannot be made or the bind fails.
pub fn bind(path: &Path, default: bool) -> Result<UnixListener, SocketError> {
    if let Some(dir) = path.parent().filter(|d| !d.exists()) {
        if !default {
            return Err(SocketError::NoFolder(path.to_path_buf()));
        }
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(|source| SocketError::Io {
            path: path.to_path_buf(),
            what: "create its folder",
            source,
        })?;
    }
    check_folder(path)?;
    claim(path)?;
    // The socket is created with mode 0600 (umask 0177 during the bind), so no other user can
    // connect even for an instant; `umask` is process-wide, and no other thread of the server
    // creates files while it binds.
    // SAFETY: `umask` only sets the process's file mode creation mask and returns the old one.
    let old = unsafe { libc::umask(0o177) };
    let bound = UnixListener::bind(path);
    // SAFETY: as above, restoring the mask.
    unsafe { libc::umask(old) };
    bound.map_err(|source| SocketError::Io { path: path.to_path_buf(), what: "bind", source })
}

/// The user id of the process at the other end of `stream` (`SO_PEERCRED`, `unix(7)`), on Linux.
///
/// # Errors
/// The `getsockopt` error.
#[cfg(target_os = "linux")]
pub fn peer_uid(stream: &UnixStream) -> io::Result<u32> {
    use std::os::fd::AsRawFd;
    let mut cred = libc::ucred { pid: 0, uid: 0, gid: 0 };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: the descriptor is a connected Unix socket owned by `stream` for the call; `cred` and
    // `len` are valid for writes of `len` bytes, as `getsockopt(2)` requires.
    let rc = unsafe {
        libc::getsockopt(stream.as_raw_fd(), libc::SOL_SOCKET, libc::SO_PEERCRED, (&raw mut cred).cast(), &raw mut len)
    };
    if rc == 0 {
        Ok(cred.uid)
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Elsewhere the socket's mode 0600 alone keeps other users out.
#[cfg(not(target_os = "linux"))]
pub fn peer_uid(_stream: &UnixStream) -> io::Result<u32> {
    // SAFETY: `getuid` has no preconditions.
    Ok(unsafe { libc::getuid() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_path_is_refused_and_a_relative_one_made_absolute() {
        let long = PathBuf::from(format!("/tmp/{}", "x".repeat(120)));
        assert!(matches!(resolve(Some(&long)), Err(SocketError::TooLong { len: 125, .. })));
        let rel = resolve(Some(Path::new("s.sock"))).expect("temporary socket");
        assert!(rel.is_absolute() && rel.ends_with("s.sock"));
    }

    #[test]
    fn a_regular_file_is_left_alone_a_stale_socket_replaced_a_live_one_refused() {
        let dir = std::env::temp_dir().join(format!("tenor-sock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary socket");
        let file = dir.join("f");
        std::fs::write(&file, b"keep").expect("temporary socket");
        assert!(matches!(bind(&file, false), Err(SocketError::NotASocket(_, "a regular file"))));
        std::fs::create_dir_all(dir.join("sub")).expect("temporary socket");
        assert!(matches!(bind(&dir.join("sub"), false), Err(SocketError::NotASocket(_, "a folder"))));
        // The system's temporary folder is sticky but everyone can write it: refused.
        assert!(matches!(bind(&dir, false), Err(SocketError::UntrustedFolder { .. })));
        assert!(matches!(bind(&dir.join("missing/s"), false), Err(SocketError::NoFolder(_))));
        assert_eq!(std::fs::read(&file).expect("temporary socket"), b"keep");
        let sock = dir.join("s");
        let live = bind(&sock, false).expect("temporary socket");
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&sock).expect("temporary socket").permissions().mode() & 0o777, 0o600);
        assert!(matches!(bind(&sock, false), Err(SocketError::InUse(_))));
        drop(live); // the file stays, nobody listens: stale
        let again = bind(&sock, false);
        assert!(again.is_ok(), "{again:?}");
        let client = UnixStream::connect(&sock).expect("connect to the temporary socket");
        // SAFETY: `getuid` has no preconditions.
        let own = unsafe { libc::getuid() };
        assert_eq!(peer_uid(&client).expect("peer credentials"), own);
        std::fs::remove_dir_all(&dir).expect("temporary socket");
    }
}
