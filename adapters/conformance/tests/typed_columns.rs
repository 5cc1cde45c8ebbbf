//! The host-side columns generated from a batch kernel's `[variant]` table
//! (`tenor_kernels::typed::<Batch>Columns`, ADR 0027) launch the batch kernel so that each
//! product's partials are bitwise those of the single kernel launched for it alone (the batch
//! kernels' contract), refuse what one launch cannot hold, and the fp32 conversion rounds each
//! real once.

use tenor_kernels::typed::{
    McBarrier, McBarrierBatch, McBarrierBatchColumns, McBarrierBuffers, McBarrierScalars, McEuropeanF32Scalars,
    McEuropeanScalars,
};
use tenor_ports::{Compute, ComputeError, ComputeExt};

fn barrier(steps: u32, spot: f64, barrier: f64, kind: u32, continuous: u32) -> McBarrierScalars {
    McBarrierScalars {
        seed: 0x5EED,
        pairs: 5001,
        steps,
        spot,
        strike: 100.0,
        barrier,
        rebate: 1.5,
        is_call: kind & 1,
        kind,
        continuous,
        drift_dt: 0.0002,
        vol_sqrt_dt: 0.06,
        rate_dt: 0.003,
        discount: 0.95,
    }
}

/// Three barrier products pushed into the columns and launched as one `mc_barrier_batch`: each
/// product's slice of the partials equals, bitwise, `mc_barrier` launched for it alone.
#[test]
fn columns_launch_each_product_as_its_single_kernel_would() {
    let dev = tenor_cpu::cpu().expect("cpu");
    let s = dev.default_stream().clone();
    let products = [barrier(17, 100.0, 90.0, 0, 1), barrier(9, 105.0, 112.0, 2, 0), barrier(24, 98.0, 80.0, 1, 1)];
    let mut columns = McBarrierBatchColumns::default();
    for p in &products {
        columns.push(p).expect("same seed and pairs");
    }
    assert_eq!(columns.len(), 3);
    let per = McBarrierBatch::blocks(5001);
    let items = 3 * per * u64::from(McBarrierBatch::BLOCK);
    let partials = dev.alloc_elems::<f64>(&s, 2 * 3 * per as usize).expect("alloc");
    let kernel = McBarrierBatch::load(&dev).expect("load");
    let inputs = columns.enqueue(&dev, &s, &kernel, McBarrierBuffers { partials: &partials }, items).expect("launch");
    assert_eq!(inputs.len(), 12, "one buffer per column");
    let batch: Vec<f64> = dev.download_vec(&s, &partials).expect("download");
    let w = 2 * per as usize;
    for (i, p) in products.iter().enumerate() {
        let alone = dev.alloc_elems::<f64>(&s, w).expect("alloc");
        McBarrier::new(McBarrierBuffers { partials: &alone }, *p).launch(&dev, &s).expect("single launch");
        let alone: Vec<f64> = dev.download_vec(&s, &alone).expect("download");
        let slice = &batch[i * w..(i + 1) * w];
        assert!(slice.iter().zip(&alone).all(|(a, b)| a.to_bits() == b.to_bits()), "product {i}: {slice:?} {alone:?}");
        assert!(alone[0] > 0.0, "product {i} is worth something");
    }
}

/// One launch has one seed and one pair count: a product with another is refused, naming the
/// scalar and keeping the columns as they were; a launch without products is refused too.
#[test]
fn columns_refuse_a_second_seed_and_an_empty_launch() {
    let mut columns = McBarrierBatchColumns::default();
    columns.push(&barrier(17, 100.0, 90.0, 0, 1)).expect("first");
    let other = McBarrierScalars { seed: 7, ..barrier(17, 100.0, 90.0, 0, 1) };
    match columns.push(&other) {
        Err(ComputeError::InvalidArgument(m)) => {
            assert!(m.contains("mc_barrier_batch: product 1 has seed 7") && m.contains("one seed"), "{m}")
        }
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
    let more = McBarrierScalars { pairs: 64, ..barrier(17, 100.0, 90.0, 0, 1) };
    assert!(matches!(columns.push(&more), Err(ComputeError::InvalidArgument(m)) if m.contains("has pairs 64")));
    assert_eq!(columns.len(), 1, "a refused product is not pushed");
    let dev = tenor_cpu::cpu().expect("cpu");
    let s = dev.default_stream().clone();
    let partials = dev.alloc_elems::<f64>(&s, 2).expect("alloc");
    let kernel = McBarrierBatch::load(&dev).expect("load");
    let empty = McBarrierBatchColumns::default();
    match empty.enqueue(&dev, &s, &kernel, McBarrierBuffers { partials: &partials }, 0) {
        Err(ComputeError::InvalidArgument(m)) => assert!(m.contains("a launch without products"), "{m}"),
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
}

/// `to_f32` rounds every `f64` scalar once to the nearest `f32` (`as`, IEEE round to nearest
/// even) and keeps the integers.
#[test]
fn fp32_scalars_are_the_fp64_ones_rounded_once() {
    let p = McEuropeanScalars {
        seed: u64::MAX,
        pairs: 3,
        spot: 100.1,
        strike: 0.1,
        is_call: 1,
        drift: -0.02,
        vol_sqrt_t: 0.2,
        discount: 1.0 - 1e-12,
    };
    let want = McEuropeanF32Scalars {
        seed: u64::MAX,
        pairs: 3,
        spot: 100.1_f32,
        strike: 0.1_f32,
        is_call: 1,
        drift: -0.02_f32,
        vol_sqrt_t: 0.2_f32,
        discount: 1.0_f32,
    };
    assert_eq!(p.to_f32(), want);
}
