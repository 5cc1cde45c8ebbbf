//! The simulated device as the [`CheckedDevice`] port (the allocation toolkit's replay target).

use std::sync::Arc;

use tenor_ports::{Access, Allocator, CheckedDevice, ComputeError, Driver, Stream};

use crate::SimDriver;

impl CheckedDevice for SimDriver {
    fn memory(&self) -> Arc<dyn Allocator> {
        self.sim_allocator()
    }

    fn create_stream(&self) -> Result<Stream, ComputeError> {
        Driver::create_stream(self)
    }

    fn touch(&self, stream: &Stream, ptr: u64, len: usize, access: Access) -> Result<(), ComputeError> {
        SimDriver::touch(self, stream, ptr, len, access)
    }

    fn synchronize(&self) -> Result<(), ComputeError> {
        Driver::synchronize(self)
    }

    fn hazards(&self) -> Vec<String> {
        SimDriver::hazards(self)
    }
}

/// A fresh simulated device with interleaving `seed` and `memory_bytes` of memory, as the
/// [`CheckedDevice`] port (the shape of `tenor_alloc::replay::OpenDevice`).
pub fn checked_device(seed: u64, memory_bytes: usize) -> Box<dyn CheckedDevice> {
    Box::new(SimDriver::new(crate::SimConfig { seed, memory_bytes }))
}
