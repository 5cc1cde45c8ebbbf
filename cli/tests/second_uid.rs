//! Another user on the same machine (issue 29, ADR 0029), end to end: a second uid (65534,
//! `nobody`, through `setuid` in the child before `exec`) plants links and sockets in folders it
//! can write, and `tenor`, run as root, neither writes through them nor trusts them. These tests
//! need root to become the second user; run as anyone else they print why they are skipped
//! (CI runs as root, so there they run).
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use common::{run, tenor};

/// The second user.
const NOBODY: u32 = 65534;

fn root() -> bool {
    // SAFETY: `geteuid` has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

macro_rules! needs_root {
    () => {
        if !root() {
            eprintln!("skipped: becoming a second user needs root (CI runs as root)");
            return;
        }
    };
}

/// `cmd` run as uid/gid 65534 with no supplementary groups.
fn as_nobody(cmd: &mut Command) -> &mut Command {
    // SAFETY: only async-signal-safe calls between fork and exec; each failure is returned.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setgroups(0, std::ptr::null()) != 0 || libc::setgid(NOBODY) != 0 || libc::setuid(NOBODY) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    }
}

/// A fresh folder under the system's temporary folder (which the second user can reach), with
/// `mode`, owned by `owner`.
fn folder(tag: &str, mode: u32, owner: u32) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tenor-2uid-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir(&d).expect("mkdir");
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(mode)).expect("chmod");
    std::os::unix::fs::chown(&d, Some(owner), Some(owner)).expect("chown");
    d
}

/// A file only root may read or write, with `text`.
fn victim(tag: &str, text: &str) -> (PathBuf, PathBuf) {
    let d = folder(tag, 0o700, 0);
    let f = d.join("secret.conf");
    std::fs::write(&f, text).expect("seed");
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    (d, f)
}

fn book(dir: &Path) -> PathBuf {
    let p = dir.join("book.csv");
    std::fs::write(
        &p,
        "id,kind,type,spot,strike,maturity,rate,dividend,vol\na,european,call,100,100,1,0.03,0.01,0.2\n",
    )
    .expect("book");
    p
}

/// The last process id the kernel handed out (the next ones follow it).
fn last_pid() -> u64 {
    std::fs::read_to_string("/proc/sys/kernel/ns_last_pid").expect("ns_last_pid").trim().parse().expect("a pid")
}

/// As the second user, in one process (so no pid is spent meanwhile), links `name(pid)` in `dir`
/// to `target` for the next 3000 process ids.
fn plant_for_next_pids(dir: &Path, target: &Path, name: &str) {
    let from = last_pid() + 1;
    let script = format!(
        "for my $p ({from}..{}) {{ my $n = '{name}'; $n =~ s/PID/$p/; symlink('{}', \"{}/$n\") or die \"$n: $!\" }}",
        from + 3000,
        target.display(),
        dir.display()
    );
    let st = as_nobody(Command::new("perl").args(["-e", &script])).status().expect("perl");
    assert!(st.success(), "planting as uid {NOBODY}");
}

#[test]
fn links_planted_at_guessable_temporary_names_do_not_redirect_tenor_price() {
    needs_root!();
    let (vdir, secret) = victim("victim", "root's secret\n");
    let shared = folder("shared", 0o777, NOBODY);
    let input = book(&vdir);
    // The names `tenor price` used to write through: `.res.csv.tenor-tmp-<pid>-0`.
    plant_for_next_pids(&shared, &secret, ".res.csv.tenor-tmp-PID-0");
    let out = shared.join("res.csv");
    let r = run(tenor().env_remove("TENOR_BACKEND").args(["price", "--portfolio"]).arg(&input).arg("--out").arg(&out));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&secret).expect("read"), "root's secret\n", "the victim's file is untouched");
    let m = std::fs::symlink_metadata(&out).expect("stat");
    assert!(m.file_type().is_file(), "res.csv is a regular file");
    assert!(std::fs::read_to_string(&out).expect("read").starts_with("id,price,"));
    std::fs::remove_dir_all(&shared).expect("clean");
    std::fs::remove_dir_all(&vdir).expect("clean");
}

#[test]
fn an_out_planted_as_a_link_by_another_user_is_refused_by_name() {
    needs_root!();
    let (vdir, secret) = victim("victim-out", "root's secret\n");
    let shared = folder("shared-out", 0o1777, 0);
    let input = book(&vdir);
    let out = shared.join("res.csv");
    let st = as_nobody(Command::new("ln").arg("-s").arg(&secret).arg(&out)).status().expect("ln");
    assert!(st.success());
    let r = run(tenor().env_remove("TENOR_BACKEND").args(["price", "--portfolio"]).arg(&input).arg("--out").arg(&out));
    assert_ne!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("res.csv") && r.stderr.contains("uid 65534"), "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&secret).expect("read"), "root's secret\n");
    assert!(std::fs::symlink_metadata(&out).expect("stat").file_type().is_symlink(), "the link is left alone");
    std::fs::remove_dir_all(&shared).expect("clean");
    std::fs::remove_dir_all(&vdir).expect("clean");
}

/// `tenor price --server --socket SOCKET --portfolio INPUT` (a minute at most, so that a client
/// that trusts a fake server fails the test instead of holding it).
fn served(socket: &Path, input: &Path) -> assert_cmd::Command {
    let mut c = tenor();
    c.env_remove("TENOR_BACKEND")
        .timeout(std::time::Duration::from_secs(60))
        .args(["price", "--server", "--socket"])
        .arg(socket)
        .arg("--portfolio")
        .arg(input);
    c
}

/// A fake `tenor serve`: binds `path` (as the user that starts it), becomes `uid` (when given)
/// before `listen`, so that `SO_PEERCRED` reports that uid, prints `ready`, and answers the first
/// client with forged prices on its standard output and exit status 0, without reading a byte.
fn fake_server(path: &Path, uid: Option<u32>) -> std::process::Child {
    fake_server_with(path, uid, |c| c)
}

/// [`fake_server`] started through `start` (as another user), without changing uid itself.
fn fake_server_as(path: &Path, start: fn(&mut Command) -> &mut Command) -> std::process::Child {
    fake_server_with(path, None, start)
}

fn fake_server_with(path: &Path, uid: Option<u32>, start: fn(&mut Command) -> &mut Command) -> std::process::Child {
    let drop_to = uid
        .map_or(String::new(), |u| format!("POSIX::setgid({u}) or die 'setgid'; POSIX::setuid({u}) or die 'setuid';"));
    let script = format!(
        "use Socket; use POSIX; $| = 1; socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die $!; \
         bind($s, pack_sockaddr_un('{}')) or die \"bind: $!\"; {drop_to} listen($s, 5) or die $!; print \"ready\\n\"; \
         accept(my $c, $s) or die $!; my $out = \"id,price\\nforged,999\\n\"; \
         syswrite($c, pack('CV', 1, length $out) . $out . pack('CV', 4, 1) . chr(0)); sleep 2;",
        path.display()
    );
    let mut child =
        start(Command::new("perl").args(["-e", &script]).stdout(std::process::Stdio::piped())).spawn().expect("perl");
    let mut line = String::new();
    let out = child.stdout.as_mut().expect("stdout");
    std::io::BufRead::read_line(&mut std::io::BufReader::new(out), &mut line).expect("ready");
    assert_eq!(line.trim(), "ready", "the fake server listens");
    child
}

/// A server of another uid at the socket (bound in a folder of root's own, so the folder is
/// trusted; the fake server becomes uid 65534 before it listens): `tenor price --server` refuses
/// it, naming the uid, and neither prints nor writes its forged prices (it used to send it the
/// portfolio and write them to --out with exit 0).
#[test]
fn the_server_client_refuses_a_server_of_another_uid() {
    needs_root!();
    let d = folder("fake-server", 0o755, 0);
    let input = book(&d);
    let socket = d.join("s.sock");
    let mut fake = fake_server(&socket, Some(NOBODY));
    let out = d.join("prices.csv");
    let r = run(served(&socket, &input).arg("--out").arg(&out));
    let _ = fake.kill();
    let _ = fake.wait();
    assert_ne!(r.code, 0, "{}", r.stdout);
    assert!(r.stderr.contains("runs as uid 65534"), "{}", r.stderr);
    assert!(!r.stdout.contains("forged") && !out.exists(), "no forged price is shown or written");
    std::fs::remove_dir_all(&d).expect("clean");
}

/// A socket in a folder another uid owns (where it runs its own fake server) is refused before
/// connecting, naming the folder.
#[test]
fn the_server_client_refuses_a_socket_folder_of_another_uid() {
    needs_root!();
    let mine = folder("mine", 0o755, 0);
    let input = book(&mine);
    let theirs = folder("theirs", 0o755, NOBODY);
    let socket = theirs.join("s.sock");
    // Started as the second user from the start: it binds in its own folder.
    let mut fake = fake_server_as(&socket, as_nobody);
    let r = run(&mut served(&socket, &input));
    let _ = fake.kill();
    let _ = fake.wait();
    assert_ne!(r.code, 0, "{}", r.stdout);
    assert!(r.stderr.contains(&theirs.display().to_string()) && r.stderr.contains("uid 65534"), "{}", r.stderr);
    assert!(!r.stdout.contains("forged"));
    std::fs::remove_dir_all(&theirs).expect("clean");
    std::fs::remove_dir_all(&mine).expect("clean");
}

/// The trace interposer used without `tenor` (`LD_PRELOAD=libtenor_trace.so TENOR_TRACE_OUT=...`)
/// in a folder another uid owns: links that uid planted at the temporary names it used to choose
/// (`OUT.tmp.<pid>`) are not written through; the trace lands at OUT.
#[test]
fn the_trace_interposer_writes_through_no_planted_link() {
    needs_root!();
    let (vdir, secret) = victim("victim-trace", "root's secret\n");
    let build = folder("interposer", 0o755, 0);
    common::build_interposer(&build);
    let shared = folder("shared-trace", 0o777, NOBODY);
    plant_for_next_pids(&shared, &secret, "run.trace.tmp.PID");
    let out = shared.join("run.trace");
    let st = Command::new(build.join("prog"))
        .arg("run")
        .env("LD_PRELOAD", build.join("libtenor_trace.so"))
        .env("LD_LIBRARY_PATH", &build)
        .env("TENOR_TRACE_OUT", &out)
        .env_remove("TENOR_TRACE_ROOT_PID")
        .stdout(std::process::Stdio::null())
        .status()
        .expect("prog");
    assert!(st.success());
    assert_eq!(std::fs::read_to_string(&secret).expect("read"), "root's secret\n", "the victim's file is untouched");
    let text = std::fs::read_to_string(&out).expect("the trace");
    assert!(text.starts_with("# tenor-alloc trace v1"), "{text}");
    for d in [&shared, &build, &vdir] {
        std::fs::remove_dir_all(d).expect("clean");
    }
}

/// A results folder (`--out DIR` of the commands that write several files) that another user
/// made a link into a folder of root's: refused by name, nothing written there.
#[test]
fn an_out_folder_that_is_another_users_link_is_refused() {
    needs_root!();
    let private = folder("private-charts", 0o700, 0);
    std::fs::write(private.join("size_histogram.svg"), "root's chart").expect("seed");
    let shared = folder("shared-charts", 0o1777, 0);
    let link = shared.join("charts");
    let st = as_nobody(Command::new("ln").arg("-s").arg(&private).arg(&link)).status().expect("ln");
    assert!(st.success());
    let r = run(tenor().args(["alloc", "profile", "--out"]).arg(&link));
    assert_ne!(r.code, 0, "{}", r.stdout);
    assert!(r.stderr.contains("charts") && r.stderr.contains("uid 65534"), "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(private.join("size_histogram.svg")).expect("read"), "root's chart");
    std::fs::remove_dir_all(&shared).expect("clean");
    std::fs::remove_dir_all(&private).expect("clean");
}
