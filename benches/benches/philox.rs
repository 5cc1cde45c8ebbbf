//! Philox4x32-10 normals on the CPU backend (normals/s).
#![allow(missing_docs)] // criterion_group! generates undocumented functions
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tenor_kernels::typed::PhiloxNormals;
use tenor_ports::{Compute, ComputeExt};

fn philox(c: &mut Criterion) {
    let dev = tenor_cpu::cpu().expect("cpu backend");
    let s = dev.default_stream().clone();
    let k = PhiloxNormals::load(&dev).expect("load");
    let paths = 1u64 << 20;
    let out = dev.alloc_elems::<f64>(&s, paths as usize).expect("alloc");
    let mut g = c.benchmark_group("philox_normals_f64");
    g.throughput(Throughput::Elements(paths));
    g.bench_function("cpu", |b| {
        b.iter(|| {
            PhiloxNormals { out: &out, seed: 1, path_offset: 0, paths, steps: 1 }
                .launch_loaded(&dev, &s, &k)
                .expect("launch");
            dev.synchronize().expect("sync");
        });
    });
    g.finish();
}

criterion_group!(benches, philox);
criterion_main!(benches);
