//! Every manifest parses and validates, and every built-in kernel has its Rust reference.

#[test]
fn all_manifests_parse() {
    let reg = tenor_kernels::registry().expect("manifests parse");
    assert!(reg.len() >= 12, "only {} kernels registered", reg.len());
}

#[test]
fn every_kernel_has_a_reference_implementation() {
    for k in tenor_kernels::registry().expect("manifests parse") {
        assert!(tenor_kernels::cpu::lookup(&k.name).is_some(), "kernel {} has no cpu.rs", k.name);
    }
}

#[test]
fn a_malformed_manifest_names_its_file() {
    let bad = "name = \"x\"\n[launch]\nitems = \"n\"\nblock = 0\n";
    let e = tenor_ports::KernelDef::from_toml(bad, "kernels/x/kernel.toml").expect_err("block 0 is refused");
    assert!(e.to_string().contains("kernels/x/kernel.toml"), "{e}");
}
