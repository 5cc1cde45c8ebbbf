//! # tenor-tools-layers: the dependency rule, checked
//!
//! Reads the workspace's `cargo metadata --format-version 1 --no-deps` (every crate with its
//! declared dependencies, optional ones included, since a feature may turn them on) and names
//! each dependency that breaks the layering of `docs/architecture.md` (ADR 0016, amended by ADR
//! 0028). A crate's layer is its folder:
//!
//! | folder | layer |
//! | --- | --- |
//! | `core/*`, `backtest` | core (the domain: ports, the kernels crate, pricing, market, backtests) |
//! | `adapters/registry` | registry (the one crate that knows every backend) |
//! | `adapters/conformance` | conformance (the suite every backend runs; a test crate) |
//! | `adapters/*` (the rest) | adapter |
//! | `app`, `pilot` | application (the library under every door, and the harness) |
//! | `cli`, `bindings/*` | door (the `tenor` command, Python, C) |
//! | `benches*`, `tools/*` | tool (benchmarks and tools of one adapter; unconstrained) |
//!
//! The rules ([`Rule`]); "reaches" follows normal and build dependencies transitively:
//!
//! 1. A core crate reaches no crate under `adapters/` (no adapter, no registry, no suite).
//! 2. An adapter reaches no other crate under `adapters/`.
//! 3. The conformance suite reaches no adapter but the CPU reference (`adapters/cpu`).
//! 4. An application or door crate names no crate under `adapters/` but the registry as a
//!    normal or build dependency: it opens backends through the registry.
//! 5. A dev-dependency of a core crate, an adapter or the suite on a crate under `adapters/` is
//!    one of the test backends: `adapters/cpu`, `adapters/sim`, `adapters/conformance`.
//! 6. No crate depends on a door (`cli`, `bindings/*`), in any dependency kind: doors are leaves.
//! 7. No top-level folder imports (normal or build dependencies of its crates) a folder that
//!    imports it back: the folders show the layers.
//!
//! [`Workspace::crate_map`] and [`Workspace::folder_graph`] write the crate map and the folder
//! graph of `docs/architecture.md` from the same metadata, so the document cannot drift (a test
//! compares them).

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::process::Command;

use serde_json::Value;
use thiserror::Error;

/// Where a crate sits, from its folder (see the crate documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// `core/*`, `kernels` and `backtest`.
    Core,
    /// `adapters/*` but the registry and the suite.
    Adapter,
    /// `adapters/registry`.
    Registry,
    /// `adapters/conformance`.
    Conformance,
    /// `app` and `pilot`: the application library and the harness.
    Root,
    /// `cli` and `bindings/*`: the doors.
    Door,
    /// Anything else (`benches`, `tools/*`).
    Tool,
}

/// The first component of a folder path (`core` of `core/alloc`).
pub fn top_folder(folder: &str) -> &str {
    folder.split('/').next().unwrap_or(folder)
}

impl Layer {
    /// The layer's name in the documentation.
    pub fn name(self) -> &'static str {
        match self {
            Layer::Core => "core",
            Layer::Adapter => "adapter",
            Layer::Registry => "registry",
            Layer::Conformance => "conformance",
            Layer::Root => "application",
            Layer::Door => "door",
            Layer::Tool => "tool",
        }
    }

    /// The layer of a crate in `folder` (relative to the workspace root, `/`-separated).
    pub fn of(folder: &str) -> Layer {
        match folder {
            "adapters/registry" => Layer::Registry,
            "adapters/conformance" => Layer::Conformance,
            "kernels" | "backtest" => Layer::Core,
            "pilot" | "app" => Layer::Root,
            "cli" => Layer::Door,
            f if f.starts_with("core/") => Layer::Core,
            f if f.starts_with("adapters/") => Layer::Adapter,
            f if f.starts_with("bindings/") => Layer::Door,
            _ => Layer::Tool,
        }
    }

    /// Whether the crate lives under `adapters/`.
    pub fn under_adapters(self) -> bool {
        matches!(self, Layer::Adapter | Layer::Registry | Layer::Conformance)
    }
}

/// The rules of the crate documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// 1: core reaches no crate under `adapters/`.
    CoreToAdapter,
    /// 2: an adapter reaches no other crate under `adapters/`.
    AdapterToAdapter,
    /// 3: the suite reaches no adapter but the CPU reference.
    ConformanceBeyondCpu,
    /// 4: an application or door crate names no crate under `adapters/` but the registry.
    RootBypassesRegistry,
    /// 5: a dev-dependency on `adapters/` is a test backend.
    DevOnNonTestBackend,
    /// 6: nothing depends on a door.
    DependsOnDoor,
    /// 7: two top-level folders import each other (the path is the cycle of folders).
    FolderCycle,
}

/// Dependency kinds as `cargo metadata` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `[dependencies]` (`kind: null`).
    Normal,
    /// `[build-dependencies]`.
    Build,
    /// `[dev-dependencies]`.
    Dev,
}

/// One workspace crate and its dependencies on other workspace crates.
#[derive(Debug, Clone, Default)]
pub struct Crate {
    /// Package name (`tenor-alloc`).
    pub name: String,
    /// Folder relative to the workspace root (`core/alloc`).
    pub folder: String,
    /// Dependencies on workspace crates: (package name, kind).
    pub deps: Vec<(String, Kind)>,
    /// The package's `description`.
    pub description: String,
    /// Its library target's name (`tenor_alloc`), if it has one.
    pub lib: Option<String>,
    /// Its binary targets' names.
    pub bins: Vec<String>,
}

/// A dependency that breaks a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The rule broken.
    pub rule: Rule,
    /// The chain of crates from the offender to the forbidden crate (at least two names).
    pub path: Vec<String>,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}: {}", self.rule, self.path.join(" -> "))
    }
}

/// Errors reading the workspace.
#[derive(Debug, Error)]
pub enum LayersError {
    /// `cargo metadata` could not run or failed.
    #[error("cargo metadata for {manifest}: {reason}")]
    Cargo {
        /// The manifest asked about.
        manifest: String,
        /// Why.
        reason: String,
    },
    /// The JSON is not what `cargo metadata --format-version 1` writes.
    #[error("cargo metadata output: {0}")]
    Format(String),
}

/// The workspace's crates by package name.
#[derive(Debug, Clone, Default)]
pub struct Workspace {
    /// Every workspace crate.
    pub crates: BTreeMap<String, Crate>,
}

fn field<'a>(v: &'a Value, key: &str) -> Result<&'a str, LayersError> {
    v.get(key).and_then(Value::as_str).ok_or_else(|| LayersError::Format(format!("no string field {key:?}")))
}

impl Workspace {
    /// Runs `cargo metadata --format-version 1 --no-deps` on `manifest` (the workspace's
    /// `Cargo.toml`) with the `cargo` of `$CARGO` (set by `cargo test`) or the `PATH`.
    ///
    /// # Errors
    /// [`LayersError::Cargo`] when cargo cannot run or fails; [`LayersError::Format`] for output
    /// that is not the metadata format.
    pub fn load(manifest: &Path) -> Result<Self, LayersError> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let err = |reason: String| LayersError::Cargo { manifest: manifest.display().to_string(), reason };
        let out = Command::new(cargo)
            .args(["metadata", "--format-version", "1", "--no-deps", "--offline", "--manifest-path"])
            .arg(manifest)
            .output()
            .map_err(|e| err(e.to_string()))?;
        if !out.status.success() {
            return Err(err(String::from_utf8_lossy(&out.stderr).into_owned()));
        }
        let json: Value = serde_json::from_slice(&out.stdout).map_err(|e| LayersError::Format(e.to_string()))?;
        Self::from_metadata(&json)
    }

    /// The workspace described by `cargo metadata` JSON.
    ///
    /// # Errors
    /// [`LayersError::Format`] when a field the check needs is missing.
    pub fn from_metadata(json: &Value) -> Result<Self, LayersError> {
        let root = field(json, "workspace_root")?.trim_end_matches('/').to_owned();
        let members: Vec<&str> = json
            .get("workspace_members")
            .and_then(Value::as_array)
            .ok_or_else(|| LayersError::Format("no workspace_members".into()))?
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let packages =
            json.get("packages").and_then(Value::as_array).ok_or_else(|| LayersError::Format("no packages".into()))?;
        let mut ws = Workspace::default();
        let mut raw = Vec::new();
        for p in packages {
            if !members.contains(&field(p, "id")?) {
                continue;
            }
            let manifest = field(p, "manifest_path")?;
            let folder = manifest
                .strip_prefix(&root)
                .unwrap_or(manifest)
                .trim_start_matches('/')
                .trim_end_matches("Cargo.toml")
                .trim_end_matches('/')
                .to_owned();
            let mut deps = Vec::new();
            for d in p.get("dependencies").and_then(Value::as_array).into_iter().flatten() {
                let kind = match d.get("kind").and_then(Value::as_str) {
                    None => Kind::Normal,
                    Some("build") => Kind::Build,
                    Some("dev") => Kind::Dev,
                    Some(other) => return Err(LayersError::Format(format!("dependency kind {other:?}"))),
                };
                deps.push((field(d, "name")?.to_owned(), kind));
            }
            let mut lib = None;
            let mut bins = Vec::new();
            for t in p.get("targets").and_then(Value::as_array).into_iter().flatten() {
                let kinds: Vec<&str> =
                    t.get("kind").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
                let name = t.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
                if kinds.iter().any(|k| matches!(*k, "lib" | "rlib" | "cdylib" | "staticlib" | "dylib")) {
                    lib = Some(name);
                } else if kinds.contains(&"bin") {
                    bins.push(name);
                }
            }
            let description = p.get("description").and_then(Value::as_str).unwrap_or_default().to_owned();
            raw.push(Crate { name: field(p, "name")?.to_owned(), folder, deps, description, lib, bins });
        }
        let names: Vec<String> = raw.iter().map(|c| c.name.clone()).collect();
        for mut c in raw {
            c.deps.retain(|(n, _)| names.contains(n));
            ws.crates.insert(c.name.clone(), c);
        }
        Ok(ws)
    }

    fn layer(&self, name: &str) -> Layer {
        self.crates.get(name).map_or(Layer::Tool, |c| Layer::of(&c.folder))
    }

    /// Every crate `from` reaches through normal and build dependencies, each with the chain
    /// that reaches it (shortest first, breadth-first).
    pub fn reach(&self, from: &str) -> Vec<Vec<String>> {
        let mut seen = vec![from.to_owned()];
        let mut queue = VecDeque::from([vec![from.to_owned()]]);
        let mut out = Vec::new();
        while let Some(path) = queue.pop_front() {
            let Some(c) = path.last().and_then(|n| self.crates.get(n)) else { continue };
            for (d, kind) in &c.deps {
                if *kind == Kind::Dev || seen.contains(d) {
                    continue;
                }
                seen.push(d.clone());
                let mut p = path.clone();
                p.push(d.clone());
                out.push(p.clone());
                queue.push_back(p);
            }
        }
        out
    }

    /// Every broken rule, in crate order.
    pub fn violations(&self) -> Vec<Violation> {
        let test_backends = ["adapters/cpu", "adapters/sim", "adapters/conformance"];
        let folder = |n: &str| self.crates.get(n).map_or("", |c| c.folder.as_str());
        let mut out = Vec::new();
        for c in self.crates.values() {
            let layer = Layer::of(&c.folder);
            for path in self.reach(&c.name) {
                let to = path.last().map_or("", String::as_str);
                let target = self.layer(to);
                let rule = match layer {
                    Layer::Core if target.under_adapters() => Some(Rule::CoreToAdapter),
                    Layer::Adapter if target.under_adapters() => Some(Rule::AdapterToAdapter),
                    Layer::Conformance if target.under_adapters() && folder(to) != "adapters/cpu" => {
                        Some(Rule::ConformanceBeyondCpu)
                    }
                    Layer::Root | Layer::Door
                        if path.len() == 2 && target.under_adapters() && target != Layer::Registry =>
                    {
                        Some(Rule::RootBypassesRegistry)
                    }
                    _ => None,
                };
                if let Some(rule) = rule {
                    out.push(Violation { rule, path });
                }
            }
            if matches!(layer, Layer::Core | Layer::Adapter | Layer::Conformance) {
                for (d, kind) in &c.deps {
                    if *kind == Kind::Dev && self.layer(d).under_adapters() && !test_backends.contains(&folder(d)) {
                        out.push(Violation { rule: Rule::DevOnNonTestBackend, path: vec![c.name.clone(), d.clone()] });
                    }
                }
            }
            for (d, _) in &c.deps {
                if self.layer(d) == Layer::Door {
                    out.push(Violation { rule: Rule::DependsOnDoor, path: vec![c.name.clone(), d.clone()] });
                }
            }
        }
        out.extend(self.folder_cycles());
        out
    }

    /// The top-level folder of crate `name` (`core` for `core/alloc`).
    fn top(&self, name: &str) -> String {
        self.crates.get(name).map_or_else(String::new, |c| top_folder(&c.folder).to_owned())
    }

    /// Top-level folder -> the top-level folders its crates import (normal and build
    /// dependencies), each with one crate edge that shows it.
    pub fn folder_edges(&self) -> BTreeMap<String, BTreeMap<String, (String, String)>> {
        let mut g: BTreeMap<String, BTreeMap<String, (String, String)>> = BTreeMap::new();
        for c in self.crates.values() {
            let from = self.top(&c.name);
            g.entry(from.clone()).or_default();
            for (d, kind) in &c.deps {
                let to = self.top(d);
                if *kind != Kind::Dev && to != from && !to.is_empty() {
                    g.entry(from.clone()).or_default().entry(to).or_insert_with(|| (c.name.clone(), d.clone()));
                }
            }
        }
        g
    }

    /// Rule 7: every pair of top-level folders that reach each other, once, as the folder path
    /// of the cycle (`core -> kernels -> core`) with the crate edges that make it.
    pub fn folder_cycles(&self) -> Vec<Violation> {
        let g = self.folder_edges();
        let reach = |from: &str| -> Vec<Vec<String>> {
            let mut seen = vec![from.to_owned()];
            let mut queue = VecDeque::from([vec![from.to_owned()]]);
            let mut out = Vec::new();
            while let Some(path) = queue.pop_front() {
                let Some(next) = path.last().and_then(|n| g.get(n)) else { continue };
                for to in next.keys() {
                    let mut p = path.clone();
                    p.push(to.clone());
                    if to == from {
                        out.push(p);
                    } else if !seen.contains(to) {
                        seen.push(to.clone());
                        queue.push_back(p);
                    }
                }
            }
            out
        };
        let mut out = Vec::new();
        let mut reported: Vec<Vec<String>> = Vec::new();
        for f in g.keys() {
            for cycle in reach(f) {
                let mut key = cycle[..cycle.len() - 1].to_vec();
                key.sort();
                if reported.contains(&key) {
                    continue;
                }
                reported.push(key);
                let path = cycle
                    .windows(2)
                    .map(|w| {
                        let (a, b) = g.get(&w[0]).and_then(|e| e.get(&w[1])).cloned().unwrap_or_default();
                        format!("{} ({a} -> {b})", w[0])
                    })
                    .chain(cycle.last().cloned())
                    .collect();
                out.push(Violation { rule: Rule::FolderCycle, path });
            }
        }
        out
    }

    /// The crate map of `docs/architecture.md`: one Markdown row per crate (folder, package,
    /// library or binary, layer, description), by folder.
    pub fn crate_map(&self) -> String {
        let mut rows: Vec<&Crate> = self.crates.values().collect();
        rows.sort_by(|a, b| a.folder.cmp(&b.folder));
        let mut s = String::from(
            "| folder | package | library / binary | layer | what it is |\n| --- | --- | --- | --- | --- |\n",
        );
        for c in rows {
            let mut targets: Vec<String> = c.lib.iter().map(|l| format!("`{l}`")).collect();
            targets.extend(c.bins.iter().map(|b| format!("binary `{b}`")));
            s += &format!(
                "| `{}` | `{}` | {} | {} | {} |\n",
                c.folder,
                c.name,
                targets.join(", "),
                Layer::of(&c.folder).name(),
                c.description.replace('|', "\\|")
            );
        }
        s
    }

    /// The folder graph of `docs/architecture.md`: each top-level folder and the folders it
    /// imports (normal and build dependencies), one Markdown list item each.
    pub fn folder_graph(&self) -> String {
        let mut s = String::new();
        for (from, to) in self.folder_edges() {
            let names: Vec<String> = to.keys().map(|t| format!("`{t}/`")).collect();
            s += &format!(
                "- `{from}/` imports {}\n",
                if names.is_empty() { "nothing of the workspace".to_owned() } else { names.join(", ") }
            );
        }
        s
    }
}
