//! The baseline folder's format (docs/certify.md): `manifest.toml` (environment, suite, parts
//! run or skipped with the reason, the files and their row counts), `floors.csv` (feature floors),
//! `results/<part>.csv` (one value row per trade or output: `id`, `price`, a column per Greek,
//! and how each is compared) and `latency.csv` (median and IQR per workload). Plain text, so a
//! reviewer can diff two baselines; read back with typed errors naming the file and what is wrong.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The baseline format this build writes and reads; a baseline with a larger number was written
/// by a newer Tenor and is refused.
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
    /// The candidate ran a suite part the baseline did not (or the other way round).
    #[error("{}: the suites differ: {what}", .file.display())]
    SuiteMismatch {
        /// The manifest.
        file: PathBuf,
        /// Which part and how.
        what: String,
    },
}

/// The manifest's file name.
pub const MANIFEST: &str = "manifest.toml";
/// The feature floors' file name.
pub const FLOORS: &str = "floors.csv";
/// The latency file name.
pub const LATENCY: &str = "latency.csv";

fn read_text(file: &Path) -> Result<String, BaselineError> {
    std::fs::read_to_string(file).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => BaselineError::Missing { file: file.to_owned() },
        _ => BaselineError::Io { file: file.to_owned(), source: e },
    })
}

fn read_csv<T: serde::de::DeserializeOwned>(file: &Path) -> Result<Vec<T>, BaselineError> {
    let text = read_text(file)?;
    let text = tenor_ports::text::strip_bom(&text);
    let mut r = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let mut rows = Vec::new();
    for rec in r.deserialize() {
        rows.push(rec.map_err(|e| BaselineError::Malformed {
            file: file.to_owned(),
            what: match e.position() {
                Some(p) => format!("line {}: {} (truncated or edited?)", p.line(), csv_reason(&e)),
                None => e.to_string(),
            },
        })?);
    }
    Ok(rows)
}

fn csv_reason(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::UnequalLengths { expected_len, len, .. } => {
            format!("{len} fields where the header has {expected_len}")
        }
        csv::ErrorKind::Deserialize { err, .. } => match err.field() {
            Some(f) => format!("column {}: {}", f + 1, err.kind()),
            None => err.kind().to_string(),
        },
        _ => e.to_string(),
    }
}

/// Reads and checks the manifest of `dir` (exists, parses, format version not newer).
///
/// # Errors
/// [`BaselineError`] naming `dir/manifest.toml`.
pub fn read_manifest(dir: &Path) -> Result<Manifest, BaselineError> {
    let file = dir.join(MANIFEST);
    let text = read_text(&file)?;
    // The version first, so that a newer format is named as such rather than as a parse error.
    let raw: toml::Value =
        toml::from_str(&text).map_err(|e| BaselineError::Malformed { file: file.clone(), what: e.to_string() })?;
    let found = raw
        .get("format_version")
        .and_then(toml::Value::as_integer)
        .ok_or_else(|| BaselineError::Malformed { file: file.clone(), what: "no integer format_version".into() })?;
    let found = u32::try_from(found)
        .map_err(|_| BaselineError::Malformed { file: file.clone(), what: format!("format_version {found}") })?;
    if found > FORMAT_VERSION {
        let commit = raw.get("commit").and_then(toml::Value::as_str).unwrap_or("unknown").to_owned();
        return Err(BaselineError::NewerFormat { file, found, commit });
    }
    toml::from_str(&text).map_err(|e| BaselineError::Malformed { file, what: e.to_string() })
}

/// Reads a whole baseline folder: manifest, floors, every results file the manifest lists
/// (with its row count checked) and the latencies.
///
/// # Errors
/// [`BaselineError`] naming the file and what is wrong.
pub fn read(dir: &Path) -> Result<Baseline, BaselineError> {
    let manifest = read_manifest(dir)?;
    let floors = read_csv(&dir.join(FLOORS))?;
    let mut values = Vec::new();
    for p in manifest.parts.iter().filter(|p| p.status == "ran") {
        let file = dir.join(&p.file);
        let rows: Vec<ValueRow> = read_csv(&file)?;
        if rows.len() != p.rows {
            return Err(BaselineError::Malformed {
                file,
                what: format!("{} rows, the manifest says {} (truncated?)", rows.len(), p.rows),
            });
        }
        for (i, r) in rows.iter().enumerate() {
            for rule in [&r.compare, &r.greeks_compare] {
                rule.parse::<Rule>().map_err(|e| BaselineError::Malformed {
                    file: file.clone(),
                    what: format!("line {}: {e}", i + 2),
                })?;
            }
        }
        values.push((p.name.clone(), rows));
    }
    let latency = read_csv(&dir.join(LATENCY))?;
    Ok(Baseline { manifest, floors, values, latency })
}

fn write_csv<T: Serialize>(file: &Path, rows: &[T]) -> anyhow::Result<()> {
    use anyhow::Context as _;
    let mut w = csv::Writer::from_path(file).with_context(|| format!("writing {}", file.display()))?;
    for r in rows {
        w.serialize(r).with_context(|| format!("writing {}", file.display()))?;
    }
    w.flush().with_context(|| format!("writing {}", file.display()))?;
    Ok(())
}

/// A temporary sibling of `dest` (same folder, so the final rename stays on one file system).
pub fn temp_sibling(dest: &Path) -> PathBuf {
    let name = dest.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    dest.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// Writes `b` as a new folder `dest`: everything into a temporary sibling folder, then one
/// rename, so a reader sees the whole baseline or none. An existing `dest` is refused.
///
/// # Errors
/// `dest` exists, or a write or the rename fails.
pub fn write(dest: &Path, b: &Baseline) -> anyhow::Result<()> {
    use anyhow::Context as _;
    if dest.exists() {
        anyhow::bail!("--out {} exists; certify writes a new folder (remove it or choose another)", dest.display());
    }
    let tmp = temp_sibling(dest);
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(tmp.join("results")).with_context(|| format!("creating {}", tmp.display()))?;
    let text = toml::to_string(&b.manifest).context("serialising the manifest")?;
    std::fs::write(tmp.join(MANIFEST), text).with_context(|| format!("writing {}", tmp.join(MANIFEST).display()))?;
    write_csv(&tmp.join(FLOORS), &b.floors)?;
    for (part, rows) in &b.values {
        let p = b.manifest.parts.iter().find(|p| &p.name == part).context("a part without manifest entry")?;
        write_csv(&tmp.join(&p.file), rows)?;
    }
    write_csv(&tmp.join(LATENCY), &b.latency)?;
    std::fs::rename(&tmp, dest).with_context(|| format!("renaming {} to {}", tmp.display(), dest.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_round_trip_and_bad_ones_are_named() {
        for r in [Rule::Bitwise, Rule::Rel(1e-12), Rule::KStderr(3.0), Rule::Report] {
            assert_eq!(r.to_string().parse::<Rule>(), Ok(r));
        }
        assert!("rel=-1".parse::<Rule>().expect_err("refused").contains("rel=-1"));
        assert!("close".parse::<Rule>().expect_err("refused").contains("unknown comparison"));
    }
}
