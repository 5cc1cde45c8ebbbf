//! # tenor-sim: a simulated device for testing stream ordering
//!
//! A [`tenor_ports::Driver`] whose streams do not run work when it is enqueued: each stream keeps
//! a queue, and the work runs later (when the host synchronises or waits on an event) in an
//! interleaving across streams chosen by a seeded generator, so two streams complete in a
//! different order from run to run of different seeds. Kernels are the Rust reference
//! implementations of `tenor-kernels`, run on the simulated memory.
//!
//! **Hazard checker.** Every operation declares the byte ranges it reads and writes. Ordering
//! is tracked with vector clocks (Lamport 1978; Fidge 1988; Mattern 1989): a stream's clock
//! advances with each operation, an event carries the clock of its stream when recorded, a
//! stream wait merges the event's clock, and a host synchronisation merges into the host clock,
//! which every later operation inherits. An access conflicts with an earlier access of another
//! stream to an overlapping range when either writes; unless the earlier one happens before the
//! later one, the checker records a [`tenor_ports::ComputeError::Hazard`] naming both operations.
//! This is decided when the work is enqueued, so a missing wait is caught whatever order the
//! work happens to run in.
//!
//! **Poisoned frees.** A free is a write to the block, and when it runs it fills the block with
//! `0xFF` bytes (a NaN in every float format), so a read through a missing wait shows as NaN.

mod checked;
pub use checked::checked_device;
mod clock;
mod memory;
mod ready;
mod sched;

use std::any::Any;
use std::sync::{Arc, Mutex, MutexGuard};

use tenor_kernels::cpu::CpuKernelFn;
use tenor_ports::{
    Access, Allocator, ComputeError, Device, DeviceInfo, Driver, Event, EventImpl, GemmDesc, Kernel, KernelDef,
    Pending, RawArg, Stream, StreamImpl,
};

pub use memory::SimAllocator;
use sched::{Op, Sched};

/// Configuration of a simulated device.
#[derive(Debug, Clone, Copy)]
pub struct SimConfig {
    /// Seed of the interleaving of streams.
    pub seed: u64,
    /// Size of the simulated device memory in bytes.
    pub memory_bytes: usize,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self { seed: 1, memory_bytes: 64 << 20 }
    }
}

/// A simulated [`tenor_ports::Compute`].
pub type SimCompute = Device<SimDriver>;

/// Creates a simulated device.
///
/// # Errors
/// Never in practice.
pub fn sim(config: SimConfig) -> Result<SimCompute, ComputeError> {
    Device::new(SimDriver::new(config))
}

pub(crate) struct Shared {
    pub(crate) sched: Mutex<Sched>,
}

impl Shared {
    pub(crate) fn lock(&self) -> MutexGuard<'_, Sched> {
        self.sched.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The simulated device's primitives. Cloning shares the device.
#[derive(Clone)]
pub struct SimDriver {
    shared: Arc<Shared>,
    allocator: Arc<SimAllocator>,
}

impl std::fmt::Debug for SimDriver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SimDriver")
    }
}

impl SimDriver {
    /// A new simulated device.
    pub fn new(config: SimConfig) -> Self {
        let shared = Arc::new(Shared { sched: Mutex::new(Sched::new(config)) });
        let allocator = Arc::new(SimAllocator::new(shared.clone(), config.memory_bytes));
        Self { shared, allocator }
    }

    /// The device's own allocator (first fit over the simulated memory).
    pub fn sim_allocator(&self) -> Arc<SimAllocator> {
        self.allocator.clone()
    }

    /// Enqueues an operation that only accesses `len` bytes at `ptr` (no data change), so tests
    /// of allocators can model "work on this stream uses this block".
    ///
    /// # Errors
    /// [`ComputeError::ForeignHandle`] for a stream of another device.
    pub fn touch(&self, stream: &Stream, ptr: u64, len: usize, access: Access) -> Result<(), ComputeError> {
        let s = self.stream_index(stream)?;
        self.shared.lock().enqueue(s, Op::Touch, vec![(ptr, len as u64, access)], "touch".into());
        Ok(())
    }

    /// Every hazard found so far (also reported, once, by the next synchronisation).
    pub fn hazards(&self) -> Vec<String> {
        self.shared.lock().hazards.clone()
    }

    /// Bookkeeping done so far (vector-clock entries merged or copied, streams scanned by the
    /// scheduler): a measure of the checker's cost that does not depend on the machine.
    pub fn clock_work(&self) -> u64 {
        self.shared.lock().work
    }

    /// Runs all queued work (a device-wide synchronisation) without reporting errors.
    pub fn drain(&self) {
        let _ = self.shared.lock().run_all();
    }

    /// Reads `len` bytes of simulated memory at `ptr` as they are now (no ordering): for tests
    /// that look for poison.
    pub fn peek(&self, ptr: u64, len: usize) -> Vec<u8> {
        self.shared.lock().memory.read(ptr, len)
    }

    fn stream_index(&self, stream: &Stream) -> Result<usize, ComputeError> {
        index_in(&self.shared, stream)
            .ok_or_else(|| ComputeError::ForeignHandle(format!("{stream:?} is not a stream of this simulated device")))
    }
}

/// Index of `stream` on the device `shared`, if it is one of its streams.
pub(crate) fn index_in(shared: &Arc<Shared>, stream: &Stream) -> Option<usize> {
    let s = stream.downcast::<SimStream>()?;
    Arc::ptr_eq(&s.shared, shared).then_some(s.index)
}

/// A simulated stream.
pub struct SimStream {
    shared: Arc<Shared>,
    index: usize,
}

impl std::fmt::Debug for SimStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SimStream({})", self.index)
    }
}

/// A simulated event.
pub struct SimEvent {
    shared: Arc<Shared>,
    id: usize,
}

impl std::fmt::Debug for SimEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SimEvent({})", self.id)
    }
}

impl EventImpl for SimEvent {
    fn is_complete(&self) -> Result<bool, ComputeError> {
        Ok(self.shared.lock().event_done(self.id))
    }
    fn synchronize(&self) -> Result<(), ComputeError> {
        self.shared.lock().host_wait_event(self.id)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl StreamImpl for SimStream {
    fn record(&self) -> Result<Event, ComputeError> {
        let id = self.shared.lock().record(self.index);
        Ok(Event::new(None, Arc::new(SimEvent { shared: self.shared.clone(), id })))
    }
    fn wait_event(&self, event: &Event) -> Result<(), ComputeError> {
        let e = event
            .downcast::<SimEvent>()
            .ok_or_else(|| ComputeError::ForeignHandle(format!("{event:?} is not a simulated event")))?;
        self.shared.lock().stream_wait(self.index, e.id);
        Ok(())
    }
    fn synchronize(&self) -> Result<(), ComputeError> {
        self.shared.lock().host_wait_stream(self.index)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

// SAFETY: streams are `SimStream`s of this device, kernels the registry's reference
// implementations (bounds-checked views), and every raw address is translated into the
// simulated heap, whose accesses are range-checked; work runs in the scheduler.
unsafe impl Driver for SimDriver {
    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            backend: "sim".into(),
            name: "simulated multi-stream device".into(),
            memory_bytes: self.shared.lock().memory.capacity() as u64,
            compute_units: 1,
            fp64: true,
            driver_version: String::new(),
            versions: vec![("tenor-sim".into(), env!("CARGO_PKG_VERSION").into())],
        }
    }

    fn create_stream(&self) -> Result<Stream, ComputeError> {
        let index = self.shared.lock().add_stream();
        Ok(Stream::new(Arc::new(SimStream { shared: self.shared.clone(), index })))
    }

    fn default_allocator(&self) -> Arc<dyn Allocator> {
        self.allocator.clone()
    }

    unsafe fn copy_h2d(&self, stream: &Stream, dst: u64, src: &[u8]) -> Result<(), ComputeError> {
        let s = self.stream_index(stream)?;
        let len = src.len() as u64;
        self.shared.lock().enqueue(
            s,
            Op::CopyIn { dst, data: src.to_vec() },
            vec![(dst, len, Access::Write)],
            "upload".into(),
        );
        Ok(())
    }

    unsafe fn copy_d2h(&self, stream: &Stream, src: u64, len: usize) -> Result<Pending<Vec<u8>>, ComputeError> {
        let s = self.stream_index(stream)?;
        let slot = Arc::new(Mutex::new(None));
        let event = {
            let mut g = self.shared.lock();
            g.enqueue(
                s,
                Op::CopyOut { src, len, slot: slot.clone() },
                vec![(src, len as u64, Access::Read)],
                "download".into(),
            );
            g.record(s)
        };
        let ev = Event::new(None, Arc::new(SimEvent { shared: self.shared.clone(), id: event }));
        Ok(Pending::new(Some(ev), move || {
            slot.lock()
                .unwrap_or_else(|p| p.into_inner())
                .take()
                .ok_or_else(|| ComputeError::InvalidArgument("simulated download completed without data".into()))
        }))
    }

    fn load_kernel(&self, def: &KernelDef) -> Result<Arc<dyn Any + Send + Sync>, ComputeError> {
        let f = tenor_kernels::cpu::lookup(&def.name).ok_or_else(|| ComputeError::UnknownKernel {
            kernel: def.name.clone(),
            backend: "sim".into(),
            reason: "no Rust reference implementation (kernels/<name>/cpu.rs)".into(),
        })?;
        Ok(Arc::new(f))
    }

    unsafe fn launch(&self, stream: &Stream, kernel: &Kernel, items: u64, args: &[RawArg]) -> Result<(), ComputeError> {
        let s = self.stream_index(stream)?;
        let f = *kernel.backend().downcast_ref::<CpuKernelFn>().ok_or_else(|| {
            ComputeError::ForeignHandle(format!("kernel {} was not loaded by the simulated device", kernel.def().name))
        })?;
        let mut g = self.shared.lock();
        let ranges = args
            .iter()
            .zip(&kernel.def().args)
            .filter_map(|(a, d)| match (a, d.access) {
                (RawArg::Ptr(p, len), Some(acc)) => Some((*p, *len, acc)),
                _ => None,
            })
            .collect();
        let op = Op::Launch { f, items, block: kernel.def().launch.block, args: args.to_vec() };
        g.enqueue(s, op, ranges, format!("kernel {}", kernel.def().name));
        Ok(())
    }

    unsafe fn gemm(&self, stream: &Stream, d: &GemmDesc, a: u64, b: u64, c: u64) -> Result<(), ComputeError> {
        let s = self.stream_index(stream)?;
        let mut g = self.shared.lock();
        let c_acc = if d.beta == 0.0 { Access::Write } else { Access::ReadWrite };
        let (ab, bb, cb) = d.operand_bytes();
        let ranges = vec![(a, ab as u64, Access::Read), (b, bb as u64, Access::Read), (c, cb as u64, c_acc)];
        g.enqueue(s, Op::Gemm { desc: *d, a, b, c }, ranges, "gemm".into());
        Ok(())
    }

    fn synchronize(&self) -> Result<(), ComputeError> {
        self.shared.lock().host_wait_all()
    }
}
