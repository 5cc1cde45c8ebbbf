//! Guards shared by the subcommands that read input files and write output files: an output
//! must never be one of the inputs (writing it would truncate the input before, or while, it is
//! read) nor fall inside an input folder.

use std::path::{Path, PathBuf};

/// An output path that names an input: the flags of both, and the file.
#[derive(Debug, thiserror::Error)]
#[error("{out_flag} {} is the same file as {in_flag} {}: writing it would overwrite the input; choose another {out_flag}", out.display(), input.display())]
pub struct SameFile {
    /// The input's flag, e.g. `--portfolio`.
    pub in_flag: String,
    /// The input as given.
    pub input: PathBuf,
    /// The output's flag, e.g. `--out`.
    pub out_flag: String,
    /// The output as given.
    pub out: PathBuf,
}

/// The absolute, symlink-free form of `path`, also for a file that does not exist yet (its
/// parent is resolved and its name appended); `None` when neither it nor its parent exists
/// (then it cannot be an existing input).
fn resolved(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Some(p);
    }
    let name = path.file_name()?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    parent.canonicalize().ok().map(|p| p.join(name))
}

/// Whether `path` is a FIFO or a character device (following links): written in place.
#[cfg(unix)]
fn is_stream(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo() || m.file_type().is_char_device())
}

/// Only regular files elsewhere.
#[cfg(not(unix))]
fn is_stream(_: &Path) -> bool {
    false
}

/// Whether `a` and `b` are one file under two names (a hard link): the same device and inode.
/// `false` when either does not exist.
#[cfg(unix)]
fn same_inode(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// Hard links cannot be told apart from the path elsewhere; the canonical paths still are.
#[cfg(not(unix))]
fn same_inode(_: &Path, _: &Path) -> bool {
    false
}

/// Refuses when an output names the same file as an input (by any spelling, a symbolic link or
/// a hard link: same device and inode), or lies inside an input folder. Outputs that are
/// streams (`-`, FIFOs, devices) are not files to replace and pass.
/// `inputs` and `outputs` are `(setting, path)` pairs (settings spelled by [`crate::words::setting`]); an input that cannot be resolved (missing) is
/// left to the reader to report.
///
/// # Errors
/// [`SameFile`] naming both flags and paths.
pub fn refuse_overwrite(inputs: &[(&str, &Path)], outputs: &[(&str, &Path)]) -> Result<(), SameFile> {
    for (out_flag, out) in outputs {
        // A stream (`-`, a FIFO, a terminal, `/dev/stdout`) is written in place: it replaces
        // nothing (`--portfolio /dev/stdin --out /dev/stdout` on one terminal is fine).
        if out.as_os_str() == "-" || is_stream(out) {
            continue;
        }
        let Some(o) = resolved(out) else { continue };
        for (in_flag, input) in inputs {
            let Ok(i) = input.canonicalize() else { continue };
            if o == i || same_inode(out, input) || (i.is_dir() && o.starts_with(&i)) {
                return Err(SameFile {
                    in_flag: crate::words::setting(in_flag),
                    input: input.to_path_buf(),
                    out_flag: crate::words::setting(out_flag),
                    out: out.to_path_buf(),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_file_by_another_spelling_and_a_new_file_beside_it() {
        let dir = std::env::temp_dir().join(format!("tenor-paths-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).expect("dir");
        let input = dir.join("book.csv");
        std::fs::write(&input, "x").expect("write");
        let other = dir.join("sub/../book.csv");
        let e = refuse_overwrite(&[("--portfolio", &input)], &[("--out", &other)]).expect_err("same file");
        let text = e.to_string();
        assert!(text.contains("--out") && text.contains("--portfolio") && text.contains("book.csv"), "{text}");
        assert!(refuse_overwrite(&[("--portfolio", &input)], &[("--out", &dir.join("new.csv"))]).is_ok());
        assert!(refuse_overwrite(&[("--portfolio", &input)], &[("--out", &dir.join("no/such/x.csv"))]).is_ok());
        // An output inside an input folder.
        let e = refuse_overwrite(&[("--cboe-dir", &dir)], &[("--out", &dir.join("sub/out.csv"))]).expect_err("inside");
        assert!(e.to_string().contains("--cboe-dir"), "{e}");
        std::fs::remove_dir_all(&dir).expect("clean");
    }

    #[test]
    fn a_hard_link_to_the_input_is_the_same_file() {
        let dir = std::env::temp_dir().join(format!("tenor-paths-link-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let input = dir.join("in.csv");
        std::fs::write(&input, "x").expect("write");
        let link = dir.join("link.csv");
        let _ = std::fs::remove_file(&link);
        std::fs::hard_link(&input, &link).expect("hard link");
        let e = refuse_overwrite(&[("--portfolio", &input)], &[("--out", &link)]).expect_err("hard link");
        assert!(e.to_string().contains("link.csv") && e.to_string().contains("in.csv"), "{e}");
        // A copy is another file.
        let copy = dir.join("copy.csv");
        std::fs::copy(&input, &copy).expect("copy");
        assert!(refuse_overwrite(&[("--portfolio", &input)], &[("--out", &copy)]).is_ok());
        std::fs::remove_dir_all(&dir).expect("clean");
    }
}

/// Why [`read_regular`] refused or failed.
#[derive(Debug)]
pub enum RegularRead {
    /// Opening or reading failed.
    Io(std::io::Error),
    /// The path is a FIFO, a device, a socket or a folder.
    NotRegular,
    /// The file holds more than the limit.
    TooLarge,
}

/// The bytes of the regular file at `path` (links followed), at most `limit` of them. Opened
/// without blocking, so a FIFO never hangs the open, and examined through the open descriptor:
/// what is checked is what is read. A file that grows past `limit` while read is refused too.
///
/// # Errors
/// [`RegularRead`].
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, RegularRead> {
    use std::io::Read;
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK);
    }
    let f = o.open(path).map_err(RegularRead::Io)?;
    let meta = f.metadata().map_err(RegularRead::Io)?;
    if !meta.is_file() {
        return Err(RegularRead::NotRegular);
    }
    if meta.len() > limit {
        return Err(RegularRead::TooLarge);
    }
    let mut bytes = Vec::new();
    f.take(limit + 1).read_to_end(&mut bytes).map_err(RegularRead::Io)?;
    if bytes.len() as u64 > limit {
        return Err(RegularRead::TooLarge);
    }
    Ok(bytes)
}
