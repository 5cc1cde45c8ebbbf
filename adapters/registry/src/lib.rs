//! # tenor-registry: the one place that knows which backends exist
//!
//! Every backend is a row of one registration table, [`BACKENDS`] (`src/table.rs`): its name,
//! the Cargo feature that builds it, whether `auto` may choose it, a description and how to
//! open it. Everything else is made from the table: [`open`] by name (`--backend`, or the
//! `TENOR_BACKEND` environment variable through the command line), `auto`, [`probe_all`] (what
//! `tenor backends` prints), [`visit`] (static dispatch), the help text of every `--backend`
//! flag ([`help`]) and the "unknown backend" and "not built" errors. The CPU backend is always
//! there; an absent backend is a value ([`ComputeError::Unavailable`] with the reason), never a
//! panic. ADR 0016.
//!
//! Beside the table: [`open_over`] (a backend whose memory comes from a given allocator, to
//! record allocation traces), [`checked_device`] (the hazard-checked device of the allocation
//! toolkit's replay) and [`replay_memory`] (a backend's allocators for the timed replay).

mod memory;
mod table;

use std::sync::Arc;

use tenor_ports::{Allocator, CheckedDevice, Compute, ComputeError, Device, DeviceInfo, Driver};

pub mod select;
pub use memory::{replay_memory, NativeTarget, ReplayMemory, Upstream};
pub use select::{list_devices, open_devices, DeviceSet, Selector, SelectorError};
pub use table::{Backend, OpenFn, OpenOverFn, ReplayFn, BACKENDS};

/// The row of backend `name`, if Tenor knows it (built into this binary or not).
pub fn backend(name: &str) -> Option<&'static Backend> {
    BACKENDS.iter().find(|b| b.name == name)
}

/// Every backend name in the table, `auto`'s order.
pub fn names() -> impl Iterator<Item = &'static str> {
    BACKENDS.iter().map(|b| b.name)
}

/// The device backends (the rows `auto` may choose; not the simulated device), table order:
/// the default of `tenor pilot run --backends`.
pub fn devices() -> Vec<&'static str> {
    BACKENDS.iter().filter(|b| b.auto).map(|b| b.name).collect()
}

/// The help text of a `--backend` flag: every name with what it is and whether this binary has
/// it (and the feature that builds it where not), and `auto`.
pub fn help() -> String {
    let mut s = String::from("Compute backend (`tenor backends` probes them): ");
    let rows: Vec<String> = BACKENDS
        .iter()
        .map(|b| match (b.built, b.feature) {
            (false, Some(f)) => format!("`{}` ({}; needs --features {f})", b.name, b.description),
            _ => format!("`{}` ({})", b.name, b.description),
        })
        .collect();
    s.push_str(&rows.join(", "));
    s.push_str(", or `auto` (the first that opens, in that order, never `sim`)");
    s.push_str("; a device selector picks devices: `cuda:1`, `cuda:*` (all), `sim:0..3` (with TENOR_SIM_DEVICES), `sycl:gpu:0`");
    s
}

fn unknown(name: &str) -> ComputeError {
    let known: Vec<&str> = names().collect();
    ComputeError::InvalidArgument(format!("unknown backend {name:?}; known: {}, auto", known.join(", ")))
}

/// The error of a backend Tenor knows that this binary was built without (unused in a build with
/// every adapter's feature on).
#[cfg_attr(all(feature = "cuda", feature = "sycl", feature = "opencl"), allow(dead_code))]
pub(crate) fn not_built(name: &str, feature: &str) -> ComputeError {
    ComputeError::Unavailable {
        backend: name.into(),
        reason: format!("this build has no {name} adapter (rebuild with `--features {feature}`)"),
    }
}

/// Opens the backend called `name` (a row of [`BACKENDS`], or `auto` for the first in table
/// order that opens, among the rows `auto` may choose).
///
/// # Errors
/// [`ComputeError::Unavailable`] naming the backend and why it cannot run: not compiled in
/// (with the Cargo feature to enable), no driver, no device; for `auto`, every reason;
/// [`ComputeError::InvalidArgument`] for an unknown name, listing the known ones.
///
/// A device selector (`cuda:1`, `sim:0`, [`select`]) opens that one device; a selector of
/// several devices (`cuda:*`) is refused here ([`open_devices`] opens those).
pub fn open(name: &str) -> Result<Arc<dyn Compute>, ComputeError> {
    if name.contains(':') {
        return select::open_one(name);
    }
    if name == "auto" {
        let mut reasons = Vec::new();
        for b in BACKENDS.iter().filter(|b| b.auto) {
            match (b.open)() {
                Ok(c) => return Ok(c),
                Err(e) => reasons.push(e.to_string()),
            }
        }
        return Err(ComputeError::Unavailable { backend: "auto".into(), reason: reasons.join("; ") });
    }
    backend(name).ok_or_else(|| unknown(name)).and_then(|b| (b.open)())
}

/// Opens backend `name` with its device memory drawn from `memory` (a
/// `tenor_alloc::Recorder` to record a trace of the backend's allocations).
///
/// # Errors
/// As [`open`]; [`ComputeError::InvalidArgument`] for a backend that owns its memory (the GPU
/// backends), naming those that can.
pub fn open_over(name: &str, memory: Arc<dyn Allocator>) -> Result<Arc<dyn Compute>, ComputeError> {
    let b = backend(name).ok_or_else(|| unknown(name))?;
    match b.open_over {
        Some(f) => f(memory),
        None => {
            let can: Vec<&str> = BACKENDS.iter().filter(|b| b.open_over.is_some()).map(|b| b.name).collect();
            Err(ComputeError::InvalidArgument(format!(
                "backend {name:?} owns its device memory; memory from a given allocator works on: {}",
                can.join(", ")
            )))
        }
    }
}

/// Host memory as an [`Allocator`] (the CPU backend's), the upstream of a recorder for
/// [`open_over`].
pub fn host_memory() -> Arc<dyn Allocator> {
    Arc::new(tenor_cpu::HostAllocator::new())
}

/// For every backend of the table, its device description or why it is unavailable.
pub fn probe_all() -> Vec<(String, Result<DeviceInfo, ComputeError>)> {
    BACKENDS.iter().map(|b| (b.name.to_owned(), (b.open)().map(|c| c.info().clone()))).collect()
}

/// A fresh hazard-checked device (the simulated one, `tenor-sim`) with interleaving `seed` and
/// `memory_bytes` of memory: the target of `tenor_alloc::replay::replay`.
pub fn checked_device(seed: u64, memory_bytes: usize) -> Box<dyn CheckedDevice> {
    tenor_sim::checked_device(seed, memory_bytes)
}

/// Receives a backend's concrete device type, for work that needs static dispatch (the pilot
/// measures the port's overhead by calling the adapter's [`Driver`] directly beside the same
/// work through `dyn Compute`).
pub trait DeviceVisitor {
    /// What the visit returns.
    type Output;
    /// Called with the opened device.
    fn visit<D: Driver>(self, device: &Device<D>) -> Self::Output;
}

/// Opens backend `name` and hands its concrete device to `visitor`.
///
/// # Errors
/// As [`open`] (`auto` is not a name here).
pub fn visit<V: DeviceVisitor>(name: &str, visitor: V) -> Result<V::Output, ComputeError> {
    if name.contains(':') {
        return select::visit_one(name, visitor);
    }
    table::visit_row(name, visitor).unwrap_or_else(|| Err(unknown(name)))
}
