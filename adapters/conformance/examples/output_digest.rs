//! Prints a digest of every byte each conformance check downloads from the CPU backend (the
//! kernels' outputs on the suite's seeded inputs), one line per check, for comparing two builds
//! bitwise: run it on both and `diff` the outputs (ADR 0014 did so for every kernel).
//!
//! `cargo run --release -p tenor-conformance --example output_digest`

use std::sync::{Arc, Mutex, PoisonError};

use tenor_ports::{Allocator, Arg, Compute, ComputeError, DeviceBuffer, DeviceInfo, GemmDesc, Kernel, KernelDef};
use tenor_ports::{Pending, Stream};

/// FNV-1a, 64 bits, over the bytes in download order.
#[derive(Debug, Default)]
struct Digest {
    hash: u64,
    bytes: u64,
}

impl Digest {
    fn reset(&mut self) {
        *self = Self { hash: 0xcbf2_9ce4_8422_2325, bytes: 0 };
    }
    fn add(&mut self, data: &[u8]) {
        for b in data {
            self.hash = (self.hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.bytes += data.len() as u64;
    }
}

/// Forwards to the CPU backend and digests every download.
#[derive(Debug)]
struct Recording {
    inner: Arc<dyn Compute>,
    digest: Arc<Mutex<Digest>>,
}

impl Compute for Recording {
    fn info(&self) -> &DeviceInfo {
        self.inner.info()
    }
    fn default_stream(&self) -> &Stream {
        self.inner.default_stream()
    }
    fn create_stream(&self) -> Result<Stream, ComputeError> {
        self.inner.create_stream()
    }
    fn allocator(&self) -> &Arc<dyn Allocator> {
        self.inner.allocator()
    }
    fn alloc(&self, stream: &Stream, bytes: usize) -> Result<DeviceBuffer, ComputeError> {
        self.inner.alloc(stream, bytes)
    }
    fn upload(&self, stream: &Stream, dst: &DeviceBuffer, offset: usize, src: &[u8]) -> Result<(), ComputeError> {
        self.inner.upload(stream, dst, offset, src)
    }
    fn download(
        &self,
        stream: &Stream,
        src: &DeviceBuffer,
        offset: usize,
        len: usize,
    ) -> Result<Pending<Vec<u8>>, ComputeError> {
        let digest = self.digest.clone();
        Ok(self.inner.download(stream, src, offset, len)?.map(move |v| {
            digest.lock().unwrap_or_else(PoisonError::into_inner).add(&v);
            v
        }))
    }
    fn load_kernel(&self, def: &KernelDef) -> Result<Kernel, ComputeError> {
        self.inner.load_kernel(def)
    }
    fn launch(&self, stream: &Stream, kernel: &Kernel, items: u64, args: &[Arg<'_>]) -> Result<(), ComputeError> {
        self.inner.launch(stream, kernel, items, args)
    }
    fn resident_blocks(&self, kernel: &Kernel) -> Result<Option<u64>, ComputeError> {
        self.inner.resident_blocks(kernel)
    }
    fn launch_cooperative(
        &self,
        stream: &Stream,
        kernel: &Kernel,
        items: u64,
        args: &[Arg<'_>],
    ) -> Result<(), ComputeError> {
        self.inner.launch_cooperative(stream, kernel, items, args)
    }
    fn gemm(
        &self,
        stream: &Stream,
        desc: &GemmDesc,
        a: &DeviceBuffer,
        b: &DeviceBuffer,
        c: &DeviceBuffer,
    ) -> Result<(), ComputeError> {
        self.inner.gemm(stream, desc, a, b, c)
    }
    fn synchronize(&self) -> Result<(), ComputeError> {
        self.inner.synchronize()
    }
}

fn main() -> Result<(), ComputeError> {
    let digest = Arc::new(Mutex::new(Digest::default()));
    let dev = Recording { inner: Arc::new(tenor_cpu::cpu()?), digest: digest.clone() };
    let mut failed = false;
    for (name, check) in tenor_conformance::checks() {
        digest.lock().unwrap_or_else(PoisonError::into_inner).reset();
        let r = check(&dev);
        failed |= r.is_err();
        let d = digest.lock().unwrap_or_else(PoisonError::into_inner);
        println!("{name:20} {:016x} {:>9} bytes {}", d.hash, d.bytes, if r.is_ok() { "ok" } else { "FAILED" });
    }
    if failed {
        std::process::exit(1);
    }
    Ok(())
}
