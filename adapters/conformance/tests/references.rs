//! On the CPU the kernel checks have references of their own (issue 29): the CPU backend is the
//! reference of every other backend, so on the CPU a comparison with "the CPU reference" would
//! compare each kernel with itself. A CPU kernel that writes 5% too much (integers one too
//! many) must fail its own check with the CPU as the only backend.

use std::sync::Arc;

use tenor_conformance::compute::Counting;
use tenor_conformance::kernels::is_cpu_reference;

/// Every kernel check, run on a CPU backend whose kernel of that name is 5% off, fails; the
/// corrupted device is the CPU reference to the suite, so the failure comes from the check's
/// own references (closed forms, published values, host computations, known answers), not from
/// a second backend. (Before: each check compared the CPU with a fresh CPU; with the CPU as its
/// own reference, as on the CPU backend's own run, every one of these passed.)
#[test]
fn a_cpu_kernel_five_percent_off_fails_its_check_with_no_other_backend() {
    let mut passed = Vec::new();
    for (kernel, check) in tenor_conformance::KERNEL_CHECKS {
        let dev = Counting::corrupting(Arc::new(tenor_cpu::cpu().expect("cpu")), kernel, 0.05);
        assert!(is_cpu_reference(&dev).expect("cpu"), "the wrapped CPU is the reference itself");
        match check(&dev) {
            Ok(()) => passed.push(*kernel),
            Err(m) => assert!(!m.contains("differs from the CPU reference"), "{kernel}: {m}"),
        }
    }
    assert!(passed.is_empty(), "checks that pass their kernel 5% off on the CPU: {passed:?}");
}
