//! Shared by the `tenor` end-to-end tests (`mod common;` in each): run the binary and keep its
//! exit code, stdout and stderr.
// Each test crate uses its own subset of these helpers.
#![allow(dead_code)]

use assert_cmd::Command;

#[cfg(unix)]
pub mod serve;

/// What one run of the `tenor` binary gave.
#[derive(Debug)]
pub struct Run {
    /// The exit code; -1 when the process had none (killed by a signal).
    pub code: i32,
    /// Standard output, lossily decoded as UTF-8.
    pub stdout: String,
    /// Standard error, lossily decoded as UTF-8.
    pub stderr: String,
}

impl Run {
    /// Whether the command exited with code 0.
    pub fn success(&self) -> bool {
        self.code == 0
    }
}

/// The `tenor` binary built for these tests, with the environment of the test process.
pub fn tenor() -> Command {
    Command::cargo_bin("tenor").expect("binary")
}

/// Runs `cmd` to completion and collects its exit code, stdout and stderr.
///
/// # Panics
/// When the process cannot be started or its timeout (if set) expires.
pub fn run(cmd: &mut Command) -> Run {
    let out = cmd.output().expect("ran");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The trace interposer and the fake CUDA libraries and program of tools/trace, built into `dir`
/// with `tools/trace/build.sh DIR --test` (needs gcc).
pub fn build_interposer(dir: &std::path::Path) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let st = std::process::Command::new("bash")
        .arg(root.join("tools/trace/build.sh"))
        .arg(dir)
        .arg("--test")
        .status()
        .expect("tools/trace/build.sh");
    assert!(st.success(), "tools/trace/build.sh {}", dir.display());
}
