//! Launch length checks, the same on every backend: a buffer shorter than its manifest `len`
//! is a typed [`ComputeError::BufferTooShort`] before anything is enqueued, never a write (or
//! read) past its end, and a written buffer passed as another argument too is refused.
//!
//! Required lengths here are computed by hand from the manifests' `len` expressions, not by
//! the code under test: `mc_european` partials `2*blocks` with `blocks = ceil(pairs / 4096)`,
//! `gbm_paths` out `steps*paths`, `reduce_sum_sumsq` x `n`.

use tenor_ports::{Access, Arg, Compute, ComputeError, ComputeExt, DeviceBuffer, Stream};

use crate::e;

/// The sentinel a too-short buffer holds before the refused launch, and must hold after it.
const SENTINEL: f64 = 7.25;

fn kernel(dev: &dyn Compute, name: &str) -> Result<tenor_ports::Kernel, String> {
    dev.load_kernel(tenor_kernels::get(name).map_err(e)?).map_err(e)
}

fn mc_european_args<'a>(partials: &'a DeviceBuffer, pairs: u64) -> [Arg<'a>; 9] {
    [
        Arg::Buf(partials, Access::Write),
        Arg::U64(7),
        Arg::U64(pairs),
        Arg::F64(100.0),
        Arg::F64(100.0),
        Arg::U32(1),
        Arg::F64(0.0),
        Arg::F64(0.2),
        Arg::F64(0.97),
    ]
}

/// Expects `r` to be the typed too-short error with these fields.
fn expect_too_short(
    r: Result<(), ComputeError>,
    kernel: &str,
    name: &str,
    len: &str,
    required: u64,
    given: u64,
) -> Result<(), String> {
    match r {
        Err(ComputeError::BufferTooShort { kernel: k, name: n, len: l, required: r, given: g, .. })
            if k == kernel && n == name && l == len && r == required && g == given =>
        {
            Ok(())
        }
        Err(other) => Err(format!(
            "{kernel}: expected BufferTooShort {{ {name}, len {len:?}, required {required}, given {given} }}, got: {other}"
        )),
        Ok(()) => Err(format!(
            "{kernel}: a launch with {name} of {given} elements (needs {required}) was accepted, not refused"
        )),
    }
}

/// The buffer still holds `want` (nothing was written into it).
fn untouched(dev: &dyn Compute, s: &Stream, buf: &DeviceBuffer, want: &[f64], what: &str) -> Result<(), String> {
    let got: Vec<f64> = dev.download_vec(s, buf).map_err(e)?;
    if got.iter().zip(want).all(|(a, b)| a.to_bits() == b.to_bits()) && got.len() == want.len() {
        Ok(())
    } else {
        Err(format!("{what}: the refused launch wrote into the buffer: {got:?}"))
    }
}

/// Short outputs and inputs are refused with the kernel, argument, required and given length;
/// an exactly long enough buffer is accepted; a written buffer aliasing an input is refused;
/// and the device works normally afterwards.
pub fn short_buffers(dev: &dyn Compute) -> Result<(), String> {
    let s = dev.default_stream().clone();

    // mc_european over 10^6 pairs: 2 * ceil(10^6 / 4096) = 2 * 245 = 490 partials.
    let k = kernel(dev, "mc_european")?;
    let pairs = 1_000_000u64;
    let tiny = dev.upload_slice(&s, &[SENTINEL]).map_err(e)?;
    expect_too_short(
        dev.launch(&s, &k, pairs, &mc_european_args(&tiny, pairs)),
        "mc_european",
        "partials",
        "2*blocks",
        490,
        1,
    )?;
    dev.synchronize().map_err(e)?;
    untouched(dev, &s, &tiny, &[SENTINEL], "mc_european partials of 1 element")?;
    let short = dev.upload_slice(&s, &[SENTINEL; 489]).map_err(e)?;
    expect_too_short(
        dev.launch(&s, &k, pairs, &mc_european_args(&short, pairs)),
        "mc_european",
        "partials",
        "2*blocks",
        490,
        489,
    )?;
    dev.synchronize().map_err(e)?;
    untouched(dev, &s, &short, &[SENTINEL; 489], "mc_european partials of 489 elements")?;
    // 12 bytes hold one whole f64.
    let ragged = dev.upload_slice(&s, &[0u32; 3]).map_err(e)?;
    expect_too_short(
        dev.launch(&s, &k, 4097, &mc_european_args(&ragged, 4097)),
        "mc_european",
        "partials",
        "2*blocks",
        4,
        1,
    )?;
    let exact = dev.alloc_elems::<f64>(&s, 490).map_err(e)?;
    dev.launch(&s, &k, pairs, &mc_european_args(&exact, pairs)).map_err(|x| format!("exact length refused: {x}"))?;
    dev.synchronize().map_err(e)?;

    // gbm_paths: out needs steps * paths = 3 * 1000 values; 2999 is one short.
    let g = kernel(dev, "gbm_paths")?;
    let out = dev.upload_slice(&s, &[SENTINEL; 2999]).map_err(e)?;
    let gbm = |buf| {
        [
            Arg::Buf(buf, Access::Write),
            Arg::U64(3),
            Arg::U64(1000),
            Arg::U32(3),
            Arg::F64(100.0),
            Arg::F64(0.0),
            Arg::F64(0.1),
            Arg::F64(0.0),
            Arg::F64(0.1),
        ]
    };
    expect_too_short(dev.launch(&s, &g, 1000, &gbm(&out)), "gbm_paths", "out", "steps*paths", 3000, 2999)?;
    dev.synchronize().map_err(e)?;
    untouched(dev, &s, &out, &[SENTINEL; 2999], "gbm_paths out of 2999 elements")?;

    // reduce_sum_sumsq: an input of 100 values read as 101 (a read past the end).
    let r = kernel(dev, "reduce_sum_sumsq")?;
    let x: Vec<f64> = (1..=100).map(f64::from).collect();
    let xb = dev.upload_slice(&s, &x).map_err(e)?;
    let partials = dev.alloc_elems::<f64>(&s, 2).map_err(e)?;
    let reduce = |x, p, n| [Arg::Buf(x, Access::Read), Arg::Buf(p, Access::Write), Arg::U64(n)];
    expect_too_short(dev.launch(&s, &r, 101, &reduce(&xb, &partials, 101)), "reduce_sum_sumsq", "x", "n", 101, 100)?;

    // The same buffer as input and output: refused, nothing written.
    match dev.launch(&s, &r, 2, &reduce(&xb, &xb, 2)) {
        Err(ComputeError::KernelArg { kernel, name, reason, .. })
            if kernel == "reduce_sum_sumsq" && name == "partials" && reason.contains("overlaps") => {}
        other => return Err(format!("aliased input and output: expected a KernelArg overlap error, got {other:?}")),
    }
    dev.synchronize().map_err(e)?;
    untouched(dev, &s, &xb, &x, "aliased reduce input")?;

    // The device still works: sum and sum of squares of 1..=100 are 5050 and 338350.
    dev.launch(&s, &r, 100, &reduce(&xb, &partials, 100)).map_err(e)?;
    let p: Vec<f64> = dev.download_vec(&s, &partials).map_err(e)?;
    dev.synchronize().map_err(e)?;
    if p != [5050.0, 338_350.0] {
        return Err(format!("reduce after the refused launches gave {p:?}, not [5050, 338350]"));
    }
    Ok(())
}

/// Panics unless [`short_buffers`] passes (for `#[test]` entry points).
pub fn assert_short_buffers(dev: &dyn Compute) {
    if let Err(m) = short_buffers(dev) {
        panic!("length checks on {}: {m}", dev.info().backend);
    }
}
