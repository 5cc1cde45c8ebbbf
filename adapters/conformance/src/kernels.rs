//! Kernel checks against the CPU reference backend: each check launches a kernel with the
//! same arguments on the device under test and on [`tenor_cpu::cpu`], and compares every
//! output (fp64 within [`FP64_RTOL`], fp32 kernels within [`FP32_RTOL`], relative to the
//! largest magnitude of the reference output). Inputs of the payoff kernels are uploaded from
//! host data, so each kernel is checked on its own.

use tenor_ports::{Access, Arg, Compute, ComputeError, ComputeExt, DeviceBuffer};

use tenor_kernels::typed::PhiloxBits;

use crate::{max_rel_diff, FP32_RTOL, FP64_RTOL};

pub use crate::basket::{basket_backward, basket_moments, basket_paths, basket_sens, basket_solve, basket_value};

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
            KArg::InU32(v) => Some(dev.upload_slice(&s, v).map_err(err)?),
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
            (KArg::U32(v), _) => Arg::U32(*v),
            (KArg::U64(v), _) => Arg::U64(*v),
            (KArg::F32(v), _) => Arg::F32(*v),
            (KArg::F64(v), _) => Arg::F64(*v),
            (KArg::Out(_) | KArg::In(_) | KArg::InOut(_) | KArg::InU32(_) | KArg::OutU32(_), None) => {
                return Err(format!("{name}: buffer argument not allocated"))
            }
        });
    }
    dev.launch(&s, &k, items, &raw).map_err(err)?;
    let mut outs = Vec::new();
    for (a, b) in args.iter().zip(&bufs) {
        match (a, b) {
            (KArg::Out(_) | KArg::InOut(_), Some(b)) => outs.push(dev.download_vec::<f64>(&s, b).map_err(err)?),
            (KArg::OutU32(_), Some(b)) => {
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

/// Runs the launch on `dev` and on the CPU reference and compares the outputs within `rtol`.
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
) -> Result<(), String> {
    let reference = tenor_cpu::cpu().map_err(err)?;
    let want = launch_outputs(&reference, name, items, args)?;
    let got = launch_outputs(dev, name, items, args).map_err(|m| format!("{name} ({case}): {m}"))?;
    for (o, (g, w)) in got.iter().zip(&want).enumerate() {
        if g.len() != w.len() {
            return Err(format!("{name} ({case}): output {o} has {} values, reference {}", g.len(), w.len()));
        }
        if g.iter().any(|x| !x.is_finite()) {
            return Err(format!("{name} ({case}): output {o} holds a non-finite value"));
        }
        let d = max_rel_diff(g, w);
        if d > rtol {
            return Err(format!("{name} ({case}): output {o} differs from the CPU reference by {d:e} (> {rtol:e})"));
        }
    }
    Ok(())
}

const SEED: u64 = 0x5EED_0000_2026_0001;

/// Log-normal test paths (step-major, `steps` x `paths`) from the CPU reference `gbm_paths`.
fn host_paths(paths: u64, steps: u32, spot: f64, drift: f64, vol: f64) -> Result<Vec<f64>, String> {
    let cpu = tenor_cpu::cpu().map_err(err)?;
    let out = launch_outputs(
        &cpu,
        "gbm_paths",
        paths,
        &[
            KArg::Out((paths * u64::from(steps)) as usize),
            KArg::U64(SEED),
            KArg::U64(paths),
            KArg::U32(steps),
            KArg::F64(spot),
            KArg::F64(drift),
            KArg::F64(vol),
            KArg::F64(drift),
            KArg::F64(vol),
        ],
    )?;
    out.into_iter().next().ok_or_else(|| "gbm_paths returned no output".to_owned())
}

/// `philox_normals`: fp64 normals, odd step count, nonzero path offset.
pub fn philox_normals(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps) = (1000u64, 5u32);
    let args = [KArg::Out(5000), KArg::U64(SEED), KArg::U64(1 << 33), KArg::U64(paths), KArg::U32(steps)];
    against_cpu(dev, "philox_normals", "1000 paths x 5 steps", paths, &args, FP64_RTOL)
}

/// `reduce_sum_sumsq`: a partial last block.
pub fn reduce_sum_sumsq(dev: &dyn Compute) -> Result<(), String> {
    let n = 10_000usize;
    let x: Vec<f64> = (0..n).map(|i| ((i * 7919) % 1000) as f64 / 37.0 - 9.0).collect();
    let blocks = n.div_ceil(4096);
    against_cpu(
        dev,
        "reduce_sum_sumsq",
        "n = 10000",
        n as u64,
        &[KArg::In(x), KArg::Out(2 * blocks), KArg::U64(n as u64)],
        FP64_RTOL,
    )
}

/// `gbm_paths`: odd steps, a first interval that differs from the others.
pub fn gbm_paths(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps) = (1000u64, 7u32);
    let args = [
        KArg::Out(7000),
        KArg::U64(SEED),
        KArg::U64(paths),
        KArg::U32(steps),
        KArg::F64(100.0),
        KArg::F64(0.003),
        KArg::F64(0.12),
        KArg::F64(-0.001),
        KArg::F64(0.05),
    ];
    against_cpu(dev, "gbm_paths", "7 steps, first interval longer", paths, &args, FP64_RTOL)
}

/// `payoff_european`: call and put on host-supplied paths.
pub fn payoff_european(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps) = (1000u64, 5u32);
    let input = host_paths(paths, steps, 100.0, 0.0, 0.1)?;
    for is_call in [1u32, 0] {
        let args = [
            KArg::In(input.clone()),
            KArg::Out(paths as usize),
            KArg::U64(paths),
            KArg::U32(steps),
            KArg::F64(101.0),
            KArg::U32(is_call),
            KArg::F64(0.97),
        ];
        against_cpu(dev, "payoff_european", if is_call == 1 { "call" } else { "put" }, paths, &args, FP64_RTOL)?;
    }
    Ok(())
}

/// `payoff_asian`: call and put, with and without spot as a fixing.
pub fn payoff_asian(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps) = (1000u64, 6u32);
    let input = host_paths(paths, steps, 100.0, 0.0, 0.05)?;
    for is_call in [1u32, 0] {
        for spot_fixing in [0u32, 1] {
            let args = [
                KArg::In(input.clone()),
                KArg::Out(paths as usize),
                KArg::Out(paths as usize),
                KArg::U64(paths),
                KArg::U32(steps),
                KArg::F64(100.0),
                KArg::U32(spot_fixing),
                KArg::F64(99.0),
                KArg::U32(is_call),
                KArg::F64(0.98),
            ];
            let case = format!("is_call {is_call}, spot_fixing {spot_fixing}");
            against_cpu(dev, "payoff_asian", &case, paths, &args, FP64_RTOL)?;
        }
    }
    Ok(())
}

/// `payoff_barrier`: every kind, continuous and discrete, with a rebate.
pub fn payoff_barrier(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps, vol) = (1000u64, 8u32, 0.07);
    let input = host_paths(paths, steps, 100.0, 0.0, vol)?;
    for kind in 0..4u32 {
        let barrier = if kind < 2 { 92.0 } else { 108.0 };
        for continuous in [1u32, 0] {
            let args = [
                KArg::In(input.clone()),
                KArg::Out(paths as usize),
                KArg::U64(paths),
                KArg::U32(steps),
                KArg::F64(100.0),
                KArg::F64(100.0),
                KArg::F64(barrier),
                KArg::F64(2.5),
                KArg::U32(kind & 1),
                KArg::U32(kind),
                KArg::U32(continuous),
                KArg::F64(vol),
                KArg::F64(0.005),
                KArg::F64(0.96),
            ];
            let case = format!("kind {kind}, continuous {continuous}");
            against_cpu(dev, "payoff_barrier", &case, paths, &args, FP64_RTOL)?;
        }
    }
    Ok(())
}

/// `mc_european`: call and put, a partial last block, and an odd pair count (the last Philox
/// call's sine normal unused).
pub fn mc_european(dev: &dyn Compute) -> Result<(), String> {
    for (pairs, is_call) in [(10_000u64, 1u32), (10_000, 0), (10_001, 1)] {
        let args = [
            KArg::Out(2 * pairs.div_ceil(4096) as usize),
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
    Ok(())
}

/// `mc_european_batch`: five products (calls and puts, different spots, strikes, drifts, vols
/// and discounts) over an odd pair count with a partial last block. The batch matches the CPU
/// reference within [`FP64_RTOL`], and each product's slice of the partials equals bitwise
/// `mc_european` launched for that product alone on the same device.
pub fn mc_european_batch(dev: &dyn Compute) -> Result<(), String> {
    let pairs = 10_001u64;
    // (spot, strike, is_call, drift, vol_sqrt_t, discount)
    type Product = (f64, f64, u32, f64, f64, f64);
    let products: [Product; 5] = [
        (100.0, 105.0, 1, 0.01, 0.2, 0.95),
        (100.0, 95.0, 0, 0.01, 0.2, 0.95),
        (52.5, 50.0, 1, -0.03, 0.45, 0.99),
        (250.0, 300.0, 0, 0.002, 0.08, 0.9),
        (1.0, 1.0, 1, 0.0, 1.1, 1.0),
    ];
    let n = products.len();
    let per_product = pairs.div_ceil(4096);
    let items = n as u64 * per_product * 4096;
    let col = |f: fn(&Product) -> f64| products.iter().map(f).collect::<Vec<f64>>();
    let args = [
        KArg::Out(2 * (n as u64 * per_product) as usize),
        KArg::In(col(|p| p.0)),
        KArg::In(col(|p| p.1)),
        KArg::InU32(products.iter().map(|p| p.2).collect()),
        KArg::In(col(|p| p.3)),
        KArg::In(col(|p| p.4)),
        KArg::In(col(|p| p.5)),
        KArg::U32(n as u32),
        KArg::U64(SEED),
        KArg::U64(pairs),
        KArg::U64(items),
    ];
    against_cpu(dev, "mc_european_batch", "5 products, 10001 pairs", items, &args, FP64_RTOL)?;
    let batch = launch_outputs(dev, "mc_european_batch", items, &args)?;
    let batch = batch.first().ok_or("mc_european_batch: no output")?;
    let width = 2 * per_product as usize;
    for (i, &(spot, strike, is_call, drift, vol, discount)) in products.iter().enumerate() {
        let alone = launch_outputs(
            dev,
            "mc_european",
            pairs,
            &[
                KArg::Out(width),
                KArg::U64(SEED),
                KArg::U64(pairs),
                KArg::F64(spot),
                KArg::F64(strike),
                KArg::U32(is_call),
                KArg::F64(drift),
                KArg::F64(vol),
                KArg::F64(discount),
            ],
        )?;
        let alone = alone.first().ok_or("mc_european: no output")?;
        let slice = &batch[i * width..(i + 1) * width];
        if slice.iter().zip(alone).any(|(a, b)| a.to_bits() != b.to_bits()) {
            return Err(format!(
                "mc_european_batch: product {i}'s partials {slice:?} differ from mc_european alone {alone:?}"
            ));
        }
    }
    Ok(())
}

/// `mc_european_f32`: call and put.
pub fn mc_european_f32(dev: &dyn Compute) -> Result<(), String> {
    let pairs = 10_000u64;
    for is_call in [1u32, 0] {
        let args = [
            KArg::Out(2 * pairs.div_ceil(4096) as usize),
            KArg::U64(SEED),
            KArg::U64(pairs),
            KArg::F32(100.0),
            KArg::F32(105.0),
            KArg::U32(is_call),
            KArg::F32(0.01),
            KArg::F32(0.2),
            KArg::F32(0.95),
        ];
        against_cpu(dev, "mc_european_f32", if is_call == 1 { "call" } else { "put" }, pairs, &args, FP32_RTOL)?;
    }
    Ok(())
}

fn asian_args(pairs: u64, steps: u32, is_call: u32, spot_fixing: u32, f32_args: bool) -> Vec<KArg> {
    let f = |x: f64| if f32_args { KArg::F32(x as f32) } else { KArg::F64(x) };
    vec![
        KArg::Out(5 * pairs.div_ceil(4096) as usize),
        KArg::U64(SEED),
        KArg::U64(pairs),
        KArg::U32(steps),
        f(100.0),
        f(100.0),
        KArg::U32(is_call),
        KArg::U32(spot_fixing),
        f(0.004),
        f(0.09),
        f(-0.0005),
        f(0.04),
        f(0.96),
    ]
}

/// `mc_asian`: 13 steps (odd, not a multiple of 4), first interval longer, both schedules.
pub fn mc_asian(dev: &dyn Compute) -> Result<(), String> {
    for (is_call, spot_fixing) in [(1u32, 0u32), (0, 1)] {
        let args = asian_args(9000, 13, is_call, spot_fixing, false);
        let case = format!("is_call {is_call}, spot_fixing {spot_fixing}");
        against_cpu(dev, "mc_asian", &case, 9000, &args, FP64_RTOL)?;
    }
    Ok(())
}

/// `mc_asian_f32`: as `mc_asian` in fp32.
pub fn mc_asian_f32(dev: &dyn Compute) -> Result<(), String> {
    for (is_call, spot_fixing) in [(1u32, 0u32), (0, 1)] {
        let args = asian_args(9000, 13, is_call, spot_fixing, true);
        let case = format!("is_call {is_call}, spot_fixing {spot_fixing}");
        against_cpu(dev, "mc_asian_f32", &case, 9000, &args, FP32_RTOL)?;
    }
    Ok(())
}

/// `mc_barrier`: every kind, continuous and discrete, with a rebate, odd steps.
pub fn mc_barrier(dev: &dyn Compute) -> Result<(), String> {
    let (pairs, steps) = (5000u64, 17u32);
    for kind in 0..4u32 {
        let barrier = if kind < 2 { 90.0 } else { 112.0 };
        for continuous in [1u32, 0] {
            let args = [
                KArg::Out(2 * pairs.div_ceil(4096) as usize),
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
    Ok(())
}

/// A batch kernel's check: `products` (each the single kernel's scalars after seed and pairs,
/// as [`KArg::U32`] or [`KArg::F64`]) over `pairs`; the batch matches the CPU reference within
/// [`FP64_RTOL`], and each product's slice of the partials equals bitwise `single` launched for
/// that product alone on the same device.
fn batch_against_single(
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
    let columns = products.first().map_or(0, Vec::len);
    let mut args = vec![KArg::Out(width * (n as u64 * per_product) as usize)];
    for k in 0..columns {
        let column: Vec<&KArg> = products.iter().map(|p| &p[k]).collect();
        args.push(match column.first() {
            Some(KArg::U32(_)) => KArg::InU32(
                column
                    .iter()
                    .map(
                        |a| if let KArg::U32(v) = a { Ok(*v) } else { Err(format!("{batch}: column {k} mixes types")) },
                    )
                    .collect::<Result<_, _>>()?,
            ),
            _ => KArg::In(
                column
                    .iter()
                    .map(
                        |a| if let KArg::F64(v) = a { Ok(*v) } else { Err(format!("{batch}: column {k} mixes types")) },
                    )
                    .collect::<Result<_, _>>()?,
            ),
        });
    }
    args.extend([KArg::U32(n as u32), KArg::U64(SEED), KArg::U64(pairs), KArg::U64(items)]);
    let case = format!("{n} products, {pairs} pairs");
    against_cpu(dev, batch, &case, items, &args, FP64_RTOL)?;
    let out = launch_outputs(dev, batch, items, &args)?;
    let out = out.first().ok_or(format!("{batch}: no output"))?;
    let w = width * per_product as usize;
    for (i, p) in products.iter().enumerate() {
        let mut one = vec![KArg::Out(w), KArg::U64(SEED), KArg::U64(pairs)];
        one.extend(p.iter().cloned());
        let alone = launch_outputs(dev, single, pairs, &one)?;
        let alone = alone.first().ok_or(format!("{single}: no output"))?;
        let slice = out.get(i * w..(i + 1) * w).ok_or(format!("{batch}: {} partials", out.len()))?;
        if slice.iter().zip(alone).any(|(a, b)| a.to_bits() != b.to_bits()) {
            return Err(format!("{batch}: product {i}'s partials {slice:?} differ from {single} alone {alone:?}"));
        }
    }
    Ok(())
}

/// `mc_barrier_batch`: six products (every kind, continuous and discrete, different step
/// counts, spots, barriers and rebates) over 5001 pairs (a partial last block), against the CPU
/// reference and bitwise against `mc_barrier` for each product alone.
pub fn mc_barrier_batch(dev: &dyn Compute) -> Result<(), String> {
    use KArg::{F64, U32};
    // steps, spot, strike, barrier, rebate, is_call, kind, continuous, drift_dt, vol_sqrt_dt, rate_dt, discount
    let products = vec![
        vec![
            U32(17),
            F64(100.0),
            F64(100.0),
            F64(90.0),
            F64(3.0),
            U32(1),
            U32(0),
            U32(1),
            F64(0.0002),
            F64(0.06),
            F64(0.003),
            F64(0.95),
        ],
        vec![
            U32(12),
            F64(100.0),
            F64(95.0),
            F64(90.0),
            F64(0.0),
            U32(0),
            U32(1),
            U32(0),
            F64(0.001),
            F64(0.05),
            F64(0.004),
            F64(0.96),
        ],
        vec![
            U32(9),
            F64(105.0),
            F64(100.0),
            F64(112.0),
            F64(2.0),
            U32(1),
            U32(2),
            U32(1),
            F64(-0.0004),
            F64(0.07),
            F64(0.002),
            F64(0.97),
        ],
        vec![
            U32(24),
            F64(98.0),
            F64(110.0),
            F64(112.0),
            F64(1.0),
            U32(0),
            U32(3),
            U32(0),
            F64(0.0001),
            F64(0.03),
            F64(0.001),
            F64(0.99),
        ],
        vec![
            U32(1),
            F64(100.0),
            F64(100.0),
            F64(80.0),
            F64(0.0),
            U32(1),
            U32(0),
            U32(0),
            F64(0.002),
            F64(0.2),
            F64(0.02),
            F64(0.9),
        ],
        vec![
            U32(64),
            F64(6711.2),
            F64(6500.0),
            F64(7200.0),
            F64(0.0),
            U32(1),
            U32(2),
            U32(1),
            F64(0.00003),
            F64(0.02),
            F64(0.0006),
            F64(0.98),
        ],
    ];
    batch_against_single(dev, "mc_barrier_batch", "mc_barrier", 2, 5001, &products)
}

/// `mc_asian_batch`: five products (calls and puts, both schedules, odd and even step counts,
/// one fixing) over 9001 pairs, against the CPU reference and bitwise against `mc_asian` for
/// each product alone.
pub fn mc_asian_batch(dev: &dyn Compute) -> Result<(), String> {
    use KArg::{F64, U32};
    // steps, spot, strike, is_call, spot_fixing, drift_first, vol_first, drift_dt, vol_sqrt_dt, discount
    let products = vec![
        vec![
            U32(13),
            F64(100.0),
            F64(100.0),
            U32(1),
            U32(0),
            F64(0.004),
            F64(0.09),
            F64(-0.0005),
            F64(0.04),
            F64(0.96),
        ],
        vec![
            U32(13),
            F64(100.0),
            F64(100.0),
            U32(0),
            U32(1),
            F64(0.004),
            F64(0.09),
            F64(-0.0005),
            F64(0.04),
            F64(0.96),
        ],
        vec![U32(12), F64(52.0), F64(50.0), U32(1), U32(0), F64(0.001), F64(0.05), F64(0.001), F64(0.05), F64(0.99)],
        vec![U32(1), F64(100.0), F64(95.0), U32(0), U32(0), F64(0.01), F64(0.2), F64(0.0), F64(0.0), F64(0.95)],
        vec![
            U32(52),
            F64(6711.2),
            F64(6800.0),
            U32(1),
            U32(0),
            F64(0.0003),
            F64(0.02),
            F64(0.0003),
            F64(0.02),
            F64(0.98),
        ],
    ];
    batch_against_single(dev, "mc_asian_batch", "mc_asian", 5, 9001, &products)
}

/// `lsm_paths`: antithetic halves, odd steps, a partial last block.
pub fn lsm_paths(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps) = (1000u64, 7u32);
    let args = [
        KArg::Out((paths * u64::from(steps)) as usize),
        KArg::U64(SEED),
        KArg::U64(paths),
        KArg::U32(steps),
        KArg::F64(100.0),
        KArg::F64(-0.0004),
        KArg::F64(0.06),
    ];
    against_cpu(dev, "lsm_paths", "1000 paths x 7 steps", paths, &args, FP64_RTOL)
}

/// Put and call parameters of the Longstaff-Schwartz checks: (sign, strike).
const LSM_CASES: [(f64, f64); 2] = [(-1.0, 100.0), (1.0, 102.0)];

/// `lsm_basis`: regression rows of a put and a call at an interior exercise date, four
/// Laguerre polynomials, cash flows of the terminal payoff (some paths out of the money).
pub fn lsm_basis(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps, step, nbasis) = (1000u64, 6u32, 3u32, 4u32);
    let spots = host_paths(paths, steps, 100.0, 0.0, 0.05)?;
    let last = &spots[(steps as usize - 1) * paths as usize..];
    for (sign, strike) in LSM_CASES {
        let cash: Vec<f64> = last.iter().map(|s| (sign * (s - strike)).max(0.0) + 0.25).collect();
        let args = [
            KArg::In(spots.clone()),
            KArg::In(cash),
            KArg::Out(((nbasis + 1) as u64 * paths) as usize),
            KArg::U64(paths),
            KArg::U32(step),
            KArg::U32(nbasis),
            KArg::F64(strike),
            KArg::F64(sign),
            KArg::F64(0.995),
        ];
        against_cpu(dev, "lsm_basis", if sign > 0.0 { "call" } else { "put" }, paths, &args, FP64_RTOL)?;
    }
    Ok(())
}

/// `lsm_exercise`: a put and a call at an interior exercise date; the continuation values
/// `4 + 20 L_1(x) + 0.5 L_2(x)` put the exercise boundary inside the in-the-money region
/// (about 5% in the money), so paths exercise, continue in the money and lie out of the money.
pub fn lsm_exercise(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps, step, nbasis) = (1000u64, 6u32, 3u32, 3u32);
    let spots = host_paths(paths, steps, 100.0, 0.0, 0.05)?;
    let last = &spots[(steps as usize - 1) * paths as usize..];
    for (sign, strike) in LSM_CASES {
        let cash: Vec<f64> = last.iter().map(|s| (sign * (s - strike)).max(0.0) + 0.25).collect();
        // L_1(x) = 1 - x has the sign of the put's moneyness: flip it for the call.
        let coef: Vec<f64> = (0..steps).flat_map(|_| [4.0, -sign * 20.0, 0.5]).collect();
        let args = [
            KArg::In(spots.clone()),
            KArg::InOut(cash),
            KArg::In(coef),
            KArg::U64(paths),
            KArg::U32(step),
            KArg::U32(nbasis),
            KArg::F64(strike),
            KArg::F64(sign),
            KArg::F64(0.995),
        ];
        against_cpu(dev, "lsm_exercise", if sign > 0.0 { "call" } else { "put" }, paths, &args, FP64_RTOL)?;
    }
    Ok(())
}

/// Compares product `i`'s slice (`per` values from `i per`) of a batch kernel's output with the
/// single kernel's output for that product alone, bitwise.
fn slices_bitwise(batch: &str, single: &str, out: &[f64], i: usize, per: usize, alone: &[f64]) -> Result<(), String> {
    let slice = out.get(i * per..(i + 1) * per).ok_or(format!("{batch}: {} values, no product {i}", out.len()))?;
    if slice.len() != alone.len() {
        return Err(format!("{batch}: product {i} has {} values, {single} alone {}", slice.len(), alone.len()));
    }
    match slice.iter().zip(alone).position(|(a, b)| a.to_bits() != b.to_bits()) {
        Some(k) => Err(format!("{batch}: product {i} value {k} is {:e}, {single} alone {:e}", slice[k], alone[k])),
        None => Ok(()),
    }
}

/// The first output of `name` launched on `dev`.
fn first_output(dev: &dyn Compute, name: &str, items: u64, args: &[KArg]) -> Result<Vec<f64>, String> {
    launch_outputs(dev, name, items, args)?.into_iter().next().ok_or(format!("{name}: no output"))
}

/// The Longstaff-Schwartz batch checks' products: (spot, drift_dt, vol_sqrt_dt, sign, strike, df).
const LSM_BATCH: [(f64, f64, f64, f64, f64, f64); 3] = [
    (100.0, -0.0004, 0.06, -1.0, 100.0, 0.995),
    (90.0, 0.0002, 0.03, 1.0, 88.0, 0.999),
    (110.0, 0.0, 0.09, -1.0, 115.0, 0.99),
];

/// Each product of [`LSM_BATCH`]'s spots from `lsm_paths` on the CPU reference (steps x paths),
/// concatenated product-major.
fn lsm_batch_spots(paths: u64, steps: u32) -> Result<Vec<f64>, String> {
    let cpu = tenor_cpu::cpu().map_err(err)?;
    let mut all = Vec::new();
    for (spot, drift, vol, ..) in LSM_BATCH {
        let args = [
            KArg::Out((paths * u64::from(steps)) as usize),
            KArg::U64(SEED),
            KArg::U64(paths),
            KArg::U32(steps),
            KArg::F64(spot),
            KArg::F64(drift),
            KArg::F64(vol),
        ];
        all.extend(first_output(&cpu, "lsm_paths", paths, &args)?);
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

/// One column of [`LSM_BATCH`]: `f` of each product.
fn lsm_column(f: impl Fn(&(f64, f64, f64, f64, f64, f64)) -> f64) -> KArg {
    KArg::In(LSM_BATCH.iter().map(f).collect())
}

/// `lsm_paths_batch`: three products (spots, drifts, vols) over 1000 paths (a partial last
/// block, blocks straddling products) and 7 steps, against the CPU reference and bitwise against
/// `lsm_paths` for each product alone.
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
    against_cpu(dev, "lsm_paths_batch", "3 products, 1000 paths x 7 steps", items, &args, FP64_RTOL)?;
    let out = first_output(dev, "lsm_paths_batch", items, &args)?;
    for (i, (spot, drift, vol, ..)) in LSM_BATCH.iter().enumerate() {
        let one = [
            KArg::Out(per),
            KArg::U64(SEED),
            KArg::U64(paths),
            KArg::U32(steps),
            KArg::F64(*spot),
            KArg::F64(*drift),
            KArg::F64(*vol),
        ];
        let alone = first_output(dev, "lsm_paths", paths, &one)?;
        slices_bitwise("lsm_paths_batch", "lsm_paths", &out, i, per, &alone)?;
    }
    Ok(())
}

/// `lsm_exercise_batch`: two puts and a call at an interior exercise date with per-product
/// coefficients that put the exercise boundary inside the in-the-money region (as
/// [`lsm_exercise`]), against the CPU reference and bitwise against `lsm_exercise` for each
/// product alone.
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
    against_cpu(dev, "lsm_exercise_batch", "2 puts and a call", items, &args, FP64_RTOL)?;
    let out = first_output(dev, "lsm_exercise_batch", items, &args)?;
    let (per_s, per_c, per_k) = ((paths * u64::from(steps)) as usize, paths as usize, (steps * nbasis) as usize);
    for (i, (.., sign, strike, df)) in LSM_BATCH.iter().enumerate() {
        let one = [
            KArg::In(spots[i * per_s..(i + 1) * per_s].to_vec()),
            KArg::InOut(cash[i * per_c..(i + 1) * per_c].to_vec()),
            KArg::In(coef[i * per_k..(i + 1) * per_k].to_vec()),
            KArg::U64(paths),
            KArg::U32(step),
            KArg::U32(nbasis),
            KArg::F64(*strike),
            KArg::F64(*sign),
            KArg::F64(*df),
        ];
        let alone = first_output(dev, "lsm_exercise", paths, &one)?;
        slices_bitwise("lsm_exercise_batch", "lsm_exercise", &out, i, per_c, &alone)?;
    }
    Ok(())
}

/// `lsm_normal_batch`: three products, four basis functions, chunks of 96 paths (a partial last
/// chunk), against the CPU reference, and each product's chunk sums added in order against
/// `[X^T X | X^T y]` formed on the host from `lsm_basis`'s design (the regression the single
/// pricer used to run through gemm).
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
    against_cpu(dev, "lsm_normal_batch", "3 products, chunks of 96 paths", items, &args, FP64_RTOL)?;
    let out = first_output(dev, "lsm_normal_batch", items, &args)?;
    let cpu = tenor_cpu::cpu().map_err(err)?;
    let (per_s, per_c) = ((paths * u64::from(steps)) as usize, paths as usize);
    for (i, (.., sign, strike, df)) in LSM_BATCH.iter().enumerate() {
        let basis = [
            KArg::In(spots[i * per_s..(i + 1) * per_s].to_vec()),
            KArg::In(cash[i * per_c..(i + 1) * per_c].to_vec()),
            KArg::Out((nb + 1) * per_c),
            KArg::U64(paths),
            KArg::U32(step),
            KArg::U32(nbasis),
            KArg::F64(*strike),
            KArg::F64(*sign),
            KArg::F64(*df),
        ];
        let design = first_output(&cpu, "lsm_basis", paths, &basis)?;
        let col = |k: usize| &design[k * per_c..(k + 1) * per_c];
        let want: Vec<f64> = (0..=nb)
            .flat_map(|k| (0..nb).map(move |j| (j, k)))
            .map(|(j, k)| col(j).iter().zip(col(k)).map(|(a, b)| a * b).sum::<f64>())
            .collect();
        let mut got = vec![0.0; width];
        let start = i * chunks as usize * width;
        for c in out[start..start + chunks as usize * width].chunks_exact(width) {
            got.iter_mut().zip(c).for_each(|(g, v)| *g += v);
        }
        let d = max_rel_diff(&got, &want);
        if d > 1e-12 || got[0] < 1.0 {
            return Err(format!("lsm_normal_batch: product {i}'s normal equations {got:?} against lsm_basis's design {want:?} (relative {d:e})"));
        }
    }
    Ok(())
}

/// `heston_qe`: a high volatility of variance (sigma = 1), so both the quadratic and the
/// exponential branch of the QE step occur (psi is about 1.8 at v = theta), monthly steps over
/// two years, a partial last block.
pub fn heston_qe(dev: &dyn Compute) -> Result<(), String> {
    let (paths, steps, dt) = (2000u64, 24u32, 1.0 / 12.0);
    let args = [
        KArg::Out(paths as usize),
        KArg::U64(SEED),
        KArg::U64(paths),
        KArg::U32(steps),
        KArg::F64(100.0),
        KArg::F64(0.02 * dt),
        KArg::F64(dt),
        KArg::F64(0.04),
        KArg::F64(1.5),
        KArg::F64(0.04),
        KArg::F64(1.0),
        KArg::F64(-0.7),
    ];
    against_cpu(dev, "heston_qe", "sigma 1, rho -0.7, 24 monthly steps", paths, &args, FP64_RTOL)
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

/// `heston_qe_mc`: each product of [`heston_products`] over 5001 pairs (a partial last block).
pub fn heston_qe_mc(dev: &dyn Compute) -> Result<(), String> {
    let pairs = 5001u64;
    for (i, p) in heston_products().into_iter().enumerate() {
        let mut args = vec![KArg::Out(2 * pairs.div_ceil(4096) as usize), KArg::U64(SEED), KArg::U64(pairs)];
        args.extend(p);
        against_cpu(dev, "heston_qe_mc", &format!("product {i}"), pairs, &args, FP64_RTOL)?;
    }
    Ok(())
}

/// `heston_qe_batch`: the four products of [`heston_products`] over 5001 pairs, against the CPU
/// reference and bitwise against `heston_qe_mc` for each product alone.
pub fn heston_qe_batch(dev: &dyn Compute) -> Result<(), String> {
    batch_against_single(dev, "heston_qe_batch", "heston_qe_mc", 2, 5001, &heston_products())
}

/// `implied_vol`: discounted Black prices (from [`tenor_kernels::black::black_price`]) of calls
/// and puts over strikes 50..150, maturities 0.05..5 years and volatilities 5%..150%, plus
/// quotes below intrinsic, above the upper bound and with invalid inputs. Statuses must agree
/// exactly, volatilities within [`FP64_RTOL`] relative per item, NaN where the status is not 0.
pub fn implied_vol(dev: &dyn Compute) -> Result<(), String> {
    let (forward, discount) = (100.0, 0.97);
    let mut cols: [Vec<f64>; 5] = Default::default();
    let mut is_call = Vec::new();
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
                    let p = tenor_kernels::black::black_price(forward, k, vol, t, call == 1);
                    let intrinsic = if call == 1 { forward - k } else { k - forward }.max(0.0);
                    // Quotes with time value below a thousandth of a tick hold no volatility.
                    if p - intrinsic > 1e-5 {
                        push(discount * p, forward, k, t, discount, call);
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
        KArg::In(strike),
        KArg::In(maturity),
        KArg::In(disc),
        KArg::InU32(is_call),
        KArg::Out(n),
        KArg::OutU32(n),
        KArg::U64(n as u64),
    ];
    let reference = tenor_cpu::cpu().map_err(err)?;
    let want = launch_outputs(&reference, "implied_vol", n as u64, &args)?;
    let got = launch_outputs(dev, "implied_vol", n as u64, &args).map_err(|m| format!("implied_vol: {m}"))?;
    let (Some([gv, gs]), Some([wv, ws])) = (got.get(..2), want.get(..2)) else {
        return Err("implied_vol: expected two outputs".into());
    };
    let mut solved = 0;
    for i in 0..n {
        if gs[i] != ws[i] {
            return Err(format!("implied_vol: item {i}: status {} on the device, {} on the CPU", gs[i], ws[i]));
        }
        if ws[i] == 0.0 {
            solved += 1;
            let d = (gv[i] - wv[i]).abs() / wv[i].abs();
            if d.is_nan() || d > FP64_RTOL {
                return Err(format!("implied_vol: item {i}: vol {} on the device, {} on the CPU", gv[i], wv[i]));
            }
        } else if !gv[i].is_nan() {
            return Err(format!("implied_vol: item {i}: status {} but vol {} (not NaN)", gs[i], gv[i]));
        }
    }
    // Every priced quote has a volatility; the last four fail as the manifest prescribes.
    if solved + 4 != n || ws[n - 4..] != [1.0, 2.0, 3.0, 3.0] {
        return Err(format!("implied_vol: the CPU reference solved {solved} of {} quotes", n - 4));
    }
    Ok(())
}

/// `heston_price`: 42 quotes (calls and puts, strikes 60..150, maturities of 1 week, 3 months
/// and 2 years, forward and discount from rates 3% and dividends 1%) under three parameter
/// sets in one launch (126 items, a partial last block): moderate, Feller violated with vol of
/// variance 1.5 and rho -0.9, and rho +0.3; 128 Gauss-Legendre nodes. Prices within
/// [`FP64_RTOL`] of the CPU reference relative to the largest price (the quadrature sums 128
/// terms of the characteristic function, so last-ulp differences of `exp`, `log1p`, `atan2`,
/// `sin`, `cos`, `erfc` and contracted multiply-adds stay near 1e-15 of the price scale).
pub fn heston_price(dev: &dyn Compute) -> Result<(), String> {
    let mut cols: [Vec<f64>; 4] = Default::default();
    let mut is_call = Vec::new();
    for &t in &[1.0 / 52.0, 0.25, 2.0] {
        for &k in &[60.0, 80.0, 95.0, 100.0, 104.0, 120.0, 150.0] {
            for call in [1u32, 0] {
                let (r, q): (f64, f64) = (0.03, 0.01);
                for (c, v) in cols.iter_mut().zip([k, 100.0 * ((r - q) * t).exp(), t, (-r * t).exp()]) {
                    c.push(v);
                }
                is_call.push(call);
            }
        }
    }
    let quotes = is_call.len();
    let params = vec![0.04, 1.5, 0.04, 0.5, -0.7, 0.09, 1.0, 0.06, 1.5, -0.9, 0.01, 0.5, 0.04, 1.0, 0.3];
    let sets = params.len() / 5;
    let items = (quotes * sets) as u64;
    let (nodes, weights) = tenor_kernels::heston::gauss_legendre_unit(128);
    let [strike, forward, maturity, discount] = cols;
    let args = [
        KArg::In(strike),
        KArg::In(forward),
        KArg::In(maturity),
        KArg::In(discount),
        KArg::InU32(is_call),
        KArg::In(params),
        KArg::In(nodes),
        KArg::In(weights),
        KArg::Out(items as usize),
        KArg::U64(items),
        KArg::U64(quotes as u64),
        KArg::U32(128),
    ];
    against_cpu(dev, "heston_price", "42 quotes x 3 parameter sets, 128 nodes", items, &args, FP64_RTOL)
}

/// `curve_build`: 1000 curves on the Treasury CMT grid (1 month to 30 years; upward, inverted,
/// humped, near-zero and negative short ends, 30 bp to 12 % levels) plus curves with a NaN yield
/// and a yield of -0.6 part-way along, 1000 not a multiple of the block (a partial last block).
/// NaN positions must agree exactly (the nodes from the bad yield on); the other values within
/// [`FP64_RTOL`] relative each (`ln D` is 0 exactly where a bill yields 0).
pub fn curve_build(dev: &dyn Compute) -> Result<(), String> {
    const CMT: [f64; 13] = [1. / 12., 2. / 12., 3. / 12., 4. / 12., 0.5, 1., 2., 3., 5., 7., 10., 20., 30.];
    let (n, m) = (1000usize, CMT.len());
    let mut par = vec![0.0; m * n];
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
        }
        if c % 89 == 3 {
            par[(c % m) * n + c] = -0.6;
        }
    }
    let args = [KArg::In(par), KArg::In(CMT.to_vec()), KArg::Out(m * n), KArg::U64(n as u64), KArg::U32(m as u32)];
    let reference = tenor_cpu::cpu().map_err(err)?;
    let want = launch_outputs(&reference, "curve_build", n as u64, &args)?;
    let got = launch_outputs(dev, "curve_build", n as u64, &args).map_err(|m| format!("curve_build: {m}"))?;
    let (Some(g), Some(w)) = (got.first(), want.first()) else {
        return Err("curve_build: expected one output".into());
    };
    let mut finite = 0;
    for (i, (g, w)) in g.iter().zip(w).enumerate() {
        let (k, c) = (i / n, i % n);
        if w.is_nan() != g.is_nan() {
            return Err(format!("curve_build: curve {c}, tenor {}: device {g}, CPU {w}", CMT[k]));
        }
        if !w.is_nan() {
            finite += 1;
            if !(g == w || (g - w).abs() <= FP64_RTOL * w.abs()) {
                return Err(format!("curve_build: curve {c}, tenor {}: device {g}, CPU {w}", CMT[k]));
            }
        }
    }
    if finite < 12_000 {
        return Err(format!("curve_build: the CPU reference solved only {finite} of {} nodes", m * n));
    }
    Ok(())
}

/// `philox_bits`: Philox words through the device equal the Rust generator bitwise (10007
/// counters, so the last block is partial).
pub fn philox_bits(dev: &dyn Compute) -> Result<(), String> {
    let s = dev.default_stream().clone();
    let n = 10_007u64;
    let seed = 0x0123_4567_89ab_cdef;
    let out = dev.alloc_elems::<u32>(&s, 4 * n as usize).map_err(err)?;
    PhiloxBits { out: &out, seed, n }.launch(dev, &s).map_err(err)?;
    let got: Vec<u32> = dev.download_vec(&s, &out).map_err(err)?;
    for i in 0..n {
        let want =
            tenor_kernels::philox::philox4x32_10([i as u32, (i >> 32) as u32, 0, 0], tenor_kernels::philox::key(seed));
        let g = &got[4 * i as usize..4 * i as usize + 4];
        if g != want {
            return Err(format!("item {i}: device {g:08x?}, reference {want:08x?}"));
        }
    }
    Ok(())
}
