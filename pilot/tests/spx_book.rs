//! The committed example book is exactly what `tenor book spx` builds from the committed data.
use std::path::PathBuf;

use assert_cmd::Command;

#[test]
fn committed_spx_book_is_reproducible() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("spx_book");
    std::fs::create_dir_all(&tmp).expect("tmp");
    let out = Command::cargo_bin("tenor")
        .expect("binary")
        .current_dir(&root)
        .args(["book", "spx", "--out"])
        .arg(tmp.join("book.csv"))
        .arg("--misses")
        .arg(tmp.join("misses.csv"))
        .output()
        .expect("ran");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
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
