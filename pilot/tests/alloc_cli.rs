//! `tenor alloc`: the commands run end to end, write their charts, and name bad input.

mod common;

use common::{run, tenor};

fn out_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("tenor-alloc-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn replay_prints_every_strategy_and_writes_the_chart() {
    let dir = out_dir("replay");
    let out = run(tenor()
        .args(["alloc", "replay", "--jobs", "30", "--out"])
        .arg(&dir)
        .arg("--save-trace")
        .arg(dir.join("desk.trace")));
    let text = &out.stdout;
    assert!(out.success(), "{text}\n{}", out.stderr);
    for s in ["pool", "binning", "arena", "caching", "slab"] {
        assert!(text.lines().any(|l| l.starts_with(s)), "no row for {s}:\n{text}");
    }
    let svg = std::fs::read_to_string(dir.join("reserved_used.svg")).expect("chart written");
    assert!(svg.starts_with("<svg") && svg.contains("slab reserved"));
    // The saved trace replays from the file.
    tenor().args(["alloc", "advise", "--trace"]).arg(dir.join("desk.trace")).assert().success();
}

#[test]
fn profile_writes_the_size_histogram_and_bad_traces_name_the_line() {
    let dir = out_dir("profile");
    tenor().args(["alloc", "profile", "--jobs", "20", "--out"]).arg(&dir).assert().success();
    assert!(std::fs::read_to_string(dir.join("size_histogram.svg")).expect("chart").starts_with("<svg"));
    let bad = dir.join("bad.trace");
    std::fs::write(&bad, "# tenor-alloc trace v1\n1,alloc,64,1,0,1,0\n2,free,64,1,0,7,0\n").expect("write");
    let out = run(tenor().args(["alloc", "profile", "--trace"]).arg(&bad));
    assert!(!out.success());
    let err = &out.stderr;
    assert!(err.contains("bad.trace:3:6") && err.contains("not live"), "{err}");

    // A trace with no allocations gets an error, not advice about nothing.
    let empty = dir.join("empty.trace");
    std::fs::write(&empty, "# tenor-alloc trace v1\ntime_ns,op,bytes,stream,job,block,thread\n").expect("write");
    for cmd in ["profile", "advise", "replay"] {
        let out = run(tenor().args(["alloc", cmd, "--trace"]).arg(&empty));
        assert!(!out.success(), "{cmd}");
        let err = &out.stderr;
        assert!(err.contains("empty.trace") && err.contains("no alloc events"), "{cmd}: {err}");
    }
}
