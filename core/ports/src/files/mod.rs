//! Results files written so that a failure never destroys earlier results, and so that another
//! user of the machine cannot redirect them.
//!
//! Every result Tenor writes goes through [`AtomicFile`] (one file) or [`OutputDir`] (a folder of
//! files): the bytes go to a temporary file in the same folder, which is flushed, `fsync`ed and
//! then renamed over the target (POSIX `rename(2)` replaces the target atomically on one file
//! system). A kill, a full disk or a write error before the rename leaves the previous file as it
//! was; the temporary file is removed on every error the process sees (a `SIGKILL` can leave one
//! behind, named `.<target>.tenor-tmp-<16 hex digits>`, never the target half written). Every
//! error names the path and what was being done to it.
//!
//! In a folder other users can write (ADR 0029): temporary files and staging folders are created
//! exclusively under random names ([`exclusive`]), never through a link; a target that is a link
//! of this user (or root, or the folder's owner) is written through, atomically beside the file
//! it points to, and one another user may have planted is refused; `-`, the process's own
//! standard streams by name (`/dev/stdout`), FIFOs and character devices are written in place as
//! streams (as `sort -o` and `curl -o` do); folders, sockets and block devices are refused.

pub mod exclusive;
mod target;

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use exclusive::{hidden_prefix, parent_of};
use target::Target;

/// A write that failed, naming the path and the step.
#[derive(Debug, thiserror::Error)]
#[error("{action} {}: {source}", path.display())]
pub struct WriteError {
    /// What was being done: `creating`, `writing`, `syncing`, `renaming to` ...
    pub action: &'static str,
    /// The file or folder concerned (the target, not the temporary file, unless the step is
    /// about the temporary file itself).
    pub path: PathBuf,
    /// The operating system's error.
    #[source]
    pub source: io::Error,
}

impl WriteError {
    fn new(action: &'static str, path: &Path, source: io::Error) -> Self {
        Self { action, path: path.to_path_buf(), source }
    }
}

impl From<target::Refused> for WriteError {
    fn from(r: target::Refused) -> Self {
        Self::new("creating", &r.path, r.error)
    }
}

/// `fsync` of a folder, so a rename in it survives a power cut. Best effort: some file
/// systems refuse to open a folder for syncing, which loses nothing the process can see.
fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Gives the new file the mode of the file it replaces (a rename would otherwise give the
/// target the temporary file's mode).
fn keep_mode(file: &File, mode: Option<u32>) {
    #[cfg(unix)]
    if let Some(m) = mode {
        use std::os::unix::fs::PermissionsExt;
        let _ = file.set_permissions(std::fs::Permissions::from_mode(m));
    }
    #[cfg(not(unix))]
    let _ = (file, mode);
}

/// Where an [`AtomicFile`]'s bytes go.
#[derive(Debug)]
enum Sink {
    /// A temporary file `temp`, renamed over `target` at the commit.
    Replace { target: PathBuf, temp: PathBuf, file: Option<BufWriter<File>> },
    /// A stream written in place; the commit flushes it.
    Stream(Option<BufWriter<File>>),
}

/// A file being written in place of `path`: writes go to a temporary file in the same folder;
/// [`AtomicFile::commit`] renames it over `path`. Dropped without a commit, it removes the
/// temporary file and `path` is untouched. A stream target (`-`, `/dev/stdout`, a FIFO, a
/// character device) is written in place instead, and what was written stays written.
#[derive(Debug)]
pub struct AtomicFile {
    path: PathBuf,
    sink: Sink,
}

impl AtomicFile {
    /// Starts writing `path` (the folder must exist).
    ///
    /// # Errors
    /// [`WriteError`] naming `path` (or the link on its way) when it is a folder, a socket, a
    /// block device, a link another user may have planted, or the temporary file cannot be
    /// created.
    pub fn create(path: &Path) -> Result<Self, WriteError> {
        let sink = match target::resolve(path)? {
            Target::Stream(f) => Sink::Stream(Some(BufWriter::new(f))),
            Target::Replace { path: target, mode } => {
                let dir = parent_of(&target);
                let (file, temp) = exclusive::create_file_in(dir, &hidden_prefix(&target))
                    .map_err(|e| WriteError::new("creating", path, e))?;
                keep_mode(&file, mode);
                Sink::Replace { target, temp, file: Some(BufWriter::new(file)) }
            }
        };
        Ok(Self { path: path.to_path_buf(), sink })
    }

    /// The target path as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the target is written in place as a stream (nothing to rename at the commit).
    pub fn is_stream(&self) -> bool {
        matches!(self.sink, Sink::Stream(_))
    }

    /// Flushes, `fsync`s and renames the temporary file over the target (a stream: flushes it).
    ///
    /// # Errors
    /// [`WriteError`] naming the target and the step that failed; the target is then unchanged
    /// and the temporary file removed.
    pub fn commit(mut self) -> Result<(), WriteError> {
        let path = self.path.clone();
        match &mut self.sink {
            Sink::Stream(w) => {
                let Some(mut w) = w.take() else {
                    return Err(WriteError::new("writing", &path, io::Error::other("already committed")));
                };
                w.flush().map_err(|e| WriteError::new("writing", &path, e))
            }
            Sink::Replace { target, temp, file } => {
                let Some(w) = file.take() else {
                    return Err(WriteError::new("writing", &path, io::Error::other("already committed")));
                };
                let result = (|| {
                    let file = w.into_inner().map_err(|e| WriteError::new("writing", &path, e.into_error()))?;
                    file.sync_all().map_err(|e| WriteError::new("syncing", &path, e))?;
                    drop(file);
                    std::fs::rename(&*temp, &*target).map_err(|e| WriteError::new("renaming into", target, e))?;
                    sync_dir(parent_of(target));
                    Ok(())
                })();
                if result.is_err() {
                    let _ = std::fs::remove_file(&*temp);
                }
                result
            }
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.sink {
            Sink::Replace { file: Some(f), .. } | Sink::Stream(Some(f)) => f.write(buf),
            _ => Err(io::Error::other("already committed")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Replace { file: Some(f), .. } | Sink::Stream(Some(f)) => f.flush(),
            _ => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Sink::Replace { temp, file, .. } = &mut self.sink {
            if file.take().is_some() {
                let _ = std::fs::remove_file(&*temp);
            }
        }
    }
}

/// Writes `path` atomically with what `fill` writes; `path` is replaced only when `fill`
/// returns `Ok` and the data reached the disk.
///
/// # Errors
/// [`WriteError`] naming `path`: when `fill` fails (its error is the source), or creating,
/// syncing or renaming fails. On every error `path` keeps its earlier content.
pub fn write_with<F>(path: &Path, fill: F) -> Result<(), WriteError>
where
    F: FnOnce(&mut dyn Write) -> io::Result<()>,
{
    let mut f = AtomicFile::create(path)?;
    fill(&mut f).map_err(|e| WriteError::new("writing", path, e))?;
    f.commit()
}

/// Writes `bytes` to `path` atomically.
///
/// # Errors
/// As [`write_with`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    write_with(path, |w| w.write_all(bytes))
}

/// Writes `path` atomically through a writer that needs a path of its own (a chart library
/// writing its file itself): `fill` gets a path inside a new staging folder of this process
/// (mode 0700, beside the target), whose file is synced and renamed over `path` when `fill`
/// succeeds (copied, for a stream target); the staging folder is removed in every case.
///
/// # Errors
/// `fill`'s error as is (the caller names the target in it); a [`WriteError`] naming `path`
/// when it is refused, or syncing or renaming fails, converted into `E`.
pub fn write_through<E, F>(path: &Path, fill: F) -> Result<(), E>
where
    F: FnOnce(&Path) -> Result<(), E>,
    E: From<WriteError>,
{
    let target = target::resolve(path).map_err(|r| E::from(r.into()))?;
    let dir = match &target {
        Target::Replace { path: t, .. } => parent_of(t).to_path_buf(),
        Target::Stream(_) => std::env::temp_dir(),
    };
    let stage = exclusive::create_dir_in(&dir, &hidden_prefix(path), 0o700)
        .map_err(|e| E::from(WriteError::new("creating a staging folder for", path, e)))?;
    let name = path.file_name().map_or_else(|| "out".into(), |n| n.to_os_string());
    let temp = stage.join(name);
    let result = fill(&temp).and_then(|()| {
        let commit = || -> Result<(), WriteError> {
            match target {
                Target::Replace { path: t, mode } => {
                    let f = File::open(&temp).map_err(|e| WriteError::new("writing", path, e))?;
                    keep_mode(&f, mode);
                    f.sync_all().map_err(|e| WriteError::new("syncing", path, e))?;
                    std::fs::rename(&temp, &t).map_err(|e| WriteError::new("renaming into", &t, e))?;
                    sync_dir(parent_of(&t));
                }
                Target::Stream(mut out) => {
                    let mut f = File::open(&temp).map_err(|e| WriteError::new("writing", path, e))?;
                    io::copy(&mut f, &mut out).map_err(|e| WriteError::new("writing", path, e))?;
                }
            }
            Ok(())
        };
        commit().map_err(E::from)
    });
    let _ = std::fs::remove_dir_all(&stage);
    result
}

/// Why a folder is not private to this user: it, or the link it is, belongs to another user
/// (root excepted), or its group or others can write it. A folder other users can write (a
/// sticky `/tmp` included) lets them put a file, a link or a socket of theirs at a name this
/// process will use; what is read from such a folder (code, a server's socket) is theirs.
///
/// # Errors
/// What is wrong, as a phrase completing "FOLDER ..." (`belongs to uid 1001, not to this user
/// (uid 1000)`), or the error examining it.
pub fn check_private_folder(dir: &Path) -> Result<(), String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let me = target::euid();
        let link = std::fs::symlink_metadata(dir).map_err(|e| format!("cannot be examined: {e}"))?;
        if link.file_type().is_symlink() && link.uid() != me && link.uid() != 0 {
            return Err(format!("is a symbolic link made by uid {}", link.uid()));
        }
        let m = std::fs::metadata(dir).map_err(|e| format!("cannot be examined: {e}"))?;
        if !m.is_dir() {
            return Err("is not a folder".into());
        }
        if m.uid() != me && m.uid() != 0 {
            return Err(format!("belongs to uid {}, not to this user (uid {me})", m.uid()));
        }
        if m.mode() & 0o022 != 0 {
            return Err(format!("other users can write it (mode {:o})", m.mode() & 0o7777));
        }
        Ok(())
    }
    #[cfg(not(unix))]
    {
        if dir.is_dir() {
            Ok(())
        } else {
            Err("is not a folder".into())
        }
    }
}

/// Creates the results folder `dir` with its parents (as `mkdir -p`), after refusing a `dir` that
/// is a symbolic link made by another user (it may point into a folder of this user's, where
/// the results would then land, replacing files of the same names).
///
/// # Errors
/// [`WriteError`] naming `dir` (or the link on its way).
pub fn create_folder(dir: &Path) -> Result<(), WriteError> {
    target::check_folder(dir)?;
    std::fs::create_dir_all(dir).map_err(|e| WriteError::new("creating", dir, e))
}

/// A folder of results written as a set: files are staged in a new hidden folder inside `dir`
/// (created exclusively under a random name, mode 0700) and moved into `dir` only by
/// [`OutputDir::commit`], after every one of them was written, so a failure before the commit
/// leaves the earlier set whole, and a committed set never mixes with files of an earlier run
/// (the set's names not written this time are removed). Files in `dir` outside the set are left
/// alone.
#[derive(Debug)]
pub struct OutputDir {
    dir: PathBuf,
    stage: PathBuf,
    names: Vec<String>,
    written: Vec<String>,
    committed: bool,
}

impl OutputDir {
    /// Starts a set of results in `dir` (created with its parents), whose files are named
    /// `names` (plain file names).
    ///
    /// # Errors
    /// [`WriteError`] naming `dir` or the staging folder; `dir` a link another user may have
    /// planted in a folder others can write.
    pub fn create(dir: &Path, names: &[&str]) -> Result<Self, WriteError> {
        create_folder(dir)?;
        let stage = exclusive::create_dir_in(dir, ".tenor-tmp-", 0o700)
            .map_err(|e| WriteError::new("creating a staging folder in", dir, e))?;
        Ok(Self {
            dir: dir.to_path_buf(),
            stage,
            names: names.iter().map(|s| (*s).to_owned()).collect(),
            written: Vec::new(),
            committed: false,
        })
    }

    /// The folder the set lands in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The final path of `name` in the folder (for messages).
    pub fn final_path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// The staging path of `name`, for writers that need a path (charts); call
    /// [`OutputDir::mark_written`] after writing it.
    ///
    /// # Errors
    /// [`WriteError`] when `name` is not one of the set's names.
    pub fn staged_path(&self, name: &str) -> Result<PathBuf, WriteError> {
        if !self.names.iter().any(|n| n == name) {
            return Err(WriteError::new(
                "writing",
                &self.dir.join(name),
                io::Error::new(io::ErrorKind::InvalidInput, "not a file of this output set"),
            ));
        }
        Ok(self.stage.join(name))
    }

    /// Records that `name` was written to its [`OutputDir::staged_path`].
    pub fn mark_written(&mut self, name: &str) {
        if !self.written.iter().any(|n| n == name) {
            self.written.push(name.to_owned());
        }
    }

    /// Writes `name` of the set with what `fill` writes.
    ///
    /// # Errors
    /// [`WriteError`] naming the file's final path.
    pub fn write_with<F>(&mut self, name: &str, fill: F) -> Result<(), WriteError>
    where
        F: FnOnce(&mut dyn Write) -> io::Result<()>,
    {
        let staged = self.staged_path(name)?;
        let _ = std::fs::remove_file(&staged);
        let file = exclusive::create_new(&staged).map_err(|e| WriteError::new("creating", &self.dir.join(name), e))?;
        let mut w = BufWriter::new(file);
        fill(&mut w).map_err(|e| WriteError::new("writing", &self.dir.join(name), e))?;
        let file = w.into_inner().map_err(|e| WriteError::new("writing", &self.dir.join(name), e.into_error()))?;
        file.sync_all().map_err(|e| WriteError::new("syncing", &self.dir.join(name), e))?;
        self.mark_written(name);
        Ok(())
    }

    /// Moves every written file into the folder (one rename each, after all were written) and
    /// removes the set's other names from it, so the folder holds exactly this run's set.
    ///
    /// # Errors
    /// [`WriteError`] naming the file that could not be moved or removed.
    pub fn commit(mut self) -> Result<(), WriteError> {
        for name in &self.written {
            let to = self.dir.join(name);
            std::fs::rename(self.stage.join(name), &to).map_err(|e| WriteError::new("renaming into", &to, e))?;
        }
        for name in self.names.iter().filter(|n| !self.written.contains(n)) {
            let stale = self.dir.join(name);
            match std::fs::remove_file(&stale) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(WriteError::new("removing the earlier", &stale, e)),
            }
        }
        sync_dir(&self.dir);
        self.committed = true;
        let _ = std::fs::remove_dir_all(&self.stage);
        Ok(())
    }
}

impl Drop for OutputDir {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.stage);
        }
    }
}

/// A new folder written whole: its files go into a staging folder beside `dest` (created
/// exclusively under a random name, with the usual mode: 0777 less the umask), which [`NewFolder::commit`] renames to `dest` only if
/// nothing is there by then (`RENAME_NOREPLACE`), so a reader sees the whole folder or none and
/// an existing folder is never replaced. Dropped without a commit, the staging folder is removed.
#[derive(Debug)]
pub struct NewFolder {
    dest: PathBuf,
    stage: PathBuf,
    committed: bool,
}

impl NewFolder {
    /// Starts the folder `dest`, which must not exist.
    ///
    /// # Errors
    /// [`WriteError`] naming `dest` when anything is there (a dangling link included) or the
    /// staging folder cannot be created.
    pub fn create(dest: &Path) -> Result<Self, WriteError> {
        if std::fs::symlink_metadata(dest).is_ok() {
            return Err(WriteError::new(
                "creating",
                dest,
                io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    "exists; a new folder is written (remove it or choose another)",
                ),
            ));
        }
        let stage = exclusive::create_dir_in(parent_of(dest), &hidden_prefix(dest), 0o777)
            .map_err(|e| WriteError::new("creating a staging folder for", dest, e))?;
        Ok(Self { dest: dest.to_path_buf(), stage, committed: false })
    }

    /// The final folder.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Where `rel` (a relative path of plain names) is staged; its folders are created (inside
    /// the staging folder only). For writers that need a path.
    ///
    /// # Errors
    /// [`WriteError`] when `rel` is absolute or climbs out (`..`), or a folder cannot be made.
    pub fn staged_path(&self, rel: &Path) -> Result<PathBuf, WriteError> {
        use std::path::Component;
        if !rel.components().all(|c| matches!(c, Component::Normal(_))) || rel.as_os_str().is_empty() {
            return Err(WriteError::new(
                "writing",
                &self.dest.join(rel),
                io::Error::new(io::ErrorKind::InvalidInput, "not a plain relative path inside the folder"),
            ));
        }
        let p = self.stage.join(rel);
        if let Some(dir) = p.parent() {
            std::fs::create_dir_all(dir).map_err(|e| WriteError::new("creating", &self.dest.join(rel), e))?;
        }
        Ok(p)
    }

    /// Writes `rel` with what `fill` writes (created new, synced).
    ///
    /// # Errors
    /// [`WriteError`] naming the file's final path.
    pub fn write_with<F>(&self, rel: &Path, fill: F) -> Result<(), WriteError>
    where
        F: FnOnce(&mut dyn Write) -> io::Result<()>,
    {
        let shown = self.dest.join(rel);
        let p = self.staged_path(rel)?;
        let file = exclusive::create_new(&p).map_err(|e| WriteError::new("creating", &shown, e))?;
        let mut w = BufWriter::new(file);
        fill(&mut w).map_err(|e| WriteError::new("writing", &shown, e))?;
        let file = w.into_inner().map_err(|e| WriteError::new("writing", &shown, e.into_error()))?;
        file.sync_all().map_err(|e| WriteError::new("syncing", &shown, e))
    }

    /// Renames the staging folder to `dest`.
    ///
    /// # Errors
    /// [`WriteError`] naming `dest` when something appeared there meanwhile, or the rename fails.
    pub fn commit(mut self) -> Result<(), WriteError> {
        exclusive::rename_new(&self.stage, &self.dest).map_err(|e| WriteError::new("renaming into", &self.dest, e))?;
        sync_dir(parent_of(&self.dest));
        self.committed = true;
        Ok(())
    }
}

impl Drop for NewFolder {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.stage);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Passes `limit` bytes through, then fails like a full disk.
    struct FailAfter<'a> {
        inner: &'a mut dyn Write,
        left: usize,
    }

    impl Write for FailAfter<'_> {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.left == 0 {
                return Err(io::Error::new(io::ErrorKind::StorageFull, "no space left on device (injected)"));
            }
            let n = buf.len().min(self.left);
            self.left -= n;
            self.inner.write(&buf[..n])
        }
        fn flush(&mut self) -> io::Result<()> {
            self.inner.flush()
        }
    }

    fn tmp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tenor-files-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("tmp");
        d
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .expect("read dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_write_failing_midway_leaves_the_old_file_whole_and_no_temporary() {
        let dir = tmp("mid");
        let path = dir.join("prices.csv");
        std::fs::write(&path, "id,price\nold,1\n").expect("seed");
        let new = "id,price\n".to_owned() + &"t,2.5\n".repeat(10_000);
        let e = write_with(&path, |w| {
            let mut f = FailAfter { inner: w, left: 20_000 };
            f.write_all(new.as_bytes())
        })
        .expect_err("injected failure");
        assert!(e.to_string().contains("prices.csv") && e.to_string().contains("no space"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "id,price\nold,1\n");
        assert_eq!(entries(&dir), ["prices.csv"]);
        // The same write without the failure replaces it whole.
        write_atomic(&path, new.as_bytes()).expect("write");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), new);
        assert_eq!(entries(&dir), ["prices.csv"]);
        std::fs::remove_dir_all(&dir).expect("clean");
    }

    #[test]
    fn a_path_writer_that_fails_leaves_the_old_file() {
        let dir = tmp("through");
        let path = dir.join("chart.svg");
        std::fs::write(&path, "old").expect("seed");
        let r: Result<(), WriteError> = write_through(&path, |tmp| {
            std::fs::write(tmp, "half").map_err(|e| WriteError::new("writing", tmp, e))?;
            Err(WriteError::new("writing", &path, io::Error::other("chart failed")))
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read_to_string(&path).expect("r"), "old");
        assert_eq!(entries(&dir), ["chart.svg"]);
        write_through::<WriteError, _>(&path, |tmp| {
            std::fs::write(tmp, "new").map_err(|e| WriteError::new("w", tmp, e))
        })
        .expect("ok");
        assert_eq!(std::fs::read_to_string(&path).expect("r"), "new");
        std::fs::remove_dir_all(&dir).expect("clean");
    }

    #[test]
    fn an_error_names_the_target_path() {
        let dir = tmp("name");
        let path = dir.join("no/such/folder/out.csv");
        let e = write_atomic(&path, b"x").expect_err("missing folder");
        assert!(e.to_string().contains("no/such/folder/out.csv"), "{e}");
        let e = AtomicFile::create(&dir).expect_err("a folder");
        assert!(e.to_string().contains("is a folder"), "{e}");
        std::fs::remove_dir_all(&dir).expect("clean");
    }

    #[test]
    #[cfg(unix)]
    fn a_socket_or_a_block_device_is_never_replaced_by_results() {
        let d = tmp("special");
        let sock = d.join("live.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&sock).expect("bind");
        let e = AtomicFile::create(&sock).expect_err("a socket is refused");
        assert!(e.to_string().contains("is a socket"), "{e}");
        assert!(std::fs::symlink_metadata(&sock).is_ok(), "the socket is still there");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_new_folder_appears_whole_and_never_replaces_one() {
        let d = tmp("newfolder");
        let dest = d.join("baseline");
        let f = NewFolder::create(&dest).expect("stage");
        f.write_with(Path::new("results/a.csv"), |w| w.write_all(b"x")).expect("write");
        assert!(f.staged_path(Path::new("../out.csv")).is_err() && f.staged_path(Path::new("/etc/x")).is_err());
        assert!(!dest.exists(), "nothing before the commit");
        std::fs::create_dir(&dest).expect("someone made it meanwhile");
        let e = f.commit().expect_err("never replaces");
        assert!(e.to_string().contains("baseline"), "{e}");
        assert_eq!(entries(&d), ["baseline"], "the staging folder is gone");
        std::fs::remove_dir(&dest).expect("rm");
        let f = NewFolder::create(&dest).expect("stage");
        f.write_with(Path::new("results/a.csv"), |w| w.write_all(b"x")).expect("write");
        f.commit().expect("commit");
        assert_eq!(std::fs::read_to_string(dest.join("results/a.csv")).expect("read"), "x");
        assert!(NewFolder::create(&dest).is_err(), "an existing folder is refused");
        std::fs::remove_dir_all(&d).expect("clean");
    }

    #[test]
    fn a_folder_set_fails_whole_and_commits_whole() {
        let dir = tmp("set");
        std::fs::write(dir.join("trades.csv"), "old trades").expect("seed");
        std::fs::write(dir.join("equity.svg"), "old chart").expect("seed");
        std::fs::write(dir.join("notes.txt"), "mine").expect("seed");
        let names = ["trades.csv", "equity.csv", "equity.svg"];
        {
            let mut set = OutputDir::create(&dir, &names).expect("set");
            set.write_with("trades.csv", |w| w.write_all(b"new trades")).expect("write");
            let e = set
                .write_with("equity.csv", |w| FailAfter { inner: w, left: 3 }.write_all(b"new equity"))
                .expect_err("injected");
            assert!(e.to_string().contains("equity.csv"), "{e}");
            // Dropped without commit: nothing of the new set is visible.
        }
        assert_eq!(std::fs::read_to_string(dir.join("trades.csv")).expect("r"), "old trades");
        assert_eq!(entries(&dir), ["equity.svg", "notes.txt", "trades.csv"]);
        let mut set = OutputDir::create(&dir, &names).expect("set");
        set.write_with("trades.csv", |w| w.write_all(b"new trades")).expect("write");
        set.write_with("equity.csv", |w| w.write_all(b"new equity")).expect("write");
        set.commit().expect("commit");
        // equity.svg was not written this time: the stale one is gone, notes.txt is kept.
        assert_eq!(entries(&dir), ["equity.csv", "notes.txt", "trades.csv"]);
        assert_eq!(std::fs::read_to_string(dir.join("trades.csv")).expect("r"), "new trades");
        assert!(OutputDir::create(&dir, &names).expect("set").staged_path("other.csv").is_err());
        std::fs::remove_dir_all(&dir).expect("clean");
    }
}
