//! `tenor basket --server`: the STAC-A2 basket job in a resident `tenor serve`. On the CPU
//! backend its `greeks.csv` is the one `tenor basket` writes by itself and the library's
//! `greeks_csv` of `price_basket` on the CPU reference, bit for bit (equal text is equal bits),
//! and `summary.json` has the same fields but the timings; a bad job, an oversized one, a
//! repeat out of bounds or another backend is refused with the command's own message (the file
//! and the key named) and the server goes on serving.
#![cfg(unix)]

use std::path::{Path, PathBuf};

mod common;

use common::serve::{basket_request, frame, ping, read_frames, send, tag, Server};
use common::{run, tenor, Run};
use tenor_pricing::basket::{greeks_csv, price_basket, BasketJob};

/// A folder of its own for each test, with a short path (Unix socket paths are limited).
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tenor-sb-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("tmp dir");
    d
}

/// The baseline job, copied into `d` as `job.toml`.
fn job_in(d: &Path) {
    let example = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/basket/baseline.toml");
    std::fs::copy(example, d.join("job.toml")).expect("copy the example job");
}

/// `tenor basket` in `cwd` with `args`, by itself or (`socket`) through the server.
fn basket(cwd: &Path, socket: Option<&Path>, args: &[&str]) -> Run {
    common::serve::command(cwd, socket, "basket", args)
}

/// `summary.json` of `out` without its timings.
fn summary_but_timings(out: &Path) -> (serde_json::Value, serde_json::Value) {
    let text = std::fs::read_to_string(out.join("summary.json")).expect("summary.json");
    let mut s: serde_json::Value = serde_json::from_str(&text).expect("json");
    let t = s.as_object_mut().expect("an object").remove("timings").expect("timings");
    (s, t)
}

const SMALL: [&str; 8] = ["--job", "job.toml", "--paths", "2000", "--steps", "20", "--seed", "9"];

#[test]
fn a_served_basket_job_gives_the_commands_greeks_bit_for_bit() {
    let d = dir("same");
    job_in(&d);
    let socket = d.join("s.sock");
    let _server = Server::start("cpu", &socket);
    let local = basket(&d, None, &[&SMALL[..], &["--out", "local"]].concat());
    assert!(local.success(), "{}", local.stderr);
    // The server's first basket job, then a later request of two jobs.
    let first = basket(&d, Some(&socket), &[&SMALL[..], &["--out", "first"]].concat());
    assert!(first.success(), "{}", first.stderr);
    assert!(first.stdout.contains("the server's first basket job"), "{}", first.stdout);
    let later = basket(&d, Some(&socket), &[&SMALL[..], &["--repeat", "2", "--out", "later"]].concat());
    assert!(later.success(), "{}", later.stderr);
    assert!(later.stdout.contains("an earlier basket job of the server"), "{}", later.stdout);
    // The CPU reference through the library, independently of both doors.
    let mut job = BasketJob::from_toml(&std::fs::read_to_string(d.join("job.toml")).expect("job")).expect("valid");
    (job.simulation.paths, job.simulation.steps, job.simulation.seed) = (2000, 20, 9);
    let lib = price_basket(&tenor_cpu::cpu().expect("cpu"), &job, true).expect("priced");
    let want = greeks_csv(&job, &lib.rows);
    assert_eq!(want.lines().count(), 1 + 53, "header + the baseline's 53 values");
    for out in ["local", "first", "later"] {
        assert_eq!(std::fs::read_to_string(d.join(out).join("greeks.csv")).expect("greeks.csv"), want, "{out}");
    }
    // The same summary but the timings: the job's SHA-256, backend, device, sizes, valuations.
    let (l, _) = summary_but_timings(&d.join("local"));
    assert_eq!(l["valuations"].as_u64(), Some(lib.valuations));
    for (out, repeats) in [("first", 1), ("later", 2)] {
        let (s, t) = summary_but_timings(&d.join(out));
        assert_eq!(s, l, "{out}: summary.json differs from tenor basket's but for the timings");
        assert_eq!(t["repeats"].as_u64(), Some(repeats), "{t}");
        // Nothing is opened for a served job: the server opened the backend when it started.
        assert_eq!(t["open_s"].as_f64(), Some(0.0), "{t}");
        assert!(t["cold_s"].as_f64().is_some(), "{t}");
        assert_eq!(t["warm_s"].is_null(), repeats == 1, "{t}");
    }
    // Only the lines on time and origin differ from the command's own output.
    let same = |r: &Run| r.stdout.lines().filter(|l| !l.starts_with("time ") && !l.starts_with("wrote ")).count();
    assert_eq!(same(&first), 2, "{}", first.stdout);
    let head = |r: &Run| r.stdout.lines().take(2).map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(head(&first), head(&local));
    // TENOR_SOCKET names the socket as --socket does.
    let by_env = run(tenor()
        .current_dir(&d)
        .env_remove("TENOR_BACKEND")
        .env("TENOR_SOCKET", &socket)
        .arg("basket")
        .args(SMALL)
        .args(["--no-greeks", "--server", "--out", "env"]));
    assert!(by_env.success(), "{}", by_env.stderr);
    assert!(by_env.stdout.contains("open 0 s (the backend stays open in `tenor serve`"), "{}", by_env.stdout);
    assert_eq!(std::fs::read_to_string(d.join("env/greeks.csv")).expect("greeks.csv").lines().count(), 2);
    let p = ping(&socket);
    assert!(p.success() && p.stderr.contains("3 basket request(s) run"), "{}", p.stderr);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_basket_requests_get_the_commands_messages_and_the_server_goes_on() {
    let d = dir("bad");
    job_in(&d);
    let socket = d.join("s.sock");
    // No server yet: the client says so and names the socket.
    let none = basket(&d, Some(&socket), &[&SMALL[..], &["--out", "o"]].concat());
    assert_eq!(none.code, 1);
    assert!(none.stderr.contains(&format!("no Tenor server at {}", socket.display())), "{}", none.stderr);

    let mut server = Server::start("cpu", &socket);
    let ok = basket(&d, Some(&socket), &[&SMALL[..], &["--no-greeks", "--out", "o"]].concat());
    assert!(ok.success(), "{}", ok.stderr);
    let before =
        (std::fs::read(d.join("o/greeks.csv")).expect("csv"), std::fs::read(d.join("o/summary.json")).expect("json"));

    // A bad key: the command's own message (the file as typed and the key), through the server;
    // the earlier set in --out stays whole.
    let text = std::fs::read_to_string(d.join("job.toml")).expect("job").replacen("kappa = 2.0", "kappa = -2.0", 1);
    std::fs::write(d.join("bad.toml"), text).expect("write the bad job");
    let bad = ["--job", "bad.toml", "--out", "o"];
    let (direct, served) = (basket(&d, None, &bad), basket(&d, Some(&socket), &bad));
    assert_eq!((direct.code, served.code), (1, 1), "{}\n{}", direct.stderr, served.stderr);
    assert!(direct.stderr.contains("bad.toml: ") && direct.stderr.contains("asset[1].kappa"), "{}", direct.stderr);
    assert_eq!(direct.stderr, served.stderr);
    // A TOML syntax error: its line and column.
    std::fs::write(d.join("syntax.toml"), "[option]\nstrike = = 1\n").expect("write");
    let syntax = ["--job", "syntax.toml", "--out", "o"];
    let (direct, served) = (basket(&d, None, &syntax), basket(&d, Some(&socket), &syntax));
    assert_eq!((direct.code, served.code), (1, 1));
    assert!(direct.stderr.contains("syntax.toml") && direct.stderr.contains("line 2"), "{}", direct.stderr);
    assert_eq!(direct.stderr, served.stderr);
    // An override over a limit names its setting and key.
    let over = [&SMALL[..2], &["--paths", "1", "--out", "o"]].concat();
    let (direct, served) = (basket(&d, None, &over), basket(&d, Some(&socket), &over));
    assert_eq!((direct.code, served.code), (1, 1));
    assert!(served.stderr.contains("simulation.paths") && direct.stderr == served.stderr, "{}", served.stderr);
    let after =
        (std::fs::read(d.join("o/greeks.csv")).expect("csv"), std::fs::read(d.join("o/summary.json")).expect("json"));
    assert_eq!(before, after, "the earlier output set changed");

    // A job over 1 MiB: the client refuses it as `tenor basket` does, before sending it...
    let mut big = std::fs::read_to_string(d.join("job.toml")).expect("job");
    big.push_str(&"# padding\n".repeat(120_000));
    std::fs::write(d.join("big.toml"), &big).expect("write");
    let served = basket(&d, Some(&socket), &["--job", "big.toml", "--out", "o"]);
    assert_eq!(served.code, 1);
    assert!(served.stderr.contains("big.toml: larger than 1048576 bytes"), "{}", served.stderr);
    // ... and the server refuses one announced over 1 MiB by another client before reading it,
    // a repeat out of bounds before reading the job, and a job longer than announced.
    let args = |repeat: u32| {
        format!(
            r#"{{"job":"big.toml","backend":"cpu","overrides":{{"paths":2000,"steps":20,"seed":9}},"greeks":false,"repeat":{repeat},"out":"o","phases":false}}"#
        )
    };
    let refused = |req: Vec<u8>| {
        let frames = read_frames(&mut send(&socket, &req));
        let last = frames.last().cloned().expect("an answer");
        assert_eq!(last.0, tag::ERROR, "{}", String::from_utf8_lossy(&last.1));
        String::from_utf8_lossy(&last.1).into_owned()
    };
    let why = refused(basket_request(big.len() as u64, &args(1)));
    assert!(why.contains("big.toml: larger than 1048576 bytes"), "{why}");
    let why = refused(basket_request(10, &args(0)));
    assert!(why.contains("repeat") && why.contains("0 is not in 1 to 10000"), "{why}");
    let mut long = basket_request(10, &args(1));
    long.extend(frame(tag::INPUT, &[b'#'; 20]));
    let why = refused(long);
    assert!(why.contains("longer than announced"), "{why}");
    // A job the server got whole but that is not UTF-8: named.
    let mut latin = basket_request(3, &args(1));
    latin.extend(frame(tag::INPUT, &[0xff, 0xfe, b'\n']));
    let why = refused(latin);
    assert!(why.contains("big.toml: not UTF-8 text"), "{why}");

    // Another backend than the server's, naming both; an --out that would replace the socket.
    let other = basket(&d, Some(&socket), &[&SMALL[..], &["--backend", "sim", "--out", "o"]].concat());
    assert_eq!(other.code, 1);
    assert!(other.stderr.contains("runs backend \"cpu\", this command asked for \"sim\""), "{}", other.stderr);
    let onto = basket(&d, Some(&d.join("o/greeks.csv")), &[&SMALL[..], &["--out", "o"]].concat());
    assert_eq!(onto.code, 1);
    assert!(onto.stderr.contains("same file as --socket"), "{}", onto.stderr);

    // Still serving: a ping and a good job.
    assert!(server.alive(), "the server ended after bad requests");
    assert!(ping(&socket).success());
    let ok = basket(&d, Some(&socket), &[&SMALL[..], &["--no-greeks", "--out", "o2"]].concat());
    assert!(ok.success(), "{}", ok.stderr);
    assert_eq!(std::fs::read(d.join("o2/greeks.csv")).expect("csv"), before.0);
    let _ = std::fs::remove_dir_all(&d);
}
