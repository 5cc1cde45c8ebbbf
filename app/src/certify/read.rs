//! Reading a baseline folder back, trusting nothing in it (issue 29): every file is a regular
//! file inside the folder (a part's file is `results/<part>.csv`, never a path the manifest
//! chooses; a link out of the folder, a FIFO or a device is refused) of at most
//! [`MAX_FILE_BYTES`]; the format version is this Tenor's; each CSV has exactly its columns, one
//! row per id, and values that are measurements (finite standard errors, positive finite
//! medians). Errors name the file, the line and what is wrong.

use std::path::Path;

use super::format::{
    Baseline, BaselineError, FloorRow, LatencyRow, Manifest, Rule, ValueRow, FLOORS, FORMAT_VERSION, LATENCY, MANIFEST,
    MAX_FILE_BYTES,
};

/// Columns of a results file, in order.
const VALUE_COLUMNS: [&str; 12] = [
    "id",
    "price",
    "stderr",
    "delta",
    "gamma",
    "vega",
    "theta",
    "rho",
    "compare",
    "greeks_compare",
    "terms",
    "precision",
];
/// Columns of `latency.csv`.
const LATENCY_COLUMNS: [&str; 4] = ["workload", "median_s", "rel_iqr", "repeats"];
/// Columns of `floors.csv`.
const FLOOR_COLUMNS: [&str; 4] = ["feature", "required", "found", "status"];

fn malformed(file: &Path, what: impl Into<String>) -> BaselineError {
    BaselineError::Malformed { file: file.to_owned(), what: what.into() }
}

/// The text of `dir/rel`, a regular file inside `dir` (after following links) of at most
/// [`MAX_FILE_BYTES`]. The file is opened without blocking (a FIFO never hangs the open) and
/// examined through the open descriptor, so what is checked is what is read.
fn read_text(dir: &Path, rel: &str) -> Result<String, BaselineError> {
    let file = dir.join(rel);
    let io = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => BaselineError::Missing { file: file.clone() },
        _ => BaselineError::Io { file: file.clone(), source: e },
    };
    let root = dir.canonicalize().map_err(|e| BaselineError::Io { file: dir.to_owned(), source: e })?;
    let real = file.canonicalize().map_err(io)?;
    if !real.starts_with(&root) {
        return Err(malformed(&file, format!("leads to {}, outside the baseline folder; refused", real.display())));
    }
    let too_large = || malformed(&file, format!("is larger than {MAX_FILE_BYTES} bytes, more than a baseline holds"));
    let bytes = crate::paths::read_regular(&real, MAX_FILE_BYTES).map_err(|e| match e {
        crate::paths::RegularRead::Io(e) => io(e),
        crate::paths::RegularRead::NotRegular => {
            malformed(&file, "is not a regular file (a FIFO, a device or a folder); refused")
        }
        crate::paths::RegularRead::TooLarge => too_large(),
    })?;
    String::from_utf8(bytes)
        .map_err(|e| malformed(&file, format!("not UTF-8 at byte {}", e.utf8_error().valid_up_to())))
}

/// The rows of the CSV `dir/rel`, whose header must be exactly `columns`; each row with its line.
fn read_csv<T: serde::de::DeserializeOwned>(
    dir: &Path,
    rel: &str,
    columns: &[&str],
) -> Result<Vec<(u64, T)>, BaselineError> {
    let file = dir.join(rel);
    let text = read_text(dir, rel)?;
    let text = tenor_ports::text::strip_bom(&text);
    let mut r = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let header = r.headers().map_err(|e| malformed(&file, format!("line 1: {e}")))?.clone();
    if !header.iter().eq(columns.iter().copied()) {
        let got: Vec<&str> = header.iter().collect();
        return Err(malformed(
            &file,
            format!("line 1: the columns are {}, the format's are {} (edited?)", got.join(","), columns.join(",")),
        ));
    }
    let mut rows = Vec::new();
    for rec in r.deserialize() {
        let line = rows.len() as u64 + 2;
        rows.push((
            line,
            rec.map_err(|e| match e.position() {
                Some(p) => malformed(&file, format!("line {}: {} (truncated or edited?)", p.line(), csv_reason(&e))),
                None => malformed(&file, e.to_string()),
            })?,
        ));
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

/// Refuses a key seen on an earlier line of `file`.
fn unique<'a>(file: &Path, what: &str, keys: impl Iterator<Item = (u64, &'a str)>) -> Result<(), BaselineError> {
    let mut seen = std::collections::HashMap::new();
    for (line, k) in keys {
        if let Some(first) = seen.insert(k, line) {
            return Err(malformed(file, format!("line {line}: {what} {k:?} is on line {first} already")));
        }
    }
    Ok(())
}

/// Reads and checks the manifest of `dir` (exists, parses, this Tenor's format version).
///
/// # Errors
/// [`BaselineError`] naming `dir/manifest.toml`.
pub fn read_manifest(dir: &Path) -> Result<Manifest, BaselineError> {
    let file = dir.join(MANIFEST);
    let text = read_text(dir, MANIFEST)?;
    // The version first, so that another format is named as such rather than as a parse error.
    let raw: toml::Value = toml::from_str(&text).map_err(|e| malformed(&file, e.to_string()))?;
    let found = raw
        .get("format_version")
        .and_then(toml::Value::as_integer)
        .ok_or_else(|| malformed(&file, "no integer format_version"))?;
    let found = u32::try_from(found).map_err(|_| malformed(&file, format!("format_version {found}")))?;
    if found > FORMAT_VERSION {
        let commit = raw.get("commit").and_then(toml::Value::as_str).unwrap_or("unknown").to_owned();
        return Err(BaselineError::NewerFormat { file, found, commit });
    }
    if found != FORMAT_VERSION {
        return Err(malformed(
            &file,
            format!("format_version {found} is not one this Tenor reads ({FORMAT_VERSION}; there is no older one)"),
        ));
    }
    let m: Manifest = toml::from_str(&text).map_err(|e| malformed(&file, e.to_string()))?;
    for p in &m.parts {
        let plain = !p.name.is_empty() && p.name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        let expected = format!("results/{}.csv", p.name);
        if !plain || (p.status == "ran" && p.file != expected) {
            return Err(malformed(
                &file,
                format!(
                    "part {:?} names its results file {:?}; a part's results are {expected} inside the baseline folder",
                    p.name, p.file
                ),
            ));
        }
    }
    unique(&file, "part", m.parts.iter().map(|p| (0, p.name.as_str())))?;
    Ok(m)
}

/// The values of one results file, checked: rules that parse, standard errors that are finite
/// and not negative, one row per id.
fn read_values(dir: &Path, rel: &str, expected_rows: usize) -> Result<Vec<ValueRow>, BaselineError> {
    let file = dir.join(rel);
    let rows: Vec<(u64, ValueRow)> = read_csv(dir, rel, &VALUE_COLUMNS)?;
    if rows.len() != expected_rows {
        return Err(malformed(&file, format!("{} rows, the manifest says {expected_rows} (truncated?)", rows.len())));
    }
    for (line, r) in &rows {
        for rule in [&r.compare, &r.greeks_compare] {
            rule.parse::<Rule>().map_err(|e| malformed(&file, format!("line {line}: {e}")))?;
        }
        if let Some(s) = r.stderr.filter(|s| !(s.is_finite() && *s >= 0.0)) {
            return Err(malformed(&file, format!("line {line}: stderr {s} is not a standard error")));
        }
    }
    unique(&file, "id", rows.iter().map(|(l, r)| (*l, r.id.as_str())))?;
    Ok(rows.into_iter().map(|(_, r)| r).collect())
}

/// The latencies, checked: positive finite medians, finite non-negative spreads, repeats, one
/// row per workload.
fn read_latency(dir: &Path) -> Result<Vec<LatencyRow>, BaselineError> {
    let file = dir.join(LATENCY);
    let rows: Vec<(u64, LatencyRow)> = read_csv(dir, LATENCY, &LATENCY_COLUMNS)?;
    for (line, l) in &rows {
        if !(l.median_s.is_finite() && l.median_s > 0.0) {
            return Err(malformed(&file, format!("line {line}: median_s {} is not a positive time", l.median_s)));
        }
        if !(l.rel_iqr.is_finite() && l.rel_iqr >= 0.0) {
            return Err(malformed(&file, format!("line {line}: rel_iqr {} is not a spread", l.rel_iqr)));
        }
        if l.repeats == 0 {
            return Err(malformed(&file, format!("line {line}: repeats 0")));
        }
    }
    unique(&file, "workload", rows.iter().map(|(l, r)| (*l, r.workload.as_str())))?;
    Ok(rows.into_iter().map(|(_, r)| r).collect())
}

/// Reads a whole baseline folder: manifest, floors, every results file the manifest lists
/// (with its row count checked) and the latencies.
///
/// # Errors
/// [`BaselineError`] naming the file and what is wrong.
pub fn read(dir: &Path) -> Result<Baseline, BaselineError> {
    let manifest = read_manifest(dir)?;
    let floors: Vec<(u64, FloorRow)> = read_csv(dir, FLOORS, &FLOOR_COLUMNS)?;
    unique(&dir.join(FLOORS), "feature", floors.iter().map(|(l, f)| (*l, f.feature.as_str())))?;
    let mut values = Vec::new();
    for p in manifest.parts.iter().filter(|p| p.status == "ran") {
        values.push((p.name.clone(), read_values(dir, &p.file, p.rows)?));
    }
    let latency = read_latency(dir)?;
    Ok(Baseline { manifest, floors: floors.into_iter().map(|(_, f)| f).collect(), values, latency })
}
