//! The `[variant]` rules (core/kernels/src/variant.rs, ADR 0027): the shipped batch and fp32
//! kernels follow them, and a manifest that breaks one is refused naming the argument (the build
//! script runs the same check, so such a manifest fails the build with this message).

use tenor_kernels::variant::{batch_layout, check};
use tenor_ports::KernelDef;

fn manifest(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels").join(name).join("kernel.toml");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `name`'s manifest with `from` replaced by `to` (which must occur), parsed.
fn edited(name: &str, from: &str, to: &str) -> KernelDef {
    let text = manifest(name);
    assert!(text.contains(from), "{name}'s manifest has no {from:?}");
    KernelDef::from_toml(&text.replacen(from, to, 1), name).expect("the edited manifest still parses")
}

fn registry() -> Vec<KernelDef> {
    tenor_kernels::registry().expect("manifests parse").to_vec()
}

/// The four Monte Carlo batch kernels batch their single kernels and the two fp32 kernels are
/// their fp64 kernels': every variant passes, and mc_barrier_batch's layout is its manifest's
/// (12 columns, seed and pairs shared, partials the single kernel's buffer).
#[test]
fn shipped_variants_follow_the_rules() {
    let all = registry();
    let variants: Vec<(&str, &str)> = all
        .iter()
        .filter_map(|d| check(d, &all).expect("shipped variant").map(|of| (d.name.as_str(), of.name.as_str())))
        .collect();
    for pair in [
        ("heston_qe_batch", "heston_qe_mc"),
        ("mc_asian_batch", "mc_asian"),
        ("mc_asian_f32", "mc_asian"),
        ("mc_barrier_batch", "mc_barrier"),
        ("mc_european_batch", "mc_european"),
        ("mc_european_f32", "mc_european"),
    ] {
        assert!(variants.contains(&pair), "{pair:?} not among {variants:?}");
    }
    let (batch, single) =
        (tenor_kernels::get("mc_barrier_batch").expect("k"), tenor_kernels::get("mc_barrier").expect("k"));
    let layout = batch_layout(batch, single).expect("layout");
    let names = |v: &[&tenor_ports::ArgDef]| v.iter().map(|a| a.name.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(&layout.columns),
        [
            "steps",
            "spot",
            "strike",
            "barrier",
            "rebate",
            "is_call",
            "kind",
            "continuous",
            "drift_dt",
            "vol_sqrt_dt",
            "rate_dt",
            "discount"
        ]
    );
    assert_eq!(names(&layout.shared), ["seed", "pairs"]);
    assert_eq!(names(&layout.buffers), ["partials"]);
    assert_eq!((layout.products, layout.items), ("products", "items"));
}

/// Each rule, broken once in a shipped manifest, is refused naming the manifest and the
/// argument.
#[test]
fn a_broken_variant_is_refused_naming_the_argument() {
    let all = registry();
    // (manifest, text, replaced by, the message's words)
    let cases = [
        // A column of another type than the single kernel's scalar.
        (
            "mc_barrier_batch",
            "\"steps\"\ntype = \"u32*\"",
            "\"steps\"\ntype = \"f64*\"",
            "column steps must be a read-only u32*",
        ),
        // A column written by the kernel.
        (
            "heston_qe_batch",
            "\"kappa\"\ntype = \"f64*\"\naccess = \"read\"",
            "\"kappa\"\ntype = \"f64*\"\naccess = \"read_write\"",
            "column kappa must be a read-only f64*",
        ),
        // A single kernel's scalar missing from the batch.
        (
            "heston_qe_batch",
            "\"discount\"\ntype = \"f64*\"",
            "\"df\"\ntype = \"f64*\"",
            "buffer df is neither a buffer of heston_qe_mc",
        ),
        // A shared scalar of another type.
        ("mc_european_batch", "\"seed\"\ntype = \"u64\"", "\"seed\"\ntype = \"u32\"", "scalar seed"),
        // A product count that is not a u32.
        (
            "mc_asian_batch",
            "\"products\"\ntype = \"u32\"",
            "\"products\"\ntype = \"u64\"",
            "must name a u32 scalar of its own",
        ),
        // An fp32 kernel whose argument is not its fp64 kernel's.
        ("mc_european_f32", "name = \"strike\"", "name = \"k\"", "argument 4 is f32 k, mc_european's is f64 strike"),
        // A variant of no kernel.
        ("mc_asian_f32", "of = \"mc_asian\"", "of = \"mc_asain\"", "variant.of names \"mc_asain\""),
    ];
    for (name, from, to, want) in cases {
        let e = check(&edited(name, from, to), &all).expect_err(want);
        assert!(e.contains(&format!("kernels/{name}/kernel.toml")) && e.contains(want), "{e}");
    }
}

/// A variant of itself is refused by the manifest parser.
#[test]
fn a_variant_of_itself_is_refused() {
    let text = manifest("mc_asian_f32").replace("of = \"mc_asian\"", "of = \"mc_asian_f32\"");
    let e = KernelDef::from_toml(&text, "kernels/mc_asian_f32/kernel.toml").expect_err("self variant");
    assert!(e.to_string().contains("variant.of names the kernel itself"), "{e}");
}
