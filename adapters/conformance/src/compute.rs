//! A [`Compute`] wrapper that counts what reaches the port, for tests that assert how many
//! kernel launches and device synchronisations a pricing path costs, and that can change one
//! kernel's outputs, for tests that show a check catches a wrong kernel.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tenor_ports::{
    Access, Allocator, Arg, ArgType, Compute, ComputeError, DeviceBuffer, DeviceInfo, GemmDesc, Kernel, KernelDef,
};
use tenor_ports::{Pending, Stream};

/// Forwards every [`Compute`] call unchanged to an inner device and counts two of them:
///
/// - [`Compute::launch`]: the total number of launches since creation ([`Counting::launches`]),
///   and the kernel name of each launch in call order, kept until the next
///   [`Counting::take_kernels`] (which does not reset the total);
/// - [`Compute::synchronize`]: the number of device-wide synchronisations
///   ([`Counting::syncs`]). Stream synchronisations and event waits do not go through the
///   port and are not counted.
///
/// A launch or synchronisation is counted when it reaches the wrapper, before the inner
/// device is called, so a call the inner device rejects is counted too. Allocations, copies,
/// kernel loads and gemm are forwarded without counting.
///
/// Thread safety: the counters are atomics and the kernel names sit behind a mutex, so the
/// wrapper is `Send + Sync` like every device and can be shared as `Arc<dyn Compute>` by
/// threads that launch concurrently; each launch is counted once, and the name list holds
/// the launches in the order they took the lock.
///
/// Made by [`Counting::corrupting`], it also changes what one kernel writes: after each launch
/// of that kernel, every element of each buffer the manifest marks written (`write`,
/// `read_write`) is multiplied by `1 + error` (`f64`, `f32`) or increased by 1 (`u32`, `u64`),
/// through the inner device's download and upload, in stream order. The device describes
/// itself as the inner one does, so a corrupted CPU backend is still the CPU reference to the
/// conformance suite (`tests/references.rs`: each check catches its kernel 5% off without a
/// second backend).
#[derive(Debug)]
pub struct Counting {
    inner: Arc<dyn Compute>,
    launches: AtomicU64,
    kernels: Mutex<Vec<String>>,
    syncs: AtomicU64,
    /// The kernel whose outputs are changed, and the relative error.
    corrupt: Option<(String, f64)>,
}

impl Counting {
    /// Wraps `inner` with all counts at zero.
    pub fn new(inner: Arc<dyn Compute>) -> Self {
        Self {
            inner,
            launches: AtomicU64::new(0),
            kernels: Mutex::new(Vec::new()),
            syncs: AtomicU64::new(0),
            corrupt: None,
        }
    }

    /// Wraps `inner`, changing the outputs of every launch of `kernel` by `error` (relative;
    /// integers by one; nothing when `error` is 0): see [`Counting`].
    pub fn corrupting(inner: Arc<dyn Compute>, kernel: &str, error: f64) -> Self {
        Self { corrupt: Some((kernel.to_owned(), error)), ..Self::new(inner) }
    }

    /// Changes the buffers `kernel` wrote in a launch with `args`, by `error` (nothing at 0).
    fn corrupt(&self, stream: &Stream, kernel: &Kernel, args: &[Arg<'_>], error: f64) -> Result<(), ComputeError> {
        if error == 0.0 {
            return Ok(());
        }
        for (a, def) in args.iter().zip(&kernel.def().args) {
            let Arg::Buf(buf, access) = a else { continue };
            if *access == Access::Read {
                continue;
            }
            let mut bytes = self.inner.download(stream, buf, 0, buf.len())?.wait()?;
            let eight = |c: &[u8]| <[u8; 8]>::try_from(c).unwrap_or_default();
            let four = |c: &[u8]| <[u8; 4]>::try_from(c).unwrap_or_default();
            match def.ty {
                ArgType::PtrF64 => bytes
                    .chunks_exact_mut(8)
                    .for_each(|c| c.copy_from_slice(&(f64::from_ne_bytes(eight(c)) * (1.0 + error)).to_ne_bytes())),
                ArgType::PtrU64 => bytes
                    .chunks_exact_mut(8)
                    .for_each(|c| c.copy_from_slice(&u64::from_ne_bytes(eight(c)).wrapping_add(1).to_ne_bytes())),
                ArgType::PtrF32 => bytes.chunks_exact_mut(4).for_each(|c| {
                    c.copy_from_slice(&(f32::from_ne_bytes(four(c)) * (1.0 + error as f32)).to_ne_bytes())
                }),
                _ => bytes
                    .chunks_exact_mut(4)
                    .for_each(|c| c.copy_from_slice(&u32::from_ne_bytes(four(c)).wrapping_add(1).to_ne_bytes())),
            }
            self.inner.upload(stream, buf, 0, &bytes)?;
        }
        Ok(())
    }

    /// Wraps a fresh CPU reference backend ([`tenor_cpu::cpu`]).
    ///
    /// # Errors
    /// The CPU backend's creation error (its thread pool).
    pub fn cpu() -> Result<Self, ComputeError> {
        Ok(Self::new(Arc::new(tenor_cpu::cpu()?)))
    }

    /// Kernel launches since creation.
    pub fn launches(&self) -> u64 {
        self.launches.load(Ordering::SeqCst)
    }

    /// The kernel names ([`KernelDef::name`]) of the launches since creation or the previous
    /// call, in call order; empties the list.
    pub fn take_kernels(&self) -> Vec<String> {
        std::mem::take(&mut *self.kernels.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Device-wide synchronisations ([`Compute::synchronize`]) since creation.
    pub fn syncs(&self) -> u64 {
        self.syncs.load(Ordering::SeqCst)
    }
}

impl Compute for Counting {
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
        self.inner.download(stream, src, offset, len)
    }
    fn load_kernel(&self, def: &KernelDef) -> Result<Kernel, ComputeError> {
        self.inner.load_kernel(def)
    }
    fn launch(&self, stream: &Stream, kernel: &Kernel, items: u64, args: &[Arg<'_>]) -> Result<(), ComputeError> {
        self.launches.fetch_add(1, Ordering::SeqCst);
        self.kernels.lock().unwrap_or_else(PoisonError::into_inner).push(kernel.def().name.clone());
        self.inner.launch(stream, kernel, items, args)?;
        match &self.corrupt {
            Some((name, error)) if *name == kernel.def().name => self.corrupt(stream, kernel, args, *error),
            _ => Ok(()),
        }
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
        self.launches.fetch_add(1, Ordering::SeqCst);
        self.kernels.lock().unwrap_or_else(PoisonError::into_inner).push(kernel.def().name.clone());
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
        self.syncs.fetch_add(1, Ordering::SeqCst);
        self.inner.synchronize()
    }
}

#[cfg(test)]
mod tests {
    use tenor_ports::ComputeExt;

    use super::*;

    /// Three `reduce_sum_sumsq` launches over x = [1, 2, 3, 4] (one block): each gives
    /// sum 1 + 2 + 3 + 4 = 10 and sum of squares 1 + 4 + 9 + 16 = 30, and the wrapper counts
    /// exactly three launches and the two synchronisations made.
    #[test]
    fn forwards_to_the_cpu_backend_and_counts_each_launch_and_sync() {
        let dev = Counting::cpu().expect("cpu");
        assert_eq!((dev.launches(), dev.syncs()), (0, 0));
        let s = dev.default_stream().clone();
        let x = dev.upload_slice(&s, &[1.0f64, 2.0, 3.0, 4.0]).expect("upload");
        for _ in 0..3 {
            let out = dev.alloc_elems::<f64>(&s, 2).expect("alloc");
            tenor_kernels::typed::ReduceSumSumsq { x: &x, partials: &out, n: 4 }.launch(&dev, &s).expect("launch");
            let got: Vec<f64> = dev.download_vec(&s, &out).expect("download");
            assert_eq!(got, vec![10.0, 30.0]);
        }
        dev.synchronize().expect("sync");
        dev.synchronize().expect("sync");
        assert_eq!(dev.launches(), 3);
        assert_eq!(dev.syncs(), 2);
        assert_eq!(dev.take_kernels(), vec!["reduce_sum_sumsq"; 3]);
        assert!(dev.take_kernels().is_empty(), "take empties the names");
        assert_eq!(dev.launches(), 3, "take keeps the total");
    }

    /// A launch the inner device rejects (wrong argument count) is still counted.
    #[test]
    fn a_rejected_launch_is_counted() {
        let dev = Counting::cpu().expect("cpu");
        let s = dev.default_stream().clone();
        let k = dev.load_kernel(tenor_kernels::get("reduce_sum_sumsq").expect("kernel")).expect("load");
        assert!(dev.launch(&s, &k, 4, &[Arg::U64(4)]).is_err());
        assert_eq!(dev.launches(), 1);
        assert_eq!(dev.take_kernels(), vec!["reduce_sum_sumsq"]);
    }
}
