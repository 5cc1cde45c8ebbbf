//! `TENOR_REQUIRE_BACKENDS`, the backends a test run must have: parsed once, here, for every
//! backend's tests (the CUDA adapter's GPU tests, the OpenCL adapter's conformance run, the
//! pilot's every-backend test). `scripts/test` names `sycl` and `opencl`, the GPU machine's
//! `scripts/gpu-check` names `cuda`: a backend named there that does not open fails the test
//! instead of skipping it. The SYCL adapter's own tests need a device whenever its `runtime`
//! feature is on, without the variable.

use std::fmt::Display;
use std::sync::OnceLock;

/// The environment variable.
pub const VAR: &str = "TENOR_REQUIRE_BACKENDS";

/// The backends a run requires: a comma-separated list of the device backends, those with a
/// kernel language (`tenor_kernels::language::LANGUAGES`: `cuda`, `sycl`, `opencl`; the CPU
/// and simulated backends are always there), white space around a name and empty entries
/// ignored (`"sycl, opencl"` is `sycl` and `opencl`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Required {
    backends: Vec<&'static str>,
}

/// A `TENOR_REQUIRE_BACKENDS` that names something other than a backend.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequireError {
    /// An entry that is no device backend's name.
    #[error("{VAR}={list:?}: entry {position} ({name:?}) is no device backend; they are {known}")]
    Unknown {
        /// The whole list, as given.
        list: String,
        /// The entry's position in it, from 1.
        position: usize,
        /// The entry, trimmed.
        name: String,
        /// The device backends' names, comma-separated.
        known: String,
    },
    /// The variable is not valid Unicode.
    #[error("{VAR} is not valid Unicode")]
    NotUnicode,
}

impl Required {
    /// Parses `list`.
    ///
    /// # Errors
    /// [`RequireError::Unknown`] for an entry that is no device backend's name, naming it and its
    /// position.
    pub fn parse(list: &str) -> Result<Self, RequireError> {
        let names = || tenor_kernels::language::LANGUAGES.iter().map(|l| l.backend);
        let mut backends = Vec::new();
        for (i, entry) in list.split(',').enumerate() {
            let name = entry.trim();
            if name.is_empty() {
                continue;
            }
            match names().find(|n| *n == name) {
                Some(n) if !backends.contains(&n) => backends.push(n),
                Some(_) => {}
                None => {
                    return Err(RequireError::Unknown {
                        list: list.to_owned(),
                        position: i + 1,
                        name: name.to_owned(),
                        known: names().collect::<Vec<_>>().join(", "),
                    })
                }
            }
        }
        Ok(Self { backends })
    }

    /// The process's `TENOR_REQUIRE_BACKENDS` (unset: none), read and parsed once.
    ///
    /// # Errors
    /// As [`Required::parse`]; [`RequireError::NotUnicode`].
    pub fn from_env() -> Result<&'static Self, RequireError> {
        static ONCE: OnceLock<Result<Required, RequireError>> = OnceLock::new();
        ONCE.get_or_init(|| match std::env::var(VAR) {
            Ok(list) => Self::parse(&list),
            Err(std::env::VarError::NotPresent) => Ok(Self::default()),
            Err(std::env::VarError::NotUnicode(_)) => Err(RequireError::NotUnicode),
        })
        .as_ref()
        .map_err(Clone::clone)
    }

    /// Whether `backend` (a backend name; a device selector such as `cuda:1` names its
    /// backend) is required.
    pub fn contains(&self, backend: &str) -> bool {
        let name = backend.split(':').next().unwrap_or(backend);
        self.backends.contains(&name)
    }

    /// The required backends, in the order given.
    pub fn backends(&self) -> &[&'static str] {
        &self.backends
    }

    /// `opened`'s device of `backend`, or `None` after printing (to stderr) that the test did
    /// nothing and why.
    ///
    /// # Panics
    /// When `backend` is required and did not open, with the error: a required backend that is
    /// missing fails the test.
    pub fn device_or_skip<D, E: Display>(&self, backend: &str, opened: Result<D, E>) -> Option<D> {
        match opened {
            Ok(d) => Some(d),
            Err(e) => {
                assert!(!self.contains(backend), "{VAR} requires {backend}, which did not open: {e}");
                eprintln!("{backend} unavailable, test not run: {e}");
                None
            }
        }
    }
}

/// [`Required::device_or_skip`] under the process's `TENOR_REQUIRE_BACKENDS`.
///
/// # Panics
/// When the variable does not parse (naming the bad entry), or `backend` is required and did
/// not open.
pub fn device_or_skip<D, E: Display>(backend: &str, opened: Result<D, E>) -> Option<D> {
    Required::from_env().unwrap_or_else(|e| panic!("{e}")).device_or_skip(backend, opened)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `"sycl, opencl"` requires OpenCL: the entry after the comma and space is `opencl` (the
    /// OpenCL test compared it untrimmed, `" opencl"`, and skipped silently).
    #[test]
    fn entries_are_trimmed() {
        let r = Required::parse("sycl, opencl").expect("two backends");
        assert!(r.contains("opencl") && r.contains("sycl") && !r.contains("cuda"));
        assert_eq!(Required::parse(" cuda ,,").expect("one").backends(), ["cuda"]);
        assert!(Required::parse("").expect("none").backends().is_empty());
        assert!(Required::parse("cuda").expect("cuda").contains("cuda:1"), "a selector names its backend");
    }

    #[test]
    fn an_unknown_entry_is_refused_naming_it_and_its_position() {
        let e = Required::parse("sycl, opencL").expect_err("not a backend");
        assert_eq!(
            e,
            RequireError::Unknown {
                list: "sycl, opencL".into(),
                position: 2,
                name: "opencL".into(),
                known: "cuda, sycl, opencl".into(),
            }
        );
        assert!(e.to_string().contains("entry 2 (\"opencL\") is no device backend"), "{e}");
    }

    #[test]
    fn a_required_backend_that_does_not_open_fails() {
        let r = Required::parse("sycl, opencl").expect("two backends");
        let missing = std::panic::catch_unwind(|| r.device_or_skip::<(), _>("opencl", Err("no OpenCL platform")));
        let message = missing.expect_err("required and missing");
        let text = message.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(text.contains("requires opencl") && text.contains("no OpenCL platform"), "{text}");
        assert_eq!(r.device_or_skip::<(), _>("cuda", Err("no driver")), None, "not required: skipped");
        assert_eq!(r.device_or_skip::<u8, &str>("opencl", Ok(7)), Some(7));
    }
}
