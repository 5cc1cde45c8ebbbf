//! The SYCL adapter's own behaviour on the OpenCL CPU device: device selection, compile
//! errors, cross-stream event dependencies, downloads, the USM allocator and a gemm larger than
//! the conformance suite's, each against an independent value (the Rust generator, the CPU
//! backend, a hand-made case).
#![cfg(feature = "runtime")]

use tenor_kernels::typed::{PhiloxNormals, ReduceSumSumsq};
use tenor_ports::{Allocator, Compute, ComputeError, ComputeExt, GemmDesc, KernelDef, Precision, Transpose};
use tenor_sycl::{sycl, SyclCompute};

fn cpu_device() -> SyclCompute {
    sycl("cpu").expect("the OpenCL CPU device (scripts/install-sycl-runtime)")
}

#[test]
fn devices_are_selected_by_kind_index_and_name() {
    let dev = cpu_device();
    let info = dev.info().clone();
    assert_eq!(info.backend, "sycl");
    assert!(info.fp64 && info.memory_bytes > 0 && info.compute_units > 0, "{info:?}");
    assert!(!tenor_sycl::device_names().expect("device list").is_empty());
    let by_index = sycl("index:0").expect("index:0");
    assert!(!by_index.info().name.is_empty());
    let by_name = sycl(&info.name.to_uppercase()).expect("by name, case-insensitive");
    assert_eq!(by_name.info().name, info.name);
    assert_eq!(adapter(&by_name).raw_info().identity, adapter(&dev).raw_info().identity, "same SYCL device");
    // "index:N" takes decimal digits only: anything else is refused by name, never read as 0.
    for bad in ["index:foo", "index:", "index:1x", "index:-1", "index: 0"] {
        match sycl(bad) {
            Err(ComputeError::InvalidArgument(message)) => {
                assert!(message.contains(bad) && message.contains("digits"), "{bad}: {message}")
            }
            other => panic!("{bad}: expected InvalidArgument, got {other:?}"),
        }
    }
    match sycl("no-such-device-anywhere") {
        Err(ComputeError::Unavailable { backend, reason }) => {
            assert_eq!(backend, "sycl");
            assert!(reason.contains("no-such-device-anywhere") && reason.contains(&info.name), "{reason}");
        }
        other => panic!("expected Unavailable, got {other:?}"),
    }
}

/// The adapter behind a SYCL device, for its own description and USM allocator.
fn adapter(dev: &tenor_sycl::SyclCompute) -> &tenor_sycl::SyclDriver {
    // SAFETY: the tests only read the driver's description and use its allocator through the
    // safe Allocator port; nothing is enqueued through the driver's raw methods.
    unsafe { dev.driver() }
}

fn manifest(name: &str) -> KernelDef {
    let text = format!(
        "name = \"{name}\"\ndescription = \"test\"\n[launch]\nitems = \"n\"\nblock = 64\n\
         [[args]]\nname = \"out\"\ntype = \"f64*\"\naccess = \"write\"\nlen = \"n\"\n[[args]]\nname = \"n\"\ntype = \"u64\"\n"
    );
    KernelDef::from_toml(&text, "test").expect("manifest")
}

#[test]
fn compile_errors_carry_the_log_and_missing_sources_are_named() {
    let dev = cpu_device();
    let bad = manifest("broken").with_source(
        "sycl",
        "extern \"C\" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>)) void broken(double *out, \
         uint64_t n) { undeclared_identifier = 1; }",
    );
    match dev.load_kernel(&bad) {
        Err(ComputeError::Compile { kernel, backend, log }) => {
            assert_eq!((kernel.as_str(), backend.as_str()), ("broken", "sycl"));
            assert!(log.contains("undeclared_identifier"), "log: {log}");
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
    assert!(matches!(dev.load_kernel(&manifest("nosource")), Err(ComputeError::UnknownKernel { .. })));
}

/// Normals written on one stream and downloaded on another, ordered only by an event
/// dependency (the untracked launch leaves the ordering to the test).
#[test]
fn event_dependencies_order_streams() {
    let dev = cpu_device();
    let (a, b) = (dev.default_stream().clone(), dev.create_stream().expect("stream"));
    let (paths, steps, seed) = (50_000u64, 8u32, 42u64);
    let k = PhiloxNormals::load(&dev).expect("load");
    let out = dev.alloc_elems::<f64>(&a, (paths * u64::from(steps)) as usize).expect("alloc");
    let normals = PhiloxNormals { out: &out, seed, path_offset: 0, paths, steps };
    dev.launch_untracked(&a, &k, normals.items(), &normals.args()).expect("launch");
    let ev = a.record().expect("record");
    b.wait(&ev).expect("event dependency");
    let bytes = dev.download(&b, &out, 0, out.len()).expect("download").wait().expect("wait");
    let got: Vec<f64> = bytemuck::pod_collect_to_vec(&bytes);
    for (idx, g) in got.iter().enumerate().step_by(97) {
        let (s, p) = ((idx as u64 / paths) as u32, idx as u64 % paths);
        let want = tenor_kernels::philox::normal_f64(seed, p, s);
        assert!((g - want).abs() <= 1e-12 * want.abs().max(1.0), "step {s} path {p}: {g} vs {want}");
    }
    assert!(ev.is_complete().expect("query"));
    dev.synchronize().expect("sync");
}

/// The tracked device orders a read on stream B after a write on stream A by itself.
#[test]
fn tracked_buffers_order_streams_and_pending_downloads_may_be_dropped() {
    let dev = cpu_device();
    let (a, b) = (dev.default_stream().clone(), dev.create_stream().expect("stream"));
    let n = 300_000u64;
    let seed = 7u64;
    let x = dev.alloc_elems::<f64>(&a, n as usize).expect("alloc");
    PhiloxNormals { out: &x, seed, path_offset: 0, paths: n, steps: 1 }.launch(&dev, &a).expect("launch");
    let blocks = n.div_ceil(4096) as usize;
    let partials = dev.alloc_elems::<f64>(&b, 2 * blocks).expect("alloc");
    ReduceSumSumsq { x: &x, partials: &partials, n }.launch(&dev, &b).expect("launch");
    // A download nobody waits for: its host memory must outlive the copy.
    drop(dev.download(&b, &x, 0, x.len()).expect("download"));
    let got: Vec<f64> = dev.download_vec(&b, &partials).expect("partials");
    for blk in (0..blocks).step_by(7) {
        let (mut s, mut q) = (0.0, 0.0);
        for i in (blk as u64 * 4096)..((blk as u64 + 1) * 4096).min(n) {
            let z = tenor_kernels::philox::normal_f64(seed, i, 0);
            s += z;
            q += z * z;
        }
        assert!((got[2 * blk] - s).abs() <= 1e-12 * q, "block {blk} sum {} vs {s}", got[2 * blk]);
        assert!((got[2 * blk + 1] - q).abs() <= 1e-12 * q, "block {blk} sumsq {} vs {q}", got[2 * blk + 1]);
    }
    dev.synchronize().expect("sync");
}

#[test]
fn usm_allocator_counts_blocks_and_frees_in_stream_order() {
    let dev = cpu_device();
    let s = dev.default_stream().clone();
    let alloc = adapter(&dev).usm_allocator().clone();
    // The OpenCL CPU device has no ext_oneapi_async_memory_alloc aspect.
    assert_eq!(alloc.is_async(), adapter(&dev).raw_info().async_alloc);
    let before = alloc.report();
    let block = alloc.allocate(1 << 20, &s).expect("allocate");
    let during = alloc.report();
    assert_eq!(during.used - before.used, 1 << 20);
    assert_eq!(during.live_blocks, before.live_blocks + 1);
    // SAFETY: the block was allocated by this test and nothing else holds it.
    unsafe { alloc.deallocate(block, &s) }.expect("free");
    dev.synchronize().expect("sync");
    assert_eq!(alloc.report().used, before.used);
}

#[test]
fn buffers_come_from_the_toolkit_pool_over_usm_without_async_allocation() {
    let dev = cpu_device();
    let s = dev.default_stream().clone();
    if adapter(&dev).raw_info().async_alloc {
        assert_eq!(dev.allocator().name(), adapter(&dev).usm_allocator().name());
        return;
    }
    let usm = adapter(&dev).usm_allocator().clone();
    let before = usm.report();
    // Two 1 MiB buffers: one 32 MiB USM slab serves both.
    let a = dev.upload_slice(&s, &[1.5f64; 1 << 17]).expect("upload");
    let b = dev.upload_slice(&s, &[2.5f64; 1 << 17]).expect("upload");
    let during = usm.report();
    assert_eq!(during.live_blocks, before.live_blocks + 1, "one slab from USM");
    assert_eq!(during.used - before.used, 32 << 20);
    let back: Vec<f64> = dev.download_vec(&s, &b).expect("download");
    assert!(back.iter().all(|v| *v == 2.5));
    drop((a, b));
    dev.synchronize().expect("sync");
    assert_eq!(dev.allocator().report().used, 0, "every pool byte returned");
}

fn gemm_case(precision: Precision) -> f64 {
    let (m, n, k) = (37usize, 29usize, 41usize);
    let mut desc = GemmDesc::new(precision, Transpose::Yes, Transpose::No, m, n, k);
    desc.alpha = 0.75;
    desc.beta = -1.25;
    desc.lda = k + 3;
    desc.ldc = m + 2;
    let (ab, bb, cb) = desc.operand_bytes();
    let es = desc.element_bytes();
    let fill = |len: usize, mul: f64| (0..len).map(|i| ((i * 37 % 101) as f64 - 50.0) * mul).collect::<Vec<f64>>();
    let (a, b, c) = (fill(ab / es, 0.01), fill(bb / es, 0.02), fill(cb / es, 0.03));
    let run = |dev: &dyn Compute| -> Vec<f64> {
        let s = dev.default_stream().clone();
        match precision {
            Precision::F64 => {
                let (ga, gb, gc) = (
                    dev.upload_slice(&s, &a).expect("a"),
                    dev.upload_slice(&s, &b).expect("b"),
                    dev.upload_slice(&s, &c).expect("c"),
                );
                dev.gemm(&s, &desc, &ga, &gb, &gc).expect("gemm");
                dev.download_vec::<f64>(&s, &gc).expect("c")
            }
            Precision::F32 => {
                let f = |v: &[f64]| v.iter().map(|x| *x as f32).collect::<Vec<f32>>();
                let (ga, gb, gc) = (
                    dev.upload_slice(&s, &f(&a)).expect("a"),
                    dev.upload_slice(&s, &f(&b)).expect("b"),
                    dev.upload_slice(&s, &f(&c)).expect("c"),
                );
                dev.gemm(&s, &desc, &ga, &gb, &gc).expect("gemm");
                dev.download_vec::<f32>(&s, &gc).expect("c").into_iter().map(f64::from).collect()
            }
        }
    };
    let got = run(&cpu_device());
    let want = run(&tenor_cpu::cpu().expect("cpu"));
    tenor_conformance::max_rel_diff(&got, &want)
}

#[test]
fn gemm_with_transpose_padding_and_beta_matches_the_cpu_backend() {
    let d64 = gemm_case(Precision::F64);
    assert!(d64 <= tenor_conformance::FP64_RTOL, "dgemm rel diff {d64}");
    let d32 = gemm_case(Precision::F32);
    assert!(d32 <= tenor_conformance::FP32_RTOL, "sgemm rel diff {d32}");
}

#[test]
fn every_built_in_kernel_has_a_sycl_source() {
    let defs = tenor_kernels::registry().expect("registry");
    let missing: Vec<&str> = defs.iter().filter(|d| !d.sources.contains_key("sycl")).map(|d| d.name.as_str()).collect();
    assert!(missing.is_empty(), "kernels without kernels/<name>/sycl.cpp: {missing:?}");
}

/// The message of an asynchronous error, or a panic naming what came instead.
fn async_message(result: Result<(), ComputeError>, what: &str) -> String {
    match result {
        Err(ComputeError::Async(inner)) => match *inner {
            ComputeError::Backend { backend, message, .. } => {
                assert_eq!(backend, "sycl");
                message
            }
            other => panic!("{what}: expected a SYCL backend error inside Async, got {other:?}"),
        },
        other => panic!("{what}: expected ComputeError::Async, got {other:?}"),
    }
}

#[test]
fn asynchronous_errors_reach_the_caller_at_the_next_wait_and_only_once() {
    use tenor_sycl::handle::{DeviceHandle, Queue};
    // A host task that throws is delivered by the runtime to the queue's async_handler (SYCL
    // 2020, 4.13.2), not at submission: the shim must keep it and return it at a wait.
    let dev = DeviceHandle::open("cpu").expect("the OpenCL CPU device");
    let q = Queue::new(&dev).expect("queue");
    q.fail_async("first async failure").expect("enqueued");
    let message = async_message(q.wait(), "queue wait");
    assert!(message.contains("first async failure"), "{message}");
    q.wait().expect("the error was taken by the first wait, not kept for the next");

    // Through an event: waiting on it returns the error; waiting while keeping leaves it on
    // the device for take_async.
    q.fail_async("second async failure").expect("enqueued");
    let ev = q.record().expect("event");
    let message = async_message(ev.wait(), "event wait");
    assert!(message.contains("second async failure"), "{message}");
    q.fail_async("third async failure").expect("enqueued");
    let ev = q.record().expect("event");
    ev.wait_keeping_async().expect("the wait itself succeeds");
    let message = async_message(dev.take_async(), "take_async");
    assert!(message.contains("third async failure"), "{message}");
    dev.take_async().expect("nothing kept after take_async");
}
