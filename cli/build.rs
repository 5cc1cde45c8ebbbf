//! Records the git commit, whether tracked files had uncommitted changes (`dirty`), and the
//! lines of adapter code per backend for the pilot's report;
//! with the `sycl` feature, also embeds the DPC++ runtime's library directory (found by
//! tenor-sycl's build script, passed on by tenor-registry's `links` metadata, so this crate names
//! no adapter) as the binary's rpath, so `tenor` runs without LD_LIBRARY_PATH.
use std::path::Path;

fn count_lines(dir: &Path, exts: &[&str]) -> usize {
    let Ok(rd) = std::fs::read_dir(dir) else { return 0 };
    rd.filter_map(Result::ok)
        .map(|e| e.path())
        .map(|p| {
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n == "target" || n == "tests") {
                    0
                } else {
                    count_lines(&p, exts)
                }
            } else if p.extension().and_then(|e| e.to_str()).is_some_and(|e| exts.contains(&e)) {
                std::fs::read_to_string(&p).map_or(0, |s| s.lines().filter(|l| !l.trim().is_empty()).count())
            } else {
                0
            }
        })
        .sum()
}

/// The name of backend `backend`'s kernel source file (`cuda.cu`): the first file of a kernel
/// folder (one with a `kernel.toml`) whose stem is the backend's name; `None` when no kernel
/// has one.
fn kernel_file(kernels: &Path, backend: &str) -> Option<String> {
    let mut folders: Vec<_> = std::fs::read_dir(kernels)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|d| d.join("kernel.toml").is_file())
        .collect();
    folders.sort();
    folders.iter().filter_map(|d| std::fs::read_dir(d).ok()).flatten().filter_map(Result::ok).find_map(|f| {
        let p = f.path();
        (p.is_file() && p.file_stem().and_then(|s| s.to_str()) == Some(backend))
            .then(|| p.file_name().and_then(|n| n.to_str()).map(str::to_owned))
            .flatten()
    })
}

fn kernel_sources(kernels: &Path, file: &str) -> usize {
    let Ok(rd) = std::fs::read_dir(kernels) else { return 0 };
    rd.filter_map(Result::ok)
        .map(|e| e.path().join(file))
        .filter(|p| p.is_file())
        .map(|p| std::fs::read_to_string(p).map_or(0, |s| s.lines().filter(|l| !l.trim().is_empty()).count()))
        .sum()
}

/// Output of `git ARGS` run in `root`, trimmed; `None` without git or outside a checkout (a
/// tarball build).
fn git(root: &Path, args: &[&str]) -> Option<String> {
    std::process::Command::new("git")
        .args(args)
        .current_dir(root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
}

/// Asks Cargo to rerun this script when the commit or the tracked files change.
///
/// `.git/HEAD` alone does not change on a commit to the checked-out branch (it still names
/// `refs/heads/<branch>`), so the branch's ref file, `packed-refs` and the reflog `logs/HEAD`
/// (appended on every commit, checkout and reset) are watched too, and the index. In a worktree
/// `.git` is a file and these live in the worktree's git dir (HEAD, index, logs/HEAD) and the
/// common dir (refs, packed-refs): git itself says where (`rev-parse --git-dir`,
/// `--git-common-dir`). The tracked top-level entries are watched for the dirty flag (Cargo
/// scans a watched directory for any change). Only existing paths are named: Cargo reruns the
/// script on every build for a missing one. Without a checkout nothing is watched.
fn watch_git(root: &Path) {
    let (Some(git_dir), Some(common)) =
        (git(root, &["rev-parse", "--git-dir"]), git(root, &["rev-parse", "--git-common-dir"]))
    else {
        return;
    };
    let (git_dir, common) = (root.join(git_dir), root.join(common));
    let mut paths =
        vec![git_dir.join("HEAD"), git_dir.join("logs/HEAD"), git_dir.join("index"), common.join("packed-refs")];
    if let Some(r) = git(root, &["symbolic-ref", "-q", "HEAD"]) {
        paths.push(common.join(&r));
        paths.push(git_dir.join(&r));
    }
    if let Some(tracked) = git(root, &["ls-tree", "--name-only", "HEAD"]) {
        paths.extend(tracked.lines().map(|l| root.join(l)));
    }
    for p in paths.iter().filter(|p| p.exists()) {
        println!("cargo:rerun-if-changed={}", p.display());
    }
}

fn main() {
    println!("cargo:rerun-if-env-changed=DEP_TENOR_REGISTRY_SYCL_ROOT");
    if let Ok(root) = std::env::var("DEP_TENOR_REGISTRY_SYCL_ROOT") {
        println!("cargo:rustc-link-arg-bins=-Wl,-rpath,{root}/lib");
        println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{root}/lib");
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let commit = git(&root, &["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=TENOR_GIT_COMMIT={commit}");
    // Uncommitted changes to tracked files (untracked files do not make a build dirty).
    let dirty = match git(&root, &["status", "--porcelain", "--untracked-files=no"]) {
        Some(s) if s.is_empty() => "false",
        Some(_) => "true",
        None => "unknown",
    };
    println!("cargo:rustc-env=TENOR_GIT_DIRTY={dirty}");
    watch_git(&root);
    let kernels = root.join("kernels");
    let mut rows = Vec::new();
    // Every adapter folder with kernel sources of its own (`kernels/*/<folder name>.*`: cpu.rs,
    // cuda.cu, sycl.cpp, opencl.cl), so a new adapter needs no line here (ADR 0016).
    let mut backends: Vec<String> = std::fs::read_dir(root.join("adapters"))
        .map(|rd| rd.filter_map(Result::ok).filter_map(|e| e.file_name().to_str().map(str::to_owned)).collect())
        .unwrap_or_default();
    backends.sort();
    for backend in backends {
        let Some(src) = kernel_file(&kernels, &backend) else { continue };
        let dir = root.join("adapters").join(&backend);
        let adapter = count_lines(&dir, &["rs", "cpp", "hpp", "h", "cu", "cuh", "cl"]);
        let kernel = kernel_sources(&kernels, &src);
        rows.push(format!("(\"{backend}\", {adapter}, {kernel})"));
        println!("cargo:rerun-if-changed={}", dir.display());
    }
    // A new adapter folder is seen through the watched `adapters` folder.
    println!("cargo:rerun-if-changed={}", root.join("adapters").display());
    println!("cargo:rerun-if-changed={}", kernels.display());
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into()));
    let text = format!(
        "/// (backend, non-blank lines of adapter code, non-blank lines of kernel sources)\npub const CODE_LINES: &[(&str, usize, usize)] = &[{}];\n",
        rows.join(", ")
    );
    if let Err(e) = std::fs::write(out.join("code_lines.rs"), text) {
        println!("cargo:warning=cannot write code_lines.rs: {e}");
    }
}
