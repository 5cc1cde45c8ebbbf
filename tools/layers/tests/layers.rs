//! The dependency rule on this workspace, and on hand-made graphs that break each rule once.

use std::path::Path;

use serde_json::{json, Value};
use tenor_tools_layers::{Layer, Rule, Workspace};

#[test]
fn this_workspace_keeps_its_layers() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
    let ws = Workspace::load(&manifest).expect("cargo metadata");
    assert!(ws.crates.len() >= 15, "only {} crates read", ws.crates.len());
    let bad = ws.violations();
    let text: Vec<String> = bad.iter().map(ToString::to_string).collect();
    assert!(bad.is_empty(), "{} dependencies break the layering:\n{}", bad.len(), text.join("\n"));
}

/// A hand-made crate: (folder, name, [(dependency, kind: None normal, "dev", "build")]).
type HandCrate<'a> = (&'a str, &'a str, &'a [(&'a str, Option<&'a str>)]);

/// `cargo metadata` JSON for hand-made crates.
fn metadata(crates: &[HandCrate<'_>]) -> Value {
    let packages: Vec<Value> = crates
        .iter()
        .map(|(folder, name, deps)| {
            let deps: Vec<Value> = deps.iter().map(|(d, k)| json!({"name": d, "kind": k})).collect();
            json!({"id": format!("{name} 0.1.0"), "name": name,
                   "manifest_path": format!("/w/{folder}/Cargo.toml"), "dependencies": deps})
        })
        .collect();
    let members: Vec<String> = crates.iter().map(|(_, n, _)| format!("{n} 0.1.0")).collect();
    json!({"workspace_root": "/w", "workspace_members": members, "packages": packages})
}

fn rules(json: &Value) -> Vec<(Rule, String)> {
    let ws = Workspace::from_metadata(json).expect("metadata");
    ws.violations().into_iter().map(|v| (v.rule, v.path.join(" -> "))).collect()
}

const DEV: Option<&str> = Some("dev");

#[test]
fn the_old_alloc_to_sim_edge_breaks_rules_one_and_two_through_sycl() {
    // main before ADR 0016: tenor-alloc needed the simulated device at run time, so the SYCL
    // adapter reached another adapter through it
    let json = metadata(&[
        ("core/ports", "tenor-ports", &[]),
        ("adapters/sim", "tenor-sim", &[("tenor-ports", None)]),
        ("core/alloc", "tenor-alloc", &[("tenor-ports", None), ("tenor-sim", None)]),
        ("adapters/sycl", "tenor-sycl", &[("tenor-ports", None), ("tenor-alloc", None)]),
    ]);
    assert_eq!(
        rules(&json),
        vec![
            (Rule::CoreToAdapter, "tenor-alloc -> tenor-sim".to_owned()),
            (Rule::AdapterToAdapter, "tenor-sycl -> tenor-alloc -> tenor-sim".to_owned()),
            (
                Rule::FolderCycle,
                "adapters (tenor-sim -> tenor-ports) -> core (tenor-alloc -> tenor-sim) -> adapters".to_owned()
            ),
        ]
    );
}

#[test]
fn the_registry_may_name_every_adapter_and_roots_only_the_registry() {
    let json = metadata(&[
        ("core/ports", "tenor-ports", &[]),
        ("adapters/cpu", "tenor-cpu", &[("tenor-ports", None)]),
        ("adapters/cuda", "tenor-cuda", &[("tenor-ports", None), ("tenor-cpu", DEV)]),
        ("adapters/registry", "tenor-registry", &[("tenor-cpu", None), ("tenor-cuda", None)]),
        ("pilot", "tenor-pilot", &[("tenor-registry", None), ("tenor-cuda", None)]),
        ("bindings/c", "tenor-c", &[("tenor-registry", None)]),
        ("benches/cuda", "tenor-benches-cuda", &[("tenor-cuda", None)]),
    ]);
    assert_eq!(rules(&json), vec![(Rule::RootBypassesRegistry, "tenor-pilot -> tenor-cuda".to_owned())]);
}

#[test]
fn the_suite_may_use_the_cpu_reference_and_tests_only_test_backends() {
    let json = metadata(&[
        ("core/ports", "tenor-ports", &[]),
        ("adapters/cpu", "tenor-cpu", &[("tenor-ports", None)]),
        ("adapters/sim", "tenor-sim", &[("tenor-ports", None), ("tenor-cpu", DEV)]),
        ("adapters/cuda", "tenor-cuda", &[("tenor-ports", None)]),
        ("adapters/conformance", "tenor-conformance", &[("tenor-cpu", None), ("tenor-sim", Some("build"))]),
        ("core/pricing", "tenor-pricing", &[("tenor-conformance", DEV), ("tenor-cuda", DEV)]),
        ("kernels", "tenor-kernels", &[("tenor-registry", None)]),
        ("adapters/registry", "tenor-registry", &[("tenor-cpu", None)]),
    ]);
    assert_eq!(
        rules(&json),
        vec![
            (Rule::ConformanceBeyondCpu, "tenor-conformance -> tenor-sim".to_owned()),
            (Rule::CoreToAdapter, "tenor-kernels -> tenor-registry".to_owned()),
            (Rule::CoreToAdapter, "tenor-kernels -> tenor-registry -> tenor-cpu".to_owned()),
            (Rule::DevOnNonTestBackend, "tenor-pricing -> tenor-cuda".to_owned()),
        ]
    );
}

#[test]
fn layers_come_from_folders() {
    assert_eq!(Layer::of("core/alloc"), Layer::Core);
    assert_eq!(Layer::of("kernels"), Layer::Core);
    assert_eq!(Layer::of("adapters/opencl"), Layer::Adapter);
    assert_eq!(Layer::of("adapters/registry"), Layer::Registry);
    assert_eq!(Layer::of("adapters/conformance"), Layer::Conformance);
    assert_eq!(Layer::of("backtest"), Layer::Core);
    assert_eq!(Layer::of("bindings/python"), Layer::Door);
    assert_eq!(Layer::of("cli"), Layer::Door);
    assert_eq!(Layer::of("app"), Layer::Root);
    assert_eq!(Layer::of("pilot"), Layer::Root);
    assert_eq!(Layer::of("tools/allocator"), Layer::Tool);
    assert_eq!(Layer::of("benches"), Layer::Tool);
}

#[test]
fn malformed_metadata_is_a_typed_error() {
    let e = Workspace::from_metadata(&json!({"packages": []})).expect_err("no root");
    assert!(e.to_string().contains("workspace_root"), "{e}");
}

#[test]
fn nothing_depends_on_a_door_and_backtest_is_checked_as_core() {
    let json = metadata(&[
        ("core/ports", "tenor-ports", &[]),
        ("adapters/cpu", "tenor-cpu", &[("tenor-ports", None)]),
        ("app", "tenor-app", &[("tenor-ports", None)]),
        ("cli", "tenor-cli", &[("tenor-app", None)]),
        ("bindings/python", "tenor-python", &[("tenor-app", None), ("tenor-cli", DEV)]),
        ("backtest", "tenor-backtest", &[("tenor-cpu", None)]),
    ]);
    assert_eq!(
        rules(&json),
        vec![
            (Rule::CoreToAdapter, "tenor-backtest -> tenor-cpu".to_owned()),
            (Rule::DependsOnDoor, "tenor-python -> tenor-cli".to_owned()),
        ]
    );
}

#[test]
fn a_folder_that_imports_one_importing_it_back_is_a_cycle() {
    // main before ADR 0028: kernels used the ports' types while pricing used the kernels
    let json = metadata(&[
        ("core/ports", "tenor-ports", &[]),
        ("kernels", "tenor-kernels", &[("tenor-ports", None)]),
        ("core/pricing", "tenor-pricing", &[("tenor-kernels", None), ("tenor-ports", None)]),
    ]);
    assert_eq!(
        rules(&json),
        vec![(
            Rule::FolderCycle,
            "core (tenor-pricing -> tenor-kernels) -> kernels (tenor-kernels -> tenor-ports) -> core".to_owned()
        )]
    );
}

/// The text between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in `doc`.
fn section<'a>(doc: &'a str, name: &str) -> Option<(usize, usize, &'a str)> {
    let begin = format!("<!-- {name}:begin -->\n");
    let end = format!("<!-- {name}:end -->");
    let a = doc.find(&begin)? + begin.len();
    let b = a + doc[a..].find(&end)?;
    Some((a, b, &doc[a..b]))
}

#[test]
fn the_architecture_document_is_the_workspace_s_own() {
    // The crate map and the folder graph of docs/architecture.md are made from cargo metadata;
    // `TENOR_BLESS=1 cargo test -p tenor-tools-layers --test layers` rewrites them.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let ws = Workspace::load(&root.join("Cargo.toml")).expect("cargo metadata");
    let path = root.join("docs/architecture.md");
    let mut doc = std::fs::read_to_string(&path).expect("docs/architecture.md");
    let bless = std::env::var("TENOR_BLESS").is_ok_and(|v| v == "1");
    for (name, want) in [("crate-map", ws.crate_map()), ("folder-graph", ws.folder_graph())] {
        let (a, b, have) = section(&doc, name).unwrap_or_else(|| panic!("docs/architecture.md has no {name} section"));
        if bless {
            doc.replace_range(a..b, &want);
        } else {
            assert_eq!(
                have, want,
                "docs/architecture.md's {name} differs from cargo metadata (TENOR_BLESS=1 rewrites it)"
            );
        }
    }
    if bless {
        std::fs::write(&path, doc).expect("write docs/architecture.md");
    }
}
