//! `tenor price`: prices a portfolio CSV (`docs/portfolio-csv.md`) on a backend and
//! prints a summary.
//!
//! Output rows go to `--out` (or stdout); the summary goes to stdout when `--out` is given, else
//! to stderr. Every bad row (parse errors and trades that cannot be priced) is named on stderr
//! with file, line and column, the good rows are still priced and written, and the command exits
//! with status 1.
//!
//! With `--server` the same work runs in a resident `tenor serve` process whose backend is
//! already open (`super::serve`, ADR 0026): [`price_book`] is the one copy of the command, called
//! by this process or by the server with the streams and progress of the client.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use tenor_ports::Devices;
use tenor_pricing::portfolio::{self, BookConfig, Engine, Kind, PricedRow};

/// Engine choice on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
pub enum EngineArg {
    /// Closed forms where they exist, Monte Carlo otherwise.
    Auto,
    /// Monte Carlo for every supported kind (the backend carries the whole book).
    Mc,
}

/// Arguments of `tenor price`. Serialised (without `--server` and `--socket`) as the request a
/// client sends to `tenor serve`.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct PriceArgs {
    /// Portfolio CSV to price.
    #[arg(long)]
    pub portfolio: PathBuf,
    /// Compute backend (`cpu`, `sim`, `auto`, or one compiled in with a feature).
    #[arg(long, env = "TENOR_BACKEND", default_value = "cpu", help = tenor_registry::help())]
    pub backend: String,
    /// Monte Carlo paths per valuation (even, 4 to 1e9).
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(4..=portfolio::MAX_PATHS))]
    pub paths: u64,
    /// Philox seed for every Monte Carlo row.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Output CSV (`id,price,stderr,delta,gamma,vega,theta,rho,method,backend`); stdout if absent
    /// or `-`. Written atomically (a link of this user is written through to its target); a FIFO
    /// or a character device (`/dev/stdout`) is written as a stream.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// `auto`: closed forms where they exist; `mc`: Monte Carlo for everything.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,
    /// Grid steps for continuously monitored barriers under Monte Carlo (1 to 100000).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=i64::from(portfolio::MAX_STEPS)))]
    pub steps: u32,
    /// Streams the Monte Carlo trades are spread over (1 to 65535).
    #[arg(long, default_value_t = 1, value_parser = clap::builder::TypedValueParser::map(
        clap::value_parser!(u64).range(1..=portfolio::MAX_STREAMS as u64),
        |n| usize::try_from(n).unwrap_or(portfolio::MAX_STREAMS)
    ))]
    pub streams: usize,
    /// Skip the Greeks (price and standard error only).
    #[arg(long)]
    pub no_greeks: bool,
    /// One launch per Monte Carlo job in chunks of 8 trades and the closed forms one after
    /// another (the pricer before batch kernels; bitwise the same prices), for comparison.
    #[arg(long)]
    pub unbatched: bool,
    /// Price in the resident `tenor serve` at `--socket` (its backend already open: no device
    /// start-up in this command). `--backend` must name the server's backend; the server's
    /// environment governs the backend and its kernels.
    #[arg(long)]
    #[serde(skip)]
    pub server: bool,
    /// The server's socket (used with `--server` only); default: `$XDG_RUNTIME_DIR/tenor/serve.sock`, else
    /// `~/.cache/tenor/serve.sock`.
    #[arg(long, env = "TENOR_SOCKET")]
    #[serde(skip)]
    pub socket: Option<PathBuf>,
}

impl PriceArgs {
    /// The book settings of these arguments, checked with the bounds every front end shares
    /// ([`BookConfig::check`]): the one check of a request to `tenor serve`, whose fields come
    /// from a client and not through this command line's parsers.
    ///
    /// # Errors
    /// The setting out of bounds, named as its flag (`--streams must be ...`).
    pub(crate) fn book_config(&self) -> anyhow::Result<BookConfig> {
        let config = BookConfig {
            engine: match self.engine {
                EngineArg::Auto => Engine::Auto,
                EngineArg::Mc => Engine::Mc,
            },
            paths: self.paths,
            seed: self.seed,
            steps: self.steps,
            streams: self.streams,
            greeks: !self.no_greeks,
        };
        config.check().map_err(|e| anyhow::anyhow!("--{e}"))?;
        Ok(config)
    }

    /// The `--out` file: `None` without `--out` or with `--out -` (the rows go to standard output
    /// and the summary to standard error, as without `--out`).
    pub(crate) fn out_file(&self) -> Option<&Path> {
        self.out.as_deref().filter(|p| p.as_os_str() != "-")
    }
}

/// Where the backend of [`price_book`] comes from.
#[derive(Clone, Copy)]
pub(crate) enum Source<'a> {
    /// Opened by this command: a single backend on a thread beside the read, a selector of
    /// several devices (`cuda:*`, `sim:0..3`) before it.
    Open(&'a str),
    /// Already open in a resident server (`tenor serve`); the portfolio's bytes as the client
    /// read them (the server never opens a client's file).
    Resident(&'a Resident, &'a [u8]),
}

/// The output CSV of `--out`: written in full, then committed (renamed over the target by this
/// process, or by the server's client); dropped without a commit, the target is unchanged.
pub(crate) trait OutFile: Write {
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

/// A backend kept open by `tenor serve` between requests.
pub(crate) struct Resident {
    /// The selector it was opened with (`--backend` of the server).
    pub selector: String,
    /// Its devices (one, or several for a selector such as `cuda:*`).
    pub devices: Devices,
    /// How long opening it took at the server's start.
    pub open_time: Duration,
}

/// Progress of the trades priced, drawn by the command or sent to a server's client.
pub(crate) trait Progress: Sync {
    /// Pricing starts: `total` trades.
    fn start(&self, total: u64);
    /// `done` trades are priced.
    fn set(&self, done: u64);
    /// Pricing ended (clears a bar).
    fn finish(&self);
}

impl Progress for ProgressBar {
    fn start(&self, total: u64) {
        self.set_length(total);
    }
    fn set(&self, done: u64) {
        self.set_position(done);
    }
    fn finish(&self) {
        self.finish_and_clear();
    }
}

/// The standard output and error of one `tenor price` (the process's own, or frames to a
/// server's client).
pub(crate) struct Streams<'a> {
    /// Rows without `--out`; the summary with `--out`.
    pub out: &'a mut dyn Write,
    /// The summary without `--out`; every error line.
    pub err: &'a mut dyn Write,
}

/// What [`price_book`] ended with.
pub(crate) struct Outcome {
    /// Exit status: 0, or 1 when a row or the header was rejected.
    pub code: u8,
    /// Whether the backend was left to the operating system ([`super::open_backend::exit_now`]
    /// must end the process).
    pub exit_now: bool,
}

/// Per-kind line of the summary.
#[derive(Default)]
struct KindTotal {
    trades: usize,
    pv: f64,
    mc: usize,
    /// Where its rows ran (the `backend` column: `host` or the backend's name), in first-seen order.
    ran_on: Vec<String>,
}

/// Runs `tenor price`: here, or with `--server` in the resident `tenor serve`.
///
/// # Errors
/// An unreadable portfolio, an unavailable backend or an unwritable output; bad rows are not
/// errors of the call (they are reported and give exit status 1). With `--server`: no server at
/// the socket, or a server on another backend ([`super::serve`]).
pub fn run(args: &PriceArgs) -> anyhow::Result<ExitCode> {
    if args.server {
        return super::serve::price_remote(args);
    }
    let bar = pricing_bar();
    // Unlocked handles: the progress bar draws on stderr from pricing threads meanwhile.
    let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
    let started = Instant::now();
    let out_file = open_out(args, &[])?.map(|f| Box::new(f) as Box<dyn OutFile>);
    let outcome = price_book(
        args,
        Source::Open(&args.backend),
        started,
        out_file,
        &mut Streams { out: &mut out, err: &mut err },
        &bar,
    )?;
    if outcome.exit_now {
        super::open_backend::exit_now(outcome.code);
    }
    Ok(ExitCode::from(outcome.code))
}

/// Opens `--out`, if given, before any work: refused when it names the portfolio or one of
/// `also` (flag, path: files the command must not replace), then created as a temporary file
/// beside it, so an unwritable --out fails now and not after hours of pricing; it replaces the
/// old file only when committed.
///
/// # Errors
/// `--out` names an input ([`super::paths::SameFile`]), or cannot be created.
pub(crate) fn open_out(
    args: &PriceArgs,
    also: &[(&str, &Path)],
) -> anyhow::Result<Option<tenor_ports::files::AtomicFile>> {
    let Some(out) = args.out_file() else { return Ok(None) };
    let inputs: Vec<(&str, &Path)> =
        std::iter::once(("--portfolio", args.portfolio.as_path())).chain(also.iter().copied()).collect();
    super::paths::refuse_overwrite(&inputs, &[("--out", out)])?;
    Ok(Some(tenor_ports::files::AtomicFile::create(out)?))
}

/// The bar of trades priced (its length set when pricing starts).
pub(crate) fn pricing_bar() -> ProgressBar {
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{spinner} pricing [{bar:40}] {pos}/{len} trades ({elapsed}, eta {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar
}

/// The work of `tenor price` on the backend from `source` (the command started at `started`),
/// writing the rows to `out_file` (or `streams.out` without `--out`) and the summary and errors
/// to `streams`.
///
/// # Errors
/// As [`run`].
pub(crate) fn price_book(
    args: &PriceArgs,
    source: Source<'_>,
    started: Instant,
    out_file: Option<Box<dyn OutFile + '_>>,
    streams: &mut Streams<'_>,
    progress: &dyn Progress,
) -> anyhow::Result<Outcome> {
    // The backend opens on a thread of its own while the portfolio is read (opening CUDA is
    // context creation, a few hundred milliseconds on a large GPU; reading 40,000 rows is tens
    // of milliseconds): the two overlap, and `open_wait` is what the read did not hide.
    // A selector of several devices (`cuda:*`, `sim:0..3`) opens them all, before the read.
    // A resident server's backend is open already.
    let opened_here;
    let (parsed, read_time, compute, devices, open_time, open_wait) = match source {
        Source::Open(name) => {
            let several = tenor_registry::Selector::parse(name).is_ok_and(|sel| {
                matches!(sel.devices, tenor_registry::DeviceSet::All | tenor_registry::DeviceSet::Range(..))
            });
            let opening = Instant::now();
            opened_here = if several {
                Some(tenor_registry::open_devices(name).with_context(|| format!("opening backend {name:?}"))?)
            } else {
                None
            };
            let devices_open = opening.elapsed();
            let opener = super::open_backend::OpenBackend::start(if several { "cpu" } else { name });
            let reading = Instant::now();
            let parsed = portfolio::read_portfolio(&args.portfolio);
            let read_time = reading.elapsed();
            let waiting = Instant::now();
            let opened = opener.wait();
            let open_wait = waiting.elapsed();
            let parsed = parsed?;
            let (compute, open_time) = match &opened_here {
                Some(set) => (set.first().clone(), devices_open),
                None => opened.with_context(|| format!("opening backend {name:?}"))?,
            };
            (parsed, read_time, compute, opened_here.as_ref().filter(|d| d.len() > 1), open_time, open_wait)
        }
        Source::Resident(r, input) => {
            let reading = Instant::now();
            let parsed = portfolio::parse_portfolio(input, &args.portfolio)?;
            let compute = r.devices.first().clone();
            // The high watermarks of this request, not of the server's life.
            for d in r.devices.devices() {
                d.allocator().reset_peaks();
            }
            (parsed, reading.elapsed(), compute, Some(&r.devices).filter(|d| d.len() > 1), r.open_time, Duration::ZERO)
        }
    };
    let config = args.book_config()?;

    progress.start(parsed.trades.len() as u64);
    let pricing = Instant::now();
    let run = portfolio::BookRun { batch: !args.unbatched };
    let (book, split) = match devices {
        Some(set) => {
            let (book, split) = tenor_pilot::book_pricing::price_parsed_sharded(
                set,
                &parsed,
                &args.portfolio,
                &config,
                &run,
                &|done| progress.set(done as u64),
            );
            (book, Some(split))
        }
        None => {
            let book = tenor_pilot::book_pricing::price_parsed(
                compute.as_ref(),
                &parsed,
                &args.portfolio,
                &config,
                &run,
                &mut |done| progress.set(done as u64),
            );
            (book, None)
        }
    };
    let pricing_time = pricing.elapsed();
    progress.finish();

    let file = args.portfolio.display();
    let failures = book.messages();
    let bad_lines = &book.bad_lines;
    let rows: &[PricedRow] = &book.rows;
    let mut by_kind: BTreeMap<Kind, KindTotal> = BTreeMap::new();
    for (kind, row) in book.kinds.iter().zip(rows) {
        let k = by_kind.entry(*kind).or_default();
        k.trades += 1;
        k.pv += row.price;
        k.mc += usize::from(tenor_pricing::portfolio::is_monte_carlo(&row.method));
        if !k.ran_on.contains(&row.backend) {
            k.ran_on.push(row.backend.clone());
        }
    }

    let mut kept_note = None;
    let writing = Instant::now();
    match out_file {
        // A run that priced nothing leaves an existing output as it was.
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
        None => portfolio::write_priced(&mut *streams.out, rows)?,
    }
    let write_time = writing.elapsed();
    let elapsed = started.elapsed();

    let mut summary = String::new();
    let info = compute.info();
    let total_pv: f64 = rows.iter().map(|r| r.price).sum();
    let max_stderr = rows.iter().filter_map(|r| r.stderr).fold(0.0_f64, f64::max);
    summary +=
        &format!("portfolio   {file}: {} rows, {} priced, {} rejected\n", parsed.rows, rows.len(), bad_lines.len());
    let header_problems = parsed.header_errors().count();
    if header_problems > 0 {
        let rows_fate = if parsed.rejected_by_header.is_empty() {
            "the unknown columns were ignored and the data rows read as usual"
        } else {
            "no data row was priced: a required column is missing or a column is named twice"
        };
        summary += &format!(
            "header      line {}: {header_problems} problem(s), listed below; {rows_fate}\n",
            parsed.header_line
        );
    }
    summary += &format!("backend     {} ({})\n", info.backend, info.name);
    if let (Some(set), Some(split)) = (devices, &split) {
        let shares: Vec<String> = set
            .labels()
            .iter()
            .zip(&split.sharding.shards)
            .zip(split.device_loads.iter().zip(&split.host_loads))
            .map(|((label, shard), (d, h))| format!("{label} {} trades ({d:.3e} path-steps, host {h:.0})", shard.len()))
            .collect();
        summary += &format!(
            "devices     {} over {} devices, split by cost (device work {:.1} % over the mean, host work {:.1} %): {}\n",
            args.backend,
            set.len(),
            100.0 * split.device_imbalance(),
            100.0 * split.host_imbalance(),
            shares.join("; ")
        );
    }
    summary += &format!(
        "engine      {}, paths {}, seed {}, greeks {}\n",
        match args.engine {
            EngineArg::Auto => "auto (closed forms where they exist)",
            EngineArg::Mc => "mc (Monte Carlo for every row)",
        },
        args.paths,
        args.seed,
        if config.greeks { "on" } else { "off" }
    );
    summary += "kind           trades    mc rows            PV  ran on\n";
    for (k, t) in &by_kind {
        summary += &format!(
            "{:<12} {:>8} {:>10} {:>13}  {}\n",
            k.as_str(),
            t.trades,
            t.mc,
            pv_text(t.pv),
            t.ran_on.join(", ")
        );
    }
    summary += &format!(
        "{:<12} {:>8} {:>10} {:>13}\n",
        "total",
        rows.len(),
        rows.iter().filter(|r| tenor_pricing::portfolio::is_monte_carlo(&r.method)).count(),
        pv_text(total_pv)
    );
    summary += "(PV: one unit of each trade, long, in index points)\n";
    let not_mc = rows.iter().filter(|r| !tenor_pricing::portfolio::is_monte_carlo(&r.method)).count();
    if matches!(args.engine, EngineArg::Mc) && not_mc > 0 {
        summary += &format!(
            "note        {not_mc} row(s) have no Monte Carlo engine and were priced on the host \
             (at expiry: the payoff; an American never worth exercising early, as a call without \
             dividends: the European closed form, Merton 1973); see the method column\n"
        );
    }
    let as_puts = parsed
        .trades
        .iter()
        .filter(|t| portfolio::priced_as_symmetric_put(t, config.engine) && bad_lines.binary_search(&t.line).is_err())
        .count();
    if as_puts > 0 {
        summary += &format!(
            "note        {as_puts} American call row(s) priced by Longstaff-Schwartz as the American put of the \
             put-call symmetry C(S, K, r, q) = P(K, S, q, r) (McDonald and Schroder 1998; its payoff is bounded); \
             method lsm\n"
        );
    }
    if max_stderr > 0.0 {
        summary += &format!("largest MC standard error {}\n", pv_text(max_stderr));
    }
    summary += &format!("time        {:.3} s\n", elapsed.as_secs_f64());
    summary += &format!(
        "phases      open backend {:.3} s ({}; waited {:.3} s), read {:.3} s, \
         pricing {:.3} s ({}), write {:.3} s (formatted, synced and renamed)\n",
        open_time.as_secs_f64(),
        match source {
            Source::Open(_) => "on a thread beside the read",
            Source::Resident(..) => "once, when `tenor serve` started",
        },
        open_wait.as_secs_f64(),
        read_time.as_secs_f64(),
        pricing_time.as_secs_f64(),
        if args.unbatched { "one launch per job" } else { "batch launches" },
        write_time.as_secs_f64(),
    );
    let t = &book.times;
    summary += &format!(
        "where       {} row(s) by closed form on the host's {} core(s) in {:.3} s ({}); {} Monte Carlo row(s) on {} in {:.3} s\n",
        t.host_rows,
        rayon::current_num_threads(),
        t.host.as_secs_f64(),
        if args.unbatched { "in sequence" } else { "beside the device's work" },
        t.device_rows,
        info.backend,
        t.device.as_secs_f64(),
    );
    let mem = compute.allocator().report();
    summary += &format!(
        "memory      {}: peak {:.1} MiB used, {:.1} MiB reserved, {} block(s) live after pricing; \
         {} allocation(s) of {:.1} MiB in all while pricing\n",
        compute.allocator().name(),
        mem.peak_used as f64 / 1048576.0,
        mem.peak_reserved as f64 / 1048576.0,
        mem.live_blocks,
        t.allocations,
        t.allocated_bytes as f64 / 1048576.0
    );
    if !bad_lines.is_empty() {
        let lines: Vec<String> = bad_lines.iter().map(u64::to_string).collect();
        summary += &format!("rejected    {} row(s) on line(s): {}\n", bad_lines.len(), lines.join(", "));
    }
    if let Some(note) = &kept_note {
        summary += &format!("output      {note}\n");
    }
    // Every output is written (and synced): the backend's teardown is not waited for.
    let (exit_line, exit_now) = match source {
        Source::Open(_) => match super::open_backend::finish(compute) {
            super::open_backend::Exit::LeftToTheOs => (
                "exit        backend left to the operating system (no teardown before exit; \
                 TENOR_EXIT_TEARDOWN=1 tears it down and times it)\n"
                    .to_owned(),
                true,
            ),
            super::open_backend::Exit::TornDown(t) => {
                (format!("exit        backend torn down in {:.3} s\n", t.as_secs_f64()), false)
            }
        },
        Source::Resident(r, _) => (
            format!(
                "exit        backend {} stays open in `tenor serve` (pid {}) for the next request\n",
                r.selector,
                std::process::id()
            ),
            false,
        ),
    };
    summary += &exit_line;
    if args.out_file().is_some() {
        write!(streams.out, "{summary}")?;
    } else {
        write!(streams.err, "{summary}")?;
    }
    let err = &mut *streams.err;
    for f in &failures {
        writeln!(err, "error: {f}")?;
    }
    let code = if failures.is_empty() {
        0
    } else {
        if header_problems > 0 {
            writeln!(err, "error: the header of {file} has {header_problems} problem(s)")?;
        }
        if !bad_lines.is_empty() {
            let rest = if !parsed.rejected_by_header.is_empty() {
                "no row was priced because of the header".to_owned()
            } else if rows.is_empty() {
                "no row was priced".to_owned()
            } else {
                format!("the other {} row(s) were priced", rows.len())
            };
            writeln!(err, "error: {} bad row(s) in {file}; {rest}", bad_lines.len())?;
        }
        1
    };
    streams.out.flush()?;
    err.flush()?;
    Ok(Outcome { code, exit_now })
}

/// A summary figure: 4 decimals, or 6 significant digits in scientific notation from 1e12 on
/// (so an absurd trade does not print hundreds of digits).
fn pv_text(x: f64) -> String {
    if x.abs() >= 1e12 {
        format!("{x:.5e}")
    } else {
        format!("{x:.4}")
    }
}
