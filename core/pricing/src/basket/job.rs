//! The basket job file, exactly as `../shared/spec/basket-job.md` defines it (`docs/basket.md`
//! repeats it): one multi-asset option, its market and its simulation in TOML. [`BasketJob::from_toml`]
//! parses and validates; every error names the key as the file writes it (`asset[2].kappa`,
//! `correlation.prices[2][3]`, `option.weights`) or the line and column of a syntax error.

use toml::{Table, Value};

use super::error::BasketError;
use crate::types::OptionType;

/// Most assets (the kernels' per-path arrays, `tenor_kernels::basket::MAX_ASSETS`).
pub const MAX_ASSETS: usize = tenor_kernels::basket::MAX_ASSETS;
/// Most simulation steps (exercise dates).
pub const MAX_STEPS: u32 = 100_000;
/// Most `paths x steps`: the regression pass stores two f64 per path and date (32 GiB here).
pub const MAX_PATH_STEPS: u64 = 1 << 31;
/// Most `assets x paths x steps` (about 80 times STAC-A2's large problem, 10 x 100,000 x 1,260).
pub const MAX_WORK: u64 = 100_000_000_000;

/// Default paths, steps and seed (STAC-A2's baseline sizes; the spec's example seed).
pub const DEFAULT_SIMULATION: Simulation = Simulation { paths: 25_000, steps: 252, seed: 42 };

/// When the option may be exercised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exercise {
    /// At every simulation date `t_k = maturity k / steps`, `k = 1..steps` (Bermudan on the grid).
    American,
    /// At maturity only.
    European,
}

/// The option on the basket `B = sum_i weights[i] S_i`.
#[derive(Debug, Clone, PartialEq)]
pub struct BasketOption {
    /// Call `max(B - K, 0)` or put `max(K - B, 0)`.
    pub payoff: OptionType,
    /// American (every grid date) or European.
    pub exercise: Exercise,
    /// Strike K, > 0.
    pub strike: f64,
    /// Maturity in years, > 0.
    pub maturity: f64,
    /// One finite weight per asset, in file order.
    pub weights: Vec<f64>,
}

/// One asset under its own Heston model (Heston 1993): `dS/S = (r - q) dt + sqrt(v) dW_S`,
/// `dv = kappa (theta - v) dt + xi sqrt(v) dW_v`, `corr(dW_S, dW_v) = rho`.
#[derive(Debug, Clone, PartialEq)]
pub struct BasketAsset {
    /// Unique name, used in the output's `asset` and `other` columns.
    pub name: String,
    /// Spot S(0), > 0.
    pub spot: f64,
    /// Continuous dividend yield q (finite).
    pub dividend: f64,
    /// Initial variance, > 0.
    pub v0: f64,
    /// Mean-reversion speed, > 0.
    pub kappa: f64,
    /// Long-run variance, > 0.
    pub theta: f64,
    /// Volatility of variance, > 0.
    pub xi: f64,
    /// Correlation of the asset's price and variance, in (-1, 1).
    pub rho: f64,
}

/// Paths, steps and seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Simulation {
    /// Monte Carlo paths (of the valuation; the regression draws as many independent ones), >= 2.
    pub paths: u64,
    /// Time steps, 1 to [`MAX_STEPS`]; for an American option also its exercise dates.
    pub steps: u32,
    /// Philox key.
    pub seed: u64,
}

/// A basket job: the option, the market, the assets, their correlation, the simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct BasketJob {
    /// The option.
    pub option: BasketOption,
    /// Flat continuously compounded rate (finite, may be negative).
    pub rate: f64,
    /// The assets in file order (N >= 1).
    pub assets: Vec<BasketAsset>,
    /// N x N correlation of the price Brownian motions.
    pub prices: Vec<Vec<f64>>,
    /// The 2N x 2N correlation over `(W_S1..W_SN, W_v1..W_vN)`, when the file gives one.
    pub full: Option<Vec<Vec<f64>>>,
    /// Paths, steps, seed (command-line flags override them).
    pub simulation: Simulation,
}

/// 1-based line and column (in characters) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// The TOML type of `v`, for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a number",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a date",
        Value::Array(_) => "an array",
        Value::Table(_) => "a table",
    }
}

/// Refuses keys of `table` (at `prefix`) outside `known`.
fn known_keys(table: &Table, prefix: &str, known: &[&str]) -> Result<(), BasketError> {
    match table.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => {
            Err(BasketError::invalid(join(prefix, k), format!("unknown key (expected one of {})", known.join(", "))))
        }
        None => Ok(()),
    }
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_owned()
    } else {
        format!("{prefix}.{key}")
    }
}

/// A number (TOML float or integer) as f64.
fn number(v: &Value, key: &str) -> Result<f64, BasketError> {
    match v {
        Value::Float(x) => Ok(*x),
        Value::Integer(i) => Ok(*i as f64),
        other => Err(BasketError::invalid(key, format!("expected a number, found {}", kind(other)))),
    }
}

fn required<'a>(table: &'a Table, prefix: &str, key: &str) -> Result<&'a Value, BasketError> {
    table.get(key).ok_or_else(|| BasketError::invalid(join(prefix, key), "missing"))
}

fn required_number(table: &Table, prefix: &str, key: &str) -> Result<f64, BasketError> {
    number(required(table, prefix, key)?, &join(prefix, key))
}

fn sub_table<'a>(root: &'a Table, key: &str) -> Result<Option<&'a Table>, BasketError> {
    match root.get(key) {
        None => Ok(None),
        Some(Value::Table(t)) => Ok(Some(t)),
        Some(other) => Err(BasketError::invalid(key, format!("expected a table, found {}", kind(other)))),
    }
}

fn string<'a>(table: &'a Table, prefix: &str, key: &str) -> Result<&'a str, BasketError> {
    match required(table, prefix, key)? {
        Value::String(s) => Ok(s),
        other => Err(BasketError::invalid(join(prefix, key), format!("expected a string, found {}", kind(other)))),
    }
}

/// A square matrix of numbers at `key` with `size` rows.
fn matrix(v: &Value, key: &str, size: usize) -> Result<Vec<Vec<f64>>, BasketError> {
    let rows = match v {
        Value::Array(a) => a,
        other => return Err(BasketError::invalid(key, format!("expected an array of arrays, found {}", kind(other)))),
    };
    if rows.len() != size {
        return Err(BasketError::invalid(key, format!("{} rows; expected {size}", rows.len())));
    }
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            let rk = format!("{key}[{i}]");
            let cols = match r {
                Value::Array(a) => a,
                other => return Err(BasketError::invalid(rk, format!("expected an array, found {}", kind(other)))),
            };
            if cols.len() != size {
                return Err(BasketError::invalid(rk, format!("{} entries; expected {size}", cols.len())));
            }
            cols.iter().enumerate().map(|(j, x)| number(x, &format!("{key}[{i}][{j}]"))).collect()
        })
        .collect()
}

/// A non-negative integer at `prefix.key`, at least `min`.
fn integer(table: &Table, prefix: &str, key: &str, min: i64) -> Result<Option<u64>, BasketError> {
    match table.get(key) {
        None => Ok(None),
        Some(Value::Integer(i)) if *i >= min => Ok(Some(*i as u64)),
        Some(Value::Integer(i)) => Err(BasketError::invalid(join(prefix, key), format!("{i}; must be >= {min}"))),
        Some(other) => {
            Err(BasketError::invalid(join(prefix, key), format!("expected an integer, found {}", kind(other))))
        }
    }
}

impl BasketJob {
    /// Parses and validates a job file's text ([`BasketJob::validate`]).
    ///
    /// # Errors
    /// [`BasketError::Syntax`] with line and column for invalid TOML; [`BasketError::Invalid`]
    /// naming the key for a missing, mistyped, unknown or out-of-domain value;
    /// [`BasketError::WorkLimit`] for sizes over the engine's limits.
    pub fn from_toml(text: &str) -> Result<Self, BasketError> {
        let root: Table = text.parse().map_err(|e: toml::de::Error| {
            let (line, column) = e.span().map_or((0, 0), |s| line_column(text, s.start));
            BasketError::Syntax { line, column, message: e.message().trim().to_owned() }
        })?;
        known_keys(&root, "", &["option", "market", "asset", "correlation", "simulation"])?;

        let opt = sub_table(&root, "option")?.ok_or_else(|| BasketError::invalid("option", "missing table"))?;
        known_keys(opt, "option", &["payoff", "exercise", "strike", "maturity", "weights"])?;
        let payoff = match string(opt, "option", "payoff")? {
            "call" => OptionType::Call,
            "put" => OptionType::Put,
            other => {
                return Err(BasketError::invalid("option.payoff", format!("{other:?}; expected \"call\" or \"put\"")))
            }
        };
        let exercise = match string(opt, "option", "exercise")? {
            "american" => Exercise::American,
            "european" => Exercise::European,
            other => {
                return Err(BasketError::invalid(
                    "option.exercise",
                    format!("{other:?}; expected \"american\" or \"european\""),
                ))
            }
        };
        let weights = match required(opt, "option", "weights")? {
            Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, x)| number(x, &format!("option.weights[{i}]")))
                .collect::<Result<_, _>>()?,
            other => {
                return Err(BasketError::invalid("option.weights", format!("expected an array, found {}", kind(other))))
            }
        };
        let option = BasketOption {
            payoff,
            exercise,
            strike: required_number(opt, "option", "strike")?,
            maturity: required_number(opt, "option", "maturity")?,
            weights,
        };

        let market = sub_table(&root, "market")?.ok_or_else(|| BasketError::invalid("market", "missing table"))?;
        known_keys(market, "market", &["rate"])?;
        let rate = required_number(market, "market", "rate")?;

        let asset_tables = match root.get("asset") {
            None => return Err(BasketError::invalid("asset", "missing: at least one [[asset]] table")),
            Some(Value::Array(a)) => a,
            Some(other) => {
                return Err(BasketError::invalid("asset", format!("expected [[asset]] tables, found {}", kind(other))))
            }
        };
        let mut assets = Vec::with_capacity(asset_tables.len());
        for (i, t) in asset_tables.iter().enumerate() {
            let prefix = format!("asset[{i}]");
            let t = match t {
                Value::Table(t) => t,
                other => return Err(BasketError::invalid(prefix, format!("expected a table, found {}", kind(other)))),
            };
            known_keys(t, &prefix, &["name", "spot", "dividend", "v0", "kappa", "theta", "xi", "rho"])?;
            let f = |k: &str| required_number(t, &prefix, k);
            assets.push(BasketAsset {
                name: string(t, &prefix, "name")?.to_owned(),
                spot: f("spot")?,
                dividend: f("dividend")?,
                v0: f("v0")?,
                kappa: f("kappa")?,
                theta: f("theta")?,
                xi: f("xi")?,
                rho: f("rho")?,
            });
        }
        let n = assets.len();
        if n == 0 {
            return Err(BasketError::invalid("asset", "no assets; N must be >= 1"));
        }
        if n > MAX_ASSETS {
            return Err(BasketError::WorkLimit {
                key: "asset".into(),
                reason: format!("{n} assets; the engine takes at most {MAX_ASSETS}"),
            });
        }

        let corr = sub_table(&root, "correlation")?;
        if let Some(c) = corr {
            known_keys(c, "correlation", &["prices", "full"])?;
        }
        let prices = match corr.and_then(|c| c.get("prices")) {
            Some(v) => matrix(v, "correlation.prices", n)?,
            None if n == 1 => vec![vec![1.0]],
            None => return Err(BasketError::invalid("correlation.prices", "missing (required when N > 1)")),
        };
        let full = match corr.and_then(|c| c.get("full")) {
            Some(v) => Some(matrix(v, "correlation.full", 2 * n)?),
            None => None,
        };

        let mut simulation = DEFAULT_SIMULATION;
        if let Some(sim) = sub_table(&root, "simulation")? {
            known_keys(sim, "simulation", &["paths", "steps", "seed"])?;
            if let Some(p) = integer(sim, "simulation", "paths", 2)? {
                simulation.paths = p;
            }
            if let Some(s) = integer(sim, "simulation", "steps", 1)? {
                simulation.steps = u32::try_from(s).unwrap_or(u32::MAX);
            }
            if let Some(s) = integer(sim, "simulation", "seed", 0)? {
                simulation.seed = s;
            }
        }
        let job = Self { option, rate, assets, prices, full, simulation };
        job.validate()?;
        Ok(job)
    }

    /// Number of assets N.
    pub fn n(&self) -> usize {
        self.assets.len()
    }

    /// Checks every value's domain, the correlation matrix (symmetric, unit diagonal, entries in
    /// [-1, 1], positive semi-definite over the 2N factors, `full`'s price block equal to
    /// `prices` and its `(i, N + i)` entries equal to each asset's `rho`) and the work limits.
    ///
    /// # Errors
    /// [`BasketError::Invalid`] naming the first bad key; [`BasketError::WorkLimit`] naming the
    /// size over its limit.
    pub fn validate(&self) -> Result<(), BasketError> {
        let bad = |key: String, what: String| Err(BasketError::invalid(key, what));
        let o = &self.option;
        let n = self.n();
        if n == 0 {
            return bad("asset".into(), "no assets; N must be >= 1".into());
        }
        if n > MAX_ASSETS {
            return Err(BasketError::WorkLimit {
                key: "asset".into(),
                reason: format!("{n} assets; the engine takes at most {MAX_ASSETS}"),
            });
        }
        if !(o.strike.is_finite() && o.strike > 0.0) {
            return bad("option.strike".into(), format!("{}; must be finite and > 0", o.strike));
        }
        if !(o.maturity.is_finite() && o.maturity > 0.0) {
            return bad("option.maturity".into(), format!("{}; must be finite and > 0 (years)", o.maturity));
        }
        if o.weights.len() != n {
            return bad(
                "option.weights".into(),
                format!("{} weights for {n} assets; one per [[asset]], in file order", o.weights.len()),
            );
        }
        if let Some(i) = o.weights.iter().position(|w| !w.is_finite()) {
            return bad(format!("option.weights[{i}]"), format!("{}; must be finite", o.weights[i]));
        }
        if !self.rate.is_finite() {
            return bad("market.rate".into(), format!("{}; must be finite", self.rate));
        }
        for (i, a) in self.assets.iter().enumerate() {
            let key = |k: &str| format!("asset[{i}].{k}");
            if a.name.is_empty() {
                return bad(key("name"), "empty; every asset needs a name".into());
            }
            if let Some(j) = self.assets[..i].iter().position(|b| b.name == a.name) {
                return bad(key("name"), format!("{:?} is also asset[{j}]'s name; names must be unique", a.name));
            }
            let positive = [("spot", a.spot), ("v0", a.v0), ("kappa", a.kappa), ("theta", a.theta), ("xi", a.xi)];
            for (k, x) in positive {
                if !(x.is_finite() && x > 0.0) {
                    return bad(key(k), format!("{x}; must be finite and > 0"));
                }
            }
            for (k, x) in [("v0", a.v0), ("theta", a.theta)] {
                if x > crate::mc::QE_MAX_VARIANCE {
                    return bad(
                        key(k),
                        format!("{x}; must be <= 1e150 for the QE scheme (its moment match squares the variance)"),
                    );
                }
            }
            if !a.dividend.is_finite() {
                return bad(key("dividend"), format!("{}; must be finite", a.dividend));
            }
            if !(a.rho > -1.0 && a.rho < 1.0) {
                return bad(key("rho"), format!("{}; must be in (-1, 1)", a.rho));
            }
        }
        self.check_correlation()?;
        let s = &self.simulation;
        if s.paths < 2 {
            return bad("simulation.paths".into(), format!("{}; must be >= 2 (a standard error needs two)", s.paths));
        }
        if s.steps == 0 || s.steps > MAX_STEPS {
            return Err(BasketError::WorkLimit {
                key: "simulation.steps".into(),
                reason: format!("{}; must be 1 to {MAX_STEPS}", s.steps),
            });
        }
        let path_steps = s.paths.saturating_mul(u64::from(s.steps));
        if path_steps > MAX_PATH_STEPS {
            return Err(BasketError::WorkLimit {
                key: "simulation.paths".into(),
                reason: format!(
                    "paths x steps = {path_steps} over {MAX_PATH_STEPS} (the regression stores 16 bytes per path and date); use fewer paths or steps"
                ),
            });
        }
        let work = path_steps.saturating_mul(n as u64);
        if work > MAX_WORK {
            return Err(BasketError::WorkLimit {
                key: "simulation.paths".into(),
                reason: format!("assets x paths x steps = {work} over {MAX_WORK}; use fewer paths or steps"),
            });
        }
        Ok(())
    }

    /// The 2N x 2N factor correlation over `(W_S1..W_SN, W_v1..W_vN)`: `full` when given, else
    /// `prices` with `corr(W_Si, W_vi) = rho_i` and every other pair 0.
    pub fn factor_correlation(&self) -> Vec<Vec<f64>> {
        if let Some(f) = &self.full {
            return f.clone();
        }
        let n = self.n();
        let mut c = vec![vec![0.0; 2 * n]; 2 * n];
        for i in 0..n {
            c[i][..n].copy_from_slice(&self.prices[i]);
            c[n + i][n + i] = 1.0;
            c[i][n + i] = self.assets[i].rho;
            c[n + i][i] = self.assets[i].rho;
        }
        c
    }

    fn check_correlation(&self) -> Result<(), BasketError> {
        let n = self.n();
        check_unit_symmetric(&self.prices, "correlation.prices")?;
        let key = if let Some(f) = &self.full {
            check_unit_symmetric(f, "correlation.full")?;
            for i in 0..n {
                if let Some(j) = (0..n).find(|&j| f[i][j] != self.prices[i][j]) {
                    return Err(BasketError::invalid(
                        format!("correlation.full[{i}][{j}]"),
                        format!("{} differs from correlation.prices[{i}][{j}] = {}", f[i][j], self.prices[i][j]),
                    ));
                }
                if f[i][n + i] != self.assets[i].rho {
                    return Err(BasketError::invalid(
                        format!("correlation.full[{i}][{}]", n + i),
                        format!("{} differs from asset[{i}].rho = {}", f[i][n + i], self.assets[i].rho),
                    ));
                }
            }
            "correlation.full"
        } else {
            "correlation.prices"
        };
        let c = self.factor_correlation();
        let m = nalgebra::DMatrix::from_fn(2 * n, 2 * n, |i, j| c[i][j]);
        let eig = nalgebra::SymmetricEigen::new(m);
        let (k, min) =
            eig.eigenvalues.iter().enumerate().fold((0, f64::INFINITY), |a, (k, &x)| if x < a.1 { (k, x) } else { a });
        if min < -PSD_TOLERANCE {
            let v = eig.eigenvectors.column(k);
            let shown: Vec<String> = v.iter().map(|x| format!("{x:.3}")).collect();
            let what = if self.full.is_some() {
                "the 2N x 2N factor matrix"
            } else {
                "the 2N x 2N factor matrix (prices, with corr(W_Si, W_vi) = asset[i].rho)"
            };
            return Err(BasketError::invalid(
                key,
                format!(
                    "not positive semi-definite: {what} over (W_S1..W_SN, W_v1..W_vN) has eigenvalue {min:.6} < 0 \
                     along [{}]",
                    shown.join(", ")
                ),
            ));
        }
        Ok(())
    }
}

/// Eigenvalues above `-PSD_TOLERANCE` count as non-negative (rounding of a singular matrix).
pub const PSD_TOLERANCE: f64 = 1e-12;

fn check_unit_symmetric(m: &[Vec<f64>], key: &str) -> Result<(), BasketError> {
    for (i, row) in m.iter().enumerate() {
        for (j, &x) in row.iter().enumerate() {
            let at = format!("{key}[{i}][{j}]");
            if !x.is_finite() || !(-1.0..=1.0).contains(&x) {
                return Err(BasketError::invalid(at, format!("{x}; a correlation must be in [-1, 1]")));
            }
            if i == j && x != 1.0 {
                return Err(BasketError::invalid(at, format!("{x}; the diagonal must be 1")));
            }
            if j > i && x != m[j][i] {
                return Err(BasketError::invalid(
                    at,
                    format!("{x} differs from {key}[{j}][{i}] = {}; the matrix must be symmetric", m[j][i]),
                ));
            }
        }
    }
    Ok(())
}
