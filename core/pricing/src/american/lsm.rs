//! Longstaff-Schwartz (2001) least-squares Monte Carlo for American options on the `Compute`
//! port ("Valuing American options by simulation: a simple least-squares approach", RFS 14).
//!
//! Per exercise date, backwards from expiry: the `lsm_normal_batch` kernel forms the
//! regression's normal equations `[X^T X | X^T y]` in chunks of [`LSM_CHUNK`] paths (`X` the
//! Laguerre polynomials of `S/K` of the in-the-money paths, as Longstaff and Schwartz, `y` the
//! discounted realised cash flow: the rows `lsm_basis` writes); the host adds the chunks in
//! order and solves them by a Cholesky factorisation that drops the trailing basis functions
//! its pivots show to be numerically dependent (`solve_normal_equations`); the
//! `lsm_exercise_batch` kernel applies the exercise rule. With `out_of_sample` the regression runs on one set of paths and
//! the exercise rule is applied to an independent set, which gives a low-biased estimator (a
//! feasible stopping rule; Glasserman 2004, section 8.6); in-sample estimates carry a small high
//! bias as well.
//!
//! [`lsm_price_batch`] prices many options at once (the book's American rows and their bumped
//! copies for Greeks): one launch of each batch kernel per exercise date over all of them
//! (`lsm_paths_batch`, `lsm_normal_batch`, `lsm_exercise_batch`, product-major buffers), one
//! download of the normal equations per date, and one host solve per product. [`lsm_price`] is
//! the batch of one, so a product's price is bitwise the same alone or in any batch (each
//! product's values depend only on its own buffers; tested). Each priced option, bumped copies
//! included, fits its own exercise policy on its own regression; all use the same Philox seed,
//! so the bumped copies see the same normals (common random numbers).
//!
//! A call is simulated as the put of the put-call symmetry of American options
//! ([`super::symmetric`], McDonald and Schroder 1998: `C(S, K, r, q) = P(K, S, q, r)`,
//! [`lsm_as_symmetric_put`]): the call's payoff is unbounded, and at high vol its regression on
//! the Laguerre polynomials of `S/K` fitted so poorly that the out-of-sample price fell to the
//! European floor (vol 5, q 2 %: 96.82 +/- 2.94 at 20,000 paths against the finite differences'
//! 97.77); the put's payoff is bounded by its strike (the call's spot). Bumped copies of a call
//! (the book's Greeks) are calls too, each mapped on its own, so a bump of the call's spot is a
//! bump of the put's strike and a bump of its rate one of the put's dividend yield.

use tenor_kernels::typed::{LsmExerciseBatch, LsmNormalBatch, LsmPathsBatch};
use tenor_ports::{AllocError, Compute, ComputeError, ComputeExt, DeviceBuffer, Kernel, Stream};

use super::{no_early_exercise, symmetric, validate, AmericanError};
use crate::analytic::black_scholes_price;
use crate::types::{OptionType, Vanilla};

/// Paths per work item of `lsm_normal_batch` (each item sums its chunk's normal equations in
/// path order; the host adds the chunks in order).
pub const LSM_CHUNK: u64 = 256;

/// Largest device memory of one batch group, bytes (mostly the spots, `products x exercise
/// dates x paths` f64 values): a larger batch is split into groups of whole products, which
/// changes no product's values. On a device that reports its memory
/// ([`tenor_ports::DeviceInfo::memory_bytes`]) a group also takes at most half of what the
/// allocator has not handed out ([`group_size`]), and a group refused
/// [`AllocError::OutOfMemory`] is halved and run again.
pub const LSM_BATCH_BYTES: u64 = 1 << 30;

/// Pivot of the regression's Cholesky factorisation, relative to its diagonal entry, below
/// which a basis function is taken as numerically dependent on the ones before it (the share
/// of its sum of squares that they leave unexplained, `1 - R^2`): the fit keeps the basis
/// functions before it ([`solve_normal_equations`]). The normal equations' entries carry
/// relative rounding errors of about `(LSM_CHUNK + paths / LSM_CHUNK) 2^-53` (1.4e-13 at
/// 100,000 paths), so smaller pivots are rounding, not information.
pub const LSM_PIVOT_TOLERANCE: f64 = 1e-10;

/// Longstaff-Schwartz settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LsmConfig {
    /// Paths (even: antithetic pairs).
    pub paths: u64,
    /// Exercise dates, equally spaced, the last at expiry (Bermudan approximation of the
    /// American option).
    pub exercise_dates: u32,
    /// Basis functions (Laguerre polynomials `L_0 .. L_{nbasis-1}` of `S/K`), 1 to 8.
    pub nbasis: u32,
    /// Philox seed (the out-of-sample valuation uses `seed + 1`).
    pub seed: u64,
    /// Value on paths independent of the regression's (low-biased estimator).
    pub out_of_sample: bool,
}

impl Default for LsmConfig {
    /// 100 000 paths, 50 exercise dates, 4 basis functions, seed 1, out of sample.
    fn default() -> Self {
        Self { paths: 100_000, exercise_dates: 50, nbasis: 4, seed: 1, out_of_sample: true }
    }
}

/// Longstaff-Schwartz estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LsmResult {
    /// Present value estimate: at least the intrinsic value today and the European closed-form
    /// value (an American is worth at least both); the European closed form itself, with a
    /// standard error of 0, where early exercise is never optimal ([`no_early_exercise`]).
    pub price: f64,
    /// Standard error of the path average (0 for a closed-form price).
    pub std_error: f64,
}

struct Kernels {
    paths: Kernel,
    normal: Kernel,
    exercise: Kernel,
}

/// Checks the configuration shared by every product of a batch.
fn check_config(cfg: &LsmConfig) -> Result<(), AmericanError> {
    let bad = |name, value: f64, reason| Err(AmericanError::InvalidParameter { name, value, reason });
    if cfg.paths < 2 || cfg.paths % 2 == 1 {
        return bad("paths", cfg.paths as f64, "must be even and >= 2");
    }
    if cfg.exercise_dates == 0 {
        return bad("exercise_dates", 0.0, "must be >= 1");
    }
    if !(1..=8).contains(&cfg.nbasis) {
        return bad("nbasis", f64::from(cfg.nbasis), "must be 1 to 8");
    }
    Ok(())
}

/// Whether [`lsm_price_batch`] simulates `v` as the put of the put-call symmetry
/// ([`symmetric`]): every call it simulates, that is every call whose early exercise may be
/// optimal (not [`no_early_exercise`]: a dividend yield above 0, or a rate below 0). The
/// simulated put has spot `v.strike`, strike `v.spot`, rate `v.dividend` and dividend yield
/// `v.rate`; its price, standard error and lower bounds (intrinsic `(S - K)^+`, the European
/// closed form) are the call's.
#[must_use]
pub fn lsm_as_symmetric_put(v: &Vanilla) -> bool {
    v.option == OptionType::Call && !no_early_exercise(v)
}

/// The option `lsm_price_batch` simulates for the product `v` (see [`lsm_as_symmetric_put`]).
fn simulated(v: &Vanilla) -> Vanilla {
    if lsm_as_symmetric_put(v) {
        symmetric(v)
    } else {
        *v
    }
}

/// Checks one product for Monte Carlo (vol and maturity > 0 besides [`validate`]).
fn check_product(v: &Vanilla) -> Result<(), AmericanError> {
    validate(v)?;
    let bad = |name, value: f64, reason| Err(AmericanError::InvalidParameter { name, value, reason });
    if v.vol <= 0.0 {
        return bad("vol", v.vol, "must be > 0 for Monte Carlo");
    }
    if v.maturity <= 0.0 {
        return bad("maturity", v.maturity, "must be > 0 for Monte Carlo");
    }
    Ok(())
}

/// American price of `v` by Longstaff-Schwartz on `dev`: [`lsm_price_batch`] of one product.
///
/// # Errors
/// [`AmericanError::InvalidParameter`] for a bad contract or configuration (vol and maturity
/// must be > 0); [`AmericanError::SingularRegression`] when not even a constant fit
/// of an exercise date's normal equations can be factorised; backend errors as
/// [`AmericanError::Compute`].
pub fn lsm_price<C: Compute + ?Sized>(dev: &C, v: &Vanilla, cfg: &LsmConfig) -> Result<LsmResult, AmericanError> {
    lsm_price_batch(dev, std::slice::from_ref(v), cfg)?.pop().unwrap_or(Err(AmericanError::NoResult))
}

/// American prices of `products` by Longstaff-Schwartz on `dev`'s default stream, all with the
/// settings `cfg` (paths, exercise dates, basis and seed shared): one launch of
/// `lsm_paths_batch` per pass and of `lsm_normal_batch` and `lsm_exercise_batch` per exercise
/// date over every product (in groups that fit the device, [`group_size`]), one host solve
/// of the normal equations per product and date. Entry `i` is product `i`'s result, bitwise
/// [`lsm_price`] of that product alone (whatever the group sizes: each product's values depend
/// only on its own buffers and the shared seed).
///
/// A product whose early exercise is never optimal ([`no_early_exercise`]: Merton's call
/// without dividends) is not simulated: its American price is the European closed form
/// ([`black_scholes_price`]), standard error 0. Every other call is simulated as its symmetric
/// put ([`lsm_as_symmetric_put`]; validated as the call first, so errors name the call's
/// fields). Every price is at least the European closed form and the intrinsic value (lower
/// bounds of the American that the low-biased out-of-sample estimate can fall under: a call at
/// vol 5 priced 56.5 +/- 2.9 against 97.3 before the symmetry).
///
/// # Errors
/// The outer error: [`AmericanError::InvalidParameter`] for a bad configuration, and backend
/// errors ([`AmericanError::Compute`], an out-of-memory only when one product alone does not
/// fit), which fail the whole batch. The inner ones belong to one product:
/// [`AmericanError::InvalidParameter`] naming its bad field,
/// [`AmericanError::SingularRegression`] for its regression.
pub fn lsm_price_batch<C: Compute + ?Sized>(
    dev: &C,
    products: &[Vanilla],
    cfg: &LsmConfig,
) -> Result<Vec<Result<LsmResult, AmericanError>>, AmericanError> {
    check_config(cfg)?;
    // Per product: its error, its closed-form price, or `None` for one to simulate.
    let closed: Vec<Result<Option<f64>, AmericanError>> =
        products.iter().map(|v| check_product(v).map(|()| merton(v))).collect();
    let valid: Vec<usize> = (0..products.len()).filter(|i| matches!(closed[*i], Ok(None))).collect();
    let mut out: Vec<Result<LsmResult, AmericanError>> = closed
        .into_iter()
        .map(|c| {
            c.map(|p| match p {
                Some(price) => LsmResult { price, std_error: 0.0 },
                None => LsmResult { price: f64::NAN, std_error: f64::NAN },
            })
        })
        .collect();
    if valid.is_empty() {
        return Ok(out);
    }
    let stream = dev.default_stream().clone();
    let k = Kernels {
        paths: LsmPathsBatch::load(dev)?,
        normal: LsmNormalBatch::load(dev)?,
        exercise: LsmExerciseBatch::load(dev)?,
    };
    let mut group = group_size(dev, cfg);
    let mut rest = valid.as_slice();
    while !rest.is_empty() {
        let idx = &rest[..group.min(rest.len())];
        // The one place where a call becomes its symmetric put, for the batch and for
        // `lsm_price` (a batch of one) alike; the lower bounds are the product's own.
        let vs: Vec<Vanilla> = idx.iter().map(|i| simulated(&products[*i])).collect();
        let floors: Vec<f64> = idx.iter().map(|i| lower_bound(&products[*i])).collect();
        match run_group(dev, &stream, &k, &vs, &floors, cfg) {
            Ok(results) => {
                for (i, r) in idx.iter().zip(results) {
                    out[*i] = r;
                }
                rest = &rest[idx.len()..];
            }
            // The device holds less than the estimate (other work's buffers, fragmentation):
            // smaller groups give the same values.
            Err(AmericanError::Compute(ComputeError::Alloc(AllocError::OutOfMemory { .. }))) if idx.len() > 1 => {
                group = idx.len() / 2;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// The American price of `v` where early exercise is never optimal ([`no_early_exercise`]):
/// the European closed form ([`black_scholes_price`]); `None` otherwise.
fn merton(v: &Vanilla) -> Option<f64> {
    no_early_exercise(v).then(|| black_scholes_price(v).ok()).flatten()
}

/// Device bytes one product holds while its group runs: its spots (`exercise dates x paths`),
/// two cash-flow vectors (regression and valuation passes), its chunks' normal equations and
/// its coefficients, f64 each, and its seven parameter columns.
#[must_use]
pub fn product_bytes(cfg: &LsmConfig) -> u64 {
    let (paths, dates, nb) = (cfg.paths, u64::from(cfg.exercise_dates), u64::from(cfg.nbasis));
    let values = paths
        .saturating_mul(dates.saturating_add(2))
        .saturating_add(cfg.paths.div_ceil(LSM_CHUNK).saturating_mul(nb * (nb + 1)))
        .saturating_add(dates.saturating_mul(nb))
        .saturating_add(7);
    values.saturating_mul(8)
}

/// Products per batch group on `dev`: as many whole products as fit in [`LSM_BATCH_BYTES`] and,
/// where the device reports its memory ([`tenor_ports::DeviceInfo::memory_bytes`] > 0; the CPU
/// backend reports 0), in half of the memory its allocator has not handed out; at least 1
/// and at most `u32::MAX`.
#[must_use]
pub fn group_size<C: Compute + ?Sized>(dev: &C, cfg: &LsmConfig) -> usize {
    let memory = dev.info().memory_bytes;
    let budget = if memory == 0 {
        LSM_BATCH_BYTES
    } else {
        let used = u64::try_from(dev.allocator().report().used).unwrap_or(u64::MAX);
        LSM_BATCH_BYTES.min(memory.saturating_sub(used) / 2)
    };
    usize::try_from(budget / product_bytes(cfg).max(1)).unwrap_or(usize::MAX).clamp(1, u32::MAX as usize)
}

/// The per-product columns of a group, uploaded once.
struct Columns {
    spot: DeviceBuffer,
    drift_dt: DeviceBuffer,
    vol_sqrt_dt: DeviceBuffer,
    strike: DeviceBuffer,
    sign: DeviceBuffer,
    df: DeviceBuffer,
    /// Zeros: the discount of the expiry date (every in-the-money path exercises there).
    zero: DeviceBuffer,
}

/// One group of valid products (at most `u32::MAX`), the options simulated (puts for calls,
/// [`simulated`]), priced in one set of batch launches; `floors[i]` bounds product `i`'s price
/// from below ([`lower_bound`] of the product before any symmetry).
fn run_group<C: Compute + ?Sized>(
    dev: &C,
    stream: &Stream,
    k: &Kernels,
    vs: &[Vanilla],
    floors: &[f64],
    cfg: &LsmConfig,
) -> Result<Vec<Result<LsmResult, AmericanError>>, AmericanError> {
    let count = vs.len();
    let products = u32::try_from(count).map_err(|_| AmericanError::InvalidParameter {
        name: "products",
        value: count as f64,
        reason: "at most u32::MAX per batch",
    })?;
    let steps = cfg.exercise_dates;
    let (n, nb, st) = (cfg.paths as usize, cfg.nbasis as usize, steps as usize);
    let dts: Vec<f64> = vs.iter().map(|v| v.maturity / f64::from(steps)).collect();
    let dfs: Vec<f64> = vs.iter().zip(&dts).map(|(v, dt)| (-v.rate * dt).exp()).collect();
    let col = |f: &dyn Fn(usize) -> f64| dev.upload_slice(stream, &(0..count).map(f).collect::<Vec<f64>>());
    let c = Columns {
        spot: col(&|i| vs[i].spot)?,
        drift_dt: col(&|i| (vs[i].rate - vs[i].dividend - 0.5 * vs[i].vol * vs[i].vol) * dts[i])?,
        vol_sqrt_dt: col(&|i| vs[i].vol * dts[i].sqrt())?,
        strike: col(&|i| vs[i].strike)?,
        sign: col(&|i| vs[i].option.sign())?,
        df: col(&|i| dfs[i])?,
        zero: col(&|_| 0.0)?,
    };
    let launch = Launch { dev, stream, k, c: &c, products, cfg };

    // Regression pass.
    let spots = launch.paths(cfg.seed)?;
    let cash = dev.upload_slice(stream, &vec![0.0f64; count * n])?;
    let mut coef = vec![0.0f64; count * st * nb];
    // Expiry: continuation -inf, so every in-the-money path exercises.
    for i in 0..count {
        coef[(i * st + st - 1) * nb] = f64::NEG_INFINITY;
    }
    let mut failed: Vec<Option<AmericanError>> = vec![None; count];
    let mut coef_buf = dev.upload_slice(stream, &coef)?;
    launch.exercise(&spots, &cash, &coef_buf, steps - 1, &c.zero)?;
    let chunks = cfg.paths.div_ceil(LSM_CHUNK);
    let width = nb * (nb + 1);
    let partials = dev.alloc_elems::<f64>(stream, count * chunks as usize * width)?;
    for s in (0..steps - 1).rev() {
        LsmNormalBatch {
            partials: &partials,
            spots: &spots,
            cash: &cash,
            strike: &c.strike,
            sign: &c.sign,
            df: &c.df,
            products,
            paths: cfg.paths,
            steps,
            step: s,
            nbasis: cfg.nbasis,
            chunk: LSM_CHUNK,
            items: u64::from(products) * chunks,
        }
        .launch_loaded(dev, stream, &k.normal)?;
        let sums = dev.download_vec::<f64>(stream, &partials)?;
        for (i, slot) in failed.iter_mut().enumerate() {
            let ne = add_chunks(&sums[i * chunks as usize * width..(i + 1) * chunks as usize * width], width);
            let beta = match solve_normal_equations(&ne, nb, s) {
                Ok(beta) => beta,
                Err(e) => {
                    // This product has no result; it continues without exercise so the
                    // others' launches are unchanged.
                    slot.get_or_insert(e);
                    never(nb)
                }
            };
            let at = (i * st + s as usize) * nb;
            coef[at..at + nb].copy_from_slice(&beta);
        }
        upload_date(dev, stream, &coef_buf, &coef, count, st, nb, s as usize)?;
        launch.exercise(&spots, &cash, &coef_buf, s, &c.df)?;
    }
    drop(partials);

    // Valuation pass on independent paths with the fitted exercise rule.
    let cash = if cfg.out_of_sample {
        drop(spots);
        let spots = launch.paths(cfg.seed.wrapping_add(1))?;
        let cash = dev.upload_slice(stream, &vec![0.0f64; count * n])?;
        coef_buf = dev.upload_slice(stream, &coef)?;
        for s in (0..steps).rev() {
            launch.exercise(&spots, &cash, &coef_buf, s, if s == steps - 1 { &c.zero } else { &c.df })?;
        }
        cash
    } else {
        cash
    };

    // Mean and standard error of each product's cash flows, added in path order on the host;
    // discount from t_1 to today.
    let flows = dev.download_vec::<f64>(stream, &cash)?;
    Ok((0..count)
        .map(|i| match failed[i].take() {
            Some(e) => Err(e),
            None => Ok(estimate(&flows[i * n..(i + 1) * n], dfs[i], floors[i])),
        })
        .collect())
}

/// Largest span of the coefficient buffer uploaded in one call per exercise date; beyond it each
/// product's `nbasis` coefficients of the date are uploaded alone (the whole buffer each date
/// made the run time grow with the square of the exercise dates: 4.06 s at 20,000 dates).
const COEF_SPAN_BYTES: usize = 1 << 16;

/// Uploads exercise date `s`'s coefficients of every product (product-major `count x st x nb`
/// in `coef`) to `buf`: the span from the first product's to the last's in one call when it is
/// at most [`COEF_SPAN_BYTES`], else one call per product.
#[allow(clippy::too_many_arguments)]
fn upload_date<C: Compute + ?Sized>(
    dev: &C,
    stream: &Stream,
    buf: &DeviceBuffer,
    coef: &[f64],
    count: usize,
    st: usize,
    nb: usize,
    s: usize,
) -> Result<(), AmericanError> {
    let (first, last) = (s * nb, ((count - 1) * st + s + 1) * nb);
    if (last - first) * 8 <= COEF_SPAN_BYTES {
        dev.upload(stream, buf, first * 8, bytemuck::cast_slice(&coef[first..last]))?;
    } else {
        for i in 0..count {
            let at = (i * st + s) * nb;
            dev.upload(stream, buf, at * 8, bytemuck::cast_slice(&coef[at..at + nb]))?;
        }
    }
    Ok(())
}

/// The lower bound of the American `v`'s price: its intrinsic value today and the European
/// closed form (0, a bound too, if that refused the contract, which `check_product` has
/// validated). For a call simulated as its put the bounds are the call's (the put's are the
/// same values up to rounding).
fn lower_bound(v: &Vanilla) -> f64 {
    black_scholes_price(v).unwrap_or(0.0).max(v.option.payoff(v.spot, v.strike))
}

/// A product's price and standard error from its discounted-to-`t_1` cash flows, at least
/// `floor` ([`lower_bound`]).
fn estimate(flows: &[f64], df: f64, floor: f64) -> LsmResult {
    let (s1, s2) = flows.iter().fold((0.0, 0.0), |(a, b), x| (a + x, b + x * x));
    let nf = flows.len() as f64;
    let mean = s1 / nf;
    // Antithetic pairs are not independent; the pair-blind variance is an upper bound for
    // puts and calls (monotone payoffs are negatively correlated across a pair).
    let var = ((s2 / nf - mean * mean) * nf / (nf - 1.0)).max(0.0);
    let price = (df * mean).max(floor);
    LsmResult { price, std_error: df * (var / nf).sqrt() }
}

/// The chunks' normal equations (`width` values each) added in chunk order.
fn add_chunks(sums: &[f64], width: usize) -> Vec<f64> {
    let mut ne = vec![0.0; width];
    for c in sums.chunks_exact(width) {
        ne.iter_mut().zip(c).for_each(|(a, b)| *a += b);
    }
    ne
}

/// Coefficients that never exercise (continuation +inf).
fn never(nb: usize) -> Vec<f64> {
    let mut never = vec![0.0; nb];
    never[0] = f64::INFINITY;
    never
}

/// Solves `X^T X beta = X^T y` from the column-major `nb x (nb + 1)` product `[X^T X | X^T y]`.
/// Fewer than `2 nb` in-the-money paths (`(X^T X)_{00}` counts them): no exercise at this date.
///
/// The Laguerre polynomials of `S/K` are nearly collinear where the in-the-money spots span a
/// narrow range of `S/K` (the first dates of a fine grid; a deep in-the-money put, `S/K` near
/// 0.1), and the normal equations square that conditioning. The Cholesky factorisation of
/// `X^T X` (done here, in the order of the basis) stops at the first basis function whose
/// pivot is under [`LSM_PIVOT_TOLERANCE`] times its diagonal entry: the fit uses the functions
/// before it (the leading block of the same normal equations, exactly the regression on fewer
/// basis functions) and gives the others coefficient 0, which `lsm_exercise_batch` adds as
/// `0 L_j(x)`.
///
/// # Errors
/// [`AmericanError::SingularRegression`] when not even the constant (the first function)
/// passes.
fn solve_normal_equations(ne: &[f64], nb: usize, step: u32) -> Result<Vec<f64>, AmericanError> {
    let itm = ne[0].round() as usize;
    if itm < 2 * nb {
        return Ok(never(nb));
    }
    let a = |r: usize, c: usize| ne[c * nb + r];
    // Lower factor, row-major; `m` functions passed.
    let mut l = vec![0.0f64; nb * nb];
    let mut m = 0;
    for k in 0..nb {
        let d = a(k, k) - (0..k).map(|j| l[k * nb + j] * l[k * nb + j]).sum::<f64>();
        if !(d.is_finite() && d > LSM_PIVOT_TOLERANCE * a(k, k)) {
            break;
        }
        let lkk = d.sqrt();
        l[k * nb + k] = lkk;
        for r in k + 1..nb {
            l[r * nb + k] = (a(r, k) - (0..k).map(|j| l[r * nb + j] * l[k * nb + j]).sum::<f64>()) / lkk;
        }
        m = k + 1;
    }
    // A constant alone is a valid fit (the in-the-money paths' mean continuation value): their
    // spots can be too close together for even the linear function (S 1e-8, K 100).
    if m == 0 {
        return Err(AmericanError::SingularRegression { step: step as usize, itm });
    }
    // L z = X^T y, then L^T beta = z, on the leading m x m block.
    let mut z = vec![0.0f64; m];
    for r in 0..m {
        z[r] = (ne[nb * nb + r] - (0..r).map(|j| l[r * nb + j] * z[j]).sum::<f64>()) / l[r * nb + r];
    }
    let mut beta = vec![0.0f64; nb];
    for r in (0..m).rev() {
        beta[r] = (z[r] - (r + 1..m).map(|j| l[j * nb + r] * beta[j]).sum::<f64>()) / l[r * nb + r];
    }
    if beta.iter().all(|b| b.is_finite()) {
        Ok(beta)
    } else {
        Err(AmericanError::SingularRegression { step: step as usize, itm })
    }
}

/// The launches of one group.
struct Launch<'a, C: Compute + ?Sized> {
    dev: &'a C,
    stream: &'a Stream,
    k: &'a Kernels,
    c: &'a Columns,
    products: u32,
    cfg: &'a LsmConfig,
}

impl<C: Compute + ?Sized> Launch<'_, C> {
    /// Every product's paths with `seed`, product-major.
    fn paths(&self, seed: u64) -> Result<DeviceBuffer, AmericanError> {
        let cfg = self.cfg;
        let spots = self.dev.alloc_elems::<f64>(
            self.stream,
            self.products as usize * cfg.paths as usize * cfg.exercise_dates as usize,
        )?;
        LsmPathsBatch {
            out: &spots,
            spot: &self.c.spot,
            drift_dt: &self.c.drift_dt,
            vol_sqrt_dt: &self.c.vol_sqrt_dt,
            products: self.products,
            seed,
            paths: cfg.paths,
            steps: cfg.exercise_dates,
            items: u64::from(self.products) * cfg.paths,
        }
        .launch_loaded(self.dev, self.stream, &self.k.paths)?;
        Ok(spots)
    }

    /// Every product's exercise decision at `step`, discounting continued cash flows by `df`.
    fn exercise(
        &self,
        spots: &DeviceBuffer,
        cash: &DeviceBuffer,
        coef: &DeviceBuffer,
        step: u32,
        df: &DeviceBuffer,
    ) -> Result<(), AmericanError> {
        let cfg = self.cfg;
        LsmExerciseBatch {
            spots,
            cash,
            coef,
            strike: &self.c.strike,
            sign: &self.c.sign,
            df,
            products: self.products,
            paths: cfg.paths,
            steps: cfg.exercise_dates,
            step,
            nbasis: cfg.nbasis,
            items: u64::from(self.products) * cfg.paths,
        }
        .launch_loaded(self.dev, self.stream, &self.k.exercise)?;
        Ok(())
    }
}
