//! The C ABI contract of `libtenor_allocator.so` from a C program built by gcc against the
//! committed header (tools/allocator/test/contract.c): zero bytes, negative size, another device,
//! foreign pointer, double free and out of memory each give NULL and a clear code and message,
//! and leave the live blocks' bytes and the counts unchanged; for every strategy. The upstream
//! is host memory (`TENOR_ALLOC_BACKEND=host`, for tests only). Needs gcc (CI has it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;

/// The statistics file (tools/allocator's `Stats`, read as JSON: the C ABI's view of it).
struct Stats(Value);

impl Stats {
    fn n(&self, key: &str) -> u64 {
        self.0[key].as_u64().unwrap_or_else(|| panic!("{key} missing in {}", self.0))
    }
}

/// The folder holding the cdylib cargo built for this test run: target/<profile>/deps, next to
/// the test executable (the copy in target/<profile> is only refreshed by `cargo build`).
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("test executable: {e}"));
    exe.parent().map(Path::to_path_buf).unwrap_or_else(|| panic!("{}", exe.display()))
}

fn program() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tenor-alloc-contract");
        let lib = lib_dir();
        assert!(
            lib.join("libtenor_allocator.so").exists(),
            "cargo did not build {}/libtenor_allocator.so",
            lib.display()
        );
        let st = Command::new("gcc")
            .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-o"])
            .arg(&out)
            .arg(here.join("test/contract.c"))
            .arg("-I")
            .arg(here.join("include"))
            .arg("-L")
            .arg(&lib)
            .arg("-ltenor_allocator")
            .status()
            .unwrap_or_else(|e| panic!("run gcc: {e}"));
        assert!(st.success(), "gcc failed: {st}");
        out
    })
}

fn run(strategy: &str, args: &[&Path], extra: &[(&str, &str)]) -> Output {
    let mut c = Command::new(program());
    c.args(args)
        .env("LD_LIBRARY_PATH", lib_dir())
        .env("TENOR_ALLOC_BACKEND", "host")
        .env("TENOR_ALLOC_CAP", "64M")
        .env("TENOR_ALLOC_STRATEGY", strategy)
        .env_remove("TENOR_ALLOC_STATS");
    for (k, v) in extra {
        c.env(k, v);
    }
    c.output().unwrap_or_else(|e| panic!("run the contract program: {e}"))
}

fn read(path: &Path) -> Stats {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Stats(serde_json::from_str::<Value>(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display())))
}

#[test]
fn every_strategy_keeps_the_contract() {
    for strategy in ["none", "pool", "binning", "arena", "caching", "slab"] {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let now = dir.join(format!("contract-{strategy}.json"));
        let at_exit = dir.join(format!("contract-{strategy}-exit.json"));
        let _ = std::fs::remove_file(&now);
        let _ = std::fs::remove_file(&at_exit);
        let out = run(strategy, &[&now], &[("TENOR_ALLOC_STATS", at_exit.to_str().unwrap_or_default())]);
        assert!(out.status.success(), "{strategy}: {}", String::from_utf8_lossy(&out.stderr));
        let s = read(&now);
        assert_eq!(s.0["strategy"], strategy);
        // Five allocations by the program (2 long-lived, 2 freed at once, one of 32 MiB), all
        // freed; two refusals of each kind counted.
        let counts = ["allocs", "frees", "live_blocks", "used"].map(|k| s.n(k));
        assert_eq!(counts, [5, 5, 0, 0], "{strategy}: {}", s.0);
        let refusals = ["zero_byte_requests", "foreign_frees", "double_frees", "out_of_memory"].map(|k| s.n(k));
        assert_eq!(refusals, [2, 2, 2, 2], "{strategy}");
        assert!(s.n("peak_used") >= (32 << 20) + 6000, "{strategy}: {}", s.0);
        assert!(s.n("peak_reserved") > 0, "{strategy}: {}", s.0);
        // The file written at exit holds the same counts.
        let e = read(&at_exit);
        assert_eq!(["allocs", "frees", "double_frees"].map(|k| e.n(k)), [5, 5, 2], "{strategy}");
    }
}

#[test]
fn a_bad_variable_is_named_on_every_call() {
    let out = run("magic", &[Path::new("config")], &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}{}", stdout, String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("TENOR_ALLOC_STRATEGY=\"magic\""), "{stdout}");
}
