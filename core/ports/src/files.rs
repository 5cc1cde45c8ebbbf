//! Results files written so that a failure never destroys earlier results.
//!
//! Every result Tenor writes goes through [`AtomicFile`] (one file) or [`OutputDir`] (a folder of
//! files): the bytes go to a temporary file in the same folder, which is flushed, `fsync`ed and
//! then renamed over the target (POSIX `rename(2)` replaces the target atomically on one file
//! system). A kill, a full disk or a write error before the rename leaves the previous file as it
//! was; the temporary file is removed on every error the process sees (a `SIGKILL` can leave one
//! behind, named `.<target>.tenor-tmp-<pid>-<n>`, never the target half written). Every error
//! names the path and what was being done to it.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

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

/// Counter that makes temporary names unique within the process.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// The temporary sibling of `path`: `.<name>.tenor-tmp-<pid>-<n>` in the same folder.
fn temp_sibling(path: &Path) -> PathBuf {
    let name = path.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.tenor-tmp-{}-{n}", std::process::id()))
}

/// The folder holding `path` (`.` for a bare file name).
fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// `fsync` of a folder, so a rename in it survives a power cut. Best effort: some file
/// systems refuse to open a folder for syncing, which loses nothing the process can see.
fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// A file being written in place of `path`: writes go to a temporary file in the same folder;
/// [`AtomicFile::commit`] renames it over `path`. Dropped without a commit, it removes the
/// temporary file and `path` is untouched.
#[derive(Debug)]
pub struct AtomicFile {
    path: PathBuf,
    temp: PathBuf,
    file: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Starts writing `path` (the folder must exist).
    ///
    /// # Errors
    /// [`WriteError`] when `path` is a folder or the temporary file cannot be created (it names
    /// `path`).
    pub fn create(path: &Path) -> Result<Self, WriteError> {
        if path.is_dir() {
            // The rename at the end would fail after all the work: refuse now.
            return Err(WriteError::new(
                "creating",
                path,
                io::Error::new(io::ErrorKind::IsADirectory, "is a folder, not a file"),
            ));
        }
        // The rename would replace a socket (a live `tenor serve`'s), a FIFO or a device node
        // with a results file: refuse anything there that is not a regular file.
        if let Some(kind) = special_file(path) {
            return Err(WriteError::new(
                "creating",
                path,
                io::Error::new(io::ErrorKind::InvalidInput, format!("is {kind}, not a regular file")),
            ));
        }
        let temp = temp_sibling(path);
        let file = File::create(&temp).map_err(|e| WriteError::new("creating", path, e))?;
        Ok(Self { path: path.to_path_buf(), temp, file: Some(BufWriter::new(file)) })
    }

    /// The target path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes, `fsync`s and renames the temporary file over the target.
    ///
    /// # Errors
    /// [`WriteError`] naming the target and the step that failed; the target is then unchanged
    /// and the temporary file removed.
    pub fn commit(mut self) -> Result<(), WriteError> {
        let Some(w) = self.file.take() else {
            return Err(WriteError::new("writing", &self.path, io::Error::other("already committed")));
        };
        let result = (|| {
            let file = w.into_inner().map_err(|e| WriteError::new("writing", &self.path, e.into_error()))?;
            file.sync_all().map_err(|e| WriteError::new("syncing", &self.path, e))?;
            drop(file);
            crate::hook::stop_point(crate::hook::BEFORE_RENAME);
            std::fs::rename(&self.temp, &self.path).map_err(|e| WriteError::new("renaming into", &self.path, e))?;
            sync_dir(parent_of(&self.path));
            Ok(())
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&self.temp);
        }
        result
    }
}

/// What stands at `path` when it is neither missing nor a regular file nor a folder (following
/// symbolic links): `Some("a socket")`, a FIFO, a device.
fn special_file(path: &Path) -> Option<&'static str> {
    let t = std::fs::metadata(path).ok()?.file_type();
    if t.is_file() || t.is_dir() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_socket() {
            return Some("a socket");
        }
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_block_device() || t.is_char_device() {
            return Some("a device");
        }
    }
    Some("a special file")
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.file {
            Some(f) => f.write(buf),
            None => Err(io::Error::other("already committed")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.temp);
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
/// writing its file itself): `fill` gets a temporary path in the same folder, which is synced
/// and renamed over `path` when `fill` succeeds, and removed otherwise.
///
/// # Errors
/// `fill`'s error as is (the caller names the target in it); a [`WriteError`] naming `path`
/// when syncing or renaming fails, converted into `E`.
pub fn write_through<E, F>(path: &Path, fill: F) -> Result<(), E>
where
    F: FnOnce(&Path) -> Result<(), E>,
    E: From<WriteError>,
{
    let temp = temp_sibling(path);
    let result = fill(&temp).and_then(|()| {
        let commit = || -> Result<(), WriteError> {
            let f = File::open(&temp).map_err(|e| WriteError::new("writing", path, e))?;
            f.sync_all().map_err(|e| WriteError::new("syncing", path, e))?;
            crate::hook::stop_point(crate::hook::BEFORE_RENAME);
            std::fs::rename(&temp, path).map_err(|e| WriteError::new("renaming into", path, e))?;
            sync_dir(parent_of(path));
            Ok(())
        };
        commit().map_err(E::from)
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// A folder of results written as a set: files are staged in a hidden folder inside `dir`
/// and moved into `dir` only by [`OutputDir::commit`], after every one of them was written,
/// so a failure before the commit leaves the earlier set whole, and a committed set never mixes
/// with files of an earlier run (the set's names not written this time are removed). Files in
/// `dir` outside the set are left alone.
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
    /// [`WriteError`] naming `dir` or the staging folder.
    pub fn create(dir: &Path, names: &[&str]) -> Result<Self, WriteError> {
        std::fs::create_dir_all(dir).map_err(|e| WriteError::new("creating", dir, e))?;
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let stage = dir.join(format!(".tenor-tmp-{}-{n}", std::process::id()));
        std::fs::create_dir(&stage).map_err(|e| WriteError::new("creating", &stage, e))?;
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
        let file = File::create(&staged).map_err(|e| WriteError::new("creating", &self.dir.join(name), e))?;
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
        crate::hook::stop_point(crate::hook::BEFORE_RENAME);
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
    fn a_socket_or_a_device_is_never_replaced_by_results() {
        let d = tmp("special");
        let sock = d.join("live.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&sock).expect("bind");
        let e = AtomicFile::create(&sock).expect_err("a socket is refused");
        assert!(e.to_string().contains("is a socket, not a regular file"), "{e}");
        assert!(std::fs::symlink_metadata(&sock).is_ok(), "the socket is still there");
        let e = AtomicFile::create(Path::new("/dev/null")).expect_err("a device is refused");
        assert!(e.to_string().contains("is a device"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
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
