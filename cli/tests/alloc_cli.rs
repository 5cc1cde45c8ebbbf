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

/// `tenor alloc record --out OUT -- ARGS` with the interposer of `dir`.
fn record(dir: &std::path::Path, out: &std::path::Path, args: &[&std::ffi::OsStr]) -> common::Run {
    run(tenor()
        .args(["alloc", "record", "--lib"])
        .arg(dir.join("libtenor_trace.so"))
        .arg("--out")
        .arg(out)
        .arg("--")
        .args(args)
        .env("LD_LIBRARY_PATH", dir))
}

/// The events a summary line "recorded N events ... -> PATH" counts, and the events in the file
/// it names.
fn counted_and_named(stderr: &str) -> (usize, usize) {
    let line = stderr.lines().find(|l| l.starts_with("recorded ")).unwrap_or_else(|| panic!("a summary: {stderr}"));
    let n: usize = line.split_whitespace().nth(1).and_then(|x| x.parse().ok()).expect("a count");
    let path = line.rsplit(" -> ").next().expect("a path");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    (n, tenor_alloc::Trace::parse(&text, path).expect("parses").events.len())
}

/// `tenor alloc record` reports only this run (issue 29): a program that writes no trace (killed)
/// or records nothing (`sh -c 'exit 3'`) is said to, and an earlier trace at --out is neither
/// reported as new nor replaced; under a wrapper (`bash -c "prog; true"`) the summary names the
/// file that holds the events it counts; an inherited `TENOR_TRACE_ROOT_PID` changes nothing.
#[test]
fn record_reports_this_run_only_and_names_the_file_it_counts() {
    let dir = out_dir("record-run");
    common::build_interposer(&dir);
    let prog = dir.join("prog");
    let out = dir.join("run.trace");
    let r = record(&dir, &out, &[prog.as_os_str(), "run".as_ref()]);
    assert!(r.success(), "{}", r.stderr);
    let earlier = std::fs::read(&out).expect("the first trace");
    for (args, code) in [(["-c", "exit 3"], 3), (["-c", "kill -9 $$"], 137)] {
        let r = record(&dir, &out, &["sh".as_ref(), args[0].as_ref(), args[1].as_ref()]);
        assert_eq!(r.code, code, "sh {args:?}: {}", r.stderr);
        assert!(
            !r.stderr.contains("recorded 17 events"),
            "sh {args:?}: the earlier trace reported as new: {}",
            r.stderr
        );
        assert!(r.stderr.contains("left as it was"), "sh {args:?}: {}", r.stderr);
        assert_eq!(std::fs::read(&out).expect("read"), earlier, "sh {args:?}: the earlier trace is kept");
    }
    // Under a wrapper the program's events are what the summary counts, in the file it names.
    let wrapped = dir.join("wrapped.trace");
    let script = format!("'{}' run; true", prog.display());
    let r = record(&dir, &wrapped, &["bash".as_ref(), "-c".as_ref(), script.as_ref()]);
    assert!(r.success(), "{}", r.stderr);
    assert_eq!(counted_and_named(&r.stderr), (17, 17), "{}", r.stderr);
    // An inherited root pid (a recording inside a recording) does not make the program a child.
    let nested = dir.join("nested.trace");
    let r = run(tenor()
        .args(["alloc", "record", "--lib"])
        .arg(dir.join("libtenor_trace.so"))
        .arg("--out")
        .arg(&nested)
        .arg("--")
        .arg(&prog)
        .arg("run")
        .env("LD_LIBRARY_PATH", &dir)
        .env("TENOR_TRACE_ROOT_PID", "1"));
    assert!(r.success(), "{}", r.stderr);
    assert_eq!(counted_and_named(&r.stderr), (17, 17), "{}", r.stderr);
    assert!(nested.exists());
}

#[test]
fn stats_prints_a_libtenor_allocator_file_and_names_the_place_of_bad_json() {
    let dir = out_dir("stats");
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("stats.json");
    // The shape tools/allocator writes (its contract test reads the same fields back).
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

/// Sizes read from a trace are limits, not allocations (issue 29): a two-line trace of
/// isize::MAX bytes replays and advises under a 2 GiB address-space limit, the request counted as
/// one simulated out-of-memory under every strategy (it used to back the whole simulated device
/// with host memory up front and abort). The limit is set in the child before `exec`.
#[cfg(unix)]
#[test]
fn an_isize_max_trace_replays_under_a_memory_limit_as_a_simulated_out_of_memory() {
    use std::os::unix::process::CommandExt;
    let dir = out_dir("limit");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let trace = dir.join("huge.trace");
    let b = isize::MAX;
    std::fs::write(&trace, format!("# tenor-alloc trace v1\ntime_ns,op,bytes,stream,job,block,thread\n1,alloc,{b},1,0,1,0\n2,free,{b},1,0,1,0\n"))
        .expect("write");
    for cmd in ["replay", "advise"] {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("tenor"));
        c.args(["alloc", cmd, "--trace"]).arg(&trace).arg("--out").arg(&dir);
        // SAFETY: only `setrlimit` (async-signal-safe) between fork and exec.
        unsafe {
            c.pre_exec(|| {
                let lim = libc::rlimit { rlim_cur: 2 << 30, rlim_max: 2 << 30 };
                if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let o = c.output().expect("tenor runs");
        let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        assert_eq!(o.status.code(), Some(0), "{cmd}: {:?}\n{out}\n{err}", o.status);
        if cmd == "replay" {
            let rows: Vec<&str> = out
                .lines()
                .filter(|l| ["pool ", "binning ", "arena ", "caching ", "slab "].iter().any(|k| l.starts_with(k)))
                .collect();
            assert_eq!(rows.len(), 5, "{out}");
            for r in rows {
                let fails: Vec<&str> = r.split_whitespace().collect();
                assert_eq!(fails[fails.len() - 2], "1", "one failed allocation: {r}");
            }
        } else {
            assert!(out.contains("1 allocation(s) failed under the pool"), "{out}");
        }
    }
}
