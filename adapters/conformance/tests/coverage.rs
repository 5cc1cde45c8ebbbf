//! Every kernel of the manifests has a conformance check, and that check launches it.

use std::sync::Arc;

use tenor_conformance::compute::Counting;

/// The generated check list names exactly the registry's kernels, and running each check on a
/// counting CPU device shows a launch of its own kernel on the device under test (a check that
/// only compared two CPU runs, or launched another kernel, would fail here).
#[test]
fn every_kernel_in_the_manifests_has_a_check_that_launches_it() {
    let registry: Vec<&str> =
        tenor_kernels::registry().expect("manifests parse").iter().map(|k| k.name.as_str()).collect();
    let checked: Vec<&str> = tenor_conformance::KERNEL_CHECKS.iter().map(|(name, _)| *name).collect();
    assert_eq!(checked, registry, "kernel checks against the registry");
    assert_eq!(tenor_kernels::NAMES, registry.as_slice(), "generated names against the registry");
    let names: Vec<&str> = tenor_conformance::checks().iter().map(|(n, _)| *n).collect();
    for kernel in &registry {
        assert_eq!(names.iter().filter(|n| *n == kernel).count(), 1, "{kernel} is checked once in checks()");
    }
    let mut silent = Vec::new();
    for (kernel, check) in tenor_conformance::KERNEL_CHECKS {
        let dev = Counting::new(Arc::new(tenor_cpu::cpu().expect("cpu")));
        check(&dev).unwrap_or_else(|m| panic!("{kernel}: {m}"));
        if !dev.take_kernels().iter().any(|k| k == kernel) {
            silent.push(*kernel);
        }
    }
    assert!(silent.is_empty(), "checks that never launch their kernel on the device under test: {silent:?}");
}
