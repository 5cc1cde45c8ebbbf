//! The committed example book is exactly what `tenor book spx` builds from the committed data.
use std::path::PathBuf;

mod common;

use common::{run, tenor};

#[test]
fn committed_spx_book_is_reproducible() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("spx_book");
    std::fs::create_dir_all(&tmp).expect("tmp");
    let out = run(tenor()
        .current_dir(&root)
        .args(["book", "spx", "--out"])
        .arg(tmp.join("book.csv"))
        .arg("--misses")
        .arg(tmp.join("misses.csv")));
    assert!(out.success(), "{}", out.stderr);
    let stdout = &out.stdout;
    assert!(stdout.contains("spot 6711.2002"), "{stdout}");
    assert!(stdout.contains("Treasury par curve of 2025-07-11"), "{stdout}");
    for (built, committed) in
        [("book.csv", "examples/spx_book.csv"), ("misses.csv", "examples/spx_book_bid_ask_misses.csv")]
    {
        let a = std::fs::read_to_string(tmp.join(built)).expect("built");
        let b = std::fs::read_to_string(root.join(committed)).expect("committed file");
        assert!(a == b, "{committed} differs from what `tenor book spx` builds; rerun it");
    }
}

/// Output into a pipe whose reader has gone (`tenor book spx | head -0`) ends quietly: no panic
/// message from `println!` on the broken pipe.
#[test]
fn closed_stdout_pipe_is_not_a_panic() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("spx_book_pipe");
    std::fs::create_dir_all(&tmp).expect("tmp");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tenor"))
        .current_dir(&root)
        .args(["book", "spx", "--out"])
        .arg(tmp.join("book.csv"))
        .arg("--misses")
        .arg(tmp.join("misses.csv"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawned");
    // Close the reading end before the command prints its summary.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("ran");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.contains("Broken pipe"), "{stderr}");
}
