//! The STAC-A2 basket job (`docs/basket.md`, `docs/basket-job.md`) as a request and an outcome:
//! [`BasketRequest`] in, [`run_basket`] out (`tenor basket`), writing `greeks.csv` and
//! `summary.json` as one set; [`run_basket_in`] is the same run on a device a resident
//! `tenor serve` keeps open, its files sent to the client ([`OutputSet`]). The Python package
//! calls [`read_job`] and [`run_jobs`] on the device it opened.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tenor_ports::{Compute, Progress};
use tenor_pricing::basket::{
    greeks_csv, price_basket_observed, BasketError, BasketJob, BasketOutcome, BasketSettings, GreekRow,
};

use crate::report::Report;

/// The files `--out` receives, written as one set.
pub const OUTPUTS: [&str; 2] = ["greeks.csv", "summary.json"];

/// Most jobs one request prices (`--repeat`): 10,000 baseline jobs are minutes on a GPU; a
/// server refuses more before reading the job.
pub const MAX_REPEAT: u32 = 10_000;

/// What a door asks for: the job file, the backend and the job's overrides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BasketRequest {
    /// The job file (TOML, `docs/basket-job.md`); through a server only named in messages (the
    /// client reads it and sends its bytes).
    pub job: PathBuf,
    /// Backend selector (`cpu`, `sim`, `cuda`, `cuda:1`, `sycl`, `opencl`, ...); through a
    /// server, the server's own.
    pub backend: String,
    /// The job's overrides (the file's `[simulation]` values otherwise).
    pub overrides: Overrides,
    /// Every Greek (else the price alone).
    pub greeks: bool,
    /// Jobs priced in the process, 1 to [`MAX_REPEAT`]: the first is the cold one, the median
    /// of the others the warm time.
    pub repeat: u32,
    /// The folder of `greeks.csv` and `summary.json`; through a server only named in messages
    /// (the client writes the set).
    pub out: PathBuf,
    /// After the K jobs, one more with the device synchronised after each phase, its times
    /// reported ([`tenor_pricing::basket::PhaseTimes`]; not part of `summary.json`, whose jobs
    /// are never synchronised in between).
    pub phases: bool,
}

impl BasketRequest {
    /// Checks the settings a command line bounds itself (a server gets them from a peer).
    ///
    /// # Errors
    /// `repeat` outside 1 to [`MAX_REPEAT`], naming the setting.
    pub fn check(&self) -> Result<()> {
        if !(1..=MAX_REPEAT).contains(&self.repeat) {
            bail!("{}: {} is not in 1 to {MAX_REPEAT}", crate::words::setting("repeat"), self.repeat);
        }
        Ok(())
    }
}

/// Values that replace the job file's `[simulation]` table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overrides {
    /// Paths.
    pub paths: Option<u64>,
    /// Steps.
    pub steps: Option<u32>,
    /// Philox seed.
    pub seed: Option<u64>,
}

/// Wall-clock seconds of a run (`summary.json`'s `timings`, `docs/basket-job.md`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Timings {
    /// Jobs priced (K).
    pub repeats: u32,
    /// The first job in the process, inputs in host memory to Greeks in host memory, the
    /// backend's opening and its kernels' compilation included.
    pub cold_s: f64,
    /// Median of the other K - 1 jobs (`null` for K = 1).
    pub warm_s: Option<f64>,
    /// Fastest of the other K - 1 jobs (`null` for K = 1).
    pub warm_min_s: Option<f64>,
    /// Opening the backend alone.
    pub open_s: f64,
}

/// `summary.json` (`docs/basket-job.md`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// SHA-256 of the job file's bytes, hex.
    pub job: String,
    /// The backend (`cpu`, `cuda`, ...).
    pub backend: String,
    /// The device as its driver names it.
    pub device: String,
    /// Devices used (1).
    pub devices: u32,
    /// Assets N.
    pub assets: usize,
    /// Paths.
    pub paths: u64,
    /// Steps.
    pub steps: u32,
    /// Philox seed.
    pub seed: u64,
    /// `fp64` (the kernels' only precision).
    pub precision: &'static str,
    /// Priced scenarios, bumps included (`tenor_pricing::basket::BasketOutcome::valuations`).
    pub valuations: u64,
    /// The run's times.
    pub timings: Timings,
}

/// Why a job file could not be used ([`read_job`]).
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// The file could not be read.
    #[error("reading the job file {}: {source}", path.display())]
    Read {
        /// The job file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The job path is a FIFO, a device, a socket or a folder (refused before reading: a FIFO
    /// would block).
    #[error("{}: not a regular file (a FIFO, a device or a folder); a job is a TOML file", path.display())]
    NotRegular {
        /// The job path.
        path: PathBuf,
    },
    /// The file holds more than [`MAX_JOB_BYTES`].
    #[error("{}: larger than {MAX_JOB_BYTES} bytes; a job file is a few kilobytes", path.display())]
    TooLarge {
        /// The job file.
        path: PathBuf,
    },
    /// The file is not UTF-8 text.
    #[error("{}: not UTF-8 text", path.display())]
    Utf8 {
        /// The job file.
        path: PathBuf,
    },
    /// The file's job was refused: the key (or the line and column) is in `error`.
    #[error("{}: {error}", path.display())]
    Job {
        /// The job file.
        path: PathBuf,
        /// What is wrong, where.
        error: Box<BasketError>,
    },
    /// The job with a door's override was refused (`setting`: `paths`, `steps` or `seed`).
    #[error("{setting} (overriding the job file {}): {error}", path.display())]
    Override {
        /// The setting that was overridden.
        setting: &'static str,
        /// The job file.
        path: PathBuf,
        /// What is wrong.
        error: Box<BasketError>,
    },
}

/// Reads and validates the job file at `path` with `overrides` applied; returns the job and the
/// SHA-256 (hex) of the file's bytes.
///
/// # Errors
/// [`JobError`]: the file unreadable or not UTF-8, the job refused (the key or the line and
/// column named), or refused with an override (the setting named).
pub fn read_job(path: &Path, overrides: &Overrides) -> Result<(BasketJob, String), JobError> {
    parse_job(&read_job_bytes(path)?, path, overrides)
}

/// The bytes of the job file at `path`: a regular file of at most [`MAX_JOB_BYTES`], refused
/// before it is read otherwise (a FIFO would block, `/dev/zero` never ends).
///
/// # Errors
/// [`JobError::Read`], [`JobError::NotRegular`], [`JobError::TooLarge`].
pub fn read_job_bytes(path: &Path) -> Result<Vec<u8>, JobError> {
    crate::paths::read_regular(path, MAX_JOB_BYTES).map_err(|e| match e {
        crate::paths::RegularRead::Io(source) => JobError::Read { path: path.to_owned(), source },
        crate::paths::RegularRead::NotRegular => JobError::NotRegular { path: path.to_owned() },
        crate::paths::RegularRead::TooLarge => JobError::TooLarge { path: path.to_owned() },
    })
}

/// Parses and validates the job file's `bytes` (read by this process or, in `tenor serve`, by
/// the client; `path` names the file in messages) with `overrides` applied; returns the job and
/// the SHA-256 (hex) of the bytes.
///
/// # Errors
/// [`JobError`]: over [`MAX_JOB_BYTES`], not UTF-8, the job refused (the key or the line and
/// column named), or refused with an override (the setting named).
pub fn parse_job(bytes: &[u8], path: &Path, overrides: &Overrides) -> Result<(BasketJob, String), JobError> {
    if bytes.len() as u64 > MAX_JOB_BYTES {
        return Err(JobError::TooLarge { path: path.to_owned() });
    }
    let sha = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect::<String>();
    let text = std::str::from_utf8(bytes).map_err(|_| JobError::Utf8 { path: path.to_owned() })?;
    let mut job =
        BasketJob::from_toml(text).map_err(|error| JobError::Job { path: path.to_owned(), error: Box::new(error) })?;
    if let Some(p) = overrides.paths {
        job.simulation.paths = p;
    }
    if let Some(s) = overrides.steps {
        job.simulation.steps = s;
    }
    if let Some(s) = overrides.seed {
        job.simulation.seed = s;
    }
    job.validate().map_err(|error| {
        let key = match &error {
            BasketError::Invalid { key, .. } | BasketError::WorkLimit { key, .. } => key.as_str(),
            _ => "",
        };
        let setting = match key {
            "simulation.steps" => "steps",
            "simulation.seed" => "seed",
            _ => "paths",
        };
        JobError::Override { setting, path: path.to_owned(), error: Box::new(error) }
    })?;
    Ok((job, sha))
}

/// The largest job file read (1 MiB: the spec's files are a few kilobytes; 16 assets with every
/// table written out are under 20 kB).
pub const MAX_JOB_BYTES: u64 = 1 << 20;

/// What [`run_jobs`] measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Runs {
    /// The last job's estimates (every job's are bitwise the same: the same numbers, fixed-order
    /// sums).
    pub outcome: BasketOutcome,
    /// Each job's wall-clock seconds, inputs in host memory to Greeks in host memory.
    pub seconds: Vec<f64>,
    /// Whether every job gave the first one's estimates bit for bit.
    pub identical: bool,
}

/// Prices `job` `repeat` times (at least once) on `dev`, each job drawing its numbers and
/// pricing afresh (nothing is cached between them but the device's compiled kernels).
///
/// # Errors
/// `repeat` of 0; the engine's errors.
pub fn run_jobs(
    dev: &dyn Compute,
    job: &BasketJob,
    greeks: bool,
    repeat: u32,
    progress: &dyn Progress,
) -> Result<Runs> {
    if repeat == 0 {
        bail!("repeat: 0; at least one job");
    }
    let settings = BasketSettings { greeks, ..BasketSettings::default() };
    let mut seconds = Vec::with_capacity(repeat as usize);
    let mut first: Option<Vec<GreekRow>> = None;
    let mut identical = true;
    let mut last = None;
    for k in 0..repeat {
        progress.message(&format!("job {} of {repeat}", k + 1));
        let t = Instant::now();
        let out = price_basket_observed(dev, job, &settings, progress)?;
        seconds.push(t.elapsed().as_secs_f64());
        match &first {
            None => first = Some(out.rows.clone()),
            Some(f) => identical &= same_bits(f, &out.rows),
        }
        last = Some(out);
    }
    let outcome = last.context("no job ran")?;
    Ok(Runs { outcome, seconds, identical })
}

fn same_bits(a: &[GreekRow], b: &[GreekRow]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.greek == y.greek
                && x.value.to_bits() == y.value.to_bits()
                && x.stderr.map(f64::to_bits) == y.stderr.map(f64::to_bits)
        })
}

/// The median and minimum of `xs` (`None` when empty).
fn median_min(xs: &[f64]) -> (Option<f64>, Option<f64>) {
    if xs.is_empty() {
        return (None, None);
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 { v[n / 2] } else { 0.5 * (v[n / 2 - 1] + v[n / 2]) };
    (Some(median), Some(v[0]))
}

/// What [`run_basket`] produced.
#[derive(Debug, Clone, PartialEq)]
pub struct BasketRun {
    /// The job as priced (overrides applied).
    pub job: BasketJob,
    /// The estimates.
    pub rows: Vec<GreekRow>,
    /// `summary.json`.
    pub summary: Summary,
}

/// Where the job's bytes and the device of [`run_basket_in`] come from.
#[derive(Clone, Copy)]
pub enum JobSource<'a> {
    /// `tenor basket`: the job file read by this call, the backend opened by it (timed:
    /// `open_s`, part of `cold_s`).
    Open,
    /// `tenor serve`: a device the server keeps open and the job file's bytes as its client read
    /// them (the server never opens a client's file).
    Resident(Resident<'a>),
}

/// A device kept open by `tenor serve` ([`JobSource::Resident`]).
#[derive(Clone, Copy)]
pub struct Resident<'a> {
    /// The device (the first of the server's).
    pub dev: &'a dyn Compute,
    /// The job file's bytes.
    pub job: &'a [u8],
    /// Seconds the server took to open the backend when it started (reported, not part of this
    /// request's times: `open_s` is 0, nothing is opened for it).
    pub server_open_s: f64,
    /// No basket job ran in this server before: this request's first job is the server's cold
    /// job (kernels built or loaded on first use in it).
    pub first_in_server: bool,
}

/// Where `greeks.csv` and `summary.json` go: written as one set once the work succeeded.
pub trait OutputSet {
    /// Writes `files` (names of [`OUTPUTS`], their bytes) as one set: all or none.
    ///
    /// # Errors
    /// The set could not be written (naming the path); an earlier set stays whole.
    fn write_set(&mut self, files: &[(&'static str, Vec<u8>)]) -> Result<()>;
}

/// The set in the folder at the path (`tenor basket`, and the client of `tenor serve`), made
/// with its parents and written through [`tenor_ports::files::OutputDir`].
pub struct Folder<'a>(pub &'a Path);

impl OutputSet for Folder<'_> {
    fn write_set(&mut self, files: &[(&'static str, Vec<u8>)]) -> Result<()> {
        let mut set = tenor_ports::files::OutputDir::create(self.0, &OUTPUTS)?;
        for (name, bytes) in files {
            set.write_with(name, |f| f.write_all(bytes))?;
        }
        set.commit()?;
        Ok(())
    }
}

/// Refuses an `out` whose files would replace the job file or one of `also` (the socket of a
/// server), before any work.
///
/// # Errors
/// [`crate::paths::SameFile`] naming both.
pub fn check_outputs(req: &BasketRequest, also: &[(&str, &Path)]) -> Result<()> {
    let targets = OUTPUTS.map(|f| req.out.join(f));
    let targets: Vec<(&str, &Path)> = targets.iter().map(|p| ("out", p.as_path())).collect();
    let mut inputs = vec![("job", req.job.as_path())];
    inputs.extend_from_slice(also);
    crate::paths::refuse_overwrite(&inputs, &targets)?;
    Ok(())
}

/// Runs `tenor basket`: reads the job, opens the backend (timed), prices the job `repeat`
/// times and writes `greeks.csv` and `summary.json` into `out` as one set (an earlier set there
/// stays whole on any error); `progress` follows each job. [`run_basket_in`] with
/// [`JobSource::Open`] and [`Folder`].
///
/// # Errors
/// An output that would replace the job file, an unwritable `out` (refused before any work), a
/// bad job, an unavailable backend, the engine's errors.
pub fn run_basket(req: &BasketRequest, progress: &dyn Progress) -> Result<(Report, BasketRun)> {
    check_outputs(req, &[])?;
    run_basket_in(req, JobSource::Open, &mut Folder(&req.out), progress)
}

/// The basket job of `req` on the device of `source`: the job parsed and validated with the
/// overrides applied, priced `repeat` times (the first job's seconds are `cold_s`, the median
/// of the others `warm_s`; with [`JobSource::Open`] the backend's opening is timed apart as
/// `open_s` and counted in `cold_s`), one more job phase by phase with `phases`, then the two
/// files given to `out` as one set and the report's lines made (the same lines for both
/// sources, but for where the backend came from). The one copy of `tenor basket`, here and in
/// `tenor serve`.
///
/// # Errors
/// `repeat` out of bounds, a bad job ([`JobError`]: the file, the key or the line and column),
/// an unavailable backend, the engine's errors, the set not written.
pub fn run_basket_in(
    req: &BasketRequest,
    source: JobSource<'_>,
    out: &mut dyn OutputSet,
    progress: &dyn Progress,
) -> Result<(Report, BasketRun)> {
    req.check()?;
    let opened;
    let (job, sha, dev, open_s): (BasketJob, String, &dyn Compute, f64) = match source {
        JobSource::Open => {
            let (job, sha) = read_job(&req.job, &req.overrides)?;
            progress.message(&format!("opening {}", req.backend));
            let t = Instant::now();
            opened = tenor_registry::open(&req.backend).with_context(|| format!("opening backend {}", req.backend))?;
            (job, sha, opened.as_ref(), t.elapsed().as_secs_f64())
        }
        JobSource::Resident(r) => {
            let (job, sha) = parse_job(r.job, &req.job, &req.overrides)?;
            (job, sha, r.dev, 0.0)
        }
    };
    let runs = run_jobs(dev, &job, req.greeks, req.repeat, progress)?;
    // With a cooperative backward induction, one more job with a launch per date beside it (what
    // the single launch saves).
    let (phases, per_date) = if req.phases {
        let settings = BasketSettings { greeks: req.greeks, time_phases: true, ..BasketSettings::default() };
        let phases = price_basket_observed(dev, &job, &settings, progress)?.phases;
        let per_date = if phases.is_some_and(|p| p.backward_launches == 1 && job.simulation.steps > 1) {
            let settings = BasketSettings { cooperative: false, ..settings };
            price_basket_observed(dev, &job, &settings, progress)?.phases
        } else {
            None
        };
        (phases, per_date)
    } else {
        (None, None)
    };
    progress.finish();
    let (warm_s, warm_min_s) = median_min(&runs.seconds[1..]);
    let info = dev.info();
    let summary = Summary {
        job: sha,
        backend: info.backend.clone(),
        device: info.name.clone(),
        devices: 1,
        assets: job.n(),
        paths: job.simulation.paths,
        steps: job.simulation.steps,
        seed: job.simulation.seed,
        precision: "fp64",
        valuations: runs.outcome.valuations,
        timings: Timings { repeats: req.repeat, cold_s: open_s + runs.seconds[0], warm_s, warm_min_s, open_s },
    };
    // The set is written once the work succeeded: a run that fails (a backend that does not
    // open, memory the device lacks) leaves no folder behind.
    let csv = greeks_csv(&job, &runs.outcome.rows);
    let json = serde_json::to_string_pretty(&summary)? + "\n";
    out.write_set(&[(OUTPUTS[0], csv.into_bytes()), (OUTPUTS[1], json.into_bytes())])?;

    let mut report = Report::default();
    let price = &runs.outcome.rows[0];
    let sim = &job.simulation;
    report.line(format!(
        "basket: {} assets x {} paths x {} steps, {} {}, on {} ({})",
        job.n(),
        sim.paths,
        sim.steps,
        match job.option.exercise {
            tenor_pricing::basket::Exercise::American => "American",
            tenor_pricing::basket::Exercise::European => "European",
        },
        match job.option.payoff {
            tenor_pricing::types::OptionType::Call => "call",
            tenor_pricing::types::OptionType::Put => "put",
        },
        summary.backend,
        summary.device
    ));
    report.line(format!(
        "price {} +/- {}; {} values, {} valuations",
        price.value,
        price.stderr.unwrap_or(f64::NAN),
        runs.outcome.rows.len(),
        runs.outcome.valuations
    ));
    let t = &summary.timings;
    let warm = match (t.warm_s, t.warm_min_s) {
        (Some(w), Some(m)) => format!("warm {w:.6} s (median of {}, fastest {m:.6} s)", req.repeat - 1),
        _ => "warm: not measured (--repeat 1)".to_owned(),
    };
    match source {
        JobSource::Open => report.line(format!("time cold {:.6} s, {warm}, open {:.6} s", t.cold_s, t.open_s)),
        JobSource::Resident(r) => report.line(format!(
            "time cold {:.6} s ({}), {warm}, open 0 s (the backend stays open in `tenor serve` pid {}, \
             which opened it in {:.6} s when it started)",
            t.cold_s,
            if r.first_in_server {
                "this request's first job, the server's first basket job: kernels built or loaded on first use in it"
            } else {
                "this request's first job; an earlier basket job of the server built or loaded the kernels"
            },
            std::process::id(),
            r.server_open_s
        )),
    }
    if let Some(p) = phases {
        report.line(format!(
            "phases (one more job, synchronised after each): paths {:.6} s, backward induction {:.6} s ({} launches enqueued in {:.6} s), valuation {:.6} s, sensitivities {:.6} s",
            p.paths_s, p.backward_s, p.backward_launches, p.backward_enqueue_s, p.value_s, p.sens_s
        ));
    }
    if let Some(p) = per_date {
        report.line(format!(
            "phases with one backward launch per date (one more job): backward induction {:.6} s ({} launches enqueued in {:.6} s)",
            p.backward_s, p.backward_launches, p.backward_enqueue_s
        ));
    }
    report.line(format!("wrote {} and {}", req.out.join(OUTPUTS[0]).display(), req.out.join(OUTPUTS[1]).display()));
    if !runs.identical {
        report.warn("warning: the repeated jobs' estimates differ in their last bits (expected identical)");
    }
    Ok((report, BasketRun { job, rows: runs.outcome.rows, summary }))
}

#[cfg(test)]
mod tests {
    use super::median_min;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median_min(&[3.0, 1.0, 2.0]), (Some(2.0), Some(1.0)));
        assert_eq!(median_min(&[4.0, 1.0, 3.0, 2.0]), (Some(2.5), Some(1.0)));
        assert_eq!(median_min(&[]), (None, None));
    }
}
