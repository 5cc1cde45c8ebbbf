//! `libtenor_trace.so` (tools/trace) recorded for real, without a GPU: the test builds the
//! library, a fake `libcuda.so.1` and `libcudart.so` (the runtime reaching the driver only through
//! `dlopen` + `cuGetProcAddress_v2`, as NVIDIA's does) and a program that allocates through the
//! runtime, through driver symbols looked up with `dlsym`, and through `cuGetProcAddress_v2`
//! called directly, then runs it under `LD_PRELOAD` and reads the trace with Tenor's parser.
//! Needs gcc (CI has it: Rust links with it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use tenor_alloc::{Trace, TraceEvent, TraceOp};

fn build() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tenor-trace");
        let st = Command::new("bash")
            .arg(root.join("tools/trace/build.sh"))
            .arg(&out)
            .arg("--test")
            .status()
            .expect("run tools/trace/build.sh (needs bash and gcc)");
        assert!(st.success(), "tools/trace/build.sh failed: {st}");
        out
    })
}

fn prog(args: &[&str], trace: Option<&Path>) -> Output {
    let dir = build();
    let mut c = Command::new(dir.join("prog"));
    c.args(args).env("LD_LIBRARY_PATH", dir).current_dir(dir);
    if let Some(t) = trace {
        c.env("LD_PRELOAD", dir.join("libtenor_trace.so")).env("TENOR_TRACE_OUT", t);
    }
    c.output().expect("run the test program")
}

fn read(path: &Path) -> Trace {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Trace::parse(&text, &path.display().to_string()).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// (op, bytes, stream, job, thread) of each event, the fields the program determines.
fn shape(e: &TraceEvent) -> (TraceOp, usize, u64, u64, u32) {
    (e.op, e.bytes, e.stream, e.job, e.thread)
}

#[test]
fn every_runtime_and_driver_entry_point_is_recorded_once_with_jobs_and_threads() {
    let trace_path = build().join("run.trace");
    let _ = std::fs::remove_file(&trace_path);
    let plain = prog(&["run"], None);
    let traced = prog(&["run"], Some(&trace_path));
    assert!(plain.status.success(), "{plain:?}");
    // The program's behaviour is unchanged: same exit status, same output (a checksum over
    // every call's result and the memory it wrote).
    assert_eq!((traced.status.code(), &traced.stdout), (plain.status.code(), &plain.stdout), "{traced:?}");
    let t = read(&trace_path);
    use TraceOp::{Alloc, Fail, Free};
    // Main thread 0, in program order (tools/trace/test/prog.c, `run`): job 7 from
    // tenor_job_begin; the NVTX range opens job 1 and its close restores job 7.
    let main: Vec<_> = t.events.iter().filter(|e| e.thread == 0).map(shape).collect();
    let expected_main = vec![
        (Alloc, 1000, 0, 7, 0),    // cudaMalloc (recorded once, not again as cuMemAlloc_v2)
        (Alloc, 2048, 0x11, 7, 0), // cudaMallocAsync
        (Free, 2048, 0x11, 7, 0),  // cudaFreeAsync; cudaFree(NULL) is not an event
        (Alloc, 4096, 0x22, 1, 0), // cuMemAllocAsync from dlsym(libcuda handle)
        (Free, 4096, 0x22, 1, 0),  // cuMemFreeAsync from dlsym
        (Alloc, 8192, 0x33, 1, 0), // cuMemAllocFromPoolAsync_ptsz from cuGetProcAddress_v2
        (Free, 8192, 0x33, 1, 0),  //
        (Fail, 1 << 41, 0, 7, 0),  // refused cudaMalloc
        (Alloc, 300, 0x11, 7, 0),  // cudaMallocFromPoolAsync
        (Free, 300, 0x11, 7, 0),   //
        (Free, 1000, 0, 7, 0),     // cudaFree of the long-lived curve
    ];
    assert_eq!(main, expected_main);
    let worker: Vec<_> = t.events.iter().filter(|e| e.thread == 1).map(shape).collect();
    assert_eq!(worker, [(Alloc, 512, 0, 0, 1), (Free, 512, 0, 0, 1)].repeat(3));
    assert_eq!(t.events.len(), expected_main.len() + 6, "no other thread or event");
    // Blocks pair each free with its allocation (the parser checked liveness and sizes); the
    // curve's block spans the whole run.
    assert_eq!(t.events.first().map(|e| e.block), t.events.last().map(|e| e.block));
    assert_eq!(t.peak_live_bytes(), 1000 + 8192);
}

#[test]
fn sigterm_still_writes_the_trace_and_the_program_still_dies_by_the_signal() {
    use std::os::unix::process::ExitStatusExt;
    let trace_path = build().join("term.trace");
    let _ = std::fs::remove_file(&trace_path);
    let plain = prog(&["term"], None);
    let traced = prog(&["term"], Some(&trace_path));
    assert_eq!(plain.status.signal(), Some(15), "{plain:?}");
    assert_eq!(traced.status.signal(), Some(15), "the disposition is restored: {traced:?}");
    let t = read(&trace_path);
    assert_eq!(t.events.iter().map(shape).collect::<Vec<_>>(), [(TraceOp::Alloc, 100, 0, 0, 0)]);
    // Atomic write: no temporary file left beside the trace.
    let left: Vec<_> = std::fs::read_dir(build())
        .expect("list")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("term.trace.tmp."))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_forked_or_started_child_never_replaces_the_parents_trace() {
    let dir = build().join("fork");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let trace_path = dir.join("fork.trace");
    let plain = prog(&["fork"], None);
    let traced = prog(&["fork"], Some(&trace_path));
    assert_eq!(plain.stdout, b"ok child 0\n", "{plain:?}");
    assert_eq!((traced.status.code(), &traced.stdout), (plain.status.code(), &plain.stdout), "{traced:?}");
    use TraceOp::{Alloc, Free};
    let parent = read(&trace_path);
    assert_eq!(parent.events.iter().map(shape).collect::<Vec<_>>(), [(Alloc, 100, 0, 0, 0), (Free, 100, 0, 0, 0)]);
    // The forked child's own allocation, in a file of its own; `sh -c true` (started with the
    // interposer inherited, allocating nothing) wrote none.
    let mut others: Vec<_> = std::fs::read_dir(&dir)
        .expect("list")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p != &trace_path)
        .collect();
    assert_eq!(others.len(), 1, "{others:?}");
    let child = read(&others.remove(0));
    assert_eq!(child.events.iter().map(shape).collect::<Vec<_>>(), [(Alloc, 200, 0, 0, 0)]);
}
