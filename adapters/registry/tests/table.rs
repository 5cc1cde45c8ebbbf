//! The registration table (ADR 0016): every name, error and help text comes from its rows, and
//! its feature column matches this crate's Cargo features.

use std::sync::Arc;

use tenor_ports::{AllocError, Allocator, ComputeError, Device, Driver};
use tenor_registry::{backend, help, names, open, open_over, replay_memory, visit, DeviceVisitor, BACKENDS};

#[test]
fn names_are_unique_and_the_cpu_backend_is_always_built() {
    let mut seen: Vec<&str> = names().collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), BACKENDS.len(), "a name twice in the table");
    let cpu = backend("cpu").expect("cpu row");
    assert!(cpu.built && cpu.feature.is_none() && cpu.auto);
    assert_eq!(open("cpu").expect("cpu").info().backend, "cpu");
    assert!(backend("auto").is_none(), "auto is a choice among rows, not a row");
}

#[test]
fn an_unknown_name_is_refused_listing_every_row_and_auto() {
    let Err(e) = open("no-such-backend") else { panic!("opened an unknown backend") };
    let msg = e.to_string();
    assert!(matches!(e, ComputeError::InvalidArgument(_)), "{e:?}");
    let listed = msg.split("known: ").nth(1).expect("a list of known backends");
    let mut expected: Vec<&str> = names().collect();
    expected.push("auto");
    assert_eq!(listed.split(", ").collect::<Vec<_>>(), expected, "{msg}");
}

#[test]
fn every_row_opens_or_says_why_and_a_row_not_built_names_its_feature() {
    for b in BACKENDS {
        match (b.open)() {
            Ok(_) => assert!(b.built, "{} opened without being built", b.name),
            Err(ComputeError::Unavailable { backend, reason }) => {
                assert_eq!(backend, b.name);
                if !b.built {
                    let f = b.feature.expect("a row not built has a feature");
                    assert!(reason.contains(&format!("--features {f}")), "{}: {reason}", b.name);
                }
            }
            Err(other) => panic!("{}: not an Unavailable error: {other}", b.name),
        }
    }
}

#[test]
fn the_help_text_names_every_row_and_the_feature_of_those_not_built() {
    let h = help();
    for b in BACKENDS {
        assert!(h.contains(&format!("`{}` ({}", b.name, b.description)), "{}: {h}", b.name);
        if let (false, Some(f)) = (b.built, b.feature) {
            assert!(h.contains(&format!("needs --features {f}")), "{h}");
        }
    }
    assert!(h.contains("`auto`"), "{h}");
}

#[test]
fn the_feature_column_matches_the_cargo_features() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).expect("Cargo.toml");
    let doc: toml::Table = text.parse().expect("toml");
    let features = doc["features"].as_table().expect("[features]");
    let mut cargo: Vec<&str> = features.keys().map(String::as_str).filter(|k| *k != "default").collect();
    let mut table: Vec<&str> = BACKENDS.iter().filter_map(|b| b.feature).collect();
    cargo.sort_unstable();
    table.sort_unstable();
    assert_eq!(cargo, table, "one Cargo feature per feature-gated row, and no other");
    for b in BACKENDS.iter().filter(|b| b.feature.is_some()) {
        let f = b.feature.unwrap_or_default();
        let enables: Vec<&str> = features[f].as_array().expect("list").iter().filter_map(|v| v.as_str()).collect();
        assert!(enables.iter().any(|e| e.starts_with("dep:tenor-")), "feature {f} enables its adapter: {enables:?}");
    }
}

/// Counts allocations that reach host memory (a hand-made recorder).
#[derive(Debug)]
struct Counting(Arc<dyn Allocator>, std::sync::atomic::AtomicUsize);

// SAFETY: blocks come from this allocator's upstream (or its own slabs) and are handed out

// once until freed, as the trait's contract asks.

unsafe impl Allocator for Counting {
    fn name(&self) -> &str {
        "counting"
    }
    fn allocate(&self, bytes: usize, stream: &tenor_ports::Stream) -> Result<tenor_ports::Block, AllocError> {
        self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.0.allocate(bytes, stream)
    }
    unsafe fn deallocate(&self, block: tenor_ports::Block, stream: &tenor_ports::Stream) -> Result<(), AllocError> {
        // SAFETY: this method's contract (the caller owns `block`), passed on unchanged.
        unsafe { self.0.deallocate(block, stream) }
    }
    fn report(&self) -> tenor_ports::AllocReport {
        self.0.report()
    }
}

#[test]
fn open_over_draws_device_memory_from_the_given_allocator_where_a_row_allows_it() {
    let counting = Arc::new(Counting(tenor_registry::host_memory(), 0.into()));
    let dev = open_over("cpu", counting.clone()).expect("cpu over an allocator");
    let s = dev.create_stream().expect("stream");
    let buf = dev.alloc(&s, 8000).expect("buffer");
    drop(buf);
    dev.synchronize().expect("sync");
    assert!(counting.1.load(std::sync::atomic::Ordering::Relaxed) >= 1, "the buffer came from the allocator");
    let owns: Vec<&str> = BACKENDS.iter().filter(|b| b.open_over.is_none()).map(|b| b.name).collect();
    for name in owns {
        let Err(e) = open_over(name, counting.clone()) else { panic!("{name} opened over an allocator") };
        assert!(e.to_string().contains("works on: cpu"), "{name}: {e}");
    }
}

#[test]
fn replay_memory_comes_from_the_rows_that_have_it() {
    let m = replay_memory("sim", 2, 1 << 20).expect("sim replay memory");
    assert!(m.native.is_empty());
    let (up, streams) = (m.upstream)().expect("upstream");
    assert_eq!(streams.len(), 2);
    let b = up.allocate(4096, &streams[0]).expect("allocation");
    // SAFETY: the block was allocated by this test and nothing else holds it.
    unsafe { up.deallocate(b, &streams[0]) }.expect("free");
    let Err(e) = replay_memory("cpu", 2, 1 << 20) else { panic!("cpu has no replay memory") };
    let with: Vec<String> = BACKENDS.iter().filter(|b| b.replay.is_some()).map(|b| format!("`{}`", b.name)).collect();
    assert!(e.to_string().contains(&with.join(" or ")), "{e}");
}

struct Name;

impl DeviceVisitor for Name {
    type Output = String;
    fn visit<D: Driver>(self, device: &Device<D>) -> String {
        tenor_ports::Compute::info(device).backend.clone()
    }
}

#[test]
fn visit_dispatches_statically_to_every_built_row() {
    for b in BACKENDS.iter().filter(|b| b.built && b.name != "cuda" && b.name != "sycl") {
        assert_eq!(visit(b.name, Name).expect("visit"), b.name);
    }
    assert!(matches!(visit("no-such-backend", Name), Err(ComputeError::InvalidArgument(_))));
}
