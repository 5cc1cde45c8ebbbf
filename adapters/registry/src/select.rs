//! Device selectors: which device (or devices) of a backend a command runs on.
//!
//! | selector | devices |
//! | --- | --- |
//! | `cuda` | the backend's default device (CUDA device 0) |
//! | `cuda:1` | device 1 |
//! | `cuda:*` | every device the driver reports |
//! | `sim:0..3` | devices 0, 1, 2 and 3 (inclusive range) |
//! | `sycl:gpu:0` | the SYCL runtime's first GPU (`sycl:cpu:0`, `sycl:2`: the platform list's third device) |
//!
//! The same strings work in `--backend` and `TENOR_BACKEND`. How many devices a backend has:
//! CUDA asks the driver; the simulated backend has `TENOR_SIM_DEVICES` (default 1) independent
//! simulated devices, each with its own memory, pool, streams and interleaving seed; the CPU
//! backend has one. A bad selector is a [`SelectorError`] naming the part that is wrong.

use std::sync::Arc;

use tenor_ports::{Compute, ComputeError, Devices, PeerAccess};
use thiserror::Error;

/// Environment variable giving the number of simulated devices (default 1).
pub const SIM_DEVICES_ENV: &str = "TENOR_SIM_DEVICES";

/// Most simulated devices (each holds its own simulated memory).
pub const MAX_SIM_DEVICES: usize = 64;

/// Which devices of a backend a [`Selector`] names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceSet {
    /// The backend's default device (no `:` part).
    Default,
    /// One device by ordinal (`cuda:1`).
    One(usize),
    /// Every device (`cuda:*`).
    All,
    /// An inclusive range of ordinals (`sim:0..3`).
    Range(usize, usize),
    /// The `index`-th device of a SYCL device type (`sycl:gpu:0`): `kind` is `cpu`, `gpu` or
    /// `accelerator`.
    Kind {
        /// SYCL device type.
        kind: String,
        /// Position among the devices of that type.
        index: usize,
    },
}

/// A parsed backend selector: a backend name and the devices of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    /// Backend name, a row of [`crate::BACKENDS`] or `auto`.
    pub backend: String,
    /// Which of its devices.
    pub devices: DeviceSet,
}

/// Why a selector string was refused; each names the selector and the part that is wrong.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SelectorError {
    /// The part before the first `:` is no backend Tenor knows.
    #[error("backend selector {selector:?}: unknown backend {backend:?}; known: {known}")]
    UnknownBackend {
        /// The whole selector.
        selector: String,
        /// Its backend part.
        backend: String,
        /// The known names.
        known: String,
    },
    /// The device part is not a number, `*`, a range `a..b` or (SYCL) `type:n`.
    #[error("backend selector {selector:?}: device part {part:?} {reason}")]
    BadDevice {
        /// The whole selector.
        selector: String,
        /// The part that is wrong.
        part: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The selector names devices the backend does not have.
    #[error("backend selector {selector:?}: {reason}")]
    NoSuchDevice {
        /// The whole selector.
        selector: String,
        /// Which device is missing and how many there are.
        reason: String,
    },
    /// `TENOR_SIM_DEVICES` is not a whole number from 1 to [`MAX_SIM_DEVICES`].
    #[error("{SIM_DEVICES_ENV}={value:?}: must be a whole number from 1 to {MAX_SIM_DEVICES}")]
    SimDevices {
        /// The variable's value.
        value: String,
    },
    /// A command that runs on one device was given a selector of several.
    #[error("backend selector {selector:?} names {count} devices; this command runs on one (use e.g. {example:?})")]
    NotOne {
        /// The whole selector.
        selector: String,
        /// Devices it names.
        count: usize,
        /// A one-device selector to use instead.
        example: String,
    },
}

impl From<SelectorError> for ComputeError {
    fn from(e: SelectorError) -> Self {
        ComputeError::InvalidArgument(e.to_string())
    }
}

fn ordinal(selector: &str, part: &str) -> Result<usize, SelectorError> {
    if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
        return Err(SelectorError::BadDevice {
            selector: selector.into(),
            part: part.into(),
            reason: "is not a device number (decimal digits), `*` or a range `a..b`".into(),
        });
    }
    part.parse().map_err(|_| SelectorError::BadDevice {
        selector: selector.into(),
        part: part.into(),
        reason: "is too large a device number".into(),
    })
}

impl Selector {
    /// Parses `cuda`, `cuda:1`, `cuda:*`, `sim:0..3`, `sycl:gpu:0`, ... (the module docs).
    ///
    /// # Errors
    /// [`SelectorError::UnknownBackend`] or [`SelectorError::BadDevice`] naming the part.
    pub fn parse(text: &str) -> Result<Self, SelectorError> {
        let (backend, rest) = match text.split_once(':') {
            Some((b, r)) => (b, Some(r)),
            None => (text, None),
        };
        if backend != "auto" && crate::backend(backend).is_none() {
            let known: Vec<&str> = crate::names().collect();
            return Err(SelectorError::UnknownBackend {
                selector: text.into(),
                backend: backend.into(),
                known: format!("{}, auto", known.join(", ")),
            });
        }
        let bad = |part: &str, reason: &str| SelectorError::BadDevice {
            selector: text.into(),
            part: part.into(),
            reason: reason.into(),
        };
        let devices = match rest {
            None => DeviceSet::Default,
            Some(_) if backend == "auto" => return Err(bad(rest.unwrap_or(""), "is not allowed after `auto`")),
            Some("*") => DeviceSet::All,
            Some(r) if backend == "sycl" && r.contains(':') => {
                let (kind, index) = r.split_once(':').unwrap_or((r, ""));
                if !["cpu", "gpu", "accelerator"].contains(&kind) {
                    return Err(bad(kind, "is not a SYCL device type (cpu, gpu, accelerator)"));
                }
                DeviceSet::Kind { kind: kind.into(), index: ordinal(text, index)? }
            }
            Some(r) if backend == "sycl" && ["cpu", "gpu", "accelerator"].contains(&r) => {
                DeviceSet::Kind { kind: r.into(), index: 0 }
            }
            Some(r) => match r.split_once("..") {
                Some((a, b)) => {
                    let (a, b) = (ordinal(text, a)?, ordinal(text, b)?);
                    if b < a {
                        return Err(bad(r, "is an empty range (the end is below the start; ranges include both ends)"));
                    }
                    DeviceSet::Range(a, b)
                }
                None => DeviceSet::One(ordinal(text, r)?),
            },
        };
        Ok(Self { backend: backend.into(), devices })
    }

    /// The selector as text (parses back to itself).
    #[must_use]
    pub fn text(&self) -> String {
        match &self.devices {
            DeviceSet::Default => self.backend.clone(),
            DeviceSet::One(i) => format!("{}:{i}", self.backend),
            DeviceSet::All => format!("{}:*", self.backend),
            DeviceSet::Range(a, b) => format!("{}:{a}..{b}", self.backend),
            DeviceSet::Kind { kind, index } => format!("{}:{kind}:{index}", self.backend),
        }
    }
}

/// Number of simulated devices, from [`SIM_DEVICES_ENV`] (default 1).
///
/// # Errors
/// [`SelectorError::SimDevices`] for a value that is not a number from 1 to [`MAX_SIM_DEVICES`].
pub fn sim_device_count() -> Result<usize, SelectorError> {
    match std::env::var(SIM_DEVICES_ENV) {
        Err(_) => Ok(1),
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if (1..=MAX_SIM_DEVICES).contains(&n) => Ok(n),
            _ => Err(SelectorError::SimDevices { value: v }),
        },
    }
}

/// How many devices `backend` has here (1 for `cpu`; [`sim_device_count`] for `sim`; the
/// driver's count for `cuda`).
///
/// # Errors
/// [`ComputeError::Unavailable`] when the backend cannot run here; a bad `TENOR_SIM_DEVICES`.
pub fn device_count(backend: &str) -> Result<usize, ComputeError> {
    match backend {
        "cpu" => Ok(1),
        "sim" => Ok(sim_device_count()?),
        #[cfg(feature = "cuda")]
        "cuda" => tenor_cuda::device_count(),
        // SYCL devices are opened by type or platform index; the count is the one opened.
        other => crate::open(other).map(|_| 1),
    }
}

/// The ordinals `selector` names on a backend with `count` devices.
///
/// # Errors
/// [`SelectorError::NoSuchDevice`] for an ordinal at or past `count`.
pub fn ordinals(selector: &Selector, count: usize) -> Result<Vec<usize>, SelectorError> {
    let check = |i: usize| {
        if i < count {
            Ok(i)
        } else {
            Err(SelectorError::NoSuchDevice {
                selector: selector.text(),
                reason: format!("device {i} requested, {count} present (ordinals 0..{})", count.saturating_sub(1)),
            })
        }
    };
    match &selector.devices {
        DeviceSet::Default | DeviceSet::Kind { .. } => Ok(vec![0]),
        DeviceSet::One(i) => Ok(vec![check(*i)?]),
        DeviceSet::All => Ok((0..count).collect()),
        DeviceSet::Range(a, b) => (*a..=*b).map(check).collect(),
    }
}

/// Opens device `ordinal` of `selector`'s backend.
fn open_ordinal(selector: &Selector, ordinal: usize) -> Result<Arc<dyn Compute>, ComputeError> {
    match (selector.backend.as_str(), &selector.devices) {
        (_, DeviceSet::Default) => crate::open(&selector.backend),
        ("cpu", _) => crate::open("cpu"),
        // Each simulated device interleaves its streams with its own seed (1, 2, ...), so a
        // sharded test also proves results do not depend on any device's interleaving.
        ("sim", _) => Ok(Arc::new(tenor_sim::sim(tenor_sim::SimConfig {
            seed: ordinal as u64 + 1,
            ..tenor_sim::SimConfig::default()
        })?)),
        #[cfg(feature = "cuda")]
        ("cuda", _) => Ok(Arc::new(tenor_cuda::cuda_on(ordinal)?)),
        #[cfg(feature = "sycl")]
        ("sycl", DeviceSet::Kind { kind, index: 0 }) => Ok(Arc::new(tenor_sycl::sycl(kind)?)),
        #[cfg(feature = "sycl")]
        ("sycl", DeviceSet::Kind { kind, index }) => Err(ComputeError::Unsupported {
            backend: "sycl".into(),
            what: format!(
                "sycl:{kind}:{index} (only the first device of a type opens by type; sycl:N opens the platform list's N-th device)"
            ),
        }),
        #[cfg(feature = "sycl")]
        ("sycl", _) => Ok(Arc::new(tenor_sycl::sycl(&format!("index:{ordinal}"))?)),
        (other, _) => crate::open(other),
    }
}

/// The peer-access matrix of `ordinals` on `backend`: `cuDeviceCanAccessPeer` for CUDA (a
/// failed query is `None`, reported as `n/a`), unknown elsewhere.
fn peers(backend: &str, ordinals: &[usize]) -> PeerAccess {
    match backend {
        #[cfg(feature = "cuda")]
        "cuda" => {
            PeerAccess::from_fn(ordinals.len(), |i, j| tenor_cuda::can_access_peer(ordinals[i], ordinals[j]).ok())
        }
        _ => PeerAccess::unknown(ordinals.len()),
    }
}

/// Opens every device `selector` names, as one [`Devices`] set with its peer-access matrix
/// (labels `cuda:0`, `sim:3`, ...).
///
/// # Errors
/// A bad selector or `TENOR_SIM_DEVICES`, a missing device, or the backend's open errors.
pub fn open_devices(selector: &str) -> Result<Devices, ComputeError> {
    let sel = Selector::parse(selector)?;
    if sel.devices == DeviceSet::Default {
        return Ok(Devices::single(crate::open(&sel.backend)?));
    }
    let ords = match &sel.devices {
        DeviceSet::All | DeviceSet::Range(..) | DeviceSet::One(_) => ordinals(&sel, device_count(&sel.backend)?)?,
        _ => vec![0],
    };
    let mut devices = Vec::with_capacity(ords.len());
    let mut labels = Vec::with_capacity(ords.len());
    for &o in &ords {
        devices.push(open_ordinal(&sel, o)?);
        labels.push(match &sel.devices {
            DeviceSet::Kind { kind, index } => format!("{}:{kind}:{index}", sel.backend),
            _ => format!("{}:{o}", sel.backend),
        });
    }
    Devices::new(devices, labels)?.with_peers(peers(&sel.backend, &ords))
}

/// Opens the one device `selector` names (`cuda:1`, `sim:0`, or a plain backend name).
///
/// # Errors
/// [`SelectorError::NotOne`] (as [`ComputeError::InvalidArgument`]) for a selector of several
/// devices; as [`open_devices`].
pub fn open_one(selector: &str) -> Result<Arc<dyn Compute>, ComputeError> {
    let set = open_devices(selector)?;
    if set.len() != 1 {
        let backend = selector.split(':').next().unwrap_or(selector);
        return Err(SelectorError::NotOne {
            selector: selector.into(),
            count: set.len(),
            example: format!("{backend}:0"),
        }
        .into());
    }
    Ok(set.first().clone())
}

/// The single ordinal `selector` names on its backend (`cuda:1`, or `cuda:*` on a one-GPU host).
///
/// # Errors
/// As [`open_one`].
fn one_ordinal(selector: &str) -> Result<(Selector, usize), ComputeError> {
    let sel = Selector::parse(selector)?;
    let ords = match &sel.devices {
        DeviceSet::Default | DeviceSet::Kind { .. } => vec![0],
        _ => ordinals(&sel, device_count(&sel.backend)?)?,
    };
    match ords.as_slice() {
        [o] => Ok((sel, *o)),
        _ => Err(SelectorError::NotOne {
            selector: selector.into(),
            count: ords.len(),
            example: format!("{}:0", sel.backend),
        }
        .into()),
    }
}

/// [`crate::visit`] for a one-device selector: opens that device with its concrete type.
///
/// # Errors
/// As [`open_one`].
pub fn visit_one<V: crate::DeviceVisitor>(selector: &str, visitor: V) -> Result<V::Output, ComputeError> {
    let (sel, ordinal) = one_ordinal(selector)?;
    match (sel.backend.as_str(), &sel.devices) {
        (name, DeviceSet::Default) => crate::visit(name, visitor),
        ("cpu", _) => crate::visit("cpu", visitor),
        ("sim", _) => Ok(visitor.visit(&tenor_sim::sim(tenor_sim::SimConfig {
            seed: ordinal as u64 + 1,
            ..tenor_sim::SimConfig::default()
        })?)),
        #[cfg(feature = "cuda")]
        ("cuda", _) => Ok(visitor.visit(&tenor_cuda::cuda_on(ordinal)?)),
        (name, _) => Err(ComputeError::Unsupported {
            backend: name.into(),
            what: format!("direct driver access to device {selector:?} (use the backend's default device)"),
        }),
    }
}

/// One line per device of every known backend for `tenor backends`: (label, description or
/// why it cannot run); then the peer-access lines of backends with several devices.
#[must_use]
pub fn list_devices() -> Vec<(String, Result<String, ComputeError>)> {
    let mut out = Vec::new();
    for name in crate::names() {
        let count = match device_count(name) {
            Ok(n) => n,
            Err(e) => {
                out.push((name.to_owned(), Err(e)));
                continue;
            }
        };
        let sel = Selector { backend: name.to_owned(), devices: DeviceSet::All };
        for o in 0..count {
            let label = format!("{name}:{o}");
            out.push((label, open_ordinal(&sel, o).map(|c| format!("{} (fp64: {})", c.info().name, c.info().fp64))));
        }
        if count > 1 {
            let ords: Vec<usize> = (0..count).collect();
            for line in peers(name, &ords).lines() {
                out.push((format!("{name} peer"), Ok(line)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form() {
        let p = |s: &str| Selector::parse(s).map(|x| x.devices);
        assert_eq!(p("cuda"), Ok(DeviceSet::Default));
        assert_eq!(p("cuda:1"), Ok(DeviceSet::One(1)));
        assert_eq!(p("cuda:*"), Ok(DeviceSet::All));
        assert_eq!(p("sim:0..3"), Ok(DeviceSet::Range(0, 3)));
        assert_eq!(p("sycl:gpu:0"), Ok(DeviceSet::Kind { kind: "gpu".into(), index: 0 }));
        assert_eq!(p("sycl:cpu"), Ok(DeviceSet::Kind { kind: "cpu".into(), index: 0 }));
        for s in ["cuda:1", "cuda:*", "sim:0..3", "sycl:gpu:0", "cpu"] {
            assert_eq!(Selector::parse(s).map(|x| x.text()), Ok(s.to_owned()));
        }
    }

    #[test]
    fn bad_selectors_name_the_part() {
        let e = Selector::parse("cuda:x").expect_err("refused");
        assert!(matches!(&e, SelectorError::BadDevice { part, .. } if part == "x"), "{e:?}");
        assert!(e.to_string().contains("device part \"x\" is not a device number"), "{e}");
        let e = Selector::parse("cdua:0").expect_err("refused");
        assert!(matches!(&e, SelectorError::UnknownBackend { backend, .. } if backend == "cdua"), "{e:?}");
        let e = Selector::parse("sim:3..1").expect_err("refused");
        assert!(matches!(&e, SelectorError::BadDevice { part, .. } if part == "3..1"), "{e:?}");
        let e = Selector::parse("sim:0..y").expect_err("refused");
        assert!(matches!(&e, SelectorError::BadDevice { part, .. } if part == "y"), "{e:?}");
        let e = Selector::parse("sycl:tpu:0").expect_err("refused");
        assert!(matches!(&e, SelectorError::BadDevice { part, .. } if part == "tpu"), "{e:?}");
        let e = Selector::parse("auto:1").expect_err("refused");
        assert!(matches!(&e, SelectorError::BadDevice { part, .. } if part == "1"), "{e:?}");
    }

    #[test]
    fn ordinals_past_the_count_are_refused() {
        let sel = Selector::parse("sim:2..5").expect("valid");
        let e = ordinals(&sel, 4).expect_err("refused");
        assert!(e.to_string().contains("device 4 requested, 4 present"), "{e}");
        assert_eq!(ordinals(&Selector::parse("cuda:*").expect("valid"), 3), Ok(vec![0, 1, 2]));
    }
}
