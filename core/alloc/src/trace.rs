//! Allocation traces: the event format, its parser and writer, and the recording adaptor.
//!
//! # Format (`tenor-alloc trace v1`)
//! A text file, one event per line, comma-separated, after the header lines
//! `# tenor-alloc trace v1` and `time_ns,op,bytes,stream,job,block,thread`:
//!
//! | field | meaning |
//! | --- | --- |
//! | `time_ns` | nanoseconds since recording started (host clock) |
//! | `op` | `alloc`, `free`, or `fail` (an allocation the allocator refused) |
//! | `bytes` | bytes requested (for `free`: those of the allocation being freed) |
//! | `stream` | id of the stream passed to the call |
//! | `job` | the thread's job ([`crate::JobScope`]; 0: none) |
//! | `block` | allocation id ([`tenor_ports::Block::id`]) matching a `free` to its `alloc`; 0 for `fail` |
//! | `thread` | index of the calling host thread in first-use order |
//!
//! Lines starting with `#` are comments. RMM's `logging_resource_adaptor` CSV (Thread, Time,
//! Action, Pointer, Size, Stream) is the model; ids instead of pointers make the trace
//! independent of the allocator that recorded it.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use thiserror::Error;

use tenor_ports::{AllocError, AllocReport, Allocator, Block, Stream};

use crate::job::current_job;
use crate::order::{lock, thread_index, FastMap};

/// The header line naming the format.
pub const TRACE_HEADER: &str = "# tenor-alloc trace v1";
/// The column line.
pub const TRACE_COLUMNS: &str = "time_ns,op,bytes,stream,job,block,thread";
/// The largest `bytes` a trace line may carry: `isize::MAX`, the largest object size Rust
/// allows (`std::alloc::Layout`) and more than any device holds. A larger value cannot come
/// from a real recording and is refused by [`Trace::parse`] (a request that fits the limit but
/// not the device replays as a failed allocation).
pub const MAX_TRACE_BYTES: usize = isize::MAX as usize;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TraceOp {
    /// An allocation.
    Alloc,
    /// A free.
    Free,
    /// A refused allocation.
    Fail,
}

impl TraceOp {
    /// The op's name in the format.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Alloc => "alloc",
            Self::Free => "free",
            Self::Fail => "fail",
        }
    }
}

/// One line of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceEvent {
    /// Nanoseconds since recording started.
    pub time_ns: u64,
    /// The operation.
    pub op: TraceOp,
    /// Bytes requested.
    pub bytes: usize,
    /// Stream id.
    pub stream: u64,
    /// Job (0: none).
    pub job: u64,
    /// Allocation id (0 for `fail`).
    pub block: u64,
    /// Host thread index.
    pub thread: u32,
}

/// A parse error naming the origin, line and column (1-based).
#[derive(Debug, Error, PartialEq, Eq)]
#[error("{origin}:{line}:{column}: {message}")]
pub struct TraceError {
    /// File name or other origin of the text.
    pub origin: String,
    /// Line number.
    pub line: usize,
    /// Column number (1-based field index).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// A sequence of allocation events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    /// Events in recording order.
    pub events: Vec<TraceEvent>,
}

impl Trace {
    /// The trace in the `tenor-alloc trace v1` format.
    pub fn to_text(&self) -> String {
        let mut s = String::with_capacity(48 * (self.events.len() + 2));
        s.push_str(TRACE_HEADER);
        s.push('\n');
        s.push_str(TRACE_COLUMNS);
        s.push('\n');
        for e in &self.events {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{}",
                e.time_ns,
                e.op.as_str(),
                e.bytes,
                e.stream,
                e.job,
                e.block,
                e.thread
            );
        }
        s
    }

    /// Parses a trace; `origin` names the source in errors.
    ///
    /// # Errors
    /// [`TraceError`] at the first malformed line: wrong field count, a field that is not a
    /// number, an unknown op, a `time_ns` earlier than the line before (a recording is in time
    /// order), an `alloc` with block id 0 or an id that is still live, a `free` of an id with
    /// no live `alloc` or with other bytes than its `alloc`, a `bytes` above [`MAX_TRACE_BYTES`],
    /// or live allocations that together exceed the address space. A leading UTF-8 byte order
    /// mark is skipped.
    pub fn parse(text: &str, origin: &str) -> Result<Self, TraceError> {
        let mut events: Vec<TraceEvent> = Vec::new();
        let mut live: FastMap<u64, usize> = FastMap::default();
        let mut live_bytes = 0usize;
        // The one line reader: LF, CRLF and bare CR end a line alike.
        for raw in tenor_ports::text::lines(tenor_ports::text::strip_bom(text)) {
            let line = raw.text.trim();
            let err = |column: usize, message: String| TraceError {
                origin: origin.into(),
                line: raw.number,
                column,
                message,
            };
            if line.is_empty() || line.starts_with('#') || line == TRACE_COLUMNS {
                continue;
            }
            let f: Vec<&str> = line.split(',').map(str::trim).collect();
            if f.len() != 7 {
                return Err(err(1, format!("expected 7 fields ({TRACE_COLUMNS}), found {}", f.len())));
            }
            let num = |k: usize, name: &str| -> Result<u64, TraceError> {
                f[k].parse::<u64>().map_err(|e| {
                    let shown = tenor_ports::text::excerpt(f[k]);
                    err(k + 1, format!("{name} `{shown}` is not a non-negative integer: {e}"))
                })
            };
            let op = match f[1] {
                "alloc" => TraceOp::Alloc,
                "free" => TraceOp::Free,
                "fail" => TraceOp::Fail,
                other => {
                    let shown = tenor_ports::text::excerpt(other);
                    return Err(err(2, format!("unknown op `{shown}` (alloc, free or fail)")));
                }
            };
            let e = TraceEvent {
                time_ns: num(0, "time_ns")?,
                op,
                bytes: usize::try_from(num(2, "bytes")?).ok().filter(|&b| b <= MAX_TRACE_BYTES).ok_or_else(|| {
                    err(
                        3,
                        format!(
                            "bytes `{}` is above {MAX_TRACE_BYTES} (isize::MAX, the largest allocation any \
                                 allocator can grant)",
                            tenor_ports::text::excerpt(f[2])
                        ),
                    )
                })?,
                stream: num(3, "stream")?,
                job: num(4, "job")?,
                block: num(5, "block")?,
                thread: u32::try_from(num(6, "thread")?).map_err(|e| err(7, e.to_string()))?,
            };
            if let Some(prev) = events.last().filter(|p| p.time_ns > e.time_ns) {
                return Err(err(
                    1,
                    format!("time_ns {} is earlier than the previous event's {}", e.time_ns, prev.time_ns),
                ));
            }
            match op {
                TraceOp::Alloc => {
                    if e.block == 0 {
                        return Err(err(6, "an alloc needs a block id other than 0".into()));
                    }
                    if live.insert(e.block, e.bytes).is_some() {
                        return Err(err(6, format!("block {} allocated again while live", e.block)));
                    }
                    live_bytes = live_bytes.checked_add(e.bytes).ok_or_else(|| {
                        err(3, format!("live allocations exceed {} bytes (the address space)", usize::MAX))
                    })?;
                }
                TraceOp::Free => match live.remove(&e.block) {
                    None => return Err(err(6, format!("free of block {} which is not live", e.block))),
                    Some(bytes) if bytes != e.bytes => {
                        return Err(err(
                            3,
                            format!("free of block {} with {} bytes; it was allocated with {bytes}", e.block, e.bytes),
                        ))
                    }
                    Some(bytes) => live_bytes = live_bytes.saturating_sub(bytes),
                },
                TraceOp::Fail => {}
            }
            events.push(e);
        }
        Ok(Self { events })
    }

    /// Distinct streams in first-appearance order.
    pub fn streams(&self) -> Vec<u64> {
        // A set beside the list: linear in the events, not in events times streams.
        let mut seen = std::collections::HashSet::new();
        self.events.iter().map(|e| e.stream).filter(|s| seen.insert(*s)).collect()
    }

    /// Peak of the bytes requested by live allocations (saturating at `usize::MAX`; a parsed
    /// trace never reaches it).
    pub fn peak_live_bytes(&self) -> usize {
        let (mut cur, mut peak) = (0usize, 0usize);
        for e in &self.events {
            match e.op {
                TraceOp::Alloc => {
                    cur = cur.saturating_add(e.bytes);
                    peak = peak.max(cur);
                }
                TraceOp::Free => cur = cur.saturating_sub(e.bytes),
                TraceOp::Fail => {}
            }
        }
        peak
    }
}

/// An adaptor that records every call into a [`Trace`].
#[derive(Debug)]
pub struct Recorder {
    inner: Arc<dyn Allocator>,
    start: Instant,
    state: Mutex<RecState>,
}

#[derive(Debug, Default)]
struct RecState {
    events: Vec<TraceEvent>,
    requested: FastMap<u64, usize>,
}

impl Recorder {
    /// Records calls to `inner`.
    pub fn new(inner: Arc<dyn Allocator>) -> Self {
        Self { inner, start: Instant::now(), state: Mutex::new(RecState::default()) }
    }
    /// The trace so far.
    pub fn trace(&self) -> Trace {
        Trace { events: lock(&self.state).events.clone() }
    }
    fn push(&self, st: &mut RecState, op: TraceOp, bytes: usize, stream: &Stream, block: u64) {
        st.events.push(TraceEvent {
            time_ns: u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX),
            op,
            bytes,
            stream: stream.id(),
            job: current_job(),
            block,
            thread: u32::try_from(thread_index()).unwrap_or(u32::MAX),
        });
    }
}

// SAFETY: blocks come from this allocator's upstream (or its own slabs) and are handed out

// once until freed, as the trait's contract asks.

unsafe impl Allocator for Recorder {
    fn name(&self) -> &str {
        "recorder"
    }
    fn allocate(&self, bytes: usize, stream: &Stream) -> Result<Block, AllocError> {
        let r = self.inner.allocate(bytes, stream);
        let mut st = lock(&self.state);
        match &r {
            Ok(b) => {
                st.requested.insert(b.id, bytes);
                self.push(&mut st, TraceOp::Alloc, bytes, stream, b.id);
            }
            Err(_) => self.push(&mut st, TraceOp::Fail, bytes, stream, 0),
        }
        r
    }
    unsafe fn deallocate(&self, block: Block, stream: &Stream) -> Result<(), AllocError> {
        // SAFETY: this method's contract (the caller owns `block`), passed on unchanged.
        unsafe { self.inner.deallocate(block, stream) }?;
        let mut st = lock(&self.state);
        let bytes = st.requested.remove(&block.id).unwrap_or(block.size);
        self.push(&mut st, TraceOp::Free, bytes, stream, block.id);
        Ok(())
    }
    fn report(&self) -> AllocReport {
        self.inner.report()
    }
    fn reset_peaks(&self) {
        self.inner.reset_peaks();
    }
    fn trim(&self, keep_bytes: usize) -> Result<(), AllocError> {
        self.inner.trim(keep_bytes)
    }
}
