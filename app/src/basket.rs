//! The STAC-A2 basket job (`docs/basket.md`, `docs/basket-job.md`) as a request and an outcome:
//! [`BasketRequest`] in, [`run_basket`] out (`tenor basket`), writing `greeks.csv` and
//! `summary.json` as one set. The Python package calls [`read_job`] and [`run_jobs`] on the
//! device it opened.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use sha2::{Digest, Sha256};
use tenor_ports::{Compute, Progress};
use tenor_pricing::basket::{
    greeks_csv, price_basket_observed, BasketError, BasketJob, BasketOutcome, BasketSettings, GreekRow,
};

use crate::report::Report;

/// The files `--out` receives, written as one set.
pub const OUTPUTS: [&str; 2] = ["greeks.csv", "summary.json"];

/// What a door asks for: the job file, the backend and the job's overrides.
#[derive(Debug, Clone, PartialEq)]
pub struct BasketRequest {
    /// The job file (TOML, `docs/basket-job.md`).
    pub job: PathBuf,
    /// Backend selector (`cpu`, `sim`, `cuda`, `cuda:1`, `sycl`, `opencl`, ...).
    pub backend: String,
    /// The job's overrides (the file's `[simulation]` values otherwise).
    pub overrides: Overrides,
    /// Every Greek (else the price alone).
    pub greeks: bool,
    /// Jobs priced in the process, at least 1: the first is the cold one, the median of the
    /// others the warm time.
    pub repeat: u32,
    /// The folder of `greeks.csv` and `summary.json`.
    pub out: PathBuf,
    /// After the K jobs, one more with the device synchronised after each phase, its times
    /// reported ([`tenor_pricing::basket::PhaseTimes`]; not part of `summary.json`, whose jobs
    /// are never synchronised in between).
    pub phases: bool,
}

/// Values that replace the job file's `[simulation]` table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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
    let bytes = crate::paths::read_regular(path, MAX_JOB_BYTES).map_err(|e| match e {
        crate::paths::RegularRead::Io(source) => JobError::Read { path: path.to_owned(), source },
        crate::paths::RegularRead::NotRegular => JobError::NotRegular { path: path.to_owned() },
        crate::paths::RegularRead::TooLarge => JobError::TooLarge { path: path.to_owned() },
    })?;
    let sha = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect::<String>();
    let text = std::str::from_utf8(&bytes).map_err(|_| JobError::Utf8 { path: path.to_owned() })?;
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

/// Runs `tenor basket`: reads the job, opens the backend (timed), prices the job `repeat`
/// times and writes `greeks.csv` and `summary.json` into `out` as one set (an earlier set there
/// stays whole on any error); `progress` follows each job.
///
/// # Errors
/// An output that would replace the job file, an unwritable `out` (refused before any work), a
/// bad job, an unavailable backend, the engine's errors.
pub fn run_basket(req: &BasketRequest, progress: &dyn Progress) -> Result<(Report, BasketRun)> {
    let targets = OUTPUTS.map(|f| req.out.join(f));
    let targets: Vec<(&str, &Path)> = targets.iter().map(|p| ("out", p.as_path())).collect();
    crate::paths::refuse_overwrite(&[("job", &req.job)], &targets)?;
    let (job, sha) = read_job(&req.job, &req.overrides)?;
    progress.message(&format!("opening {}", req.backend));
    let t = Instant::now();
    let dev = tenor_registry::open(&req.backend).with_context(|| format!("opening backend {}", req.backend))?;
    let open_s = t.elapsed().as_secs_f64();
    let runs = run_jobs(dev.as_ref(), &job, req.greeks, req.repeat, progress)?;
    let phases = if req.phases {
        let settings = BasketSettings { greeks: req.greeks, time_phases: true, ..BasketSettings::default() };
        price_basket_observed(dev.as_ref(), &job, &settings, progress)?.phases
    } else {
        None
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
    // The output folder is made once the work succeeded: a run that fails (a backend that does
    // not open, memory the device lacks) leaves no folder behind.
    let mut set = tenor_ports::files::OutputDir::create(&req.out, &OUTPUTS)?;
    let csv = greeks_csv(&job, &runs.outcome.rows);
    set.write_with("greeks.csv", |f| f.write_all(csv.as_bytes()))?;
    let json = serde_json::to_string_pretty(&summary)? + "\n";
    set.write_with("summary.json", |f| f.write_all(json.as_bytes()))?;
    set.commit()?;

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
    report.line(format!("time cold {:.6} s, {warm}, open {:.6} s", t.cold_s, t.open_s));
    if let Some(p) = phases {
        report.line(format!(
            "phases (one more job, synchronised after each): paths {:.6} s, backward induction {:.6} s, valuation {:.6} s, sensitivities {:.6} s",
            p.paths_s, p.backward_s, p.value_s, p.sens_s
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
