//! The baseline folder's format (docs/certify.md): `manifest.toml` (environment, suite, parts
//! run or skipped with the reason, the files and their row counts), `floors.csv` (feature floors),
//! `results/<part>.csv` (one value row per trade or output: `id`, `price`, a column per Greek,
//! and how each is compared) and `latency.csv` (median and IQR per workload). Plain text, so a
//! reviewer can diff two baselines; read back with typed errors naming the file and what is wrong.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tenor_ports::files::NewFolder;

/// The baseline format this build writes and reads; a baseline with another number was written
/// by another Tenor and is refused (a larger one by a newer Tenor; none older exists).
pub const FORMAT_VERSION: u32 = 1;

/// How a value is compared with its baseline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rule {
    /// The same bits (deterministic kernels, replayed allocator traces).
    Bitwise,
    /// `|candidate - baseline| <= tol * max(|baseline|, tiny)` (closed forms, fits).
    Rel(f64),
    /// `|candidate - baseline| <= k * stderr` with the baseline's standard error (Monte Carlo).
    KStderr(f64),
    /// Written and shown, never a failure (opportunistic allocator reuse).
    Report,
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Bitwise => write!(f, "bitwise"),
            Self::Rel(t) => write!(f, "rel={t:e}"),
            Self::KStderr(k) => write!(f, "k={k}"),
            Self::Report => write!(f, "report"),
        }
    }
}

impl std::str::FromStr for Rule {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let num = |v: &str| v.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0);
        match s.split_once('=') {
            None if s == "bitwise" => Ok(Self::Bitwise),
            None if s == "report" => Ok(Self::Report),
            Some(("rel", v)) => num(v).map(Self::Rel).ok_or_else(|| format!("bad tolerance in {s:?}")),
            Some(("k", v)) => num(v).map(Self::KStderr).ok_or_else(|| format!("bad k in {s:?}")),
            _ => Err(format!("unknown comparison {s:?} (bitwise, rel=TOL, k=K, report)")),
        }
    }
}

/// The Greek columns of a results row, in file order.
pub const GREEKS: [&str; 5] = ["delta", "gamma", "vega", "theta", "rho"];

/// Floating-point format of the arithmetic behind a value (sets the unit roundoff of the
/// reduction-order bound).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// IEEE binary64, unit roundoff 2^-53.
    F64,
    /// IEEE binary32, unit roundoff 2^-24.
    F32,
}

impl Precision {
    /// Unit roundoff `u`.
    pub fn unit_roundoff(self) -> f64 {
        match self {
            Self::F64 => f64::EPSILON / 2.0,
            Self::F32 => f64::from(f32::EPSILON) / 2.0,
        }
    }
}

/// One value row of a results file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValueRow {
    /// Trade id or output name, unique in its file.
    pub id: String,
    /// The value (a price, a checksum of a kernel's output, a parameter, an equity, bytes).
    pub price: f64,
    /// Monte Carlo standard error of `price`, when it has one.
    pub stderr: Option<f64>,
    /// dV/dS.
    pub delta: Option<f64>,
    /// d2V/dS2.
    pub gamma: Option<f64>,
    /// dV/dsigma.
    pub vega: Option<f64>,
    /// dV/dt.
    pub theta: Option<f64>,
    /// dV/dr.
    pub rho: Option<f64>,
    /// How `price` is compared (`bitwise`, `rel=TOL`, `k=K`, `report`).
    pub compare: String,
    /// How the Greeks are compared (same spellings).
    pub greeks_compare: String,
    /// Summands reduced into the value (paths, elements; 1 for a closed form): the `n` of the
    /// reduction-order bound.
    pub terms: u64,
    /// Arithmetic of the value.
    pub precision: Precision,
}

impl ValueRow {
    /// A row without Greeks or standard error.
    pub fn plain(id: impl Into<String>, price: f64, rule: Rule, terms: u64, precision: Precision) -> Self {
        Self {
            id: id.into(),
            price,
            stderr: None,
            delta: None,
            gamma: None,
            vega: None,
            theta: None,
            rho: None,
            compare: rule.to_string(),
            greeks_compare: rule.to_string(),
            terms,
            precision,
        }
    }
    /// The Greeks in [`GREEKS`] order.
    pub fn greeks(&self) -> [Option<f64>; 5] {
        [self.delta, self.gamma, self.vega, self.theta, self.rho]
    }
}

/// Latency of one workload over repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencyRow {
    /// Workload (a suite part or a kernel).
    pub workload: String,
    /// Median, seconds.
    pub median_s: f64,
    /// Interquartile range over the median.
    pub rel_iqr: f64,
    /// Timed repeats.
    pub repeats: usize,
}

/// One feature floor: what the suite needs of the environment and what was found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FloorRow {
    /// Feature.
    pub feature: String,
    /// What is required.
    pub required: String,
    /// What this environment has.
    pub found: String,
    /// `ok`, `missing` or `n/a` (the backend does not have the concept).
    pub status: String,
}

/// A shared library the process had loaded when the suite ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Library {
    /// Path as mapped.
    pub path: String,
    /// Version from the file name (`libnvrtc.so.13.0.88` gives `13.0.88`), else empty.
    pub version: String,
    /// SHA-256 of the file, hex.
    pub sha256: String,
}

/// A suite part: run (with its results file) or skipped (with the reason).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    /// Part name (`book`, `oracles`, `kernels`, `heston`, `strategy`, `alloc`).
    pub name: String,
    /// `ran` or `skipped`.
    pub status: String,
    /// Why it was skipped (empty when it ran).
    pub reason: String,
    /// Its results file, relative to the baseline folder (empty when skipped).
    pub file: String,
    /// Data rows in that file.
    pub rows: usize,
}

/// The environment and the run, `manifest.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// `quick` or `default`.
    pub suite: String,
    /// Backend name.
    pub backend: String,
    /// Device model as the driver reports it.
    pub device: String,
    /// Compute units (SMs on CUDA, cores on the CPU).
    pub compute_units: u32,
    /// Driver version string (empty when the backend has none).
    pub driver: String,
    /// Runtime and library versions the backend reports, `name = version`.
    pub components: Vec<(String, String)>,
    /// Every shared library loaded, with version and hash.
    pub libraries: Vec<Library>,
    /// Tenor's version.
    pub tenor_version: String,
    /// Git commit of the binary.
    pub commit: String,
    /// Uncommitted tracked changes at build time (`None` outside a checkout).
    pub dirty: Option<bool>,
    /// Host CPU model.
    pub host_cpu: String,
    /// Logical CPUs.
    pub host_cpus: usize,
    /// Operating system and architecture.
    pub os: String,
    /// Seconds since the epoch when the run ended.
    pub unix_time: u64,
    /// Settings that change what the backend computes (`TENOR_CUDA_NVRTC_EXTRA`, ...) and the
    /// environment lockfile (`TENOR_ENV_LOCK`), `name = value`, `unset` when absent.
    pub settings: Vec<(String, String)>,
    /// The parts, in suite order.
    pub parts: Vec<Part>,
}

/// Everything a run produced.
#[derive(Debug, Clone)]
pub struct Baseline {
    /// The manifest.
    pub manifest: Manifest,
    /// Feature floors.
    pub floors: Vec<FloorRow>,
    /// Values per part that ran, in [`Manifest::parts`] order.
    pub values: Vec<(String, Vec<ValueRow>)>,
    /// Latency per workload.
    pub latency: Vec<LatencyRow>,
}

/// A baseline folder that cannot be read, or was written for something else.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    /// A file of the baseline does not exist.
    #[error("{}: missing from the baseline (was it copied whole? `tenor certify` writes it)", .file.display())]
    Missing {
        /// The file.
        file: PathBuf,
    },
    /// A file could not be read.
    #[error("{}: cannot read: {source}", .file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A file is cut short or malformed.
    #[error("{}: {what}", .file.display())]
    Malformed {
        /// The file.
        file: PathBuf,
        /// What is wrong and where (line, column).
        what: String,
    },
    /// The baseline was written by a newer Tenor.
    #[error("{}: format_version {found} is newer than this Tenor reads ({FORMAT_VERSION}); compare with the Tenor that wrote it (commit {commit})", .file.display())]
    NewerFormat {
        /// The manifest.
        file: PathBuf,
        /// The baseline's version.
        found: u32,
        /// The writer's commit.
        commit: String,
    },
    /// The candidate runs on another device model (or backend) than the baseline.
    #[error("{}: baseline {what} is {baseline:?}, this environment has {candidate:?}: a candidate must run on the same {what}", .file.display())]
    OtherDevice {
        /// The manifest.
        file: PathBuf,
        /// `backend` or `device model`.
        what: &'static str,
        /// The baseline's.
        baseline: String,
        /// This environment's.
        candidate: String,
    },
    /// The baseline's comparison rules for a row differ from the suite's in this Tenor.
    #[error("{}: {what}", .file.display())]
    RulesDiffer {
        /// The baseline folder.
        file: PathBuf,
        /// The part, the row and both rules.
        what: String,
    },
    /// The candidate ran a suite part the baseline did not (or the other way round).
    #[error("{}: the suites differ: {what}", .file.display())]
    SuiteMismatch {
        /// The manifest.
        file: PathBuf,
        /// Which part and how.
        what: String,
    },
}

/// Largest file of a baseline read (bytes): the book's results are a few hundred kilobytes.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// The manifest's file name.
pub const MANIFEST: &str = "manifest.toml";
/// The feature floors' file name.
pub const FLOORS: &str = "floors.csv";
/// The latency file name.
pub const LATENCY: &str = "latency.csv";

pub use super::read::read;

fn write_csv<T: Serialize>(folder: &NewFolder, rel: &str, rows: &[T]) -> anyhow::Result<()> {
    folder.write_with(Path::new(rel), |w| {
        let mut c = csv::Writer::from_writer(w);
        for r in rows {
            c.serialize(r).map_err(std::io::Error::other)?;
        }
        c.flush()
    })?;
    Ok(())
}

/// Writes `b` as a new folder `dest`: everything into a staging folder beside it (created
/// exclusively under a random name, [`tenor_ports::files::NewFolder`]), then one rename that
/// never replaces anything, so a reader sees the whole baseline or none. An existing `dest` is
/// refused.
///
/// # Errors
/// `dest` exists, or a write or the rename fails.
pub fn write(dest: &Path, b: &Baseline) -> anyhow::Result<()> {
    use anyhow::Context as _;
    let folder = NewFolder::create(dest)?;
    let text = toml::to_string(&b.manifest).context("serialising the manifest")?;
    folder.write_with(Path::new(MANIFEST), |w| w.write_all(text.as_bytes()))?;
    write_csv(&folder, FLOORS, &b.floors)?;
    for (part, rows) in &b.values {
        let p = b.manifest.parts.iter().find(|p| &p.name == part).context("a part without manifest entry")?;
        write_csv(&folder, &p.file, rows)?;
    }
    write_csv(&folder, LATENCY, &b.latency)?;
    folder.commit()?;
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A small baseline: one part of two rows, one floor, one latency.
    pub(crate) fn sample() -> Baseline {
        let manifest = Manifest {
            format_version: FORMAT_VERSION,
            suite: "quick".into(),
            backend: "cpu".into(),
            device: "test".into(),
            compute_units: 2,
            driver: String::new(),
            components: vec![],
            libraries: vec![],
            tenor_version: "0".into(),
            commit: "c".into(),
            dirty: None,
            host_cpu: "cpu".into(),
            host_cpus: 2,
            os: "linux".into(),
            unix_time: 0,
            settings: vec![],
            parts: vec![Part {
                name: "book".into(),
                status: "ran".into(),
                reason: String::new(),
                file: "results/book.csv".into(),
                rows: 2,
            }],
        };
        let rows = vec![
            ValueRow::plain("a", 10.5, Rule::Rel(1e-12), 1, Precision::F64),
            ValueRow { stderr: Some(0.01), ..ValueRow::plain("b", 3.25, Rule::KStderr(4.0), 1000, Precision::F64) },
        ];
        Baseline {
            manifest,
            floors: vec![FloorRow {
                feature: "fp64".into(),
                required: "yes".into(),
                found: "yes".into(),
                status: "ok".into(),
            }],
            values: vec![("book".into(), rows)],
            latency: vec![LatencyRow { workload: "book".into(), median_s: 0.5, rel_iqr: 0.01, repeats: 5 }],
        }
    }

    pub(crate) fn tmp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tenor-format-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("tmp");
        d
    }

    /// Another user who guesses the staging name (it used to be `.NAME.tmp-PID`) and plants a
    /// file there cannot stop the write, nor one planted as a link redirect it.
    #[test]
    fn a_name_planted_beside_the_baseline_neither_stops_nor_redirects_it() {
        let d = tmp("planted");
        let victim = tmp("planted-victim");
        std::fs::write(d.join(format!(".base.tmp-{}", std::process::id())), "planted").expect("plant");
        #[cfg(unix)]
        std::os::unix::fs::symlink(&victim, d.join(format!(".base2.tmp-{}", std::process::id()))).expect("plant");
        let b = sample();
        write(&d.join("base"), &b).expect("written beside the planted file");
        let back = read(&d.join("base")).expect("read back");
        assert_eq!(back.values, b.values);
        #[cfg(unix)]
        write(&d.join("base2"), &b).expect("written beside the planted link");
        assert_eq!(std::fs::read_dir(&victim).expect("ls").count(), 0, "nothing went through the link");
        let e = write(&d.join("base"), &b).expect_err("an existing baseline is never replaced");
        assert!(e.to_string().contains("exists"), "{e}");
        std::fs::remove_dir_all(&d).expect("clean");
        std::fs::remove_dir_all(&victim).expect("clean");
    }

    /// Replaces `from` by `to` (once) in `file`.
    fn edit(file: &Path, from: &str, to: &str) {
        let s = std::fs::read_to_string(file).expect("read");
        assert!(s.contains(from), "{from:?} in {}", file.display());
        std::fs::write(file, s.replacen(from, to, 1)).expect("write");
    }

    /// A fresh copy of [`sample`] on disk.
    fn on_disk(tag: &str) -> PathBuf {
        let d = tmp(tag).join("base");
        write(&d, &sample()).expect("write the sample");
        d
    }

    /// A baseline's files are regular files inside its folder: the manifest cannot point a part
    /// at an absolute path or climb out with `..`, a results file that is a link out of the folder
    /// or a FIFO is refused (a FIFO hung the command; `/dev/zero` took memory until killed).
    #[test]
    fn files_outside_the_folder_or_not_regular_are_refused() {
        let outside = tmp("outside-file").join("x.csv");
        std::fs::copy(on_disk("outside-src").join("results/book.csv"), &outside).expect("copy");
        for (tag, from) in [("abs", outside.display().to_string()), ("dotdot", "../../outside-file/x.csv".to_owned())] {
            let d = on_disk(tag);
            edit(&d.join(MANIFEST), "file = \"results/book.csv\"", &format!("file = {from:?}"));
            let e = read(&d).expect_err(tag).to_string();
            assert!(e.contains("manifest.toml") && e.contains("results/book.csv"), "{tag}: {e}");
        }
        #[cfg(unix)]
        {
            let d = on_disk("symlink");
            std::fs::remove_file(d.join("results/book.csv")).expect("rm");
            std::os::unix::fs::symlink(&outside, d.join("results/book.csv")).expect("link");
            let e = read(&d).expect_err("a link out of the folder").to_string();
            assert!(e.contains("results/book.csv") && e.contains("outside"), "{e}");

            let d = on_disk("fifo");
            let f = d.join("results/book.csv");
            let text = std::fs::read(&f).expect("read");
            std::fs::remove_file(&f).expect("rm");
            let c = std::ffi::CString::new(f.as_os_str().as_encoded_bytes()).expect("path");
            // SAFETY: a NUL-terminated path alive for the call.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            // A writer that feeds the FIFO whole if anyone opens it for reading.
            std::thread::spawn(move || {
                if let Ok(mut w) = std::fs::OpenOptions::new().write(true).open(&f) {
                    let _ = std::io::Write::write_all(&mut w, &text);
                }
            });
            let e = read(&d).expect_err("a FIFO").to_string();
            assert!(e.contains("results/book.csv") && e.contains("not a regular file"), "{e}");
        }
        let d = on_disk("big");
        let f = std::fs::OpenOptions::new().write(true).open(d.join(LATENCY)).expect("open");
        f.set_len(MAX_FILE_BYTES + 1).expect("a sparse file over the limit");
        let e = read(&d).expect_err("too large").to_string();
        assert!(e.contains("latency.csv") && e.contains("larger than"), "{e}");
    }

    /// What the format requires is checked, not defaulted: a results file without its `stderr`
    /// column, `format_version 0`, two rows with one id, and latencies that are not measurements
    /// (a NaN median could never regress, an infinite spread allowed any slowdown) are refused,
    /// naming the file and line.
    #[test]
    fn missing_columns_old_versions_duplicate_ids_and_non_measurements_are_refused() {
        let d = on_disk("nostderr");
        let f = d.join("results/book.csv");
        let mut r = csv::Reader::from_path(&f).expect("read");
        let h = r.headers().expect("header").clone();
        let keep: Vec<usize> = (0..h.len()).filter(|&i| &h[i] != "stderr").collect();
        let mut w = csv::Writer::from_path(d.join("t.csv")).expect("write");
        w.write_record(keep.iter().map(|&i| &h[i])).expect("write");
        for rec in r.records() {
            let rec = rec.expect("row");
            w.write_record(keep.iter().map(|&i| &rec[i])).expect("write");
        }
        w.flush().expect("flush");
        drop(w);
        std::fs::rename(d.join("t.csv"), &f).expect("mv");
        let e = read(&d).expect_err("no stderr column").to_string();
        assert!(e.contains("results/book.csv") && e.contains("stderr"), "{e}");

        let d = on_disk("v0");
        edit(&d.join(MANIFEST), "format_version = 1", "format_version = 0");
        let e = read(&d).expect_err("format_version 0").to_string();
        assert!(e.contains("format_version 0"), "{e}");

        let d = on_disk("dup");
        edit(&d.join("results/book.csv"), "\nb,", "\na,");
        let e = read(&d).expect_err("a duplicate id").to_string();
        assert!(e.contains("results/book.csv") && e.contains("line 3") && e.contains("\"a\""), "{e}");

        for (tag, from, to) in
            [("nan", "book,0.5,", "book,NaN,"), ("inf-iqr", ",0.01,5", ",inf,5"), ("neg", "book,0.5,", "book,-1,")]
        {
            let d = on_disk(tag);
            edit(&d.join(LATENCY), from, to);
            let e = read(&d).expect_err(tag).to_string();
            assert!(e.contains("latency.csv") && e.contains("line 2"), "{tag}: {e}");
        }
    }

    #[test]
    fn rules_round_trip_and_bad_ones_are_named() {
        for r in [Rule::Bitwise, Rule::Rel(1e-12), Rule::KStderr(3.0), Rule::Report] {
            assert_eq!(r.to_string().parse::<Rule>(), Ok(r));
        }
        assert!("rel=-1".parse::<Rule>().expect_err("refused").contains("rel=-1"));
        assert!("close".parse::<Rule>().expect_err("refused").contains("unknown comparison"));
    }
}
