//! Running a book: open the backend (or use a resident one), read, price, write the rows, and
//! the figures of the summary. One copy for `tenor price` and `tenor serve` (ADR 0026).

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use tenor_ports::{Compute, Devices, Progress};
use tenor_pricing::portfolio::{self, BookSharding, ParsedPortfolio};

use super::collect::{price_parsed, price_parsed_sharded, PricedBook};
use super::open::{self, Exit, OpenBackend};
use super::request::BookRequest;
use super::summary::Summary;

/// Where the backend of [`run_book`] comes from.
#[derive(Clone, Copy)]
pub enum Source<'a> {
    /// Opened by this call: a single backend on a thread beside the read, a selector of several
    /// devices (`cuda:*`, `sim:0..3`) before it.
    Open,
    /// Already open in a resident server (`tenor serve`); the portfolio's bytes as the client
    /// read them (the server never opens a client's file).
    Resident(&'a Resident, &'a [u8]),
}

/// A backend kept open by `tenor serve` between requests.
pub struct Resident {
    /// The selector it was opened with.
    pub selector: String,
    /// Its devices (one, or several for a selector such as `cuda:*`).
    pub devices: Devices,
    /// How long opening it took at the server's start.
    pub open_time: Duration,
}

/// The rows' file: written in full, then committed (renamed over the target by this process, or
/// by the server's client); dropped without a commit, the target is unchanged.
pub trait OutFile: Write {
    /// The target as the user named it.
    fn path(&self) -> &Path;
    /// Makes the written bytes the target's content.
    ///
    /// # Errors
    /// The write, sync or rename failed (naming the target); the target is unchanged.
    fn commit(self: Box<Self>) -> anyhow::Result<()>;
}

impl OutFile for tenor_ports::files::AtomicFile {
    fn path(&self) -> &Path {
        tenor_ports::files::AtomicFile::path(self)
    }
    fn commit(self: Box<Self>) -> anyhow::Result<()> {
        Ok(tenor_ports::files::AtomicFile::commit(*self)?)
    }
}

/// The standard output and error of one book (a process's own, or frames to a server's client).
pub struct Streams<'a> {
    /// Rows without an output file; the summary with one.
    pub out: &'a mut dyn Write,
    /// The summary without an output file; every error line.
    pub err: &'a mut dyn Write,
}

/// A priced book and what it took ([`run_book`]).
pub struct BookRun {
    /// The portfolio's name as messages give it.
    pub file: String,
    /// The portfolio as read.
    pub parsed: ParsedPortfolio,
    /// Its rows and problems.
    pub book: PricedBook,
    /// The split over devices, when several priced it.
    pub split: Option<BookSharding>,
    /// Labels of the devices that priced it (empty for one device).
    pub device_labels: Vec<String>,
    /// The devices of a selector of several, kept open until the run is dropped.
    pub devices: Option<Devices>,
    /// The backend (the first device of a selector).
    pub compute: Arc<dyn Compute>,
    /// Opening the backend (here, or once when the server started).
    pub open_time: Duration,
    /// What the read did not hide of the opening.
    pub open_wait: Duration,
    /// Reading and parsing the portfolio.
    pub read_time: Duration,
    /// Pricing.
    pub pricing_time: Duration,
    /// Whether the backend was resident (a server's).
    pub resident: Option<(String, u32)>,
}

/// What writing the rows did ([`BookRun::write_rows`]).
pub struct Written {
    /// Formatting, syncing and renaming.
    pub time: Duration,
    /// Set when an output file was left as it was (no row priced).
    pub kept_note: Option<String>,
}

/// What [`price_book`] ended with.
pub struct Outcome {
    /// Exit status: 0, or 1 when a row or the header was rejected.
    pub code: u8,
    /// Whether the backend was left to the operating system (the door must end the process
    /// without running destructors: [`open::exit_now`]).
    pub exit_now: bool,
}

/// Opens (or takes) the backend, reads the portfolio of `req` and prices it, reporting each
/// trade priced to `progress`.
///
/// # Errors
/// An unreadable portfolio, an unavailable backend, a setting out of range
/// ([`tenor_pricing::portfolio::SettingError`], wrapped). Bad rows are not errors: they are in
/// the returned book.
pub fn run_book(req: &BookRequest, source: Source<'_>, progress: &dyn Progress) -> anyhow::Result<BookRun> {
    let opened = open_and_read(req, source)?;
    let config = req.config();
    config.check()?;
    let (parsed, compute, devices, open_time, open_wait, read_time) = opened;
    progress.start(parsed.trades.len() as u64);
    let pricing = Instant::now();
    let run = portfolio::BookRun { batch: req.batch };
    let (book, split) = match &devices {
        Some(set) => {
            let (book, split) = price_parsed_sharded(set, &parsed, &req.portfolio, &config, &run, &|done| {
                progress.set(done as u64);
            });
            (book, Some(split))
        }
        None => {
            let book = price_parsed(compute.as_ref(), &parsed, &req.portfolio, &config, &run, &mut |done| {
                progress.set(done as u64);
            });
            (book, None)
        }
    };
    let pricing_time = pricing.elapsed();
    progress.finish();
    let device_labels = devices.as_ref().map(|d| d.labels().to_vec()).unwrap_or_default();
    let resident = match source {
        Source::Open => None,
        Source::Resident(r, _) => Some((r.selector.clone(), std::process::id())),
    };
    Ok(BookRun {
        file: req.portfolio.display().to_string(),
        parsed,
        book,
        split,
        device_labels,
        devices,
        compute,
        open_time,
        open_wait,
        read_time,
        pricing_time,
        resident,
    })
}

type Opened = (ParsedPortfolio, Arc<dyn Compute>, Option<Devices>, Duration, Duration, Duration);

/// The portfolio read while the backend opens on a thread of its own (opening CUDA is context
/// creation, a few hundred milliseconds; reading 40,000 rows is tens of milliseconds: the two
/// overlap and `open_wait` is what the read did not hide). A selector of several devices opens
/// them all before the read; a resident server's backend is open already.
fn open_and_read(req: &BookRequest, source: Source<'_>) -> anyhow::Result<Opened> {
    let name = req.backend.as_str();
    match source {
        Source::Open => {
            let several = tenor_registry::Selector::parse(name).is_ok_and(|sel| {
                matches!(sel.devices, tenor_registry::DeviceSet::All | tenor_registry::DeviceSet::Range(..))
            });
            let opening = Instant::now();
            let set = if several {
                Some(tenor_registry::open_devices(name).with_context(|| format!("opening backend {name:?}"))?)
            } else {
                None
            };
            let devices_open = opening.elapsed();
            let opener = OpenBackend::start(if several { "cpu" } else { name });
            let reading = Instant::now();
            let parsed = portfolio::read_portfolio(&req.portfolio);
            let read_time = reading.elapsed();
            let waiting = Instant::now();
            let opened = opener.wait();
            let open_wait = waiting.elapsed();
            let parsed = parsed?;
            let (compute, open_time) = match &set {
                Some(set) => (set.first().clone(), devices_open),
                None => opened.with_context(|| format!("opening backend {name:?}"))?,
            };
            let set = set.filter(|d| d.len() > 1);
            Ok((parsed, compute, set, open_time, open_wait, read_time))
        }
        Source::Resident(r, input) => {
            let reading = Instant::now();
            let parsed = portfolio::parse_portfolio(input, &req.portfolio)?;
            let compute = r.devices.first().clone();
            // The high watermarks of this request, not of the server's life.
            for d in r.devices.devices() {
                d.allocator().reset_peaks();
            }
            let set = (r.devices.len() > 1).then(|| r.devices.clone());
            Ok((parsed, compute, set, r.open_time, Duration::ZERO, reading.elapsed()))
        }
    }
}

impl BookRun {
    /// Writes the priced rows to `out_file` (committed) or, without one, to `stdout`. A run that
    /// priced nothing leaves an existing output file as it was and says so.
    ///
    /// # Errors
    /// A write, sync or rename error, naming the file.
    pub fn write_rows(
        &self,
        out_file: Option<Box<dyn OutFile + '_>>,
        stdout: &mut dyn Write,
    ) -> anyhow::Result<Written> {
        let rows = &self.book.rows;
        let writing = Instant::now();
        let mut kept_note = None;
        match out_file {
            Some(f) if rows.is_empty() => {
                kept_note = Some(format!(
                    "{}: not written (no row was priced); an earlier file there is unchanged",
                    f.path().display()
                ));
            }
            Some(mut f) => {
                portfolio::write_priced(&mut f, rows).with_context(|| format!("writing {}", f.path().display()))?;
                f.commit()?;
            }
            None => portfolio::write_priced(stdout, rows)?,
        }
        Ok(Written { time: writing.elapsed(), kept_note })
    }

    /// Every problem as the command line prints it (after `error: `), then the closing lines
    /// that count them; empty when every row was priced.
    pub fn error_lines(&self) -> Vec<String> {
        let mut lines = self.book.messages();
        if lines.is_empty() {
            return lines;
        }
        let file = &self.file;
        let header_problems = self.parsed.header_errors().count();
        if header_problems > 0 {
            lines.push(format!("the header of {file} has {header_problems} problem(s)"));
        }
        let bad = &self.book.bad_lines;
        if !bad.is_empty() {
            let rest = if !self.parsed.rejected_by_header.is_empty() {
                "no row was priced because of the header".to_owned()
            } else if self.book.rows.is_empty() {
                "no row was priced".to_owned()
            } else {
                format!("the other {} row(s) were priced", self.book.rows.len())
            };
            lines.push(format!("{} bad row(s) in {file}; {rest}", bad.len()));
        }
        lines
    }
}

/// The whole book command: [`run_book`], the rows written ([`BookRun::write_rows`]), the
/// backend finished ([`open::finish`], when this call opened it) and the summary and error lines
/// written to `streams` (the summary to `streams.out` when the rows went to a file, else to
/// `streams.err`). `started` is when the command started (for the summary's total time).
///
/// # Errors
/// As [`run_book`] and [`BookRun::write_rows`]; bad rows are not errors (exit status 1).
pub fn price_book(
    req: &BookRequest,
    source: Source<'_>,
    started: Instant,
    out_file: Option<Box<dyn OutFile + '_>>,
    streams: &mut Streams<'_>,
    progress: &dyn Progress,
) -> anyhow::Result<Outcome> {
    let run = run_book(req, source, progress)?;
    let written = run.write_rows(out_file, &mut *streams.out)?;
    let elapsed = started.elapsed();
    let mut summary = Summary::of(req, &run, &written, elapsed);
    let errors = run.error_lines();
    let BookRun { compute, devices, .. } = run;
    // Every output is written (and synced): the backend's teardown is not waited for.
    let exit_now = match source {
        Source::Open => {
            let exit = open::finish(compute);
            summary.exit = Some(exit);
            matches!(exit, Exit::LeftToTheOs)
        }
        Source::Resident(..) => false,
    };
    let text = summary.render();
    if req.out.is_some() {
        write!(streams.out, "{text}")?;
    } else {
        write!(streams.err, "{text}")?;
    }
    for line in &errors {
        writeln!(streams.err, "error: {line}")?;
    }
    streams.out.flush()?;
    streams.err.flush()?;
    drop(devices);
    Ok(Outcome { code: u8::from(!errors.is_empty()), exit_now })
}
