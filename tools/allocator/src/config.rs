//! The library's configuration, read once from the environment.
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `TENOR_ALLOC_STRATEGY` | `pool`, `binning`, `arena`, `caching`, `slab` or `none` (the device pool alone) | `binning` |
//! | `TENOR_ALLOC_RELEASE_THRESHOLD` | cached bytes kept; above it a free trims the strategy back to it | unset: keep all |
//! | `TENOR_ALLOC_CAP` | hard cap on requested bytes live at once (a request past it is out of memory) | unset: no cap |
//! | `TENOR_ALLOC_DETERMINISTIC` | `1`: reuse across streams only through event waits ([`tenor_alloc::Reuse::FollowEvents`]) | `1` |
//! | `TENOR_ALLOC_STATS` | file the statistics are written to (JSON, atomically) at exit | unset |
//! | `TENOR_ALLOC_BACKEND` | `cuda`; `host` (host memory and CPU streams) is for the contract tests only | `cuda` |
//!
//! The CUDA pool under the strategy is Tenor's own (`cuMemPoolCreate`, the device's default pool
//! is never touched); its release threshold and reuse come from `TENOR_CUDA_SHARING` and
//! `TENOR_CUDA_DETERMINISTIC` as for the backend ([`tenor_cuda::alloc::PoolConfig::from_vars`]).

use thiserror::Error;

/// The upstream the strategy draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// Tenor's own CUDA pool on the device the first call names.
    Cuda,
    /// Host memory with CPU streams: for testing the C contract without a GPU, never for use.
    Host,
}

/// The toolkit strategy over the upstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrategyName {
    /// No strategy: every call goes to the upstream pool.
    None,
    /// [`tenor_alloc::Pool`].
    Pool,
    /// [`tenor_alloc::Binning`] over a [`tenor_alloc::Pool`].
    Binning,
    /// [`tenor_alloc::Arena`].
    Arena,
    /// [`tenor_alloc::Caching`].
    Caching,
    /// [`tenor_alloc::Slab`].
    Slab,
}

impl StrategyName {
    /// Short name, as in the environment variable.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Pool => "pool",
            Self::Binning => "binning",
            Self::Arena => "arena",
            Self::Caching => "caching",
            Self::Slab => "slab",
        }
    }
}

/// Everything the environment configures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The strategy.
    pub strategy: StrategyName,
    /// Cached bytes kept before a free trims (`None`: keep everything).
    pub release_threshold: Option<usize>,
    /// Hard cap in bytes on memory handed out (`None`: none).
    pub cap: Option<usize>,
    /// Deterministic reuse.
    pub deterministic: bool,
    /// Statistics file written at exit.
    pub stats_path: Option<String>,
    /// The upstream.
    pub backend: Backend,
}

/// A variable with a value the library does not accept.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[error("{var}={value:?}: {reason}")]
pub struct ConfigError {
    /// The variable.
    pub var: &'static str,
    /// Its value.
    pub value: String,
    /// What was expected.
    pub reason: String,
}

fn bytes(var: &'static str, v: &str) -> Result<usize, ConfigError> {
    let t = v.trim();
    let (num, mul) = match t.as_bytes().last() {
        Some(b'K' | b'k') => (&t[..t.len() - 1], 1usize << 10),
        Some(b'M' | b'm') => (&t[..t.len() - 1], 1 << 20),
        Some(b'G' | b'g') => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    num.trim().parse::<usize>().ok().and_then(|n| n.checked_mul(mul)).ok_or_else(|| ConfigError {
        var,
        value: v.into(),
        reason: "expected a byte count (digits, optionally followed by K, M or G)".into(),
    })
}

impl Config {
    /// From variables looked up with `get` (see the module table).
    ///
    /// # Errors
    /// [`ConfigError`] naming the first variable whose value is not accepted.
    pub fn from_vars(get: &dyn Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let val = |k: &str| get(k).filter(|v| !v.trim().is_empty());
        let strategy = match val("TENOR_ALLOC_STRATEGY").as_deref().map(str::trim) {
            None | Some("binning") => StrategyName::Binning,
            Some("none") => StrategyName::None,
            Some("pool") => StrategyName::Pool,
            Some("arena") => StrategyName::Arena,
            Some("caching") => StrategyName::Caching,
            Some("slab") => StrategyName::Slab,
            Some(other) => {
                return Err(ConfigError {
                    var: "TENOR_ALLOC_STRATEGY",
                    value: other.into(),
                    reason: "expected none, pool, binning, arena, caching or slab".into(),
                })
            }
        };
        let release_threshold =
            val("TENOR_ALLOC_RELEASE_THRESHOLD").map(|v| bytes("TENOR_ALLOC_RELEASE_THRESHOLD", &v)).transpose()?;
        let cap = val("TENOR_ALLOC_CAP").map(|v| bytes("TENOR_ALLOC_CAP", &v)).transpose()?;
        let deterministic = match val("TENOR_ALLOC_DETERMINISTIC").as_deref().map(str::trim) {
            None | Some("1" | "true" | "yes") => true,
            Some("0" | "false" | "no") => false,
            Some(other) => {
                return Err(ConfigError {
                    var: "TENOR_ALLOC_DETERMINISTIC",
                    value: other.into(),
                    reason: "expected 1 or 0".into(),
                })
            }
        };
        let backend = match val("TENOR_ALLOC_BACKEND").as_deref().map(str::trim) {
            None | Some("cuda") => Backend::Cuda,
            Some("host") => Backend::Host,
            Some(other) => {
                return Err(ConfigError {
                    var: "TENOR_ALLOC_BACKEND",
                    value: other.into(),
                    reason: "expected cuda (host is for tests only)".into(),
                })
            }
        };
        Ok(Self { strategy, release_threshold, cap, deterministic, stats_path: val("TENOR_ALLOC_STATS"), backend })
    }
}

impl Config {
    /// As [`Config::from_vars`] on the process environment.
    ///
    /// # Errors
    /// As [`Config::from_vars`].
    pub fn from_env_vars() -> Result<Self, ConfigError> {
        Self::from_vars(&|k| std::env::var(k).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(list: &[(&str, &str)]) -> Result<Config, ConfigError> {
        Config::from_vars(&|k| list.iter().find(|(n, _)| *n == k).map(|(_, v)| (*v).to_string()))
    }

    #[test]
    fn defaults_and_byte_suffixes() {
        let c = cfg(&[]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (c.strategy, c.cap, c.release_threshold, c.deterministic, c.backend),
            (StrategyName::Binning, None, None, true, Backend::Cuda)
        );
        let c = cfg(&[
            ("TENOR_ALLOC_CAP", "3M"),
            ("TENOR_ALLOC_RELEASE_THRESHOLD", "512"),
            ("TENOR_ALLOC_STRATEGY", "slab"),
        ])
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((c.cap, c.release_threshold, c.strategy), (Some(3 << 20), Some(512), StrategyName::Slab));
    }

    #[test]
    fn a_bad_value_names_its_variable() {
        let e = cfg(&[("TENOR_ALLOC_CAP", "lots")]).err();
        assert_eq!(e.map(|e| e.var), Some("TENOR_ALLOC_CAP"));
        let e = cfg(&[("TENOR_ALLOC_STRATEGY", "magic")]).err();
        assert!(e.is_some_and(|e| e.to_string().contains("TENOR_ALLOC_STRATEGY=\"magic\"")));
    }
}
