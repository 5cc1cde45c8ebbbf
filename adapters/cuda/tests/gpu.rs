//! The CUDA backend on a real GPU: the conformance suite (every kernel against the CPU
//! reference, gemm, copies) with each allocator, and the allocators' own contracts.
//!
//! These tests are `#[ignore]`d: CI has no GPU, and a test that cannot run must not be counted
//! as passing there. `scripts/gpu-check` runs them on the GPU machine with `--ignored` and
//! `TENOR_REQUIRE_BACKENDS=cuda`, where an unavailable CUDA FAILS. Run by hand without that
//! variable on a machine without CUDA, each test prints that it did not run.

use std::sync::Arc;

use tenor_cuda::alloc::{
    DefaultPool, ExplicitPool, ExplicitPoolConfig, ImportedPool, IpcPointer, PlainAllocator, PoolConfig, PoolHandle,
    ReusePolicy, Sharing,
};
use tenor_cuda::{cuda, cuda_with_allocator, CudaCompute};
use tenor_ports::{AllocError, Allocator, Compute, ComputeExt};

/// The device, or `None` after saying why it did not run; panics when CUDA is required
/// (`TENOR_REQUIRE_BACKENDS`, parsed by `tenor_conformance::require`).
fn device() -> Option<CudaCompute> {
    tenor_conformance::require::device_or_skip("cuda", cuda())
}

fn ctx_of(d: &CudaCompute) -> Arc<tenor_cuda::Context> {
    // SAFETY: only reads the context handle; nothing is enqueued through the driver.
    unsafe { d.driver() }.context().clone()
}

#[test]
#[ignore = "needs an NVIDIA GPU: run by scripts/gpu-check with --ignored"]
fn conformance_on_the_default_pool() {
    let Some(dev) = device() else { return };
    println!("{:#?}", dev.info());
    tenor_conformance::assert_all(&dev);
}

/// A launch with a too-short buffer is a typed error before anything is enqueued, not an
/// out-of-bounds write that faults asynchronously (issue 16).
#[test]
#[ignore = "needs an NVIDIA GPU: run by scripts/gpu-check with --ignored"]
fn short_buffers_are_typed_errors_on_cuda() {
    let Some(dev) = device() else { return };
    tenor_conformance::bounds::assert_short_buffers(&dev);
}

#[test]
#[ignore = "needs an NVIDIA GPU: run by scripts/gpu-check with --ignored"]
fn conformance_on_the_explicit_pool_and_cumemalloc() {
    let Some(_) = device() else { return };
    let explicit = cuda_with_allocator(0, |ctx| {
        Ok(Arc::new(ExplicitPool::new(ctx.clone(), ExplicitPoolConfig::default())?) as Arc<dyn Allocator>)
    })
    .expect("explicit pool device");
    tenor_conformance::assert_all(&explicit);
    let plain = cuda_with_allocator(0, |ctx| Ok(Arc::new(PlainAllocator::new(ctx.clone())) as Arc<dyn Allocator>))
        .expect("cuMemAlloc device");
    tenor_conformance::assert_all(&plain);
}

#[test]
#[ignore = "needs an NVIDIA GPU: run by scripts/gpu-check with --ignored"]
fn conformance_through_toolkit_strategies_over_each_cuda_upstream() {
    // The toolkit's strategies are backend-neutral; here they serve real device memory: caching
    // over the default pool, binning over the explicit pool, slab over cuMemAlloc. Every kernel
    // must still agree with the CPU reference, so reuse never hands out a block still in use.
    let Some(_) = device() else { return };
    let ordered = |up: Arc<dyn Allocator>, which: &str| -> Arc<dyn Allocator> {
        match which {
            "caching" => Arc::new(tenor_alloc::Caching::new(
                up,
                tenor_alloc::CachingConfig { upstream_ordered: true, ..Default::default() },
            )),
            "binning" => Arc::new(tenor_alloc::Binning::new(
                up,
                tenor_alloc::BinningConfig { upstream_ordered: true, ..Default::default() },
            )),
            // cuMemAlloc is not stream-ordered: the slab waits for the freeing stream itself.
            _ => Arc::new(tenor_alloc::Slab::new(up, tenor_alloc::SlabConfig::default())),
        }
    };
    let caching = cuda_with_allocator(0, |ctx| {
        let up = Arc::new(DefaultPool::new(ctx.clone(), PoolConfig::default())?) as Arc<dyn Allocator>;
        Ok(ordered(up, "caching"))
    })
    .expect("caching over the default pool");
    tenor_conformance::assert_all(&caching);
    let binning = cuda_with_allocator(0, |ctx| {
        let up = Arc::new(ExplicitPool::new(ctx.clone(), ExplicitPoolConfig::default())?) as Arc<dyn Allocator>;
        Ok(ordered(up, "binning"))
    })
    .expect("binning over the explicit pool");
    tenor_conformance::assert_all(&binning);
    let slab = cuda_with_allocator(0, |ctx| Ok(ordered(Arc::new(PlainAllocator::new(ctx.clone())), "slab")))
        .expect("slab over cuMemAlloc");
    tenor_conformance::assert_all(&slab);
}

#[test]
#[ignore = "needs an NVIDIA GPU: run by scripts/gpu-check with --ignored"]
fn device_info_names_every_version() {
    let Some(dev) = device() else { return };
    let info = dev.info();
    assert_eq!(info.backend, "cuda");
    assert!(info.memory_bytes > 1 << 30 && info.compute_units > 0, "{info:?}");
    for lib in ["cuda-driver-api", "nvrtc", "cublas", "compute-capability"] {
        assert!(info.versions.iter().any(|(k, v)| k == lib && !v.is_empty()), "{lib} missing in {info:?}");
    }
    assert!(!info.driver_version.is_empty());
}

#[test]
#[ignore = "needs an NVIDIA GPU: run by scripts/gpu-check with --ignored"]
fn default_pool_applies_sharing_and_reuse_policies() {
    let Some(dev) = device() else { return };
    let ctx = ctx_of(&dev);
    for (sharing, threshold) in
        [(Sharing::Exclusive, u64::MAX), (Sharing::Shared { working_set: 1 << 30 }, 1 << 30), (Sharing::Unknown, 0)]
    {
        for reuse in [ReusePolicy::driver_default(), ReusePolicy::deterministic()] {
            let pool = DefaultPool::new(ctx.clone(), PoolConfig { sharing, reuse }).expect("pool");
            let (t, r) = pool.handle().read_config().expect("read back");
            assert_eq!((t, r), (threshold, reuse), "{sharing:?}");
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: run by scripts/gpu-check with --ignored"]
fn opening_and_using_the_backend_leaves_the_device_default_pool_as_another_library_set_it() {
    // NVIDIA's rule for a library: do not change the device's pool. Play "another library":
    // give the device's default pool a threshold and reuse settings no default of Tenor's
    // would write, then open the backend with default settings, run the whole conformance suite
    // on it (allocations, frees, kernels, syncs) and read the attributes back.
    if std::env::var_os(tenor_cuda::alloc::POOL_VAR).is_some() {
        panic!("{} is set; this test checks the default settings", tenor_cuda::alloc::POOL_VAR);
    }
    let Some(probe_dev) = device() else { return };
    let ctx = ctx_of(&probe_dev);
    let other = PoolConfig {
        sharing: Sharing::Shared { working_set: 123_456_789 },
        reuse: ReusePolicy {
            follow_event_dependencies: false,
            allow_opportunistic: true,
            allow_internal_dependencies: false,
        },
    };
    let shared = PoolHandle::device_default(ctx.clone()).expect("device pool handle");
    let original = shared.read_config().expect("read");
    shared.configure(&other).expect("the other library's settings");
    let set = shared.read_config().expect("read");
    assert_eq!(set, (123_456_789, other.reuse), "the driver kept the other library's settings");
    let used_before = shared.usage().expect("usage");
    let dev = cuda().expect("backend with default settings");
    assert!(dev.allocator().name().starts_with("cuda-explicit-pool"), "default allocator: {}", dev.allocator().name());
    tenor_conformance::assert_all(&dev);
    let s = dev.default_stream().clone();
    let b = dev.allocator().allocate(64 << 20, &s).expect("alloc");
    // SAFETY: the block was allocated by this test and nothing else holds it.
    unsafe { dev.allocator().deallocate(b, &s) }.expect("free");
    s.synchronize().expect("sync");
    let after = shared.read_config().expect("read");
    let used_after = shared.usage().expect("usage");
    drop(dev);
    shared.configure(&PoolConfig { sharing: Sharing::Shared { working_set: original.0 }, reuse: original.1 }).ok();
    assert_eq!(after, set, "opening and using the backend changed the device's default pool");
    assert_eq!(
        used_after.peak_used, used_before.peak_used,
        "Tenor's allocations must not come from the device's default pool"
    );
}

#[test]
#[ignore = "needs an NVIDIA GPU: run by scripts/gpu-check with --ignored"]
fn watermarks_reset_and_trim_release_memory() {
    let Some(dev) = device() else { return };
    let ctx = ctx_of(&dev);
    let s = dev.default_stream().clone();
    let pool = DefaultPool::new(ctx, PoolConfig { sharing: Sharing::Exclusive, reuse: ReusePolicy::deterministic() })
        .expect("pool");
    pool.trim(0).expect("trim");
    s.synchronize().expect("sync");
    pool.reset_peaks();
    let big = 256 << 20;
    let b = pool.allocate(big, &s).expect("alloc");
    s.synchronize().expect("sync");
    let r = pool.report();
    assert!(r.used >= big && r.peak_used >= big && r.reserved >= big, "{r:?}");
    // SAFETY: the block was allocated by this test and nothing else holds it.
    unsafe { pool.deallocate(b, &s) }.expect("free");
    s.synchronize().expect("sync");
    let r = pool.report();
    assert!(r.reserved >= big, "threshold max keeps the memory after a sync: {r:?}");
    assert!(r.peak_used >= big, "{r:?}");
    pool.reset_peaks();
    let r = pool.report();
    assert!(r.peak_used < big, "reset brings the used watermark down to the current use: {r:?}");
    pool.trim(0).expect("trim");
    let r = pool.report();
    assert!(r.reserved < big, "trim to 0 releases the unused reservation: {r:?}");
}

#[test]
#[ignore = "needs an NVIDIA GPU: run by scripts/gpu-check with --ignored"]
fn explicit_pool_respects_max_size_and_leaves_the_device_pool_alone() {
    let Some(dev) = device() else { return };
    let ctx = ctx_of(&dev);
    let s = dev.default_stream().clone();
    let current = || {
        let mut p = std::ptr::null_mut();
        // SAFETY: valid device and out-pointer.
        let r = unsafe { cudarc::driver::sys::cuDeviceGetMemPool(&mut p, ctx.device()) };
        assert_eq!(r, cudarc::driver::sys::CUresult::CUDA_SUCCESS);
        p as usize
    };
    let before = current();
    let max = 64 << 20;
    let pool =
        ExplicitPool::new(ctx.clone(), ExplicitPoolConfig { max_size: max, ..Default::default() }).expect("pool");
    let a = pool.allocate(32 << 20, &s).expect("within the maximum");
    let err = pool.allocate(48 << 20, &s).expect_err("beyond the maximum");
    assert!(matches!(err, AllocError::OutOfMemory { requested, .. } if requested == 48 << 20), "{err:?}");
    // SAFETY: the block was allocated by this test and nothing else holds it.
    unsafe { pool.deallocate(a, &s) }.expect("free");
    s.synchronize().expect("sync");
    assert_eq!(current(), before, "the device's current pool is unchanged");
}

#[test]
#[ignore = "needs an NVIDIA GPU: run by scripts/gpu-check with --ignored"]
fn rdma_buffers_come_from_cumemalloc_outside_every_pool() {
    let Some(dev) = device() else { return };
    let plain = PlainAllocator::new(ctx_of(&dev));
    let b = plain.rdma_buffer(1 << 20).expect("rdma buffer");
    assert!(b.sync_memops().expect("attribute"), "SYNC_MEMOPS set for GPUDirect RDMA");
    assert!(!b.in_pool().expect("attribute"), "not pool memory");
    assert_eq!(b.len(), 1 << 20);
}

/// The IPC child: imports the pool and the pointer named by the environment and prints a
/// checksum of the bytes. Does nothing unless started by `ipc_second_process_reads_a_buffer`;
/// `scripts/gpu-check` skips it in the suite (`--skip ipc_child`) so it is never counted alone.
#[test]
#[ignore = "needs an NVIDIA GPU: run by scripts/gpu-check with --ignored"]
fn ipc_child() {
    let (Ok(fd), Ok(rec), Ok(len)) =
        (std::env::var("TENOR_IPC_FD"), std::env::var("TENOR_IPC_PTR"), std::env::var("TENOR_IPC_LEN"))
    else {
        return;
    };
    let ctx = tenor_cuda::Context::open(0).expect("child context");
    let pool = ImportedPool::from_fd(ctx, fd.parse().expect("fd")).expect("import pool");
    let ptr = pool.import_pointer(&IpcPointer::from_hex(&rec).expect("record")).expect("import pointer");
    let bytes = pool.read(ptr, len.parse().expect("len")).expect("read");
    let sum: u64 =
        bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).fold(0u64, u64::wrapping_add);
    println!("IPC-CHECKSUM {sum}");
    pool.release_pointer(ptr).expect("release");
}

#[test]
#[ignore = "needs an NVIDIA GPU: run by scripts/gpu-check with --ignored"]
fn ipc_second_process_reads_a_buffer() {
    let Some(dev) = device() else { return };
    let ctx = ctx_of(&dev);
    let s = dev.default_stream().clone();
    let pool = ExplicitPool::new(ctx, ExplicitPoolConfig { ipc: true, ..Default::default() }).expect("ipc pool");
    let n = 1 << 16;
    let data: Vec<u64> = (0..n as u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 8).collect();
    let want: u64 = data.iter().copied().fold(0u64, u64::wrapping_add);
    let block = pool.allocate(n * 8, &s).expect("alloc");
    let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
    // SAFETY: block is a live allocation of n * 8 bytes; synchronous copy.
    let r = unsafe { cudarc::driver::sys::cuMemcpyHtoD_v2(block.ptr, bytes.as_ptr().cast(), bytes.len()) };
    assert_eq!(r, cudarc::driver::sys::CUresult::CUDA_SUCCESS);
    s.synchronize().expect("sync");
    let fd = pool.export_fd().expect("export fd");
    // The child inherits the descriptor: clear close-on-exec.
    // SAFETY: fcntl on a descriptor this process owns.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFD);
        assert!(flags >= 0 && libc::fcntl(fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) == 0);
    }
    let rec = pool.export_pointer(&block).expect("export pointer");
    let out = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args(["--ignored", "--exact", "ipc_child", "--nocapture", "--test-threads=1"])
        .env("TENOR_IPC_FD", fd.to_string())
        .env("TENOR_IPC_PTR", rec.to_hex())
        .env("TENOR_IPC_LEN", (n * 8).to_string())
        .output()
        .expect("spawn child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child failed: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let got = stdout
        .lines()
        .find_map(|l| l.split_once("IPC-CHECKSUM ").map(|(_, v)| v))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no checksum from the child: {stdout}"));
    assert_eq!(got, want, "the second process read the same bytes");
    // SAFETY: the block was allocated by this test and nothing else holds it.
    unsafe { pool.deallocate(block, &s) }.expect("free");
    s.synchronize().expect("sync");
}

#[test]
#[ignore = "needs an NVIDIA GPU: run by scripts/gpu-check with --ignored"]
fn multi_stream_job_is_bitwise_reproducible_in_deterministic_mode() {
    let Some(_) = device() else { return };
    let run = || {
        let dev = cuda_with_allocator(0, |ctx| {
            Ok(Arc::new(DefaultPool::new(
                ctx.clone(),
                PoolConfig { sharing: Sharing::Exclusive, reuse: ReusePolicy::deterministic() },
            )?) as Arc<dyn Allocator>)
        })
        .expect("device");
        let streams: Vec<_> = (0..4).map(|_| dev.create_stream().expect("stream")).collect();
        let k = tenor_kernels::typed::McEuropean::load(&dev).expect("load");
        let mut pending = Vec::new();
        for (j, s) in streams.iter().cycle().take(16).enumerate() {
            let pairs = 1u64 << 20;
            let out = dev.alloc_elems::<f64>(s, 2 * (pairs as usize).div_ceil(4096)).expect("alloc");
            tenor_kernels::typed::McEuropean {
                partials: &out,
                seed: 42 + j as u64,
                pairs,
                spot: 100.0,
                strike: 90.0 + j as f64,
                is_call: 1,
                drift: 0.01,
                vol_sqrt_t: 0.2,
                discount: 0.97,
            }
            .launch_loaded(&dev, s, &k)
            .expect("launch");
            pending.push(dev.download(s, &out, 0, out.len()).expect("download"));
        }
        let v: Vec<Vec<u8>> = pending.into_iter().map(|p| p.wait().expect("wait")).collect();
        dev.synchronize().expect("sync");
        v
    };
    assert!(run() == run(), "two runs differ bitwise");
}
