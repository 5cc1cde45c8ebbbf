//! The user's files under faults: outputs replaced only whole (a SIGKILL mid-write leaves the
//! earlier output intact), `--out` checked before the work, hard links caught by the same-file
//! guard, a run that priced nothing leaving an existing output alone, a header byte that is not
//! UTF-8 costing no row, and `tenor surface` keeping its files when stdout closes early.
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;

mod common;

use common::{run, tenor};

const HEADER: &str = "id,kind,type,spot,strike,maturity,rate,dividend,vol";

fn dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("files_cli").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("tmp dir");
    d
}

fn book(rows: usize) -> String {
    let mut s = String::with_capacity(rows * 48);
    s.push_str(HEADER);
    s.push('\n');
    for i in 0..rows {
        s.push_str(&format!(
            "t{i},european,{},100,{},1,0.03,0.01,0.2\n",
            if i % 2 == 0 { "call" } else { "put" },
            50 + i % 100
        ));
    }
    s
}

fn price(portfolio: &Path, out: &Path) -> common::Run {
    run(tenor().env_remove("TENOR_BACKEND").args(["price", "--portfolio"]).arg(portfolio).arg("--out").arg(out))
}

#[test]
fn a_hard_link_to_the_portfolio_is_refused_and_the_input_kept() {
    let d = dir("link");
    let input = d.join("in.csv");
    std::fs::write(&input, book(2)).expect("write");
    let link = d.join("link.csv");
    std::fs::hard_link(&input, &link).expect("hard link");
    let r = price(&input, &link);
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("same file") && r.stderr.contains("link.csv"), "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&input).expect("input"), book(2), "the input is untouched");
}

#[test]
fn an_unwritable_out_is_refused_before_the_portfolio_is_read() {
    let d = dir("early");
    // The portfolio does not exist either: the output's error comes first, so no work is done
    // before a bad --out is seen.
    let r = price(&d.join("missing.csv"), &d.join("no/such/folder/out.csv"));
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("no/such/folder/out.csv"), "{}", r.stderr);
    assert!(!r.stderr.contains("missing.csv"), "the portfolio was not read first: {}", r.stderr);
}

#[test]
fn a_run_that_priced_nothing_leaves_the_old_output_and_says_so() {
    let d = dir("nothing");
    let input = d.join("bad.csv");
    std::fs::write(&input, format!("{HEADER}\nb1,european,call,abc,100,1,0.05,0,0.2\n")).expect("write");
    let out = d.join("prices.csv");
    std::fs::write(&out, "earlier results\n").expect("seed");
    let r = price(&input, &out);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&out).expect("out"), "earlier results\n");
    assert!(r.stdout.contains("not written (no row was priced)"), "{}", r.stdout);
    assert!(r.stderr.contains("no row was priced") && !r.stderr.contains("other rows were priced"), "{}", r.stderr);
}

#[test]
fn a_bad_byte_in_an_unknown_header_column_prices_every_row() {
    let d = dir("header-byte");
    let input = d.join("latin1.csv");
    let mut bytes = format!("{HEADER},caf").into_bytes();
    bytes.push(0xe9);
    bytes.extend_from_slice(b"\ng1,european,call,100,100,1,0.05,0,0.2,x\ng2,european,put,100,100,1,0.05,0,0.2,y\n");
    std::fs::write(&input, bytes).expect("write");
    let out = d.join("prices.csv");
    let r = price(&input, &out);
    assert!(r.stdout.contains("2 rows, 2 priced, 0 rejected"), "{}\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("latin1.csv:1") && r.stderr.contains("not valid UTF-8"), "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&out).expect("out").lines().count(), 3);
}

/// Temporary files Tenor left in `d` (a SIGKILL cannot clean up; it must never be the target).
fn temp_files(d: &Path) -> Vec<(PathBuf, u64)> {
    std::fs::read_dir(d)
        .expect("list")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().contains(".tenor-tmp-"))
        .map(|e| (e.path(), e.metadata().map_or(0, |m| m.len())))
        .collect()
}

#[test]
fn sigkill_mid_write_leaves_the_earlier_output_intact() {
    let d = dir("kill");
    let input = d.join("big.csv");
    std::fs::write(&input, book(200_000)).expect("write");
    let out = d.join("prices.csv");
    let earlier = "id,price\nearlier,1\n";
    let (mut killed_mid_write, mut corrupt) = (0, 0);
    for _ in 0..3 {
        std::fs::write(&out, earlier).expect("seed");
        for (t, _) in temp_files(&d) {
            std::fs::remove_file(t).expect("clean");
        }
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tenor"))
            .env_remove("TENOR_BACKEND")
            .args(["price", "--no-greeks", "--portfolio"])
            .arg(&input)
            .arg("--out")
            .arg(&out)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        // Kill as soon as result bytes are being written: the target changed, or a temporary
        // file beside it has data.
        loop {
            if child.try_wait().expect("wait").is_some() {
                break;
            }
            let target_changed = std::fs::metadata(&out).map_or(true, |m| m.len() != earlier.len() as u64);
            if target_changed || temp_files(&d).iter().any(|(_, n)| *n > 0) {
                if child.kill().is_ok() {
                    killed_mid_write += 1;
                }
                break;
            }
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        let _ = child.wait();
        let now = std::fs::read_to_string(&out).unwrap_or_default();
        let complete = now.lines().count() == 200_001 && now.ends_with('\n');
        if now != earlier && !complete {
            corrupt += 1;
        }
    }
    println!("kill test: 3 runs, {killed_mid_write} killed mid-write, {corrupt} outputs left corrupt");
    assert!(killed_mid_write > 0, "no run was caught mid-write");
    assert_eq!(corrupt, 0, "{corrupt} of 3 outputs were left corrupt");
}

/// The real Cboe file's first lines: title, spot, date, header and `rows` strike rows.
fn cboe_copy(d: &Path, rows: usize) -> PathBuf {
    let src = tenor_testdata::shared("data/options/spx_cboe_2025-10-01/spx_quotedata-3.csv");
    let text = std::fs::read_to_string(&src).expect("snapshot");
    let keep: Vec<&str> = text.lines().take(4 + rows).collect();
    let p = d.join("spx.csv");
    std::fs::write(&p, keep.join("\n") + "\n").expect("write");
    p
}

#[test]
fn surface_into_a_closed_pipe_still_writes_every_file() {
    let d = dir("pipe");
    let chain = tenor_testdata::shared("data/options/spx_cboe_2025-10-01/spx_quotedata-3.csv");
    let out = d.join("surface");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tenor"))
        .env_remove("TENOR_BACKEND")
        .arg("surface")
        .arg(&chain)
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // The reader goes away at once, as `| head -0` would.
    drop(child.stdout.take());
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut stderr);
    }
    let _ = child.wait();
    for f in ["implied_vols.csv", "svi_params.csv", "calendar.csv", "surface.svg"] {
        assert!(out.join(f).exists(), "{f} lost on the broken pipe; stderr: {stderr}");
    }
}

#[test]
fn surface_with_no_fittable_slice_names_the_file() {
    let d = dir("noslice");
    let chain = cboe_copy(&d, 3);
    let r = run(tenor().env_remove("TENOR_BACKEND").arg("surface").arg(&chain).arg("--out").arg(d.join("out")));
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("spx.csv") && r.stderr.contains("slice"), "{}", r.stderr);
    assert!(!r.stderr.contains("invalid argument slices"), "{}", r.stderr);
}

/// `--out` as `sort -o` and `curl -o` users expect (issue 29): `-` and `/dev/stdout` are the
/// standard output, written in order; a link of this user is written through to its target,
/// which is replaced atomically beside itself, and the link stays.
#[test]
fn out_dash_and_dev_stdout_are_streams_and_a_link_is_written_through() {
    let d = dir("streams");
    let input = d.join("in.csv");
    std::fs::write(&input, book(3)).expect("write");
    for out in ["-", "/dev/stdout"] {
        let r = price(&input, Path::new(out));
        assert_eq!(r.code, 0, "--out {out}: {}", r.stderr);
        let rows: Vec<&str> =
            r.stdout.lines().filter(|l| ["t0,", "t1,", "t2,"].iter().any(|t| l.starts_with(t))).collect();
        assert_eq!(rows.len(), 3, "--out {out}: the rows on stdout: {}", r.stdout);
        assert!(r.stdout.starts_with("id,price,"), "--out {out}: {}", r.stdout);
    }
    assert!(!d.join("-").exists(), "no file named -");
    #[cfg(unix)]
    {
        std::fs::create_dir(d.join("runs")).expect("mkdir");
        std::fs::write(d.join("runs/today.csv"), "old").expect("seed");
        let link = d.join("latest.csv");
        std::os::unix::fs::symlink("runs/today.csv", &link).expect("link");
        let r = price(&input, &link);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(std::fs::symlink_metadata(&link).expect("stat").file_type().is_symlink(), "the link stays");
        let text = std::fs::read_to_string(d.join("runs/today.csv")).expect("read");
        assert!(text.starts_with("id,price,") && text.lines().count() == 4, "{text}");
    }
}
