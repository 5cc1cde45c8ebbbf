//! `tenor alloc record -- COMMAND ...`: runs an unmodified program with `libtenor_trace.so`
//! preloaded (tools/trace, docs/allocators.md "Recording any program") and summarises the trace
//! it wrote.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context;
use tenor_alloc::{Trace, TraceOp};

use crate::report::Report;

/// A program to record ([`record`]).
#[derive(Debug, Clone)]
pub struct RecordRequest {
    /// Trace file to write (`tenor-alloc trace v1`; written atomically at the program's exit or
    /// on SIGINT/SIGTERM).
    pub out: PathBuf,
    /// The interposer library; else `TENOR_TRACE_LIB`, else `libtenor_trace.so` beside the
    /// running executable (build it with `tools/trace/build.sh DIR`).
    pub lib: Option<PathBuf>,
    /// The program and its arguments.
    pub command: Vec<OsString>,
}

/// Finds the interposer: `--lib`, else `TENOR_TRACE_LIB`, else beside the executable. A path
/// given explicitly must exist; it is never silently replaced by another.
fn find_lib(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    let explicit = given
        .map(|p| ("lib", p.to_path_buf()))
        .or_else(|| std::env::var_os("TENOR_TRACE_LIB").map(|p| ("TENOR_TRACE_LIB", PathBuf::from(p))));
    let (source, path) = match explicit {
        Some(found) => found,
        None => {
            let exe = std::env::current_exe().context("locating the tenor executable")?;
            ("beside the tenor executable", exe.with_file_name("libtenor_trace.so"))
        }
    };
    if !path.is_file() {
        anyhow::bail!(
            "{source}: {} is not a file (build libtenor_trace.so with tools/trace/build.sh DIR)",
            path.display()
        );
    }
    std::path::absolute(&path).with_context(|| format!("{source}: {}", path.display()))
}

/// One trace file the run wrote: the program's own (`pid` `None`) or one of a process it
/// started (`OUT.<pid>`), with its events.
struct Written {
    pid: Option<u32>,
    text: String,
    trace: Trace,
}

/// The traces in the staging folder `stage`: `trace` (the program's) and `trace.<pid>` (of
/// processes it started, written only when they recorded events).
fn collect(stage: &Path) -> anyhow::Result<Vec<Written>> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(stage).with_context(|| format!("reading {}", stage.display()))? {
        let e = e.with_context(|| format!("reading {}", stage.display()))?;
        let name = e.file_name().to_string_lossy().into_owned();
        let pid = match name.strip_prefix("trace") {
            Some("") => None,
            Some(rest) => match rest.strip_prefix('.').and_then(|p| p.parse().ok()) {
                Some(p) => Some(p),
                None => continue, // a temporary file of a writer that was killed
            },
            None => continue,
        };
        let text = std::fs::read_to_string(e.path()).with_context(|| format!("reading {}", e.path().display()))?;
        let trace = Trace::parse(&text, &name)?;
        found.push(Written { pid, text, trace });
    }
    found.sort_by_key(|w| w.pid);
    Ok(found)
}

/// `out` with `.<pid>` appended (a started process's trace beside the program's).
fn beside(out: &Path, pid: u32) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(format!(".{pid}"));
    PathBuf::from(s)
}

/// Removes a staging folder when dropped.
struct Stage(PathBuf);

impl Drop for Stage {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the program of `args` with the interposer preloaded and summarises its trace; the
/// report's exit status is the program's (128 + signal when a signal ended it).
///
/// The interposer writes into a folder of this run only (created exclusively beside `out`, mode
/// 0700), so a trace is this run's or none (an earlier trace at `out` is never reported as new),
/// and the traces of processes the program started are found too. The program's trace, or,
/// when the program made no device allocation itself (a wrapper such as `bash -c "prog; true"`),
/// the one process's that did, becomes `out`; other processes' traces go to `out.<pid>`. The
/// summary names the file whose events it counts. A run that recorded no event leaves `out` as
/// it was and says so. `TENOR_TRACE_ROOT_PID` is not passed on, so a recording inside a
/// recording starts afresh.
///
/// # Errors
/// No interposer, a program that cannot start, a malformed trace, an unwritable `out`.
pub fn record(args: &RecordRequest) -> anyhow::Result<Report> {
    let mut report = Report::default();
    let lib = find_lib(args.lib.as_deref())?;
    let out = std::path::absolute(&args.out)
        .with_context(|| format!("{} {}", crate::words::setting("out"), args.out.display()))?;
    let dir = out.parent().unwrap_or(Path::new("/"));
    let name = out.file_name().map_or_else(|| "trace".into(), |n| n.to_string_lossy().into_owned());
    let stage = Stage(
        tenor_ports::files::exclusive::create_dir_in(dir, &format!(".{name}.tenor-tmp-"), 0o700)
            .with_context(|| format!("creating a folder for the trace beside {}", out.display()))?,
    );
    let mut preload = lib.clone().into_os_string();
    if let Some(old) = std::env::var_os("LD_PRELOAD").filter(|v| !v.is_empty()) {
        preload.push(":");
        preload.push(old);
    }
    let (program, rest) = args.command.split_first().context("no command given after --")?;
    let status = Command::new(program)
        .args(rest)
        .env("LD_PRELOAD", preload)
        .env("TENOR_TRACE_OUT", stage.0.join("trace"))
        .env_remove("TENOR_TRACE_ROOT_PID")
        .status()
        .with_context(|| format!("starting {}", Path::new(program).display()))?;
    use std::os::unix::process::ExitStatusExt;
    let code = status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
    let how = match status.signal() {
        Some(sig) => format!("killed by signal {sig}"),
        None => format!("exit status {code}"),
    };
    report.code = u8::try_from(code).unwrap_or(1);
    let mut written = collect(&stage.0)?;
    if written.is_empty() {
        report.warn(format!("the program wrote no trace ({how}); {} left as it was", out.display()));
        return Ok(report);
    }
    // The program's own trace when it recorded events, else the only started process's that did.
    let with_events: Vec<usize> = (0..written.len()).filter(|&k| !written[k].trace.events.is_empty()).collect();
    let main = match with_events.as_slice() {
        [] => {
            report.warn(format!("the program recorded no device allocation ({how}); {} left as it was", out.display()));
            return Ok(report);
        }
        v => v.iter().copied().find(|&k| written[k].pid.is_none()).unwrap_or(v[0]),
    };
    let main = written.remove(main);
    tenor_ports::files::write_atomic(&out, main.text.as_bytes())?;
    let trace = &main.trace;
    let count = |t: &Trace, op| t.events.iter().filter(|e| e.op == op).count();
    report.warn(format!(
        "recorded {} events ({} alloc, {} free, {} fail) on {} streams, peak live {} bytes -> {}",
        trace.events.len(),
        count(trace, TraceOp::Alloc),
        count(trace, TraceOp::Free),
        count(trace, TraceOp::Fail),
        trace.streams().len(),
        trace.peak_live_bytes(),
        out.display()
    ));
    if let Some(pid) = main.pid {
        report.warn(format!(
            "(the trace of process {pid}, which the program started; the program itself made no device allocation)"
        ));
    }
    for w in written.iter().filter(|w| !w.trace.events.is_empty()) {
        let Some(pid) = w.pid else { continue };
        let to = beside(&out, pid);
        tenor_ports::files::write_atomic(&to, w.text.as_bytes())?;
        report.warn(format!("also {} events of process {pid} -> {}", w.trace.events.len(), to.display()));
    }
    Ok(report)
}
