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

/// Every buffer argument of a manifest carries its length (the rule `Device` checks launches
/// against): a pointer without `len`, or a `len` naming something that is not `items`,
/// `blocks` or an integer scalar, is refused with the file and argument named.
#[test]
fn a_buffer_without_a_valid_len_is_refused() {
    let head = "name = \"x\"\n[launch]\nitems = \"n\"\nblock = 64\n[[args]]\nname = \"out\"\ntype = \"f64*\"\naccess = \"write\"\n";
    let tail = "[[args]]\nname = \"n\"\ntype = \"u64\"\n[[args]]\nname = \"vol\"\ntype = \"f64\"\n";
    let e = tenor_ports::KernelDef::from_toml(&format!("{head}{tail}"), "kernels/x/kernel.toml").expect_err("no len");
    assert!(e.to_string().contains("kernels/x/kernel.toml") && e.to_string().contains("without len"), "{e}");
    let e =
        tenor_ports::KernelDef::from_toml(&format!("{head}len = \"2*vol\"\n{tail}"), "k.toml").expect_err("f64 name");
    assert!(e.to_string().contains("unknown name \"vol\""), "{e}");
    let e = tenor_ports::KernelDef::from_toml(&format!("{head}len = \"2*\"\n{tail}"), "k.toml").expect_err("syntax");
    assert!(e.to_string().contains("column 3"), "{e}");
    let ok = tenor_ports::KernelDef::from_toml(&format!("{head}len = \"2*blocks + n\"\n{tail}"), "k.toml");
    assert!(ok.is_ok(), "{ok:?}");
}

/// `launch.waits` must name a `u32` scalar argument (the count whose value above 1 makes the
/// blocks wait on each other, ADR 0036).
#[test]
fn launch_waits_names_a_u32_argument() {
    let manifest = |waits: &str| {
        format!(
            "name = \"x\"\n[launch]\nitems = \"n\"\nblock = 64\nwaits = \"{waits}\"\n[[args]]\nname = \"n\"\ntype = \"u64\"\n\
             [[args]]\nname = \"dates\"\ntype = \"u32\"\n"
        )
    };
    let ok = tenor_ports::KernelDef::from_toml(&manifest("dates"), "k.toml").expect("waits on a u32");
    assert_eq!(ok.waits_position(), Some(1));
    let e = tenor_ports::KernelDef::from_toml(&manifest("n"), "k.toml").expect_err("a u64");
    assert!(e.to_string().contains("launch.waits names n of type u64"), "{e}");
    let e = tenor_ports::KernelDef::from_toml(&manifest("steps"), "k.toml").expect_err("no such argument");
    assert!(e.to_string().contains("launch.waits names steps"), "{e}");
}
