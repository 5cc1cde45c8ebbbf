//! # tenor-conformance: one suite, every backend
//!
//! Each check takes a device under test as `&dyn Compute` and compares it with references of
//! its own ([`reference`]): Philox4x32-10 against Random123's known answers, closed forms
//! (Black, barriers by the reflection principle, the geometric Asian), published prices
//! (Lewis's Heston values, Haug's barrier table), hand-computed cases (payoffs, sums, regression
//! rows computed on the host from the inputs, a hand-computed gemm) and Monte Carlo estimates
//! within stated standard errors of their closed forms; and, on every backend but the CPU
//! reference itself, with the CPU reference backend (fp64 within [`FP64_RTOL`] relative, fp32
//! within [`FP32_RTOL`]), whose kernels are the numerical oracle of the device backends. On the
//! CPU the first kind is the check: a CPU kernel is never its own reference (issue 29). Backends
//! call [`run_all`] from their own test entry points (the CPU and simulated devices in CI, CUDA
//! on the GPU machine, SYCL and OpenCL on the OpenCL CPU runtime in CI).
//!
//! [`bounds::short_buffers`] checks the launch length checks (a too-short buffer is a typed
//! error, never a write); backends call it from their test entry points too.
//!
//! [`compute::Counting`] wraps a device and counts the kernel launches and synchronisations
//! that reach the port, for tests that assert what a pricing path costs; it can also change one
//! kernel's outputs, for tests that show a check catches a wrong kernel.
//!
//! [`require`] parses `TENOR_REQUIRE_BACKENDS` once for every backend's tests.

pub mod basket;
pub mod bounds;
pub mod compute;
pub mod kernels;
pub mod reference;
pub mod require;

use tenor_ports::{Compute, ComputeError, ComputeExt, GemmDesc, Precision, Transpose};

/// Relative tolerance for fp64 results against the CPU reference (different reduction order
/// and last-ulp differences of `exp`, `log`, `sin`, `cos` between math libraries).
pub const FP64_RTOL: f64 = 1e-12;
/// Relative tolerance for fp32 results against the CPU reference.
pub const FP32_RTOL: f64 = 1e-5;

/// One check's outcome.
#[derive(Debug)]
pub struct Outcome {
    /// Check name.
    pub name: &'static str,
    /// `Ok` or what differed.
    pub result: Result<(), String>,
}

type Check = fn(&dyn Compute) -> Result<(), String>;

/// The checks of the port operations that are not kernels (gemm, copies).
const PORT_CHECKS: &[(&str, Check)] =
    &[("gemm_f64", gemm_f64), ("gemm_f32", gemm_f32), ("copy_roundtrip", copy_roundtrip)];

/// `kernel_checks! { a b c }` is `&[("a", kernels::a), ...]`: expanded by
/// [`tenor_kernels::for_each_kernel!`] with every kernel of `kernels/*/kernel.toml`, so a
/// kernel without its check function in [`kernels`] (named after it) does not compile.
macro_rules! kernel_checks {
    ($($name:ident)*) => {
        &[$((stringify!($name), kernels::$name as Check)),*]
    };
}

/// One check per built-in kernel, in the registry's (sorted) order, generated from the
/// manifests: `(kernel name, check)`. Each check launches its kernel (tested).
pub const KERNEL_CHECKS: &[(&str, Check)] = tenor_kernels::for_each_kernel!(kernel_checks);

/// The checks, by name: the port operations, then one per built-in kernel
/// ([`KERNEL_CHECKS`]).
pub fn checks() -> Vec<(&'static str, Check)> {
    PORT_CHECKS.iter().chain(KERNEL_CHECKS).copied().collect()
}

/// Runs every check on `dev`.
pub fn run_all(dev: &dyn Compute) -> Vec<Outcome> {
    checks().into_iter().map(|(name, f)| Outcome { name, result: f(dev) }).collect()
}

fn e(err: ComputeError) -> String {
    err.to_string()
}

/// Relative difference of `a` from `b`, scaled by the largest magnitude of the reference.
pub fn max_rel_diff(a: &[f64], b: &[f64]) -> f64 {
    let scale = b.iter().fold(0.0f64, |m, x| m.max(x.abs())).max(f64::MIN_POSITIVE);
    a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs() / scale))
}

fn gemm_check(dev: &dyn Compute, precision: Precision) -> Result<(), String> {
    let s = dev.default_stream().clone();
    // A is stored 3x2 and used transposed (op(A) = A^T is 2x3); B is 3x2 as stored.
    let (m, n, k) = (2usize, 2usize, 3usize);
    let a_store = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]; // 3x2 column-major: A[:,0] = 1,2,3; A[:,1] = 4,5,6
    let b_store = [7.0, 8.0, 9.0, 10.0, 11.0, 12.0]; // 3x2: B[:,0] = 7,8,9; B[:,1] = 10,11,12
                                                     // C = A^T B: [1*7+2*8+3*9, 4*7+5*8+6*9; 1*10+2*11+3*12, 4*10+5*11+6*12]
    let want = [50.0, 122.0, 68.0, 167.0]; // column-major: C(0,0), C(1,0), C(0,1), C(1,1)
    let mut d = GemmDesc::new(precision, Transpose::Yes, Transpose::No, m, n, k);
    d.alpha = 1.0;
    let got: Vec<f64> = match precision {
        Precision::F64 => {
            let a = dev.upload_slice(&s, &a_store).map_err(e)?;
            let b = dev.upload_slice(&s, &b_store).map_err(e)?;
            let c = dev.alloc_elems::<f64>(&s, m * n).map_err(e)?;
            dev.gemm(&s, &d, &a, &b, &c).map_err(e)?;
            dev.download_vec::<f64>(&s, &c).map_err(e)?
        }
        Precision::F32 => {
            let a32: Vec<f32> = a_store.iter().map(|x| *x as f32).collect();
            let b32: Vec<f32> = b_store.iter().map(|x| *x as f32).collect();
            let a = dev.upload_slice(&s, &a32).map_err(e)?;
            let b = dev.upload_slice(&s, &b32).map_err(e)?;
            let c = dev.alloc_elems::<f32>(&s, m * n).map_err(e)?;
            dev.gemm(&s, &d, &a, &b, &c).map_err(e)?;
            dev.download_vec::<f32>(&s, &c).map_err(e)?.into_iter().map(f64::from).collect()
        }
    };
    if got == want {
        Ok(())
    } else {
        Err(format!("gemm {precision:?}: got {got:?}, want {want:?}"))
    }
}

/// `C = A^T B` on a hand-computed 2x3 by 3x2 case, fp64.
pub fn gemm_f64(dev: &dyn Compute) -> Result<(), String> {
    gemm_check(dev, Precision::F64)
}

/// The same in fp32 (exact: small integers).
pub fn gemm_f32(dev: &dyn Compute) -> Result<(), String> {
    gemm_check(dev, Precision::F32)
}

/// Upload then download returns the bytes, across two streams ordered by the tracker.
pub fn copy_roundtrip(dev: &dyn Compute) -> Result<(), String> {
    let a = dev.default_stream().clone();
    let b = dev.create_stream().map_err(e)?;
    let data: Vec<u64> = (0..1000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
    let buf = dev.upload_slice(&a, &data).map_err(e)?;
    let back: Vec<u64> = dev.download_vec(&b, &buf).map_err(e)?;
    dev.synchronize().map_err(e)?;
    if back == data {
        Ok(())
    } else {
        Err("downloaded bytes differ from uploaded".into())
    }
}

/// Panics with every failed check (for `#[test]` entry points).
pub fn assert_all(dev: &dyn Compute) {
    let failed: Vec<String> =
        run_all(dev).into_iter().filter_map(|o| o.result.err().map(|m| format!("{}: {m}", o.name))).collect();
    assert!(failed.is_empty(), "conformance failures on {}:\n{}", dev.info().backend, failed.join("\n"));
}
