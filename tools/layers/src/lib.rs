//! # tenor-tools-layers: the dependency rule, checked
//!
//! Reads the workspace's `cargo metadata --format-version 1 --no-deps` (every crate with its
//! declared dependencies, optional ones included, since a feature may turn them on) and names
//! each dependency that breaks the layering of `docs/architecture.md` (ADR 0016). A crate's
//! layer is its folder:
//!
//! | folder | layer |
//! | --- | --- |
//! | `core/*`, `kernels` | core |
//! | `adapters/registry` | registry (the one crate that knows every backend) |
//! | `adapters/conformance` | conformance (the suite every backend runs; a test crate) |
//! | `adapters/*` (the rest) | adapter |
//! | `pilot`, `bindings/*` | composition root |
//! | `benches*`, `tools/*` | tool (benchmarks and tools of one adapter; unconstrained) |
//!
//! The rules ([`Rule`]); "reaches" follows normal and build dependencies transitively:
//!
//! 1. A core crate reaches no crate under `adapters/` (no adapter, no registry, no suite).
//! 2. An adapter reaches no other crate under `adapters/`.
//! 3. The conformance suite reaches no adapter but the CPU reference (`adapters/cpu`).
//! 4. A composition root names no crate under `adapters/` but the registry as a normal or build
//!    dependency: it opens backends through the registry.
//! 5. A dev-dependency of a core crate, an adapter or the suite on a crate under `adapters/` is
//!    one of the test backends: `adapters/cpu`, `adapters/sim`, `adapters/conformance`.

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::process::Command;

use serde_json::Value;
use thiserror::Error;

/// Where a crate sits, from its folder (see the crate documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// `core/*` and `kernels`.
    Core,
    /// `adapters/*` but the registry and the suite.
    Adapter,
    /// `adapters/registry`.
    Registry,
    /// `adapters/conformance`.
    Conformance,
    /// `pilot` and `bindings/*`.
    Root,
    /// Anything else (`benches`, `tools/*`).
    Tool,
}

impl Layer {
    /// The layer of a crate in `folder` (relative to the workspace root, `/`-separated).
    pub fn of(folder: &str) -> Layer {
        match folder {
            "adapters/registry" => Layer::Registry,
            "adapters/conformance" => Layer::Conformance,
            "kernels" => Layer::Core,
            "pilot" => Layer::Root,
            f if f.starts_with("core/") => Layer::Core,
            f if f.starts_with("adapters/") => Layer::Adapter,
            f if f.starts_with("bindings/") => Layer::Root,
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
    /// 4: a composition root names no crate under `adapters/` but the registry.
    RootBypassesRegistry,
    /// 5: a dev-dependency on `adapters/` is a test backend.
    DevOnNonTestBackend,
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
#[derive(Debug, Clone)]
pub struct Crate {
    /// Package name (`tenor-alloc`).
    pub name: String,
    /// Folder relative to the workspace root (`core/alloc`).
    pub folder: String,
    /// Dependencies on workspace crates: (package name, kind).
    pub deps: Vec<(String, Kind)>,
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
            raw.push(Crate { name: field(p, "name")?.to_owned(), folder, deps });
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
                    Layer::Root if path.len() == 2 && target.under_adapters() && target != Layer::Registry => {
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
        }
        out
    }
}
