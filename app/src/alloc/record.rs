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

/// Runs the program of `args` with the interposer preloaded and summarises its trace; the
/// report's exit status is the program's (128 + signal when a signal ended it).
///
/// # Errors
/// No interposer, a program that cannot start, no trace written, a malformed trace.
pub fn record(args: &RecordRequest) -> anyhow::Result<Report> {
    let mut report = Report::default();
    let lib = find_lib(args.lib.as_deref())?;
    let out = std::path::absolute(&args.out)
        .with_context(|| format!("{} {}", crate::words::setting("out"), args.out.display()))?;
    let mut preload = lib.clone().into_os_string();
    if let Some(old) = std::env::var_os("LD_PRELOAD").filter(|v| !v.is_empty()) {
        preload.push(":");
        preload.push(old);
    }
    let (program, rest) = args.command.split_first().context("no command given after --")?;
    let status = Command::new(program)
        .args(rest)
        .env("LD_PRELOAD", preload)
        .env("TENOR_TRACE_OUT", &out)
        .status()
        .with_context(|| format!("starting {}", Path::new(program).display()))?;
    let code = status.code().unwrap_or_else(|| {
        use std::os::unix::process::ExitStatusExt;
        128 + status.signal().unwrap_or(0)
    });
    let text = std::fs::read_to_string(&out)
        .with_context(|| format!("{}: the program wrote no trace (exit status {code})", out.display()))?;
    let trace = Trace::parse(&text, &out.display().to_string())?;
    let count = |op| trace.events.iter().filter(|e| e.op == op).count();
    report.warn(format!(
        "recorded {} events ({} alloc, {} free, {} fail) on {} streams, peak live {} bytes -> {}",
        trace.events.len(),
        count(TraceOp::Alloc),
        count(TraceOp::Free),
        count(TraceOp::Fail),
        trace.streams().len(),
        trace.peak_live_bytes(),
        out.display()
    ));
    report.code = u8::try_from(code).unwrap_or(1);
    Ok(report)
}
