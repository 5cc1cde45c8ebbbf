//! The simulated device's sizes are limits, not allocations (issue 29): a device of any size costs
//! the host only the bytes work touches, and its bookkeeping grows with the work (operations,
//! waits, streams), not with streams times streams, nor its cube.

use tenor_ports::{Access, CheckedDevice, Compute, ComputeExt};
use tenor_sim::{sim, SimConfig, SimDriver};

/// A device of 2^62 bytes (4 EiB, more than any host's address space): creating it, allocating
/// isize::MAX-sized and ordinary blocks, touching and freeing them costs nothing up front, and
/// data written to an ordinary block reads back.
#[test]
fn a_device_larger_than_the_host_costs_only_the_bytes_work_touches() {
    let driver = SimDriver::new(SimConfig { seed: 3, memory_bytes: 1 << 62 });
    let s = CheckedDevice::create_stream(&driver).expect("stream");
    let mem = driver.memory();
    let big = mem.allocate(1 << 61, &s).expect("a 2 EiB block of the simulated device");
    driver.touch(&s, big.ptr, big.size, Access::Write).expect("touch");
    // SAFETY: `big` came from this allocator and is freed once, on its stream.
    unsafe { mem.deallocate(big, &s) }.expect("free");
    CheckedDevice::synchronize(&driver).expect("no hazard");
    assert!(driver.hazards().is_empty());

    let dev = sim(SimConfig { seed: 3, memory_bytes: 1 << 62 }).expect("sim");
    let st = dev.create_stream().expect("stream");
    let data: Vec<f64> = (0..1000).map(f64::from).collect();
    let buf = dev.upload_slice(&st, &data).expect("upload");
    assert_eq!(dev.download_vec::<f64>(&st, &buf).expect("download"), data);
}

/// Bookkeeping work of a replay-shaped workload on `streams` streams: every stream allocates,
/// touches and frees one block, a cross-stream free every fourth, the host synchronising every
/// 16 operations (`tenor alloc replay`'s default).
fn clock_work(streams: usize) -> u64 {
    let driver = SimDriver::new(SimConfig { seed: 1, memory_bytes: 256 << 20 });
    let ss: Vec<_> = (0..streams).map(|_| CheckedDevice::create_stream(&driver).expect("stream")).collect();
    let mem = driver.memory();
    let mut live = Vec::new();
    let mut n = 0;
    for s in &ss {
        let b = mem.allocate(4096, s).expect("alloc");
        driver.touch(s, b.ptr, b.size, Access::Write).expect("touch");
        live.push(b);
        n += 1;
        if n % 16 == 0 {
            CheckedDevice::synchronize(&driver).expect("sync");
        }
    }
    for (i, b) in live.into_iter().enumerate() {
        let owner = &ss[i];
        let s = if i % 4 == 0 { &ss[(i + 1) % streams] } else { owner };
        if !std::ptr::eq(s, owner) {
            let ev = owner.record().expect("record");
            s.wait(&ev).expect("wait");
        }
        driver.touch(s, b.ptr, b.size, Access::Read).expect("touch");
        // SAFETY: a block of this allocator, freed once, ordered after its owner's work above.
        unsafe { mem.deallocate(b, s) }.expect("free");
        n += 1;
        if n % 16 == 0 {
            CheckedDevice::synchronize(&driver).expect("sync");
        }
    }
    CheckedDevice::synchronize(&driver).expect("sync");
    assert!(driver.hazards().is_empty(), "{:?}", driver.hazards().first());
    driver.clock_work()
}

/// Doubling the streams (and the operations with them) doubles the bookkeeping: it used to grow
/// eightfold (a dense clock per stream, and every host synchronisation merging every stream's
/// whole clock), so `tenor alloc replay` of 16,000 streams ran for hours.
#[test]
fn bookkeeping_grows_with_the_work_not_the_square_or_cube_of_the_streams() {
    let (a, b) = (clock_work(400), clock_work(800));
    let ratio = b as f64 / a as f64;
    eprintln!("clock work: {a} for 400 streams, {b} for 800 (ratio {ratio:.2})");
    assert!(ratio <= 2.5, "work {a} for 400 streams, {b} for 800: ratio {ratio:.2}");
}
