//! Which pool the CUDA backend opens with by default, and whether that touches process-wide
//! state.
//!
//! NVIDIA's rule for a library (seed notes, "Explicit pools"): a library must not change the
//! device's pool, because that affects the whole application. The device's default pool
//! (`cuDeviceGetDefaultMemPool`) is shared by every `cudaMallocAsync` of PyTorch, CuPy and any
//! other library in the process; writing its release threshold or reuse attributes overwrites
//! what they set. So by default Tenor allocates from a pool of its own (`cuMemPoolCreate`,
//! [`super::ExplicitPool`]) and configures only that one. Drawing from, and configuring, the
//! device's default pool is an explicit opt-in: `TENOR_CUDA_POOL=device`.

use tenor_ports::ComputeError;

use super::pool::PoolConfig;

/// The environment variable that picks the pool ([`PoolChoice::from_vars`]).
pub const POOL_VAR: &str = "TENOR_CUDA_POOL";

/// The pool [`crate::CudaDriver::new`] allocates from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolChoice {
    /// A pool of Tenor's own (`cuMemPoolCreate`, allocated from with
    /// `cuMemAllocFromPoolAsync`), configured by `config`. The device's default pool is neither
    /// read nor written. The default.
    Own {
        /// Release threshold and reuse of Tenor's pool.
        config: PoolConfig,
    },
    /// The device's shared default pool (`cuMemAllocAsync`), with `config` WRITTEN to its
    /// attributes: every other user of that pool in the process sees the change. Only on
    /// request (`TENOR_CUDA_POOL=device`), for a process that owns the GPU and wants one pool.
    Device {
        /// Release threshold and reuse written to the device's default pool.
        config: PoolConfig,
    },
}

impl PoolChoice {
    /// From `TENOR_CUDA_POOL` (`own`, the default when unset or empty; `device`) and the pool
    /// configuration of [`PoolConfig::from_vars`] (`TENOR_CUDA_SHARING`,
    /// `TENOR_CUDA_DETERMINISTIC`), which applies to whichever pool is chosen.
    ///
    /// # Errors
    /// [`ComputeError::InvalidArgument`] naming `TENOR_CUDA_POOL` and its value for anything but
    /// `own` or `device`; the errors of [`PoolConfig::from_vars`].
    pub fn from_vars(get: &dyn Fn(&str) -> Option<String>) -> Result<Self, ComputeError> {
        let config = PoolConfig::from_vars(get)?;
        match get(POOL_VAR).as_deref().map(str::trim) {
            None | Some("" | "own") => Ok(Self::Own { config }),
            Some("device") => Ok(Self::Device { config }),
            Some(other) => Err(ComputeError::InvalidArgument(format!(
                "{POOL_VAR}: {other:?} is not a pool (use own, Tenor's pool, or device, the device's shared default pool)"
            ))),
        }
    }

    /// As [`PoolChoice::from_vars`] on the process environment.
    ///
    /// # Errors
    /// As [`PoolChoice::from_vars`].
    pub fn from_env() -> Result<Self, ComputeError> {
        Self::from_vars(&|k| std::env::var(k).ok())
    }

    /// Whether opening the backend with this choice writes attributes of the device's shared
    /// default pool (process-wide state).
    pub fn writes_device_pool(&self) -> bool {
        matches!(self, Self::Device { .. })
    }

    /// The pool configuration, whichever pool it applies to.
    pub fn config(&self) -> PoolConfig {
        match self {
            Self::Own { config } | Self::Device { config } => *config,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::{ReusePolicy, Sharing};

    fn vars<'a>(list: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| list.iter().find(|(n, _)| *n == k).map(|(_, v)| (*v).to_owned())
    }

    #[test]
    fn default_settings_never_write_the_device_pool() {
        // No variable at all, and every pool setting a user may give without asking for the
        // device's pool: Tenor's own pool, configured as asked, the device's pool untouched.
        let exclusive_det = [("TENOR_CUDA_SHARING", "exclusive"), ("TENOR_CUDA_DETERMINISTIC", "1")];
        let cases: [&[(&str, &str)]; 4] =
            [&[], &[("TENOR_CUDA_POOL", "")], &[("TENOR_CUDA_POOL", "own")], &exclusive_det];
        for list in cases {
            let c = PoolChoice::from_vars(&vars(list)).expect("valid");
            assert!(!c.writes_device_pool(), "{list:?} -> {c:?}");
            assert!(matches!(c, PoolChoice::Own { .. }), "{list:?} -> {c:?}");
        }
        let c = PoolChoice::from_vars(&vars(&exclusive_det)).expect("valid");
        assert_eq!(c.config(), PoolConfig { sharing: Sharing::Exclusive, reuse: ReusePolicy::deterministic() });
    }

    #[test]
    fn the_device_pool_only_on_request_and_bad_values_are_named() {
        let c = PoolChoice::from_vars(&vars(&[("TENOR_CUDA_POOL", " device "), ("TENOR_CUDA_SHARING", "shared:4096")]))
            .expect("valid");
        assert!(c.writes_device_pool());
        assert_eq!(c.config().sharing, Sharing::Shared { working_set: 4096 });
        let err = PoolChoice::from_vars(&vars(&[("TENOR_CUDA_POOL", "default")])).expect_err("not a pool");
        let text = err.to_string();
        assert!(text.contains("TENOR_CUDA_POOL") && text.contains("\"default\""), "{text}");
        // A bad pool setting is still reported, naming its own variable.
        let err = PoolChoice::from_vars(&vars(&[("TENOR_CUDA_SHARING", "lots")])).expect_err("bad sharing");
        assert!(err.to_string().contains("TENOR_CUDA_SHARING"), "{err}");
    }
}
