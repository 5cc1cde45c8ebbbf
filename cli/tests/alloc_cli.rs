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

/// `--sync-every 0` and `--jobs 0` are refused naming the flag (they used to exit 0 with
/// nonsense figures such as `res/used 33554432.000`).
#[test]
fn zero_sync_every_and_zero_jobs_are_refused_naming_the_flag() {
    for (args, flag) in [
        (&["alloc", "replay", "--sync-every", "0"][..], "--sync-every"),
        (&["alloc", "profile", "--source", "pricing", "--jobs", "0"][..], "--jobs"),
        (&["alloc", "advise", "--jobs", "0"][..], "--jobs"),
    ] {
        let o = run(tenor().args(args).arg("--out").arg(out_dir("zero")));
        let err = &o.stderr;
        assert!(!o.success(), "{args:?} accepted: {}", o.stdout);
        assert!(err.contains(flag) && err.contains("at least 1"), "{args:?}: {err}");
    }
}

/// A trace with 2^64 - 1 bytes is refused naming file, line and column; one with a leading
/// UTF-8 byte order mark replays.
#[test]
fn absurd_sizes_are_refused_and_a_byte_order_mark_is_skipped() {
    let dir = out_dir("absurd");
    std::fs::create_dir_all(&dir).expect("dir");
    let head = "# tenor-alloc trace v1\ntime_ns,op,bytes,stream,job,block,thread\n";
    let huge = dir.join("t.trace");
    std::fs::write(&huge, format!("{head}0,alloc,18446744073709551615,1,0,1,0\n")).expect("write");
    let o = run(tenor().args(["alloc", "replay", "--trace"]).arg(&huge).arg("--out").arg(&dir));
    assert!(!o.success(), "{}", o.stdout);
    assert!(o.stderr.contains("t.trace:3:3") && o.stderr.contains("isize::MAX"), "{}", o.stderr);
    let bom = dir.join("t_bom.trace");
    std::fs::write(&bom, format!("\u{feff}{head}0,alloc,1024,1,0,1,0\n1,free,1024,1,0,1,0\n")).expect("write");
    let o = run(tenor().args(["alloc", "profile", "--trace"]).arg(&bom).arg("--out").arg(&dir));
    assert!(o.success(), "{}", o.stderr);
    assert!(o.stdout.contains("allocations       1 (1 freed)"), "{}", o.stdout);
}

#[test]
fn record_runs_a_program_under_the_interposer_and_passes_its_exit_status_on() {
    // The interposer and the fake CUDA libraries of tools/trace, built here (needs gcc).
    let dir = out_dir("record");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let st = std::process::Command::new("bash")
        .arg(root.join("tools/trace/build.sh"))
        .arg(&dir)
        .arg("--test")
        .status()
        .expect("tools/trace/build.sh");
    assert!(st.success());
    let trace = dir.join("run.trace");
    let out = run(tenor()
        .args(["alloc", "record", "--lib"])
        .arg(dir.join("libtenor_trace.so"))
        .arg("--out")
        .arg(&trace)
        .arg("--")
        .arg(dir.join("prog"))
        .arg("run")
        .env("LD_LIBRARY_PATH", &dir));
    assert!(out.success(), "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.starts_with("ok "), "the program's own output passes through: {}", out.stdout);
    // 11 events on the main thread and 6 on the worker (core/alloc/tests/preload.rs lists them).
    assert!(out.stderr.contains("recorded 17 events (8 alloc, 8 free, 1 fail)"), "{}", out.stderr);
    let text = std::fs::read_to_string(&trace).expect("trace written");
    assert_eq!(tenor_alloc::Trace::parse(&text, "run.trace").expect("parses").events.len(), 17);
    // A program killed by SIGTERM: its trace is still written, the status is 128 + 15.
    let out = run(tenor()
        .args(["alloc", "record", "--lib"])
        .arg(dir.join("libtenor_trace.so"))
        .arg("--out")
        .arg(dir.join("term.trace"))
        .arg("--")
        .arg(dir.join("prog"))
        .arg("term")
        .env("LD_LIBRARY_PATH", &dir));
    assert_eq!(out.code, 143, "{}", out.stderr);
    assert!(out.stderr.contains("recorded 1 events (1 alloc"), "{}", out.stderr);
    // A missing interposer is named.
    let out = run(tenor().args(["alloc", "record", "--lib", "/nonexistent/libtenor_trace.so", "--", "true"]));
    assert!(!out.success() && out.stderr.contains("/nonexistent/libtenor_trace.so"), "{}", out.stderr);
}

#[test]
fn stats_prints_a_libtenor_alloc_file_and_names_the_place_of_bad_json() {
    let dir = out_dir("stats");
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("stats.json");
    // The shape tools/alloc writes (its contract test reads the same fields back).
    std::fs::write(&file, r#"{"strategy":"binning","allocs":5,"peak_used":2097152,"peak_reserved":4194304}"#)
        .expect("write");
    let out = run(tenor().args(["alloc", "stats"]).arg(&file));
    assert!(out.success(), "{}", out.stderr);
    assert!(out.stdout.contains("peak_reserved        4194304 (4.0 MiB)"), "{}", out.stdout);
    assert!(out.stdout.contains("reserved/used        2.000"), "{}", out.stdout);
    std::fs::write(&file, "{\n  \"allocs\": 5,\n  oops\n}").expect("write");
    let out = run(tenor().args(["alloc", "stats"]).arg(&file));
    assert!(!out.success());
    assert!(out.stderr.contains("stats.json:3:3"), "{}", out.stderr);
}
