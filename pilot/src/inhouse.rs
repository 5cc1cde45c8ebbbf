//! `tenor pilot kernel DIR`: benchmark a user's in-house kernel on every backend that has a
//! source for it (docs/kernels.md, "In-house kernels").
//!
//! DIR holds `kernel.toml` (the manifest), the sources it has (`cuda.cu`, `sycl.cpp`,
//! `opencl.cl`) and `pilot.toml`: the sizes to sweep, how to make each argument, and the
//! correctness check (against a reference backend or a reference output file).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context as _};
use serde::{Deserialize, Serialize};
use tenor_ports::{Access, Arg, ArgType, Compute, ComputeExt, DeviceBuffer, Expr, KernelDef};

use super::measure::{time, Stats};

/// How to make one argument (`pilot.toml`, table `[args.<name>]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgSpec {
    /// Buffers: element count, a length expression over `items` and `blocks` (the manifest's
    /// grammar, [`tenor_ports::expr`]: `items`, `2*blocks`, `items+1`, a number, ...).
    #[serde(default)]
    pub len: Option<String>,
    /// Input buffers: `uniform(a,b)` (seeded), `iota`, `constant(c)`. Outputs are poisoned with
    /// NaN (or 0xFFFFFFFF) before the launch and checked to be fully written.
    #[serde(default)]
    pub fill: Option<String>,
    /// Scalars: a number, or a length expression over `items` and `blocks`.
    #[serde(default)]
    pub value: Option<toml::Value>,
}

/// The correctness check.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckSpec {
    /// Relative tolerance (scaled by the largest reference magnitude) for float outputs.
    #[serde(default = "default_rtol")]
    pub rtol: f64,
    /// Reference output file (raw little-endian values of `output`) at the first size.
    #[serde(default)]
    pub reference_file: Option<String>,
    /// The output buffer the reference file holds.
    #[serde(default)]
    pub output: Option<String>,
}

fn default_rtol() -> f64 {
    1e-12
}

/// `pilot.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PilotSpec {
    /// Work-item counts to sweep.
    pub sizes: Vec<u64>,
    /// Argument generation by argument name.
    pub args: BTreeMap<String, ArgSpec>,
    /// Correctness check.
    #[serde(default)]
    pub check: CheckSpec,
}

/// An in-house kernel folder, loaded.
#[derive(Debug, Clone)]
pub struct InHouse {
    /// The manifest with the sources found.
    pub def: KernelDef,
    /// The sweep and checks.
    pub spec: PilotSpec,
    /// The folder.
    pub dir: PathBuf,
}

/// Loads DIR.
///
/// # Errors
/// Missing or malformed files, named with their path.
pub fn load(dir: &Path) -> anyhow::Result<InHouse> {
    let manifest = dir.join("kernel.toml");
    let text = std::fs::read_to_string(&manifest).with_context(|| format!("reading {}", manifest.display()))?;
    let mut def = KernelDef::from_toml(&text, &manifest.display().to_string())?;
    for lang in tenor_kernels::language::LANGUAGES {
        let (backend, p) = (lang.backend, dir.join(lang.file));
        let generated = tenor_kernels::entry::generated_source(&def, backend);
        if p.is_file() {
            if generated.is_some() {
                bail!(
                    "{} is written by hand but {}'s [source] table generates it: delete one",
                    p.display(),
                    manifest.display()
                );
            }
            let src = std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
            def.sources.insert(backend.into(), src);
        } else if let Some(src) = generated {
            // The entry point from the manifest's [source] table, as for a built-in kernel.
            def.sources.insert(backend.into(), src);
        }
    }
    let sp = dir.join("pilot.toml");
    let spec: PilotSpec =
        toml::from_str(&std::fs::read_to_string(&sp).with_context(|| format!("reading {}", sp.display()))?)
            .with_context(|| format!("parsing {}", sp.display()))?;
    if spec.sizes.is_empty() || spec.sizes.contains(&0) {
        bail!("{}: sizes must be a non-empty list of positive item counts", sp.display());
    }
    if spec.check.rtol.is_nan() || spec.check.rtol <= 0.0 {
        bail!("{}: check.rtol must be positive, got {}", sp.display(), spec.check.rtol);
    }
    for a in &def.args {
        if !spec.args.contains_key(&a.name) {
            bail!("{}: no [args.{}] entry for argument {} of {}", sp.display(), a.name, a.name, def.name);
        }
    }
    if let Some(extra) = spec.args.keys().find(|k| !def.args.iter().any(|a| &a.name == *k)) {
        bail!("{}: [args.{extra}] names no argument of {}", sp.display(), def.name);
    }
    let k = InHouse { def, spec, dir: dir.to_path_buf() };
    // Every scalar at every size converts to its type, before anything runs.
    for a in k.def.args.iter().filter(|a| !a.ty.is_pointer()) {
        for &items in &k.spec.sizes {
            scalar_arg(&k, a, items)?;
        }
    }
    Ok(k)
}

/// Evaluates a `pilot.toml` length or value expression: the manifest's length grammar
/// ([`tenor_ports::expr`]) over `items` and `blocks`.
fn count(expr: &str, items: u64, blocks: u64, what: &str) -> anyhow::Result<u64> {
    let e = Expr::parse(expr).map_err(|e| anyhow!("{what}: {e}"))?;
    e.check_names(|n| n == "items" || n == "blocks", "pilot.toml knows items and blocks")
        .map_err(|e| anyhow!("{what}: {e}"))?;
    e.eval(|n| match n {
        "items" => Some(items),
        "blocks" => Some(blocks),
        _ => None,
    })
    .map_err(|e| anyhow!("{what}: {e} at {items} items"))
}

/// A scalar argument's value, converted to the argument's type: a scalar [`Arg`] (the dynamic
/// path's own argument type, so no parallel enum).
type Scalar = Arg<'static>;

/// Converts `[args.<name>].value` of pilot.toml at `items` to the argument's type: out-of-range,
/// fractional (for integer types) and non-finite values are errors naming the file and field,
/// never truncated or saturated.
fn scalar_arg(k: &InHouse, a: &tenor_ports::ArgDef, items: u64) -> anyhow::Result<Scalar> {
    let file = k.dir.join("pilot.toml");
    let field = format!("{}: [args.{}].value", file.display(), a.name);
    let blocks = k.def.blocks(items);
    let v = k.spec.args.get(&a.name).and_then(|s| s.value.as_ref());
    let int: Option<i128> = match v {
        Some(toml::Value::String(e)) => Some(i128::from(count(e, items, blocks, &field)?)),
        Some(toml::Value::Integer(i)) => Some(i128::from(*i)),
        Some(toml::Value::Float(f)) => {
            if !f.is_finite() {
                bail!("{field}: {f} is not finite");
            }
            None
        }
        _ => bail!("{field}: scalar argument {} needs value = items | blocks | K*items | a number", a.name),
    };
    let float = |x: Option<i128>| match (x, v) {
        (Some(i), _) => i as f64,
        (None, Some(toml::Value::Float(f))) => *f,
        _ => f64::NAN,
    };
    let whole = |ty: &str| -> anyhow::Result<i128> {
        match int {
            Some(i) => Ok(i),
            None => bail!("{field}: {} is not a whole number, as {ty} needs", float(None)),
        }
    };
    let range = |i: i128, ty: &str| anyhow!("{field}: {i} is out of range for {ty}");
    Ok(match a.ty {
        ArgType::U32 => {
            let i = whole("u32")?;
            Scalar::U32(u32::try_from(i).map_err(|_| range(i, "u32"))?)
        }
        ArgType::I32 => {
            let i = whole("i32")?;
            Scalar::I32(i32::try_from(i).map_err(|_| range(i, "i32"))?)
        }
        ArgType::U64 => {
            let i = whole("u64")?;
            Scalar::U64(u64::try_from(i).map_err(|_| range(i, "u64"))?)
        }
        ArgType::F32 => {
            let x = float(int);
            if x.abs() > f64::from(f32::MAX) {
                bail!("{field}: {x} is out of range for f32");
            }
            Scalar::F32(x as f32)
        }
        _ => Scalar::F64(float(int)),
    })
}

/// SplitMix64, for seeded inputs that are the same on every backend.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn fill_values(fill: &str, n: usize, seed: u64, what: &str) -> anyhow::Result<Vec<f64>> {
    let f = fill.replace(' ', "");
    if f == "iota" {
        return Ok((0..n).map(|i| i as f64).collect());
    }
    let inner = |p: &str| f.strip_prefix(p).and_then(|r| r.strip_suffix(')'));
    if let Some(c) = inner("constant(") {
        let c: f64 = c.parse().map_err(|_| anyhow!("{what}: bad constant in {fill:?}"))?;
        return Ok(vec![c; n]);
    }
    if let Some(ab) = inner("uniform(") {
        let (a, b) = ab.split_once(',').ok_or_else(|| anyhow!("{what}: uniform needs two bounds"))?;
        let (a, b): (f64, f64) = (
            a.parse().map_err(|_| anyhow!("{what}: bad bound {a}"))?,
            b.parse().map_err(|_| anyhow!("{what}: bad bound {b}"))?,
        );
        let mut st = seed;
        return Ok((0..n).map(|_| a + (b - a) * ((splitmix(&mut st) >> 11) as f64 / (1u64 << 53) as f64)).collect());
    }
    bail!("{what}: fill {fill:?} is not uniform(a,b), iota or constant(c)")
}

/// Bytes of `v` converted to the element type of `ty`.
fn encode(v: &[f64], ty: ArgType) -> Vec<u8> {
    match ty {
        ArgType::PtrF32 => v.iter().flat_map(|x| (*x as f32).to_le_bytes()).collect(),
        ArgType::PtrU32 => v.iter().flat_map(|x| (*x as u32).to_le_bytes()).collect(),
        ArgType::PtrU64 => v.iter().flat_map(|x| (*x as u64).to_le_bytes()).collect(),
        _ => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
    }
}

fn decode(b: &[u8], ty: ArgType) -> Vec<f64> {
    match ty {
        ArgType::PtrF32 => b.chunks_exact(4).map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]]))).collect(),
        ArgType::PtrU32 => b.chunks_exact(4).map(|c| f64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]]))).collect(),
        ArgType::PtrU64 => b
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) as f64)
            .collect(),
        _ => b.chunks_exact(8).map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])).collect(),
    }
}

/// Outputs of one run: buffer name to values.
pub type Outputs = BTreeMap<String, Vec<f64>>;

/// One backend's measurement at one size.
#[derive(Debug, Clone, Serialize)]
pub struct KernelRow {
    /// Backend.
    pub backend: String,
    /// Work items.
    pub items: u64,
    /// Warm timings.
    pub warm: Stats,
    /// Items per second.
    pub items_per_s: f64,
    /// Bytes moved per second (from the manifest's bytes_per_item).
    pub gb_per_s: f64,
    /// FLOP per second (from the manifest's flops_per_item).
    pub gflop_per_s: f64,
    /// Correctness: `ok against <reference>`, or what differed.
    pub check: String,
}

/// Runs the kernel once at `items` on `dev` and returns its outputs and the timings.
///
/// # Errors
/// Argument generation or device errors.
pub fn run_on(k: &InHouse, dev: &dyn Compute, items: u64, budget_s: f64) -> anyhow::Result<(Outputs, Stats)> {
    let s = dev.default_stream().clone();
    let kernel = dev.load_kernel(&k.def)?;
    let blocks = k.def.blocks(items);
    let mut bufs: Vec<Option<DeviceBuffer>> = Vec::new();
    for (i, a) in k.def.args.iter().enumerate() {
        let spec = &k.spec.args[&a.name];
        if a.ty.is_pointer() {
            let len = count(spec.len.as_deref().unwrap_or("items"), items, blocks, &a.name)?;
            let len = usize::try_from(len).map_err(|_| {
                anyhow!("[args.{}].len: {len} elements do not fit this machine's address space", a.name)
            })?;
            let vals = match (&spec.fill, a.access) {
                (Some(f), _) => fill_values(f, len, 0x5eed + i as u64, &a.name)?,
                (None, Some(Access::Write)) => vec![f64::NAN; len],
                (None, _) => bail!("argument {} is read but has no fill", a.name),
            };
            let mut bytes = encode(&vals, a.ty);
            if spec.fill.is_none() && matches!(a.ty, ArgType::PtrU32 | ArgType::PtrU64) {
                bytes.fill(0xFF);
            }
            bufs.push(Some(dev.upload_slice(&s, &bytes)?));
        } else {
            bufs.push(None);
        }
    }
    let mut args = Vec::new();
    for (a, b) in k.def.args.iter().zip(&bufs) {
        let arg = match b {
            Some(buf) => Arg::Buf(buf, a.access.unwrap_or(Access::Read)),
            None => scalar_arg(k, a, items)?,
        };
        args.push(arg);
    }
    dev.launch(&s, &kernel, items, &args)?;
    let mut outputs = Outputs::new();
    for (a, b) in k.def.args.iter().zip(&bufs) {
        if let (Some(buf), Some(acc)) = (b, a.access) {
            if acc.writes() {
                let bytes: Vec<u8> = dev.download_vec(&s, buf)?;
                outputs.insert(a.name.clone(), decode(&bytes, a.ty));
            }
        }
    }
    let stats = time(2, 200, budget_s, || {
        dev.launch(&s, &kernel, items, &args)?;
        dev.synchronize()
    })?;
    Ok((outputs, stats))
}

/// Compares outputs with a reference; every output element must have been written.
pub fn compare(got: &Outputs, want: &Outputs, rtol: f64) -> Result<(), String> {
    for (name, g) in got {
        if g.iter().any(|x| x.is_nan()) {
            return Err(format!("{name}: some elements were not written (NaN poison left)"));
        }
        if let Some(w) = want.get(name) {
            if w.len() != g.len() {
                return Err(format!("{name}: {} values, reference has {}", g.len(), w.len()));
            }
            let scale = w.iter().fold(0.0f64, |m, x| m.max(x.abs())).max(f64::MIN_POSITIVE);
            let d = g.iter().zip(w).fold(0.0f64, |m, (a, b)| m.max((a - b).abs() / scale));
            if d > rtol {
                return Err(format!("{name}: max relative difference {d:.3e} > {rtol:.0e}"));
            }
        }
    }
    Ok(())
}

/// Reads the reference output file of the check, if any.
///
/// # Errors
/// I/O errors naming the file.
pub fn reference_outputs(k: &InHouse) -> anyhow::Result<Option<Outputs>> {
    match (&k.spec.check.reference_file, &k.spec.check.output) {
        (Some(f), Some(out)) => {
            let p = k.dir.join(f);
            let bytes = std::fs::read(&p).with_context(|| format!("reading reference {}", p.display()))?;
            let arg = k
                .def
                .args
                .iter()
                .find(|a| &a.name == out)
                .ok_or_else(|| anyhow!("check.output {out} is no argument"))?;
            if !arg.access.is_some_and(|a| a.writes()) {
                bail!("check.output {out} is not a buffer the kernel writes, so the reference file could not check anything");
            }
            let ty = arg.ty;
            Ok(Some(BTreeMap::from([(out.clone(), decode(&bytes, ty))])))
        }
        (None, None) => Ok(None),
        _ => bail!("check needs both reference_file and output"),
    }
}
