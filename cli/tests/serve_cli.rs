//! `tenor serve` and `tenor price --server` end to end: a book priced in the resident server is
//! byte for byte the book `tenor price` prices and writes by itself (rows, standard errors,
//! Greeks, the summary's figures and every error line), on the simulated device whose pool then
//! lives across requests; and each way a client can fail is a typed message.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use common::serve::{ping, Server};
use common::{run, tenor, Run};

const HEADER: &str = "id,kind,type,spot,strike,maturity,rate,dividend,vol,barrier,barrier_type,rebate,fixings";

/// A folder of its own for each test, with a short path (Unix socket paths are limited).
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tenor-serve-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("tmp dir");
    d
}

/// `tenor price` in `cwd` with `args`, by itself or (`socket`) through the server.
fn price(cwd: &Path, socket: Option<&Path>, args: &[&str]) -> Run {
    common::serve::command(cwd, socket, "price", args)
}

/// The summary without the lines on how long the phases took and where the backend came from;
/// of the memory line, the peak used by this book (the pool's reservation outlives a request).
fn figures(summary: &str) -> Vec<&str> {
    summary
        .lines()
        .filter(|l| !["time ", "phases ", "where ", "exit "].iter().any(|p| l.starts_with(p)))
        .map(|l| if l.starts_with("memory ") { l.split(" used,").next().unwrap_or(l) } else { l })
        .collect()
}

#[test]
fn a_served_book_is_the_book_priced_by_the_command_byte_for_byte() {
    let d = dir("same");
    let socket = d.join("s.sock");
    let book = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/spx_book.csv");
    std::fs::copy(&book, d.join("book.csv")).expect("copy the example book");
    std::fs::copy(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/mc_edges_book.csv"), d.join("edges.csv"))
        .expect("copy the edge book");
    let server = Server::start("sim", &socket);
    let cases: [&[&str]; 3] = [
        &["--portfolio", "book.csv", "--engine", "mc", "--paths", "2000", "--no-greeks"],
        &["--portfolio", "edges.csv", "--engine", "mc", "--paths", "2000"],
        &["--portfolio", "book.csv", "--paths", "2000"],
    ];
    for (k, case) in cases.iter().enumerate() {
        for round in 0..2 {
            // Twice through the server: the second request reuses the pool of the first.
            let (a, b) = (format!("direct{k}.csv"), format!("served{k}_{round}.csv"));
            let direct = price(&d, None, &[case, &["--backend", "sim", "--out", a.as_str()][..]].concat());
            let served = price(&d, Some(&socket), &[case, &["--backend", "sim", "--out", b.as_str()][..]].concat());
            assert_eq!(direct.code, 0, "{}", direct.stderr);
            assert_eq!(served.code, 0, "{}", served.stderr);
            let (x, y) =
                (std::fs::read(d.join(&a)).expect("direct rows"), std::fs::read(d.join(&b)).expect("served rows"));
            assert!(x.len() > 100 && x == y, "case {case:?}: the served rows differ from the direct rows");
            assert_eq!(figures(&direct.stdout), figures(&served.stdout), "case {case:?}: summaries differ");
            assert!(served.stdout.contains("once, when `tenor serve` started"), "{}", served.stdout);
            assert!(served.stdout.contains("stays open in `tenor serve`"), "{}", served.stdout);
        }
    }
    // Without --out the rows come on stdout and the summary on stderr, as by itself.
    let direct = price(&d, None, &["--portfolio", "edges.csv", "--backend", "sim", "--paths", "2000"]);
    let served = price(&d, Some(&socket), &["--portfolio", "edges.csv", "--backend", "sim", "--paths", "2000"]);
    assert_eq!((direct.code, served.code), (0, 0), "{}\n{}", direct.stderr, served.stderr);
    assert!(direct.stdout.starts_with("id,price,") && direct.stdout == served.stdout);
    assert_eq!(figures(&direct.stderr), figures(&served.stderr));
    // The portfolio from stdin: the client reads it, not the server.
    let book_text = std::fs::read(d.join("edges.csv")).expect("edge book");
    let from_stdin = |socket: Option<&Path>| {
        let mut cmd = tenor();
        cmd.current_dir(&d).env_remove("TENOR_BACKEND").env_remove("TENOR_SOCKET");
        cmd.args(["price", "--portfolio", "/dev/stdin", "--backend", "sim", "--paths", "2000"]);
        if let Some(s) = socket {
            cmd.arg("--server").arg("--socket").arg(s);
        }
        run(cmd.write_stdin(book_text.clone()))
    };
    let (direct, served) = (from_stdin(None), from_stdin(Some(&socket)));
    assert_eq!((direct.code, served.code), (0, 0), "{}\n{}", direct.stderr, served.stderr);
    assert!(direct.stdout.starts_with("id,price,") && direct.stdout == served.stdout, "{}", served.stderr);
    // The client writes --out with its own umask.
    let umask = Command::new("sh")
        .current_dir(&d)
        .arg("-c")
        .arg(format!(
            "umask 077 && exec '{}' price --server --socket '{}' --portfolio edges.csv --backend sim --paths 2000 --out private.csv",
            assert_cmd::cargo::cargo_bin("tenor").display(),
            socket.display()
        ))
        .status()
        .expect("sh runs");
    assert!(umask.success());
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(d.join("private.csv")).expect("private.csv").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the client's umask 077 gives mode 0600, got {mode:o}");
    // TENOR_SOCKET set does not change a command without --server.
    let plain = run(tenor().current_dir(&d).env("TENOR_SOCKET", &socket).env_remove("TENOR_BACKEND").args([
        "price",
        "--portfolio",
        "edges.csv",
        "--paths",
        "2000",
        "--out",
        "plain.csv",
    ]));
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    assert!(plain.stdout.contains("on a thread beside the read"), "{}", plain.stdout);
    // --out naming the server's socket is refused; the server still answers.
    let over = price(&d, Some(&socket), &["--portfolio", "edges.csv", "--backend", "sim", "--out", "s.sock"]);
    assert_eq!(over.code, 1);
    assert!(over.stderr.contains("is the same file as --socket"), "{}", over.stderr);
    let p = ping(&socket);
    assert!(p.success() && p.stderr.contains("backend sim") && p.stderr.contains("9 book(s) priced"), "{}", p.stderr);
    drop(server);
    assert!(!socket.exists(), "--stop removes the socket");
}

#[test]
fn bad_rows_and_bad_requests_get_the_commands_own_messages() {
    let d = dir("bad");
    let socket = d.join("s.sock");
    std::fs::write(
        d.join("bad.csv"),
        format!("{HEADER}\ngood,european,call,100,100,1,0.05,0,0.2,,,,\nbad,european,call,100,-5,1,0.05,0,0.2,,,,\n"),
    )
    .expect("write the book");
    // No server yet: the client says so and names the socket.
    let none = price(&d, Some(&socket), &["--portfolio", "bad.csv", "--backend", "cpu"]);
    assert_eq!(none.code, 1);
    assert!(none.stderr.contains(&format!("no Tenor server at {}", socket.display())), "{}", none.stderr);

    let _server = Server::start("cpu", &socket);
    // A second server on the same socket is refused before it opens anything.
    let second = run(tenor().args(["serve", "--backend", "cpu", "--socket"]).arg(&socket));
    assert_eq!(second.code, 1);
    assert!(second.stderr.contains("a Tenor server already listens there"), "{}", second.stderr);

    // A bad row: exit 1, the same error lines (file named as typed, line and column), the good
    // row priced.
    let args = ["--portfolio", "bad.csv", "--backend", "cpu", "--paths", "2000", "--out", "o.csv"];
    let direct = price(&d, None, &args);
    let direct_rows = std::fs::read(d.join("o.csv")).expect("rows");
    let served = price(&d, Some(&socket), &args);
    assert_eq!((direct.code, served.code), (1, 1));
    assert!(direct.stderr.contains("bad.csv:3:"), "{}", direct.stderr);
    assert_eq!(direct.stderr, served.stderr);
    assert_eq!(std::fs::read(d.join("o.csv")).expect("rows"), direct_rows);

    // An unreadable portfolio: the command's error, through the server.
    let direct = price(&d, None, &["--portfolio", "missing.csv", "--backend", "cpu"]);
    let served = price(&d, Some(&socket), &["--portfolio", "missing.csv", "--backend", "cpu"]);
    assert_eq!((direct.code, served.code), (1, 1));
    assert!(
        direct.stderr.contains("missing.csv") && direct.stderr == served.stderr,
        "{}\n{}",
        direct.stderr,
        served.stderr
    );

    // Another backend than the server's is refused, naming both.
    let other = price(&d, Some(&socket), &["--portfolio", "bad.csv", "--backend", "sim"]);
    assert_eq!(other.code, 1);
    assert!(other.stderr.contains("runs backend \"cpu\", this command asked for \"sim\""), "{}", other.stderr);

    // A request that is not one: the server answers with an error and goes on.
    {
        use std::io::{Read, Write};
        let mut s = std::os::unix::net::UnixStream::connect(&socket).expect("connect");
        s.write_all(&[0, 3, 0, 0, 0, b'{', b'x', b'}']).expect("send");
        let mut reply = Vec::new();
        s.read_to_end(&mut reply).expect("reply");
        assert_eq!(reply.first(), Some(&5), "an error frame");
        assert!(String::from_utf8_lossy(&reply).contains("the request is not valid"));
    }
    assert!(ping(&socket).success(), "the server still answers after a bad request");
    // A socket path over the limit is a typed error naming it.
    let long = d.join("x".repeat(120));
    let r = run(tenor().args(["serve", "--socket"]).arg(&long));
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("over the 107 a Unix socket path can have"), "{}", r.stderr);
}
