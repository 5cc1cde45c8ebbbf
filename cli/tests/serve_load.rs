//! `tenor serve` under load and bad requests (issue 29): every request field goes through the
//! command line's bounds; a client that stops reading, or announces a 4 GiB portfolio and sends
//! nothing, holds neither the other clients nor memory it never sent; the client trusts no socket
//! in a folder others can write; an empty `TENOR_SOCKET=` or `TENOR_BACKEND=` is unset.
#![cfg(unix)]

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

mod common;

use common::serve::{args, frame, ping, price_request, read_frames, send, tag, Server};
use common::{run, tenor, Run};

const HEADER: &str = "id,kind,type,spot,strike,maturity,rate,dividend,vol";

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tenor-load-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("tmp dir");
    d
}

/// A book of `rows` European options (closed forms: cheap to price, about 150 bytes a row out).
fn book(rows: usize) -> String {
    let mut s = format!("{HEADER}\n");
    for i in 0..rows {
        s +=
            &format!("t{i},european,{},100,{},1,0.03,0.01,0.2\n", if i % 2 == 0 { "call" } else { "put" }, 60 + i % 80);
    }
    s
}

fn price_served(d: &Path, socket: &Path, portfolio: &str) -> Run {
    run(tenor().current_dir(d).env_remove("TENOR_BACKEND").env_remove("TENOR_SOCKET").args([
        "price",
        "--server",
        "--socket",
        socket.to_str().expect("utf-8 path"),
        "--backend",
        "cpu",
        "--portfolio",
        portfolio,
    ]))
}

/// The server checks every field as the command line does (one copy of the bounds): `streams`
/// over 65,535 (10^12 was accepted and grew the server by gigabytes), paths that are odd.
#[test]
fn request_fields_out_of_the_command_lines_bounds_are_refused() {
    let d = dir("bounds");
    let socket = d.join("s.sock");
    let _server = Server::start("cpu", &socket);
    let input = book(2);
    for (field, value, named) in [("streams", "70000", "streams"), ("streams", "0", "streams"), ("paths", "3", "paths")]
    {
        let mut req = price_request(input.len() as u64, &args("cpu", &[(field, value)]));
        req.extend(frame(tag::INPUT, input.as_bytes()));
        let mut s = send(&socket, &req);
        let frames = read_frames(&mut s);
        let last = frames.last().expect("an answer");
        let text = String::from_utf8_lossy(&last.1);
        assert_eq!(last.0, tag::ERROR, "{field} {value}: {text}");
        assert!(text.contains(named), "{field} {value}: {text}");
    }
    // The command line refuses the same values with the same bound.
    let r = run(tenor().current_dir(&d).args(["price", "--portfolio", "x.csv", "--streams", "70000"]));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("65535"), "{}", r.stderr);
    assert!(ping(&socket).success());
}

/// A client that sent its request and stopped reading (as one stopped with SIGSTOP) holds
/// neither the server nor the next client: the next client is answered, and the stopped one,
/// reading again, still gets its whole answer. Its answer (about 1.5 MB) is larger than what the
/// socket holds, so the server's writes to it block.
#[test]
fn a_client_that_stops_reading_holds_no_other_client() {
    let d = dir("stopped");
    let socket = d.join("s.sock");
    std::fs::write(d.join("small.csv"), book(3)).expect("book");
    let _server = Server::start("cpu", &socket);
    let big = book(10_000);
    let mut req = price_request(big.len() as u64, &args("cpu", &[]));
    req.extend(frame(tag::INPUT, big.as_bytes()));
    let mut stopped = send(&socket, &req);
    let other = price_served(&d, &socket, "small.csv");
    assert_eq!(other.code, 0, "{}", other.stderr);
    assert_eq!(other.stdout.lines().filter(|l| l.starts_with('t')).count(), 3, "{}", other.stdout);
    let frames = read_frames(&mut stopped);
    let rows: usize =
        frames.iter().filter(|f| f.0 == tag::STDOUT).map(|f| f.1.iter().filter(|&&b| b == b'\n').count()).sum();
    assert_eq!(frames.last().map(|f| (f.0, f.1.clone())), Some((tag::EXIT, vec![0])), "the whole answer, exit 0");
    assert_eq!(rows, 10_001, "the header and every row");
}

/// A client that announces a 4 GiB portfolio and sends nothing: the server reserves nothing for
/// it (it runs under a 3 GiB address-space limit here; it used to reserve the announced size and
/// abort) and answers the other clients meanwhile.
#[test]
fn an_announced_size_is_a_limit_not_an_allocation_and_holds_no_one() {
    let d = dir("announced");
    let socket = d.join("s.sock");
    std::fs::write(d.join("small.csv"), book(3)).expect("book");
    let mut server = Server::start_with("cpu", &socket, |c| {
        // SAFETY: only `setrlimit` (async-signal-safe) between fork and exec.
        unsafe {
            c.pre_exec(|| {
                let lim = libc::rlimit { rlim_cur: 3 << 30, rlim_max: 3 << 30 };
                if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    });
    let mut silent = send(&socket, &price_request(4 << 30, &args("cpu", &[])));
    let other = price_served(&d, &socket, "small.csv");
    assert!(server.alive(), "the server is still running");
    assert_eq!(other.code, 0, "{}", other.stderr);
    assert!(ping(&socket).success());
    // The silent client is still connected and has had no answer yet.
    silent.set_nonblocking(true).expect("nonblocking");
    let mut b = [0u8; 1];
    assert!(matches!(silent.read(&mut b), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock));
}

/// An empty variable is an unset one: `TENOR_SOCKET=` (how a shell clears it for one command)
/// broke every plain `tenor price` (exit 2), `TENOR_BACKEND=` asked for a backend named "".
#[test]
fn empty_tenor_socket_and_tenor_backend_are_unset() {
    let d = dir("empty-env");
    std::fs::write(d.join("b.csv"), book(2)).expect("book");
    let r = run(tenor().current_dir(&d).env("TENOR_SOCKET", "").env("TENOR_BACKEND", "").args([
        "price",
        "--portfolio",
        "b.csv",
    ]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("backend     cpu"), "{}", r.stderr);
}

/// A socket in a folder other users can write is trusted by neither end: `tenor serve` will not
/// listen there and `tenor price --server` will not connect, naming the folder (another user
/// could have put a socket of theirs at that name). Nothing reaches the listener.
#[test]
fn a_socket_folder_others_can_write_is_refused_by_both_ends() {
    let d = dir("open-folder");
    let open = d.join("open");
    std::fs::create_dir(&open).expect("mkdir");
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o1777)).expect("chmod");
    std::fs::write(d.join("b.csv"), book(2)).expect("book");
    let socket = open.join("s.sock");
    // (A time limit so that a server that does start there fails the test instead of holding it.)
    let r = run(tenor().args(["serve", "--backend", "cpu", "--socket"]).arg(&socket).timeout(Duration::from_secs(60)));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains(&open.display().to_string()) && r.stderr.contains("other users can write"),
        "{}",
        r.stderr
    );
    let listener = std::os::unix::net::UnixListener::bind(&socket).expect("a listener of anyone");
    listener.set_nonblocking(true).expect("nonblocking");
    let c = run(tenor()
        .current_dir(&d)
        .timeout(Duration::from_secs(60))
        .args(["price", "--server", "--socket"])
        .arg(&socket)
        .args(["--portfolio", "b.csv"]));
    assert_eq!(c.code, 1, "{}", c.stderr);
    assert!(
        c.stderr.contains(&open.display().to_string()) && c.stderr.contains("other users can write"),
        "{}",
        c.stderr
    );
    assert!(listener.accept().is_err(), "the client never connected");
}
