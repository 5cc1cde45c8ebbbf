//! `tenor alloc replay --backend ...`: the timed replay's contract without a GPU.

mod common;

use common::{run, tenor};

fn out_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("tenor-alloc-device-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Two streams, three jobs; block 2 allocated on stream 9 and freed on stream 7, block 4 the
/// other way; blocks 3 and 5 never freed. Live bytes by hand: 4096, +65536 = 69632,
/// -4096 = 65536, +1024 = 66560, +300000 = 366560 (the peak), -65536 = 301024,
/// -300000 = 1024, +512 = 1536.
const TRACE: &str = "# tenor-alloc trace v1
time_ns,op,bytes,stream,job,block,thread
1,alloc,4096,7,1,1,0
2,alloc,65536,9,1,2,0
3,free,4096,7,1,1,0
4,alloc,1024,7,2,3,0
5,alloc,300000,7,2,4,0
6,free,65536,7,2,2,0
7,free,300000,9,2,4,0
8,alloc,512,9,3,5,0
";

#[test]
fn cuda_without_a_gpu_or_the_feature_is_a_typed_unavailable_error() {
    let dir = out_dir("cuda");
    let out = run(tenor().args(["alloc", "replay", "--backend", "cuda", "--jobs", "2", "--out"]).arg(&dir));
    assert!(!out.success(), "{}", out.stdout);
    assert!(out.stderr.contains("backend cuda unavailable"), "{}", out.stderr);
    assert!(!dir.join("alloc-replay-cuda.json").exists(), "nothing written on failure");
}

#[test]
fn unknown_backends_and_a_soak_without_a_backend_are_refused_naming_the_flag() {
    let out = run(tenor().args(["alloc", "replay", "--backend", "opencl", "--jobs", "2"]));
    assert!(!out.success() && out.stderr.contains("--backend \"opencl\""), "{}", out.stderr);
    let out = run(tenor().args(["alloc", "replay", "--soak", "1", "--jobs", "2"]));
    assert!(!out.success() && out.stderr.contains("--backend"), "{}", out.stderr);
    let out = run(tenor().args(["alloc", "replay", "--backend", "sim", "--soak=-3", "--jobs", "2"]));
    assert!(!out.success() && out.stderr.contains("--soak"), "{}", out.stderr);
}

#[test]
fn sim_replay_accounts_every_call_and_writes_json_csv_and_svg() {
    let dir = out_dir("sim");
    std::fs::create_dir_all(&dir).expect("dir");
    let trace = dir.join("hand.trace");
    std::fs::write(&trace, TRACE).expect("write trace");
    let out = run(tenor().args(["alloc", "replay", "--backend", "sim", "--trace"]).arg(&trace).arg("--out").arg(&dir));
    assert!(out.success(), "{}\n{}", out.stdout, out.stderr);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("alloc-replay-sim.json")).expect("json"))
            .expect("parse");
    let targets = doc["targets"].as_array().expect("targets");
    assert_eq!(targets.len(), 5, "every strategy");
    for t in targets {
        let name = t["target"].as_str().expect("name");
        assert!(out.stdout.lines().any(|l| l.starts_with(name)), "no row for {name}");
        assert_eq!(t["peak_used_bytes"], 366_560, "{name}");
        assert_eq!(t["alloc_ns"]["count"], 5, "{name}");
        // three frees in the trace and the two blocks left live
        assert_eq!(t["free_ns"]["count"], 5, "{name}");
        // block 2 (9 -> 7) and block 4 (7 -> 9) cross streams
        assert!(t["ordering_waits"].as_u64() == Some(2), "{name}: {}", t["ordering_waits"]);
        assert!(t["peak_reserved_bytes"].as_u64().expect("reserved") >= 366_560, "{name}");
        // job boundaries before events 3 and 7, and the end of the pass
        let used: Vec<u64> =
            t["samples"].as_array().expect("samples").iter().map(|s| s["used"].as_u64().unwrap_or(9)).collect();
        assert_eq!(used, vec![65_536, 1024, 0], "{name}");
    }
    let csv = std::fs::read_to_string(dir.join("fragmentation-sim.csv")).expect("csv");
    assert_eq!(csv.lines().count(), 1 + 5 * 3);
    let svg = std::fs::read_to_string(dir.join("fragmentation-sim.svg")).expect("svg");
    assert!(svg.starts_with("<svg") && svg.contains("slab"));
}

#[test]
fn a_sim_soak_loops_the_trace_for_the_time_given() {
    let dir = out_dir("soak");
    let out =
        run(tenor().args(["alloc", "replay", "--backend", "sim", "--jobs", "2", "--soak", "0.5", "--out"]).arg(&dir));
    assert!(out.success(), "{}\n{}", out.stdout, out.stderr);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("alloc-replay-sim.json")).expect("json"))
            .expect("parse");
    assert_eq!(doc["soak_s"], 0.5);
    for t in doc["targets"].as_array().expect("targets") {
        assert!(t["passes"].as_u64().expect("passes") >= 2, "{}", t["target"]);
        assert!(t["idle_s"].as_f64().expect("idle") > 0.0);
    }
}
