//! Kernel checks. Each launches its kernel on the device under test and compares what it wrote
//! with references of its own ([`crate::reference`]): closed forms (Black, the reflection
//! principle for barriers, the geometric Asian), published values (Random123's Philox known
//! answers, Lewis's Heston prices, Haug's barrier table), hand-computed cases (payoffs, sums,
//! regression rows and exercise decisions computed on the host from the inputs, the
//! bootstrap of a flat par curve) and Monte Carlo estimates within [`reference::MC_SIGMAS`] standard errors
//! of their closed forms. On every backend but the CPU reference itself it also launches the
//! same arguments on the CPU reference ([`tenor_cpu::cpu`]) and compares every output (fp64
//! within [`FP64_RTOL`], fp32 kernels within [`FP32_RTOL`], relative to the largest magnitude of
//! the reference output); on the CPU that comparison would be the kernel against itself, so
//! there the references above are the check. A batch kernel's products are also compared
//! bitwise with its single kernel launched for each product alone, on the same device.

use tenor_ports::{Access, Arg, Compute, ComputeError, ComputeExt, DeviceBuffer};

use tenor_kernels::typed::PhiloxBits;

use crate::reference::{self, AsianLognormal, BarrierBs, BarrierPathSpec, Estimate};
use crate::{max_rel_diff, FP32_RTOL, FP64_RTOL};

pub use crate::basket::{basket_backward, basket_gram, basket_moments, basket_paths, basket_sens, basket_value};

/// One launch argument, owned.
#[derive(Debug, Clone)]
pub enum KArg {
    /// An `f64*` output of this many elements (downloaded after the launch).
    Out(usize),
    /// An `f64*` input with these contents.
    In(Vec<f64>),
    /// An `f64*` read-write buffer with these initial contents (downloaded after the launch).
    InOut(Vec<f64>),
    /// A `u32*` input with these contents.
    InU32(Vec<u32>),
    /// A `u32*` read-write buffer with these initial contents (downloaded after the launch, each
    /// value converted exactly to `f64`).
    InOutU32(Vec<u32>),
    /// A `u32*` output of this many elements (downloaded after the launch, each value
    /// converted exactly to `f64`).
    OutU32(usize),
    /// A `u32` scalar.
    U32(u32),
    /// A `u64` scalar.
    U64(u64),
    /// An `f32` scalar.
    F32(f32),
    /// An `f64` scalar.
    F64(f64),
}

fn err(e: ComputeError) -> String {
    e.to_string()
}

/// Launches built-in kernel `name` over `items` on `dev` and returns its `Out`, `InOut` and
/// `OutU32` buffers in argument order (`u32` values converted exactly to `f64`).
///
/// # Errors
/// The device's error, as text.
pub fn launch_outputs(dev: &dyn Compute, name: &str, items: u64, args: &[KArg]) -> Result<Vec<Vec<f64>>, String> {
    launch_outputs_as(dev, name, items, args, false)
}

/// [`launch_outputs`] through [`Compute::launch_cooperative`] where `cooperative`.
///
/// # Errors
/// The device's error, as text.
pub fn launch_outputs_as(
    dev: &dyn Compute,
    name: &str,
    items: u64,
    args: &[KArg],
    cooperative: bool,
) -> Result<Vec<Vec<f64>>, String> {
    // Order this check after earlier work (and frees) on every stream of the device.
    dev.synchronize().map_err(err)?;
    let s = dev.default_stream().clone();
    let def = tenor_kernels::get(name).map_err(err)?;
    let k = dev.load_kernel(def).map_err(err)?;
    let mut bufs: Vec<Option<DeviceBuffer>> = Vec::with_capacity(args.len());
    for a in args {
        bufs.push(match a {
            KArg::Out(n) => Some(dev.alloc_elems::<f64>(&s, *n).map_err(err)?),
            KArg::In(v) | KArg::InOut(v) => Some(dev.upload_slice(&s, v).map_err(err)?),
            KArg::InU32(v) | KArg::InOutU32(v) => Some(dev.upload_slice(&s, v).map_err(err)?),
            KArg::OutU32(n) => Some(dev.alloc_elems::<u32>(&s, *n).map_err(err)?),
            _ => None,
        });
    }
    let mut raw: Vec<Arg<'_>> = Vec::with_capacity(args.len());
    for (a, b) in args.iter().zip(&bufs) {
        raw.push(match (a, b) {
            (KArg::Out(_), Some(b)) => Arg::Buf(b, Access::Write),
            (KArg::In(_) | KArg::InU32(_), Some(b)) => Arg::Buf(b, Access::Read),
            (KArg::InOut(_), Some(b)) => Arg::Buf(b, Access::ReadWrite),
            (KArg::OutU32(_), Some(b)) => Arg::Buf(b, Access::Write),
            (KArg::InOutU32(_), Some(b)) => Arg::Buf(b, Access::ReadWrite),
            (KArg::U32(v), _) => Arg::U32(*v),
            (KArg::U64(v), _) => Arg::U64(*v),
            (KArg::F32(v), _) => Arg::F32(*v),
            (KArg::F64(v), _) => Arg::F64(*v),
            (
                KArg::Out(_) | KArg::In(_) | KArg::InOut(_) | KArg::InU32(_) | KArg::InOutU32(_) | KArg::OutU32(_),
                None,
            ) => return Err(format!("{name}: buffer argument not allocated")),
        });
    }
    if cooperative {
        dev.launch_cooperative(&s, &k, items, &raw).map_err(err)?;
    } else {
        dev.launch(&s, &k, items, &raw).map_err(err)?;
    }
    let mut outs = Vec::new();
    for (a, b) in args.iter().zip(&bufs) {
        match (a, b) {
            (KArg::Out(_) | KArg::InOut(_), Some(b)) => outs.push(dev.download_vec::<f64>(&s, b).map_err(err)?),
            (KArg::OutU32(_) | KArg::InOutU32(_), Some(b)) => {
                outs.push(dev.download_vec::<u32>(&s, b).map_err(err)?.into_iter().map(f64::from).collect())
            }
            _ => {}
        }
    }
    drop(raw);
    drop(bufs);
    dev.synchronize().map_err(err)?;
    Ok(outs)
}

/// Whether `dev` is the CPU reference itself: the CPU backend with the reference's thread
/// count (its device name), or a wrapper of it. Comparing such a device with the reference
/// compares each kernel with itself.
pub fn is_cpu_reference(dev: &dyn Compute) -> Result<bool, String> {
    let reference = tenor_cpu::cpu().map_err(err)?;
    let (d, r) = (dev.info(), reference.info());
    Ok(d.backend == r.backend && d.name == r.name)
}

/// Launches `name` on `dev` and returns its outputs ([`launch_outputs`]), all finite; unless
/// `dev` is the CPU reference itself ([`is_cpu_reference`]), also launches it on the CPU
/// reference and compares every output within `rtol` of the largest magnitude of the
/// reference's. The caller checks the outputs against references of its own.
///
/// # Errors
/// A message naming the kernel, the case, the output and the difference.
pub fn against_cpu(
    dev: &dyn Compute,
    name: &str,
    case: &str,
    items: u64,
    args: &[KArg],
    rtol: f64,
) -> Result<Vec<Vec<f64>>, String> {
    let got = launch_outputs(dev, name, items, args).map_err(|m| format!("{name} ({case}): {m}"))?;
    for (o, g) in got.iter().enumerate() {
        if g.iter().any(|x| !x.is_finite()) {
            return Err(format!("{name} ({case}): output {o} holds a non-finite value"));
        }
    }
    if is_cpu_reference(dev)? {
        return Ok(got);
    }
    let want = launch_outputs(&tenor_cpu::cpu().map_err(err)?, name, items, args)?;
    for (o, (g, w)) in got.iter().zip(&want).enumerate() {
        if g.len() != w.len() {
            return Err(format!("{name} ({case}): output {o} has {} values, reference {}", g.len(), w.len()));
        }
        let d = max_rel_diff(g, w);
        if d > rtol {
            return Err(format!("{name} ({case}): output {o} differs from the CPU reference by {d:e} (> {rtol:e})"));
        }
    }
    Ok(got)
}

/// The first output of [`against_cpu`].
fn checked(
    dev: &dyn Compute,
    name: &str,
    case: &str,
    items: u64,
    args: &[KArg],
    rtol: f64,
) -> Result<Vec<f64>, String> {
    against_cpu(dev, name, case, items, args, rtol)?.into_iter().next().ok_or(format!("{name}: no output"))
}

/// Whether `difference` is at most `tol` in magnitude (false for NaN).
fn within(difference: f64, tol: f64) -> bool {
    difference.abs() <= tol
}

/// `Ok` when every `got[i]` is within `abs + rel |want[i]|` of `want[i]` (NaN where `want` is
/// NaN); else the first that is not, named with `what`.
fn agree(what: &str, got: &[f64], want: &[f64], abs: f64, rel: f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: {} values, the reference {}", got.len(), want.len()));
    }
    match got.iter().zip(want).position(
        |(g, w)| {
            if w.is_nan() {
                !g.is_nan()
            } else {
                !within(g - w, abs + rel * w.abs())
            }
        },
    ) {
        Some(i) => Err(format!("{what}: value {i} is {:e}, the reference {:e}", got[i], want[i])),
        None => Ok(()),
    }
}

/// `agree` within [`FP64_RTOL`] of the largest magnitude of `want` (the scale of
/// [`max_rel_diff`]).
fn agree_scaled(what: &str, got: &[f64], want: &[f64]) -> Result<(), String> {
    let scale = want.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    agree(what, got, want, FP64_RTOL * scale, 0.0)
}

/// The Monte Carlo estimate of `n` samples from partials of `width` sums per block, the sums
/// at offsets `sum` and `sum_sq`.
fn estimate(partials: &[f64], width: usize, sum: usize, sum_sq: usize, n: u64) -> Estimate {
    let total = |k: usize| partials.chunks_exact(width).map(|b| b[k]).sum::<f64>();
    Estimate::from_sums(total(sum), total(sum_sq), n)
}

/// The partial sums' length for `pairs` over blocks of 4096 (the Monte Carlo kernels' block).
fn blocks_of(pairs: u64) -> usize {
    pairs.div_ceil(4096) as usize
}

const SEED: u64 = 0x5EED_0000_2026_0001;

/// `gbm_paths`'s arguments: `paths` paths of `steps` steps from `spot`, the first interval's log
/// drift and standard deviation `first`, the later ones' `later`.
fn gbm_args(paths: u64, steps: u32, spot: f64, first: (f64, f64), later: (f64, f64)) -> [KArg; 9] {
    [
        KArg::Out((paths * u64::from(steps)) as usize),
        KArg::U64(SEED),
        KArg::U64(paths),
        KArg::U32(steps),
        KArg::F64(spot),
        KArg::F64(first.0),
        KArg::F64(first.1),
        KArg::F64(later.0),
        KArg::F64(later.1),
    ]
}

/// Log-normal test paths (step-major, `steps` x `paths`) from the CPU reference `gbm_paths`:
/// inputs of the payoff and regression checks (any paths do; the references are computed from
/// these).
fn host_paths(paths: u64, steps: u32, spot: f64, drift: f64, vol: f64) -> Result<Vec<f64>, String> {
    let cpu = tenor_cpu::cpu().map_err(err)?;
    first_output(&cpu, "gbm_paths", paths, &gbm_args(paths, steps, spot, (drift, vol), (drift, vol)))
}

/// The first output of `name` launched on `dev` (no comparison).
fn first_output(dev: &dyn Compute, name: &str, items: u64, args: &[KArg]) -> Result<Vec<f64>, String> {
    launch_outputs(dev, name, items, args)?.into_iter().next().ok_or(format!("{name}: no output"))
}

/// A batch kernel's contract: `batch` launched over `products` products (`items`, `args`,
/// compared with the CPU reference as [`against_cpu`]) writes into its first output, for
/// product `i`, `per` values from `i per` that are bitwise those of `single` launched for that
/// product alone (`alone(i)`: its items and arguments), on the same device.
fn batch_matches_singles(
    dev: &dyn Compute,
    (batch, case, items, args): (&str, &str, u64, &[KArg]),
    single: &str,
    products: usize,
    per: usize,
    alone: impl Fn(usize) -> (u64, Vec<KArg>),
) -> Result<(), String> {
    let out = checked(dev, batch, case, items, args, FP64_RTOL)?;
    for i in 0..products {
        let (n, one) = alone(i);
        let want = first_output(dev, single, n, &one)?;
        let got = out.get(i * per..(i + 1) * per).ok_or(format!("{batch}: {} values, no product {i}", out.len()))?;
        if got.len() != want.len() {
            return Err(format!("{batch}: product {i} has {} values, {single} alone {}", got.len(), want.len()));
        }
        if let Some(k) = got.iter().zip(&want).position(|(a, b)| a.to_bits() != b.to_bits()) {
            return Err(format!("{batch}: product {i} value {k} is {:e}, {single} alone {:e}", got[k], want[k]));
        }
    }
    Ok(())
}

/// A Monte Carlo batch kernel's check: `products` (each the single kernel's scalars after seed
/// and pairs, as [`KArg::U32`] or [`KArg::F64`]) become one column each, launched over `pairs`
/// ([`batch_matches_singles`]: each product's partials, `width` per block, bitwise `single`'s).
fn mc_batch(
    dev: &dyn Compute,
    batch: &str,
    single: &str,
    width: usize,
    pairs: u64,
    products: &[Vec<KArg>],
) -> Result<(), String> {
    let n = products.len();
    let per_product = pairs.div_ceil(4096);
    let items = n as u64 * per_product * 4096;
    let mut args = vec![KArg::Out(width * (n as u64 * per_product) as usize)];
    for k in 0..products.first().map_or(0, Vec::len) {
        let column: Result<Vec<f64>, String> = products
            .iter()
            .map(|p| match &p[k] {
                KArg::U32(v) => Ok(f64::from(*v)),
                KArg::F64(v) => Ok(*v),
                other => Err(format!("{batch}: column {k} holds {other:?}")),
            })
            .collect();
        args.push(match products[0][k] {
            KArg::U32(_) => KArg::InU32(column?.into_iter().map(|v| v as u32).collect()),
            _ => KArg::In(column?),
        });
    }
    args.extend([KArg::U32(n as u32), KArg::U64(SEED), KArg::U64(pairs), KArg::U64(items)]);
    let case = format!("{n} products, {pairs} pairs");
    batch_matches_singles(dev, (batch, &case, items, &args), single, n, width * per_product as usize, |i| {
        let mut one = vec![KArg::Out(width * per_product as usize), KArg::U64(SEED), KArg::U64(pairs)];
        one.extend(products[i].iter().cloned());
        (pairs, one)
    })
}

/// `philox_normals`: fp64 normals, odd step count, nonzero path offset; each value within
/// [`FP64_RTOL`] of ADR 0003's mapping on the independent Philox ([`reference::normal`]).
pub fn philox_normals(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps, offset) = (1000u64, 5u32, 1u64 << 33);
    let args = [KArg::Out(5000), KArg::U64(SEED), KArg::U64(offset), KArg::U64(paths), KArg::U32(steps)];
    let got = checked(dev, "philox_normals", "1000 paths x 5 steps", paths, &args, FP64_RTOL)?;
    let want: Vec<f64> =
        (0..steps).flat_map(|s| (0..paths).map(move |p| reference::normal(SEED, offset + p, s))).collect();
    agree("philox_normals against ADR 0003's mapping", &got, &want, FP64_RTOL, FP64_RTOL)
}

/// `reduce_sum_sumsq`: a partial last block; each block's sums against the host's.
pub fn reduce_sum_sumsq(dev: &dyn Compute) -> Result<(), String> {
    let n = 10_000usize;
    let x: Vec<f64> = (0..n).map(|i| ((i * 7919) % 1000) as f64 / 37.0 - 9.0).collect();
    let blocks = n.div_ceil(4096);
    let got = checked(
        dev,
        "reduce_sum_sumsq",
        "n = 10000",
        n as u64,
        &[KArg::In(x.clone()), KArg::Out(2 * blocks), KArg::U64(n as u64)],
        FP64_RTOL,
    )?;
    let want: Vec<f64> =
        x.chunks(4096).flat_map(|b| [b.iter().sum::<f64>(), b.iter().map(|v| v * v).sum::<f64>()]).collect();
    agree_scaled("reduce_sum_sumsq against the host's sums", &got, &want)
}

/// `gbm_paths`: odd steps, a first interval that differs from the others; every value against
/// the path its manifest states, built on the host from the independent normals.
pub fn gbm_paths(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps) = (1000u64, 7u32);
    let (spot, d1, v1, d, v) = (100.0, 0.003, 0.12, -0.001, 0.05);
    let args = gbm_args(paths, steps, spot, (d1, v1), (d, v));
    let got = checked(dev, "gbm_paths", "7 steps, first interval longer", paths, &args, FP64_RTOL)?;
    let mut want = vec![0.0; got.len()];
    for p in 0..paths {
        let mut x = f64::ln(spot);
        for s in 0..steps {
            let (ds, vs) = if s == 0 { (d1, v1) } else { (d, v) };
            x += ds + vs * reference::normal(SEED, p, s);
            want[(u64::from(s) * paths + p) as usize] = x.exp();
        }
    }
    agree("gbm_paths against its manifest's path", &got, &want, 0.0, FP64_RTOL)
}

/// `payoff_european`: call and put on host-supplied paths, against the payoffs computed on the
/// host.
pub fn payoff_european(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps, strike, df) = (1000u64, 5u32, 101.0, 0.97);
    let input = host_paths(paths, steps, 100.0, 0.0, 0.1)?;
    let last = &input[(steps as usize - 1) * paths as usize..];
    for is_call in [1u32, 0] {
        let args = [
            KArg::In(input.clone()),
            KArg::Out(paths as usize),
            KArg::U64(paths),
            KArg::U32(steps),
            KArg::F64(strike),
            KArg::U32(is_call),
            KArg::F64(df),
        ];
        let case = if is_call == 1 { "call" } else { "put" };
        let got = checked(dev, "payoff_european", case, paths, &args, FP64_RTOL)?;
        let w = if is_call == 1 { 1.0 } else { -1.0 };
        let want: Vec<f64> = last.iter().map(|s| df * (w * (s - strike)).max(0.0)).collect();
        agree_scaled(&format!("payoff_european ({case}) against the host's payoffs"), &got, &want)?;
    }
    Ok(())
}

/// `payoff_asian`: call and put, with and without spot as a fixing, against the averages and
/// payoffs computed on the host.
pub fn payoff_asian(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps, spot, strike, df) = (1000u64, 6u32, 100.0, 99.0, 0.98);
    let input = host_paths(paths, steps, spot, 0.0, 0.05)?;
    for is_call in [1u32, 0] {
        for spot_fixing in [0u32, 1] {
            let args = [
                KArg::In(input.clone()),
                KArg::Out(paths as usize),
                KArg::Out(paths as usize),
                KArg::U64(paths),
                KArg::U32(steps),
                KArg::F64(spot),
                KArg::U32(spot_fixing),
                KArg::F64(strike),
                KArg::U32(is_call),
                KArg::F64(df),
            ];
            let case = format!("is_call {is_call}, spot_fixing {spot_fixing}");
            let got = against_cpu(dev, "payoff_asian", &case, paths, &args, FP64_RTOL)?;
            let w = if is_call == 1 { 1.0 } else { -1.0 };
            let n = f64::from(steps + spot_fixing);
            let (mut arith, mut geo) = (Vec::new(), Vec::new());
            for p in 0..paths as usize {
                let fix: Vec<f64> = (0..steps as usize).map(|s| input[s * paths as usize + p]).collect();
                let head = if spot_fixing == 1 { spot } else { 0.0 };
                let log_head = if spot_fixing == 1 { f64::ln(spot) } else { 0.0 };
                let a = (head + fix.iter().sum::<f64>()) / n;
                let g = ((log_head + fix.iter().map(|s| s.ln()).sum::<f64>()) / n).exp();
                arith.push(df * (w * (a - strike)).max(0.0));
                geo.push(df * (w * (g - strike)).max(0.0));
            }
            let (Some(ga), Some(gg)) = (got.first(), got.get(1)) else {
                return Err("payoff_asian: expected two outputs".into());
            };
            agree_scaled(&format!("payoff_asian arithmetic ({case}) against the host"), ga, &arith)?;
            agree_scaled(&format!("payoff_asian geometric ({case}) against the host"), gg, &geo)?;
        }
    }
    Ok(())
}

/// `payoff_barrier`: every kind, continuous and discrete, with a rebate, against each path's
/// value computed on the host from the manifest's text ([`BarrierPathSpec`]).
pub fn payoff_barrier(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps, vol, spot) = (1000u64, 8u32, 0.07, 100.0);
    let input = host_paths(paths, steps, spot, 0.0, vol)?;
    for kind in 0..4u32 {
        let barrier = if kind < 2 { 92.0 } else { 108.0 };
        for continuous in [1u32, 0] {
            let spec = BarrierPathSpec {
                strike: 100.0,
                barrier,
                rebate: 2.5,
                call: kind & 1 == 1,
                kind,
                continuous: continuous == 1,
                vol_sqrt_dt: vol,
                rate_dt: 0.005,
                discount: 0.96,
            };
            let args = [
                KArg::In(input.clone()),
                KArg::Out(paths as usize),
                KArg::U64(paths),
                KArg::U32(steps),
                KArg::F64(spot),
                KArg::F64(spec.strike),
                KArg::F64(barrier),
                KArg::F64(spec.rebate),
                KArg::U32(kind & 1),
                KArg::U32(kind),
                KArg::U32(continuous),
                KArg::F64(vol),
                KArg::F64(spec.rate_dt),
                KArg::F64(spec.discount),
            ];
            let case = format!("kind {kind}, continuous {continuous}");
            let got = checked(dev, "payoff_barrier", &case, paths, &args, FP64_RTOL)?;
            let want: Vec<f64> = (0..paths as usize)
                .map(|p| {
                    let x: Vec<f64> = std::iter::once(f64::ln(spot))
                        .chain((0..steps as usize).map(|k| input[k * paths as usize + p].ln()))
                        .collect();
                    spec.value(&x)
                })
                .collect();
            agree_scaled(&format!("payoff_barrier ({case}) against the manifest's valuation"), &got, &want)?;
        }
    }
    Ok(())
}

/// A European option's Monte Carlo check: `pairs` pairs of `kernel` (`mc_european` or
/// `mc_european_f32`, arguments through `real`) against Black's formula, within
/// [`reference::MC_SIGMAS`] standard errors plus `bias` (fp32 rounding) relative to the price.
fn european_against_black(
    dev: &dyn Compute,
    kernel: &str,
    real: fn(f64) -> KArg,
    rtol: f64,
    bias: f64,
) -> Result<(), String> {
    let (pairs, spot, strike, drift, vol_sqrt_t, df) = (200_000u64, 100.0, 105.0, 0.01, 0.2, 0.95);
    for is_call in [1u32, 0] {
        let args = [
            KArg::Out(2 * blocks_of(pairs)),
            KArg::U64(SEED),
            KArg::U64(pairs),
            real(spot),
            real(strike),
            KArg::U32(is_call),
            real(drift),
            real(vol_sqrt_t),
            real(df),
        ];
        let case = format!("{}, {pairs} pairs", if is_call == 1 { "call" } else { "put" });
        let got = checked(dev, kernel, &case, pairs, &args, rtol)?;
        let fwd = spot * (drift + 0.5 * vol_sqrt_t * vol_sqrt_t).exp();
        let exact = df * reference::black(fwd, strike, vol_sqrt_t, is_call == 1);
        estimate(&got, 2, 0, 1, pairs).agrees(&format!("{kernel} ({case})"), exact, bias * exact)?;
    }
    Ok(())
}

/// `mc_european`: call and put, a partial last block, and an odd pair count (the last Philox
/// call's sine normal unused), against the CPU reference; a call and a put of 200000 pairs
/// against Black's formula.
pub fn mc_european(dev: &dyn Compute) -> Result<(), String> {
    for (pairs, is_call) in [(10_000u64, 1u32), (10_000, 0), (10_001, 1)] {
        let args = [
            KArg::Out(2 * blocks_of(pairs)),
            KArg::U64(SEED),
            KArg::U64(pairs),
            KArg::F64(100.0),
            KArg::F64(105.0),
            KArg::U32(is_call),
            KArg::F64(0.01),
            KArg::F64(0.2),
            KArg::F64(0.95),
        ];
        let case = format!("{}, {pairs} pairs", if is_call == 1 { "call" } else { "put" });
        against_cpu(dev, "mc_european", &case, pairs, &args, FP64_RTOL)?;
    }
    european_against_black(dev, "mc_european", KArg::F64, FP64_RTOL, 0.0)
}

/// `mc_european_batch`: five products (calls and puts, different spots, strikes, drifts, vols
/// and discounts) over an odd pair count with a partial last block, each product's partials
/// bitwise those of `mc_european` launched for it alone.
pub fn mc_european_batch(dev: &dyn Compute) -> Result<(), String> {
    use KArg::{F64, U32};
    // (spot, strike, is_call, drift, vol_sqrt_t, discount)
    let products = [
        (100.0, 105.0, 1, 0.01, 0.2, 0.95),
        (100.0, 95.0, 0, 0.01, 0.2, 0.95),
        (52.5, 50.0, 1, -0.03, 0.45, 0.99),
        (250.0, 300.0, 0, 0.002, 0.08, 0.9),
        (1.0, 1.0, 1, 0.0, 1.1, 1.0),
    ]
    .map(|(s, k, c, d, v, df)| vec![F64(s), F64(k), U32(c), F64(d), F64(v), F64(df)]);
    mc_batch(dev, "mc_european_batch", "mc_european", 2, 10_001, &products)
}

/// `mc_european_f32`: call and put against the CPU reference within [`FP32_RTOL`]; 200000
/// pairs against Black's formula (fp32 arguments and payoffs: a bias allowance of 1e-4 of the
/// price).
pub fn mc_european_f32(dev: &dyn Compute) -> Result<(), String> {
    european_against_black(dev, "mc_european_f32", |x| KArg::F32(x as f32), FP32_RTOL, 1e-4)
}

fn asian_args(pairs: u64, a: &AsianLognormal, real: fn(f64) -> KArg) -> Vec<KArg> {
    vec![
        KArg::Out(5 * blocks_of(pairs)),
        KArg::U64(SEED),
        KArg::U64(pairs),
        KArg::U32(a.steps),
        real(a.spot),
        real(a.strike),
        KArg::U32(u32::from(a.call)),
        KArg::U32(u32::from(a.spot_fixing)),
        real(a.drift_first),
        real(a.vol_first),
        real(a.drift_dt),
        real(a.vol_sqrt_dt),
        real(a.discount),
    ]
}

/// The Asian products of the checks: 13 fixings (odd, not a multiple of 4) with a longer first
/// interval, a call without and a put with the spot as a fixing.
fn asian_cases() -> [AsianLognormal; 2] {
    let base = AsianLognormal {
        spot: 100.0,
        strike: 100.0,
        call: true,
        steps: 13,
        spot_fixing: false,
        drift_first: 0.004,
        vol_first: 0.09,
        drift_dt: -0.0005,
        vol_sqrt_dt: 0.04,
        discount: 0.96,
    };
    [base, AsianLognormal { call: false, spot_fixing: true, ..base }]
}

/// An Asian kernel's checks: the cases of [`asian_cases`] against the CPU reference; then the
/// discrete geometric call of `../shared/oracles/asian_geometric.csv` (Clewlow and Strickland's
/// parameters: S 100, K 100, q 0.03, r 0.06, v 0.2, fixings 0.1 .. 1.0; 5.3425606635) over
/// 100000 pairs: the geometric sums against the published price, and the same fixings with
/// strike 1 (every path's averages above it) against the discounted means of the averages.
fn asian_checks(dev: &dyn Compute, kernel: &str, real: fn(f64) -> KArg, rtol: f64, bias: f64) -> Result<(), String> {
    for a in asian_cases() {
        let case = format!("call {}, spot_fixing {}", a.call, a.spot_fixing);
        against_cpu(dev, kernel, &case, 9000, &asian_args(9000, &a, real), rtol)?;
    }
    let (published, pairs) = (AsianLognormal::clewlow_strickland(), 100_000u64);
    let got = checked(dev, kernel, "Clewlow-Strickland call", pairs, &asian_args(pairs, &published, real), rtol)?;
    let geo = reference::CLEWLOW_STRICKLAND_GEOMETRIC;
    estimate(&got, 5, 2, 3, pairs).agrees(&format!("{kernel} geometric sums"), geo, bias * geo)?;
    let deep = AsianLognormal { strike: 1.0, ..published };
    let got = checked(dev, kernel, "strike 1", pairs, &asian_args(pairs, &deep, real), rtol)?;
    let arith = deep.arithmetic_mean() - deep.discount * deep.strike;
    estimate(&got, 5, 0, 1, pairs).agrees(&format!("{kernel} arithmetic sums, strike 1"), arith, bias * arith)?;
    let geo = deep.geometric();
    estimate(&got, 5, 2, 3, pairs).agrees(&format!("{kernel} geometric sums, strike 1"), geo, bias * geo)
}

/// `mc_asian`: [`asian_checks`] in fp64.
pub fn mc_asian(dev: &dyn Compute) -> Result<(), String> {
    asian_checks(dev, "mc_asian", KArg::F64, FP64_RTOL, 0.0)
}

/// `mc_asian_f32`: [`asian_checks`] in fp32 (a bias allowance of 1e-4 of the price for the fp32
/// arguments and paths).
pub fn mc_asian_f32(dev: &dyn Compute) -> Result<(), String> {
    asian_checks(dev, "mc_asian_f32", |x| KArg::F32(x as f32), FP32_RTOL, 1e-4)
}

/// `mc_barrier`'s arguments for one option (`pairs` pairs, `steps` steps of `t / steps` years).
fn barrier_args(
    pairs: u64,
    steps: u32,
    spot: f64,
    b: &BarrierBs,
    rebate: f64,
    kind: u32,
    continuous: u32,
) -> Vec<KArg> {
    let dt = b.maturity / f64::from(steps);
    vec![
        KArg::Out(2 * blocks_of(pairs)),
        KArg::U64(SEED),
        KArg::U64(pairs),
        KArg::U32(steps),
        KArg::F64(spot),
        KArg::F64(b.strike),
        KArg::F64(b.barrier),
        KArg::F64(rebate),
        KArg::U32(u32::from(b.call)),
        KArg::U32(kind),
        KArg::U32(continuous),
        KArg::F64((b.rate - b.dividend - 0.5 * b.vol * b.vol) * dt),
        KArg::F64(b.vol * dt.sqrt()),
        KArg::F64(b.rate * dt),
        KArg::F64((-b.rate * b.maturity).exp()),
    ]
}

/// `mc_barrier`: every kind, continuous and discrete, with a rebate, odd steps, against the CPU
/// reference. Then Haug's barrier table (`../shared/oracles/barrier_haug.csv`: S 100, K 100,
/// q 0.04, r 0.08, t 0.5, v 0.25) over 100000 pairs of 16 steps, continuously monitored (the
/// Brownian bridge makes the estimate unbiased): the down-and-in call at H 95 with rebate 3
/// (4.0109) and the up-and-in put at H 105 with rebate 3 (3.3721) against the published values,
/// the down-and-out call and up-and-out put without rebate against the reflection principle
/// ([`BarrierBs`]); discretely monitored, out plus in is the vanilla.
pub fn mc_barrier(dev: &dyn Compute) -> Result<(), String> {
    let (pairs, steps) = (5000u64, 17u32);
    for kind in 0..4u32 {
        let barrier = if kind < 2 { 90.0 } else { 112.0 };
        for continuous in [1u32, 0] {
            let args = [
                KArg::Out(2 * blocks_of(pairs)),
                KArg::U64(SEED),
                KArg::U64(pairs),
                KArg::U32(steps),
                KArg::F64(100.0),
                KArg::F64(100.0),
                KArg::F64(barrier),
                KArg::F64(3.0),
                KArg::U32(kind & 1),
                KArg::U32(kind),
                KArg::U32(continuous),
                KArg::F64(0.0002),
                KArg::F64(0.06),
                KArg::F64(0.003),
                KArg::F64(0.95),
            ];
            let case = format!("kind {kind}, continuous {continuous}");
            against_cpu(dev, "mc_barrier", &case, pairs, &args, FP64_RTOL)?;
        }
    }
    let (pairs, steps, spot) = (100_000u64, 16u32, 100.0);
    let (down, up) = (BarrierBs::haug(95.0, true), BarrierBs::haug(105.0, false));
    // (option, rebate, kind, expected)
    let cases = [
        (down, 3.0, 1, 4.0109, "down-and-in call, rebate 3"),
        (up, 3.0, 3, 3.3721, "up-and-in put, rebate 3"),
        (down, 0.0, 0, down.knock_out(), "down-and-out call"),
        (up, 0.0, 2, up.knock_out(), "up-and-out put"),
    ];
    for (b, rebate, kind, exact, case) in cases {
        let got =
            checked(dev, "mc_barrier", case, pairs, &barrier_args(pairs, steps, spot, &b, rebate, kind, 1), FP64_RTOL)?;
        // Haug's table has 4 decimals: half a unit of the last one on top.
        estimate(&got, 2, 0, 1, pairs).agrees(&format!("mc_barrier {case}"), exact, 5e-5)?;
    }
    for b in [down, up] {
        let kinds = if b.call { [0, 1] } else { [2, 3] };
        let mut sum = Estimate { mean: 0.0, stderr: 0.0 };
        for kind in kinds {
            let got = checked(
                dev,
                "mc_barrier",
                "discrete",
                pairs,
                &barrier_args(pairs, steps, spot, &b, 0.0, kind, 0),
                FP64_RTOL,
            )?;
            let e = estimate(&got, 2, 0, 1, pairs);
            sum = Estimate { mean: sum.mean + e.mean, stderr: sum.stderr + e.stderr };
        }
        sum.agrees("mc_barrier discrete out plus in", b.vanilla(), 0.0)?;
    }
    Ok(())
}

/// `mc_barrier_batch`: six products (every kind, continuous and discrete, different step
/// counts, spots, barriers and rebates) over 5001 pairs (a partial last block), each product's
/// partials bitwise those of `mc_barrier` launched for it alone.
pub fn mc_barrier_batch(dev: &dyn Compute) -> Result<(), String> {
    use KArg::{F64, U32};
    // steps, spot, strike, barrier, rebate, is_call, kind, continuous, drift_dt, vol_sqrt_dt, rate_dt, discount
    let products = [
        (17, 100.0, 100.0, 90.0, 3.0, 1, 0, 1, 0.0002, 0.06, 0.003, 0.95),
        (12, 100.0, 95.0, 90.0, 0.0, 0, 1, 0, 0.001, 0.05, 0.004, 0.96),
        (9, 105.0, 100.0, 112.0, 2.0, 1, 2, 1, -0.0004, 0.07, 0.002, 0.97),
        (24, 98.0, 110.0, 112.0, 1.0, 0, 3, 0, 0.0001, 0.03, 0.001, 0.99),
        (1, 100.0, 100.0, 80.0, 0.0, 1, 0, 0, 0.002, 0.2, 0.02, 0.9),
        (64, 6711.2, 6500.0, 7200.0, 0.0, 1, 2, 1, 0.00003, 0.02, 0.0006, 0.98),
    ]
    .map(|(n, s, k, h, rb, c, kind, cont, d, v, r, df)| {
        vec![U32(n), F64(s), F64(k), F64(h), F64(rb), U32(c), U32(kind), U32(cont), F64(d), F64(v), F64(r), F64(df)]
    });
    mc_batch(dev, "mc_barrier_batch", "mc_barrier", 2, 5001, &products)
}

/// `mc_asian_batch`: five products (calls and puts, both schedules, odd and even step counts,
/// one fixing) over 9001 pairs, each product's partials bitwise those of `mc_asian` launched for
/// it alone.
pub fn mc_asian_batch(dev: &dyn Compute) -> Result<(), String> {
    use KArg::{F64, U32};
    // steps, spot, strike, is_call, spot_fixing, drift_first, vol_first, drift_dt, vol_sqrt_dt, discount
    let products = [
        (13, 100.0, 100.0, 1, 0, 0.004, 0.09, -0.0005, 0.04, 0.96),
        (13, 100.0, 100.0, 0, 1, 0.004, 0.09, -0.0005, 0.04, 0.96),
        (12, 52.0, 50.0, 1, 0, 0.001, 0.05, 0.001, 0.05, 0.99),
        (1, 100.0, 95.0, 0, 0, 0.01, 0.2, 0.0, 0.0, 0.95),
        (52, 6711.2, 6800.0, 1, 0, 0.0003, 0.02, 0.0003, 0.02, 0.98),
    ]
    .map(|(n, s, k, c, fix, d1, v1, d, v, df)| {
        vec![U32(n), F64(s), F64(k), U32(c), U32(fix), F64(d1), F64(v1), F64(d), F64(v), F64(df)]
    });
    mc_batch(dev, "mc_asian_batch", "mc_asian", 5, 9001, &products)
}

/// `lsm_paths`'s arguments: `paths` antithetic paths of `steps` steps from `spot`.
fn lsm_path_args(paths: u64, steps: u32, spot: f64, drift_dt: f64, vol_sqrt_dt: f64) -> Vec<KArg> {
    vec![
        KArg::Out((paths * u64::from(steps)) as usize),
        KArg::U64(SEED),
        KArg::U64(paths),
        KArg::U32(steps),
        KArg::F64(spot),
        KArg::F64(drift_dt),
        KArg::F64(vol_sqrt_dt),
    ]
}

/// `lsm_paths`: antithetic halves, odd steps, a partial last block; every value against the path
/// its manifest states (the second half the first's mirror), built on the host from the
/// independent normals.
pub fn lsm_paths(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps, spot, drift, vol) = (1000u64, 7u32, 100.0, -0.0004, 0.06);
    let args = lsm_path_args(paths, steps, spot, drift, vol);
    let got = checked(dev, "lsm_paths", "1000 paths x 7 steps", paths, &args, FP64_RTOL)?;
    let half = paths / 2;
    let mut want = vec![0.0; got.len()];
    for p in 0..paths {
        let (source, sign) = if p < half { (p, 1.0) } else { (p - half, -1.0) };
        let mut x = f64::ln(spot);
        for s in 0..steps {
            x += drift + vol * sign * reference::normal(SEED, source, s);
            want[(u64::from(s) * paths + p) as usize] = x.exp();
        }
    }
    agree("lsm_paths against its manifest's paths", &got, &want, 0.0, FP64_RTOL)
}

/// Put and call parameters of the Longstaff-Schwartz checks: (sign, strike).
const LSM_CASES: [(f64, f64); 2] = [(-1.0, 100.0), (1.0, 102.0)];

/// `lsm_basis`'s row of one path on the host: `L_j(S / strike)` (closed forms) and `df cash`
/// when the path is in the money, zeros otherwise.
fn basis_row(s: f64, cash: f64, nbasis: u32, strike: f64, sign: f64, df: f64) -> Vec<f64> {
    if (sign * (s - strike)).max(0.0) > 0.0 {
        (0..nbasis).map(|j| reference::laguerre(j, s / strike)).chain([df * cash]).collect()
    } else {
        vec![0.0; nbasis as usize + 1]
    }
}

/// `lsm_basis`: regression rows of a put and a call at an interior exercise date, four
/// Laguerre polynomials, cash flows of the terminal payoff (some paths out of the money);
/// against the rows computed on the host with the polynomials in closed form.
pub fn lsm_basis(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps, step, nbasis, df) = (1000u64, 6u32, 3u32, 4u32, 0.995);
    let spots = host_paths(paths, steps, 100.0, 0.0, 0.05)?;
    let last = &spots[(steps as usize - 1) * paths as usize..];
    let at = &spots[step as usize * paths as usize..(step as usize + 1) * paths as usize];
    for (sign, strike) in LSM_CASES {
        let cash: Vec<f64> = last.iter().map(|s| (sign * (s - strike)).max(0.0) + 0.25).collect();
        let args = [
            KArg::In(spots.clone()),
            KArg::In(cash.clone()),
            KArg::Out(((nbasis + 1) as u64 * paths) as usize),
            KArg::U64(paths),
            KArg::U32(step),
            KArg::U32(nbasis),
            KArg::F64(strike),
            KArg::F64(sign),
            KArg::F64(df),
        ];
        let case = if sign > 0.0 { "call" } else { "put" };
        let got = checked(dev, "lsm_basis", case, paths, &args, FP64_RTOL)?;
        let rows: Vec<Vec<f64>> =
            at.iter().zip(&cash).map(|(s, c)| basis_row(*s, *c, nbasis, strike, sign, df)).collect();
        let want: Vec<f64> = (0..=nbasis as usize).flat_map(|j| rows.iter().map(move |r| r[j])).collect();
        agree(&format!("lsm_basis ({case}) against the host's rows"), &got, &want, FP64_RTOL, FP64_RTOL)?;
    }
    Ok(())
}

/// `lsm_exercise`'s decision for one path on the host: the payoff when in the money and above
/// the continuation value `sum_j coef_j L_j(S / strike)` (closed forms), else `df cash`.
fn exercise(s: f64, cash: f64, coef: &[f64], strike: f64, sign: f64, df: f64) -> f64 {
    let h = (sign * (s - strike)).max(0.0);
    let c: f64 = coef.iter().enumerate().map(|(j, a)| a * reference::laguerre(j as u32, s / strike)).sum();
    if h > 0.0 && h > c {
        h
    } else {
        df * cash
    }
}

/// `lsm_exercise`: a put and a call at an interior exercise date; the continuation values
/// `4 + 20 L_1(x) + 0.5 L_2(x)` put the exercise boundary inside the in-the-money region
/// (about 5% in the money), so paths exercise, continue in the money and lie out of the money;
/// against the decisions computed on the host.
pub fn lsm_exercise(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps, step, nbasis, df) = (1000u64, 6u32, 3u32, 3u32, 0.995);
    let spots = host_paths(paths, steps, 100.0, 0.0, 0.05)?;
    let last = &spots[(steps as usize - 1) * paths as usize..];
    let at = &spots[step as usize * paths as usize..(step as usize + 1) * paths as usize];
    for (sign, strike) in LSM_CASES {
        let cash: Vec<f64> = last.iter().map(|s| (sign * (s - strike)).max(0.0) + 0.25).collect();
        // L_1(x) = 1 - x has the sign of the put's moneyness: flip it for the call.
        let coef: Vec<f64> = (0..steps).flat_map(|_| [4.0, -sign * 20.0, 0.5]).collect();
        let args = [
            KArg::In(spots.clone()),
            KArg::InOut(cash.clone()),
            KArg::In(coef.clone()),
            KArg::U64(paths),
            KArg::U32(step),
            KArg::U32(nbasis),
            KArg::F64(strike),
            KArg::F64(sign),
            KArg::F64(df),
        ];
        let case = if sign > 0.0 { "call" } else { "put" };
        let got = checked(dev, "lsm_exercise", case, paths, &args, FP64_RTOL)?;
        let mine = &coef[(step * nbasis) as usize..((step + 1) * nbasis) as usize];
        let want: Vec<f64> = at.iter().zip(&cash).map(|(s, c)| exercise(*s, *c, mine, strike, sign, df)).collect();
        let exercised = want.iter().zip(&cash).filter(|(w, c)| *w != &(df * *c)).count();
        if exercised == 0 || exercised == want.len() {
            return Err(format!(
                "lsm_exercise ({case}): {exercised} of {paths} paths exercise on the host: no decision tested"
            ));
        }
        agree(&format!("lsm_exercise ({case}) against the host's decisions"), &got, &want, 0.0, FP64_RTOL)?;
    }
    Ok(())
}

/// The Longstaff-Schwartz batch checks' products: (spot, drift_dt, vol_sqrt_dt, sign, strike, df).
const LSM_BATCH: [(f64, f64, f64, f64, f64, f64); 3] = [
    (100.0, -0.0004, 0.06, -1.0, 100.0, 0.995),
    (90.0, 0.0002, 0.03, 1.0, 88.0, 0.999),
    (110.0, 0.0, 0.09, -1.0, 115.0, 0.99),
];

/// One column of [`LSM_BATCH`]: `f` of each product.
fn lsm_column(f: impl Fn(&(f64, f64, f64, f64, f64, f64)) -> f64) -> KArg {
    KArg::In(LSM_BATCH.iter().map(f).collect())
}

/// Each product of [`LSM_BATCH`]'s spots from `lsm_paths` on the CPU reference (steps x paths),
/// concatenated product-major.
fn lsm_batch_spots(paths: u64, steps: u32) -> Result<Vec<f64>, String> {
    let cpu = tenor_cpu::cpu().map_err(err)?;
    let mut all = Vec::new();
    for (spot, drift, vol, ..) in LSM_BATCH {
        all.extend(first_output(&cpu, "lsm_paths", paths, &lsm_path_args(paths, steps, spot, drift, vol))?);
    }
    Ok(all)
}

/// Cash flows for the exercise and regression checks: each product's terminal payoff plus 0.25.
fn lsm_batch_cash(spots: &[f64], paths: u64, steps: u32) -> Vec<f64> {
    let per = (paths * u64::from(steps)) as usize;
    LSM_BATCH
        .iter()
        .enumerate()
        .flat_map(|(i, (.., sign, strike, _))| {
            let last = &spots[i * per + (steps as usize - 1) * paths as usize..(i + 1) * per];
            last.iter().map(move |s| (sign * (s - strike)).max(0.0) + 0.25).collect::<Vec<_>>()
        })
        .collect()
}

/// `lsm_paths_batch`: three products (spots, drifts, vols) over 1000 paths (a partial last
/// block, blocks straddling products) and 7 steps, each product bitwise `lsm_paths` alone.
pub fn lsm_paths_batch(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps, n) = (1000u64, 7u32, LSM_BATCH.len());
    let per = (paths * u64::from(steps)) as usize;
    let items = n as u64 * paths;
    let args = [
        KArg::Out(n * per),
        lsm_column(|p| p.0),
        lsm_column(|p| p.1),
        lsm_column(|p| p.2),
        KArg::U32(n as u32),
        KArg::U64(SEED),
        KArg::U64(paths),
        KArg::U32(steps),
        KArg::U64(items),
    ];
    batch_matches_singles(dev, ("lsm_paths_batch", "3 products", items, &args), "lsm_paths", n, per, |i| {
        let (spot, drift, vol, ..) = LSM_BATCH[i];
        (paths, lsm_path_args(paths, steps, spot, drift, vol))
    })
}

/// `lsm_exercise_batch`: two puts and a call at an interior exercise date with per-product
/// coefficients that put the exercise boundary inside the in-the-money region (as
/// [`lsm_exercise`]), each product bitwise `lsm_exercise` alone.
pub fn lsm_exercise_batch(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps, step, nbasis, n) = (1000u64, 6u32, 3u32, 3u32, LSM_BATCH.len());
    let spots = lsm_batch_spots(paths, steps)?;
    let cash = lsm_batch_cash(&spots, paths, steps);
    let coef: Vec<f64> =
        LSM_BATCH.iter().flat_map(|(.., sign, _, _)| (0..steps).flat_map(move |_| [4.0, -sign * 20.0, 0.5])).collect();
    let items = n as u64 * paths;
    let args = [
        KArg::In(spots.clone()),
        KArg::InOut(cash.clone()),
        KArg::In(coef.clone()),
        lsm_column(|p| p.4),
        lsm_column(|p| p.3),
        lsm_column(|p| p.5),
        KArg::U32(n as u32),
        KArg::U64(paths),
        KArg::U32(steps),
        KArg::U32(step),
        KArg::U32(nbasis),
        KArg::U64(items),
    ];
    let (per_s, per_c, per_k) = ((paths * u64::from(steps)) as usize, paths as usize, (steps * nbasis) as usize);
    batch_matches_singles(
        dev,
        ("lsm_exercise_batch", "2 puts and a call", items, &args),
        "lsm_exercise",
        n,
        per_c,
        |i| {
            let (.., sign, strike, df) = LSM_BATCH[i];
            let one = vec![
                KArg::In(spots[i * per_s..(i + 1) * per_s].to_vec()),
                KArg::InOut(cash[i * per_c..(i + 1) * per_c].to_vec()),
                KArg::In(coef[i * per_k..(i + 1) * per_k].to_vec()),
                KArg::U64(paths),
                KArg::U32(step),
                KArg::U32(nbasis),
                KArg::F64(strike),
                KArg::F64(sign),
                KArg::F64(df),
            ];
            (paths, one)
        },
    )
}

/// `lsm_normal_batch`: three products, four basis functions, chunks of 96 paths (a partial last
/// chunk), each product's chunk sums added in order against `[X^T X | X^T y]` formed on the
/// host from the regression rows ([`basis_row`]: the Laguerre polynomials in closed form).
pub fn lsm_normal_batch(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps, step, nbasis, chunk, n) = (1000u64, 6u32, 3u32, 4u32, 96u64, LSM_BATCH.len());
    let spots = lsm_batch_spots(paths, steps)?;
    let cash = lsm_batch_cash(&spots, paths, steps);
    let chunks = paths.div_ceil(chunk);
    let items = n as u64 * chunks;
    let (nb, width) = (nbasis as usize, (nbasis * (nbasis + 1)) as usize);
    let args = [
        KArg::Out(items as usize * width),
        KArg::In(spots.clone()),
        KArg::In(cash.clone()),
        lsm_column(|p| p.4),
        lsm_column(|p| p.3),
        lsm_column(|p| p.5),
        KArg::U32(n as u32),
        KArg::U64(paths),
        KArg::U32(steps),
        KArg::U32(step),
        KArg::U32(nbasis),
        KArg::U64(chunk),
        KArg::U64(items),
    ];
    let out = checked(dev, "lsm_normal_batch", "3 products, chunks of 96 paths", items, &args, FP64_RTOL)?;
    let (per_s, per_c) = ((paths * u64::from(steps)) as usize, paths as usize);
    for (i, (.., sign, strike, df)) in LSM_BATCH.iter().enumerate() {
        let at = &spots[i * per_s + step as usize * per_c..i * per_s + (step as usize + 1) * per_c];
        let rows: Vec<Vec<f64>> = at
            .iter()
            .zip(&cash[i * per_c..(i + 1) * per_c])
            .map(|(s, c)| basis_row(*s, *c, nbasis, *strike, *sign, *df))
            .collect();
        let want: Vec<f64> = (0..=nb)
            .flat_map(|k| (0..nb).map(move |j| (j, k)))
            .map(|(j, k)| rows.iter().map(|r| r[j] * r[k]).sum::<f64>())
            .collect();
        let mut got = vec![0.0; width];
        let start = i * chunks as usize * width;
        for c in out[start..start + chunks as usize * width].chunks_exact(width) {
            got.iter_mut().zip(c).for_each(|(g, v)| *g += v);
        }
        if want[0] < 1.0 {
            return Err(format!("lsm_normal_batch: product {i} has {} paths in the money on the host", want[0]));
        }
        agree_scaled(&format!("lsm_normal_batch product {i}'s normal equations against the host's"), &got, &want)?;
    }
    Ok(())
}

/// `heston_qe`: a high volatility of variance (sigma = 1), so both the quadratic and the
/// exponential branch of the QE step occur (psi is about 1.8 at v = theta), monthly steps over
/// two years, a partial last block, against the CPU reference; 20000 paths whose mean terminal
/// spot is the forward `spot e^{(r - q) T}` within [`reference::MC_SIGMAS`] standard errors (the
/// martingale correction of Andersen's scheme makes the discrete price process a martingale).
pub fn heston_qe(dev: &dyn Compute) -> Result<(), String> {
    let (steps, dt, spot, carry) = (24u32, 1.0 / 12.0, 100.0, 0.02);
    let args = |paths: u64| {
        vec![
            KArg::Out(paths as usize),
            KArg::U64(SEED),
            KArg::U64(paths),
            KArg::U32(steps),
            KArg::F64(spot),
            KArg::F64(carry * dt),
            KArg::F64(dt),
            KArg::F64(0.04),
            KArg::F64(1.5),
            KArg::F64(0.04),
            KArg::F64(1.0),
            KArg::F64(-0.7),
        ]
    };
    against_cpu(dev, "heston_qe", "sigma 1, rho -0.7, 24 monthly steps", 2000, &args(2000), FP64_RTOL)?;
    let paths = 20_000u64;
    let got = checked(dev, "heston_qe", "20000 paths", paths, &args(paths), FP64_RTOL)?;
    let (sum, sum_sq) = got.iter().fold((0.0, 0.0), |(a, b), s| (a + s, b + s * s));
    let forward = spot * (carry * dt * f64::from(steps)).exp();
    Estimate::from_sums(sum, sum_sq, paths).agrees("heston_qe mean terminal spot", forward, 0.0)
}

/// Heston QE products for `heston_qe_mc` and `heston_qe_batch`: (steps, spot, strike, is_call,
/// drift_dt, dt, v0, kappa, theta, sigma, rho, discount). Both QE branches occur (sigma 1 puts
/// psi near 1.8 at v = theta; sigma 0.3 keeps it below 1.5), calls and puts, odd step counts.
fn heston_products() -> Vec<Vec<KArg>> {
    use KArg::{F64, U32};
    let product = |steps: u32, spot: f64, strike: f64, call: u32, t: f64, p: [f64; 5], r: f64| {
        let dt = t / f64::from(steps);
        let mut v = vec![U32(steps), F64(spot), F64(strike), U32(call), F64(r * dt), F64(dt)];
        v.extend(p.iter().map(|x| F64(*x)));
        v.push(F64((-r * t).exp()));
        v
    };
    vec![
        product(24, 100.0, 100.0, 1, 2.0, [0.04, 1.5, 0.04, 1.0, -0.7], 0.02),
        product(24, 100.0, 95.0, 0, 2.0, [0.04, 1.5, 0.04, 1.0, -0.7], 0.02),
        product(7, 52.0, 50.0, 1, 0.5, [0.09, 2.0, 0.06, 0.3, -0.3], 0.05),
        product(13, 6711.2, 6800.0, 0, 1.0, [0.02, 4.0, 0.03, 0.6, 0.2], 0.04),
    ]
}

/// `heston_qe_mc`: each product of [`heston_products`] over 5001 pairs (a partial last block)
/// against the CPU reference; then a call and a put (S 100, K 100, r 0.03, q 0.01, T 1, v0 =
/// theta = 0.04, kappa 2, sigma 0.4, rho -0.6; 32 steps) over 100000 pairs against the
/// semi-analytic Heston price (`tenor_kernels::heston::price`, 256 Gauss-Legendre nodes:
/// another method, a characteristic-function integral), within [`reference::MC_SIGMAS`]
/// standard errors plus 0.2% of the price for the scheme's time discretisation (on the CPU the
/// estimates lie 0.7 and 0.5 standard errors from it: no bias shows at this noise).
pub fn heston_qe_mc(dev: &dyn Compute) -> Result<(), String> {
    let pairs = 5001u64;
    for (i, p) in heston_products().into_iter().enumerate() {
        let mut args = vec![KArg::Out(2 * blocks_of(pairs)), KArg::U64(SEED), KArg::U64(pairs)];
        args.extend(p);
        against_cpu(dev, "heston_qe_mc", &format!("product {i}"), pairs, &args, FP64_RTOL)?;
    }
    let (pairs, steps, spot, strike, r, q, t) = (100_000u64, 32u32, 100.0, 100.0, 0.03, 0.01, 1.0);
    let params = [0.04, 2.0, 0.04, 0.4, -0.6];
    let (nodes, weights) = tenor_kernels::heston::gauss_legendre_unit(256);
    let dt = t / f64::from(steps);
    for call in [true, false] {
        let mut args = vec![KArg::Out(2 * blocks_of(pairs)), KArg::U64(SEED), KArg::U64(pairs)];
        args.extend([KArg::U32(steps), KArg::F64(spot), KArg::F64(strike), KArg::U32(u32::from(call))]);
        args.extend([KArg::F64((r - q) * dt), KArg::F64(dt)]);
        args.extend(params.iter().map(|x| KArg::F64(*x)));
        args.push(KArg::F64((-r * t).exp()));
        let case = if call { "call" } else { "put" };
        let got = checked(dev, "heston_qe_mc", case, pairs, &args, FP64_RTOL)?;
        let contract = tenor_kernels::heston::Contract {
            forward: spot * ((r - q) * t).exp(),
            strike,
            maturity: t,
            discount: (-r * t).exp(),
            is_call: call,
        };
        let exact = tenor_kernels::heston::price(&params, &contract, &nodes, &weights);
        estimate(&got, 2, 0, 1, pairs).agrees(&format!("heston_qe_mc {case}"), exact, 2e-3 * exact)?;
    }
    Ok(())
}

/// `heston_qe_batch`: the four products of [`heston_products`] over 5001 pairs, each product's
/// partials bitwise those of `heston_qe_mc` launched for it alone.
pub fn heston_qe_batch(dev: &dyn Compute) -> Result<(), String> {
    mc_batch(dev, "heston_qe_batch", "heston_qe_mc", 2, 5001, &heston_products())
}

/// `implied_vol`: discounted Black prices (from [`reference::black`]) of calls and puts over
/// strikes 50..150, maturities 0.05..5 years and volatilities 5%..150%, plus quotes below
/// intrinsic, above the upper bound and with invalid inputs. Against the CPU reference
/// (statuses exactly, volatilities within [`FP64_RTOL`] relative per item, NaN where the status
/// is not 0); and against the truth: status 0 and the volatility the price was made from (its
/// Black price within 1e-12 of the quote, relative) for every priced quote, and the statuses
/// the manifest prescribes (1 below intrinsic, 2 above the bound, 3 invalid) for the last four.
pub fn implied_vol(dev: &dyn Compute) -> Result<(), String> {
    let (forward, discount) = (100.0, 0.97);
    let mut cols: [Vec<f64>; 5] = Default::default();
    let mut is_call = Vec::new();
    let mut truth = Vec::new();
    let mut push = |price: f64, f: f64, k: f64, t: f64, d: f64, call: u32| {
        for (c, v) in cols.iter_mut().zip([price, f, k, t, d]) {
            c.push(v);
        }
        is_call.push(call);
    };
    for &k in &[50.0, 80.0, 95.0, 100.0, 103.0, 120.0, 150.0] {
        for &t in &[0.05, 0.5, 2.0, 5.0] {
            for &vol in &[0.05, 0.2, 0.6, 1.5] {
                for call in [1u32, 0] {
                    let p = reference::black(forward, k, vol * f64::sqrt(t), call == 1);
                    let intrinsic = if call == 1 { forward - k } else { k - forward }.max(0.0);
                    // Quotes with time value below a thousandth of a tick hold no volatility.
                    if p - intrinsic > 1e-5 {
                        push(discount * p, forward, k, t, discount, call);
                        truth.push((vol, p));
                    }
                }
            }
        }
    }
    push(discount * 19.0, forward, 80.0, 1.0, discount, 1); // below intrinsic (20)
    push(discount * 101.0, forward, 80.0, 1.0, discount, 1); // above the forward
    push(discount * 5.0, forward, 100.0, -1.0, discount, 0); // negative maturity
    push(5.0, forward, 100.0, 1.0, -0.5, 1); // negative discount factor
    let n = is_call.len();
    let [price, fwd, strike, maturity, disc] = cols;
    let args = [
        KArg::In(price),
        KArg::In(fwd),
        KArg::In(strike.clone()),
        KArg::In(maturity.clone()),
        KArg::In(disc),
        KArg::InU32(is_call.clone()),
        KArg::Out(n),
        KArg::OutU32(n),
        KArg::U64(n as u64),
    ];
    let got = launch_outputs(dev, "implied_vol", n as u64, &args).map_err(|m| format!("implied_vol: {m}"))?;
    let (Some(gv), Some(gs)) = (got.first(), got.get(1)) else {
        return Err("implied_vol: expected two outputs".into());
    };
    let priced = truth.len();
    for (i, (vol, p)) in truth.iter().enumerate() {
        let call = is_call[i] == 1;
        let again = reference::black(forward, strike[i], gv[i] * maturity[i].sqrt(), call);
        if gs[i] != 0.0 || !within(again - p, 1e-12 * p) || !within(gv[i] - vol, 1e-6 * vol) {
            return Err(format!(
                "implied_vol: quote {i} (K {}, T {}, vol {vol}): status {}, vol {} reprices to {again} against {p}",
                strike[i], maturity[i], gs[i], gv[i]
            ));
        }
    }
    if gs[priced..] != [1.0, 2.0, 3.0, 3.0] || gv[priced..].iter().any(|v| !v.is_nan()) {
        return Err(format!(
            "implied_vol: statuses {:?}, vols {:?} for the four quotes without one",
            &gs[priced..],
            &gv[priced..]
        ));
    }
    if is_cpu_reference(dev)? {
        return Ok(());
    }
    let want = launch_outputs(&tenor_cpu::cpu().map_err(err)?, "implied_vol", n as u64, &args)?;
    let (Some(wv), Some(ws)) = (want.first(), want.get(1)) else {
        return Err("implied_vol: expected two outputs from the CPU reference".into());
    };
    for i in 0..n {
        if gs[i] != ws[i] {
            return Err(format!("implied_vol: item {i}: status {} on the device, {} on the CPU", gs[i], ws[i]));
        }
        if ws[i] == 0.0 && !within(gv[i] - wv[i], FP64_RTOL * wv[i].abs()) {
            return Err(format!("implied_vol: item {i}: vol {} on the device, {} on the CPU", gv[i], wv[i]));
        }
    }
    Ok(())
}

/// Lewis (2000)'s Heston reference prices (`S 100, r 0.01, q 0.02, v0 0.04, kappa 4, theta
/// 0.25, sigma 1, rho -0.5, T 1`), as QuantLib's test suite and financepress.com publish them
/// to 48 digits: strike, call, put (the published digits, each rounded to the nearest `f64`).
#[allow(clippy::excessive_precision)]
const LEWIS: [(f64, f64, f64); 5] = [
    (80.0, 26.774_758_743_998_854, 7.958_878_113_256_768),
    (90.0, 20.933_349_000_596_710, 12.017_966_707_346_305),
    (100.0, 16.070_154_917_028_834, 17.055_270_961_270_109),
    (110.0, 12.132_211_516_709_845, 23.017_825_898_442_801),
    (120.0, 9.024_913_483_457_836, 29.811_026_202_682_472),
];

/// `heston_price`: 42 quotes (calls and puts, strikes 60..150, maturities of 1 week, 3 months
/// and 2 years, forward and discount from rates 3% and dividends 1%) under three parameter
/// sets in one launch (126 items, a partial last block): moderate, Feller violated with vol of
/// variance 1.5 and rho -0.9, and rho +0.3; 128 Gauss-Legendre nodes, against the CPU reference
/// within [`FP64_RTOL`] relative to the largest price (the quadrature sums 128 terms of the
/// characteristic function, so last-ulp differences of `exp`, `log1p`, `atan2`, `sin`, `cos`,
/// `erfc` and contracted multiply-adds stay near 1e-15 of the price scale); each pair's call
/// less put is `D (F - K)` within 1e-9 of the spot (put-call parity, model-free) where neither
/// is floored at 0 (a far out-of-the-money price whose quadrature dips below 0). Then Lewis's
/// ten reference prices ([`LEWIS`], a hard case: vol of variance 1, Feller violated) within
/// 1e-6 (128 nodes).
pub fn heston_price(dev: &dyn Compute) -> Result<(), String> {
    let mut cols: [Vec<f64>; 4] = Default::default();
    let mut is_call = Vec::new();
    let (r, q): (f64, f64) = (0.03, 0.01);
    for &t in &[1.0 / 52.0, 0.25, 2.0] {
        for &k in &[60.0, 80.0, 95.0, 100.0, 104.0, 120.0, 150.0] {
            for call in [1u32, 0] {
                for (c, v) in cols.iter_mut().zip([k, 100.0 * ((r - q) * t).exp(), t, (-r * t).exp()]) {
                    c.push(v);
                }
                is_call.push(call);
            }
        }
    }
    let quotes = is_call.len();
    let params = vec![0.04, 1.5, 0.04, 0.5, -0.7, 0.09, 1.0, 0.06, 1.5, -0.9, 0.01, 0.5, 0.04, 1.0, 0.3];
    let items = (quotes * params.len() / 5) as u64;
    let (nodes, weights) = tenor_kernels::heston::gauss_legendre_unit(128);
    let quote_args = |cols: &[Vec<f64>; 4], is_call: &[u32], params: &[f64], items: u64, quotes: usize| {
        let [strike, forward, maturity, discount] = cols.clone();
        [
            KArg::In(strike),
            KArg::In(forward),
            KArg::In(maturity),
            KArg::In(discount),
            KArg::InU32(is_call.to_vec()),
            KArg::In(params.to_vec()),
            KArg::In(nodes.clone()),
            KArg::In(weights.clone()),
            KArg::Out(items as usize),
            KArg::U64(items),
            KArg::U64(quotes as u64),
            KArg::U32(128),
        ]
    };
    let case = "42 quotes x 3 parameter sets, 128 nodes";
    let got =
        checked(dev, "heston_price", case, items, &quote_args(&cols, &is_call, &params, items, quotes), FP64_RTOL)?;
    for (i, pair) in got.chunks_exact(2).enumerate() {
        let j = (2 * i) % quotes;
        let parity = cols[3][j] * (cols[1][j] - cols[0][j]);
        if pair[0] > 0.0 && pair[1] > 0.0 && !within(pair[0] - pair[1] - parity, 1e-9 * 100.0) {
            return Err(format!(
                "heston_price: quote pair {i}: call {} less put {} is not D (F - K) = {parity}",
                pair[0], pair[1]
            ));
        }
    }
    let (r, q, t) = (0.01, 0.02, 1.0_f64);
    let mut lewis: [Vec<f64>; 4] = Default::default();
    let mut calls = Vec::new();
    for (k, ..) in LEWIS {
        for call in [1u32, 0] {
            for (c, v) in lewis.iter_mut().zip([k, 100.0 * ((r - q) * t).exp(), t, (-r * t).exp()]) {
                c.push(v);
            }
            calls.push(call);
        }
    }
    let params = [0.04, 4.0, 0.25, 1.0, -0.5];
    let got = checked(dev, "heston_price", "Lewis", 10, &quote_args(&lewis, &calls, &params, 10, 10), FP64_RTOL)?;
    let want: Vec<f64> = LEWIS.iter().flat_map(|(_, c, p)| [*c, *p]).collect();
    agree("heston_price against Lewis's reference prices", &got, &want, 1e-6, 0.0)
}

/// The Treasury CMT grid (1 month to 30 years) of the curve checks.
const CMT: [f64; 13] = [1. / 12., 2. / 12., 3. / 12., 4. / 12., 0.5, 1., 2., 3., 5., 7., 10., 20., 30.];

/// `curve_build`: 1000 curves on the Treasury CMT grid (upward, inverted, humped, near-zero and
/// negative short ends, 30 bp to 12 % levels) plus curves with a NaN yield and a yield of -0.6
/// part-way along, 1000 not a multiple of the block (a partial last block): against the CPU
/// reference (NaN positions exactly, the other values within [`FP64_RTOL`] relative each), and
/// against the manifest's rule that a bad yield makes its node and every later node of its
/// curve NaN and no other. Then flat par curves (yields -0.4% to 12%), whose bootstrap is known
/// in closed form: coupons fall on the half-year grid, so `D(T) = (1 + y/2)^(-2T)` prices every
/// par bond at par and `ln D(T) = -2T ln(1 + y/2)` at every node (within 1e-10: the Newton
/// solve stops at steps of 1e-12).
pub fn curve_build(dev: &dyn Compute) -> Result<(), String> {
    let (n, m) = (1000usize, CMT.len());
    let mut par = vec![0.0; m * n];
    let mut bad_from = vec![m; n];
    for c in 0..n {
        let level = 0.003 + 0.117 * ((c * 37) % 101) as f64 / 100.0;
        let slope = 0.04 * (((c * 13) % 21) as f64 / 10.0 - 1.0);
        let hump = 0.01 * (((c * 7) % 5) as f64 - 2.0);
        for (k, t) in CMT.iter().enumerate() {
            let x = 1.0 - (-t / 3.0f64).exp();
            par[k * n + c] = (level + slope * x + hump * x * (1.0 - x)).max(-0.004);
        }
        if c % 97 == 5 {
            par[(c % m) * n + c] = f64::NAN;
            bad_from[c] = bad_from[c].min(c % m);
        }
        if c % 89 == 3 {
            par[(c % m) * n + c] = -0.6;
            bad_from[c] = bad_from[c].min(c % m);
        }
    }
    let args = [KArg::In(par), KArg::In(CMT.to_vec()), KArg::Out(m * n), KArg::U64(n as u64), KArg::U32(m as u32)];
    let got = first_output(dev, "curve_build", n as u64, &args).map_err(|e| format!("curve_build: {e}"))?;
    for (i, g) in got.iter().enumerate() {
        let (k, c) = (i / n, i % n);
        if g.is_nan() != (k >= bad_from[c]) {
            return Err(format!(
                "curve_build: curve {c}, tenor {}: {g}; its first bad yield is at node {}",
                CMT[k], bad_from[c]
            ));
        }
    }
    if !is_cpu_reference(dev)? {
        let want = first_output(&tenor_cpu::cpu().map_err(err)?, "curve_build", n as u64, &args)?;
        agree("curve_build against the CPU reference", &got, &want, 0.0, FP64_RTOL)?;
    }
    let flat = [-0.004, 0.0, 0.003, 0.02, 0.05, 0.12];
    let par: Vec<f64> = CMT.iter().flat_map(|_| flat).collect();
    let args = [
        KArg::In(par),
        KArg::In(CMT.to_vec()),
        KArg::Out(m * flat.len()),
        KArg::U64(flat.len() as u64),
        KArg::U32(m as u32),
    ];
    let got = first_output(dev, "curve_build", flat.len() as u64, &args)?;
    let want: Vec<f64> = CMT.iter().flat_map(|t| flat.map(|y| -2.0 * t * f64::ln_1p(y / 2.0))).collect();
    agree("curve_build of flat par curves against -2T ln(1 + y/2)", &got, &want, 1e-10, 0.0)
}

/// `philox_bits`: Philox words through the device equal, bitwise, Philox4x32-10 written from
/// its definition and checked against Random123's known answers ([`reference::philox`]) over
/// 10007 counters (a partial last block); and the first known answer (counter 0, key 0) comes
/// out of the kernel itself at seed 0.
pub fn philox_bits(dev: &dyn Compute) -> Result<(), String> {
    let s = dev.default_stream().clone();
    let words = |seed: u64, n: u64| -> Result<Vec<u32>, String> {
        let out = dev.alloc_elems::<u32>(&s, 4 * n as usize).map_err(err)?;
        PhiloxBits { out: &out, seed, n }.launch(dev, &s).map_err(err)?;
        dev.download_vec(&s, &out).map_err(err)
    };
    let seed = 0x0123_4567_89ab_cdef_u64;
    let got = words(seed, 10_007)?;
    for (i, g) in got.chunks_exact(4).enumerate() {
        let want = reference::philox([i as u32, (i >> 32) as u32, 0, 0], [seed as u32, (seed >> 32) as u32]);
        if g != want {
            return Err(format!("philox_bits: item {i}: device {g:08x?}, Philox4x32-10 {want:08x?}"));
        }
    }
    let kat = reference::PHILOX_KAT[0].2;
    match words(0, 1)? {
        w if w == kat => Ok(()),
        w => Err(format!("philox_bits: counter 0 under key 0 gives {w:08x?}, Random123's known answer {kat:08x?}")),
    }
}
