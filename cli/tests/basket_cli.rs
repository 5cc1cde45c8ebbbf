//! `tenor basket` (`docs/basket-job.md`): the files it writes (every value of the spec, the
//! library's estimates bit for bit, `summary.json`'s fields), and bad input refused with the file
//! and key named before any work, an earlier `--out` left whole.
mod common;

use std::path::{Path, PathBuf};

use common::{run, tenor};
use tenor_pricing::basket::{greeks_csv, price_basket, BasketJob};

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/basket/baseline.toml")
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tenor-basket-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn basket(job: &Path, out: &Path, extra: &[&str]) -> common::Run {
    run(tenor().args(["basket", "--job"]).arg(job).arg("--out").arg(out).args(extra))
}

/// The example at 2,000 paths x 20 steps, twice: greeks.csv is the library's `greeks_csv` of
/// `price_basket` on the CPU backend (equal text is equal bits), with the spec's 53 rows for 5
/// assets; summary.json has the spec's fields with the job file's SHA-256.
#[test]
fn writes_the_librarys_greeks_and_the_spec_summary() {
    let out = scratch("ok");
    let r = basket(&example(), &out, &["--paths", "2000", "--steps", "20", "--seed", "9", "--repeat", "2"]);
    assert!(r.success(), "{}", r.stderr);
    assert!(r.stdout.contains("5 assets x 2000 paths x 20 steps, American put, on cpu"), "{}", r.stdout);
    let csv = std::fs::read_to_string(out.join("greeks.csv")).expect("greeks.csv");
    let mut job = BasketJob::from_toml(&std::fs::read_to_string(example()).expect("job")).expect("valid");
    job.simulation.paths = 2000;
    job.simulation.steps = 20;
    job.simulation.seed = 9;
    let dev = tenor_cpu::cpu().expect("cpu");
    let lib = price_basket(&dev, &job, true).expect("priced");
    assert_eq!(csv, greeks_csv(&job, &lib.rows));
    assert_eq!(csv.lines().count(), 1 + 53, "header + 1 + 5 + 5 + 10 + 4 x 5 + 10 + 2");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).expect("summary.json")).expect("json");
    assert_eq!(s["job"].as_str().map(str::len), Some(64));
    assert_eq!(s["backend"], "cpu");
    assert_eq!(
        (s["assets"].as_u64(), s["paths"].as_u64(), s["steps"].as_u64(), s["seed"].as_u64()),
        (Some(5), Some(2000), Some(20), Some(9))
    );
    assert_eq!((s["devices"].as_u64(), s["precision"].as_str()), (Some(1), Some("fp64")));
    assert_eq!(s["valuations"].as_u64(), Some(lib.valuations));
    let t = &s["timings"];
    assert_eq!(t["repeats"].as_u64(), Some(2));
    for k in ["cold_s", "warm_s", "warm_min_s", "open_s"] {
        assert!(t[k].as_f64().is_some_and(|x| x >= 0.0), "timings.{k}: {t}");
    }
    let mut keys: Vec<&str> = s.as_object().expect("object").keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "assets",
            "backend",
            "device",
            "devices",
            "job",
            "paths",
            "precision",
            "seed",
            "steps",
            "timings",
            "valuations"
        ]
    );
    // --no-greeks: the price alone.
    let r = basket(&example(), &out, &["--paths", "2000", "--steps", "20", "--no-greeks"]);
    assert!(r.success(), "{}", r.stderr);
    let csv = std::fs::read_to_string(out.join("greeks.csv")).expect("greeks.csv");
    assert_eq!(csv.lines().count(), 2);
    std::fs::remove_dir_all(&out).ok();
}

/// A bad job is refused with the file and the key named, before the output is touched: the set
/// written earlier in `--out` stays byte for byte.
#[test]
fn a_bad_job_names_the_file_and_key_and_keeps_the_earlier_output() {
    let out = scratch("bad");
    let r = basket(&example(), &out, &["--paths", "500", "--steps", "5", "--no-greeks"]);
    assert!(r.success(), "{}", r.stderr);
    let before =
        (std::fs::read(out.join("greeks.csv")).expect("csv"), std::fs::read(out.join("summary.json")).expect("json"));
    let bad = out.with_extension("bad.toml");
    let text = std::fs::read_to_string(example()).expect("job").replacen("kappa = 2.0", "kappa = -2.0", 1);
    std::fs::write(&bad, text).expect("write bad job");
    let r = basket(&bad, &out, &[]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stderr.contains("bad.toml") && r.stderr.contains("asset[1].kappa"), "{}", r.stderr);
    // An override over a work limit names its key.
    let r = basket(&example(), &out, &["--paths", "1"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("simulation.paths"), "{}", r.stderr);
    let after =
        (std::fs::read(out.join("greeks.csv")).expect("csv"), std::fs::read(out.join("summary.json")).expect("json"));
    assert_eq!(before, after, "the earlier output set changed");
    std::fs::remove_file(&bad).ok();
    // A job file that the output set would replace (its greeks.csv): refused, the job untouched.
    let job = out.join("greeks.csv");
    std::fs::copy(example(), &job).expect("copy the job");
    let r = basket(&job, &out, &[]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("same file as --job"), "{}", r.stderr);
    assert_eq!(std::fs::read(&job).expect("job"), std::fs::read(example()).expect("example"));
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn repeat_zero_is_refused_by_the_command_line() {
    let r = basket(&example(), &scratch("zero"), &["--repeat", "0"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--repeat"), "{}", r.stderr);
}

/// A job path that is a FIFO is refused at once, naming it (it used to block forever in the
/// read), and one over a megabyte is refused before it is read whole (`/dev/zero` grew the
/// process by gigabytes): both before any work, no `--out` made.
#[test]
fn a_fifo_or_an_oversized_job_is_refused_before_reading_it_whole() {
    let dir = scratch("fifo");
    std::fs::create_dir_all(&dir).expect("scratch");
    let fifo = dir.join("job.toml");
    let c = std::ffi::CString::new(fifo.to_str().expect("utf-8").as_bytes()).expect("no NUL");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    let out = dir.join("out");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tenor"))
        .args(["basket", "--job"])
        .arg(&fifo)
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawned");
    let mut waited = 0;
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if waited >= 300 {
            let _ = child.kill();
            panic!("tenor basket blocked on a FIFO job for 30 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        waited += 1;
    };
    let stderr = std::io::read_to_string(child.stderr.take().expect("stderr")).expect("stderr text");
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("job.toml") && stderr.contains("not a regular file"), "{stderr}");
    assert!(!out.exists(), "no --out for a refused job");

    let big = dir.join("big.toml");
    let mut text = std::fs::read_to_string(example()).expect("job");
    text.push_str(&"# padding\n".repeat(120_000));
    std::fs::write(&big, text).expect("write");
    let r = basket(&big, &out, &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("big.toml") && r.stderr.contains("larger than 1048576 bytes"), "{}", r.stderr);
    assert!(!out.exists(), "no --out for a refused job");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run that fails after the job was read (a backend that does not exist) leaves no `--out`
/// folder behind: the folder is made once the work succeeded.
#[test]
fn a_failed_run_leaves_no_output_folder() {
    let out = scratch("nobackend");
    let r = basket(&example(), &out, &["--backend", "no-such-backend", "--paths", "200", "--steps", "4"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("no-such-backend"), "{}", r.stderr);
    assert!(!out.exists(), "{} was made by a failed run", out.display());
}
