//! Results files in folders other users can write (issue 29, ADR 0029): temporary files and
//! staging folders are created exclusively under unpredictable names, never through a planted
//! link; `--out` that is a link is written through to its target; FIFOs and character devices are
//! streams; a socket is refused.
#![cfg(unix)]

use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use tenor_ports::files::{self, AtomicFile, OutputDir};

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tenor-shared-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("tmp");
    d
}

/// Every name of the form `prefix<pid>-<n>` (n < 1000), planted as a link to `victim`: what an
/// attacker who can guess the process id and a counter plants in a shared folder.
fn plant_guessable(dir: &Path, prefix: &str, victim: &Path) {
    for n in 0..1000 {
        std::os::unix::fs::symlink(victim, dir.join(format!("{prefix}{}-{n}", std::process::id()))).expect("plant");
    }
}

fn is_root() -> bool {
    // SAFETY: `geteuid` has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[test]
fn a_link_planted_at_a_guessable_temporary_name_is_not_written_through() {
    let d = tmp("guess");
    let victim = d.join("victim.txt");
    std::fs::write(&victim, "precious").expect("seed");
    plant_guessable(&d, ".res.csv.tenor-tmp-", &victim);
    let out = d.join("res.csv");
    files::write_atomic(&out, b"id,price\na,1\n").expect("written beside the planted links");
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "precious", "the victim's file is untouched");
    let m = std::fs::symlink_metadata(&out).expect("stat");
    assert!(m.file_type().is_file(), "res.csv is a regular file, not the attacker's link");
    assert_eq!(std::fs::read_to_string(&out).expect("read"), "id,price\na,1\n");
    // The same for writers that need a path (charts).
    let chart = d.join("chart.svg");
    plant_guessable(&d, ".chart.svg.tenor-tmp-", &victim);
    files::write_through::<files::WriteError, _>(&chart, |p| {
        std::fs::write(p, "<svg/>").map_err(|e| files::WriteError { action: "writing", path: p.into(), source: e })
    })
    .expect("written");
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "precious");
    assert_eq!(std::fs::read_to_string(&chart).expect("read"), "<svg/>");
    std::fs::remove_dir_all(&d).expect("clean");
}

#[test]
fn a_folder_set_is_staged_beside_planted_names() {
    let d = tmp("stage");
    let victim = tmp("stage-victim");
    plant_guessable(&d, ".tenor-tmp-", &victim);
    let mut set = OutputDir::create(&d, &["a.csv"]).expect("a staging folder of its own");
    set.write_with("a.csv", |w| std::io::Write::write_all(w, b"x")).expect("write");
    set.commit().expect("commit");
    assert_eq!(std::fs::read_to_string(d.join("a.csv")).expect("read"), "x");
    assert_eq!(std::fs::read_dir(&victim).expect("ls").count(), 0, "nothing went through a planted link");
    std::fs::remove_dir_all(&d).expect("clean");
    std::fs::remove_dir_all(&victim).expect("clean");
}

#[test]
fn an_out_that_is_a_link_is_written_through_to_its_target() {
    let d = tmp("link");
    std::fs::create_dir(d.join("real")).expect("mkdir");
    let target = d.join("real/prices.csv");
    std::fs::write(&target, "old").expect("seed");
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    let link = d.join("prices.csv");
    std::os::unix::fs::symlink("real/prices.csv", &link).expect("link");
    files::write_atomic(&link, b"new").expect("write through the link");
    assert!(std::fs::symlink_metadata(&link).expect("stat").file_type().is_symlink(), "the link stays a link");
    assert_eq!(std::fs::read_to_string(&target).expect("read"), "new", "its target has the results");
    assert_eq!(std::fs::metadata(&target).expect("stat").mode() & 0o777, 0o640, "the target keeps its mode");
    let leftovers: Vec<_> = std::fs::read_dir(d.join("real")).expect("ls").collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left beside the target");
    // A dangling link of this user creates its target.
    let dangling = d.join("new.csv");
    std::os::unix::fs::symlink("real/new.csv", &dangling).expect("link");
    files::write_atomic(&dangling, b"fresh").expect("write through");
    assert_eq!(std::fs::read_to_string(d.join("real/new.csv")).expect("read"), "fresh");
    std::fs::remove_dir_all(&d).expect("clean");
}

#[test]
fn a_fifo_and_a_character_device_are_streams_and_a_socket_is_refused() {
    let d = tmp("stream");
    let fifo = d.join("pipe");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("path");
    // SAFETY: a NUL-terminated path alive for the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).expect("read the FIFO"))
    };
    files::write_atomic(&fifo, b"id,price\na,1\n").expect("a FIFO is written as a stream");
    assert_eq!(reader.join().expect("reader"), "id,price\na,1\n");
    assert!(std::fs::symlink_metadata(&fifo).expect("stat").file_type().is_fifo(), "still a FIFO");
    files::write_atomic(Path::new("/dev/null"), b"discarded").expect("a character device is a stream");
    assert!(std::fs::symlink_metadata("/dev/null").expect("stat").file_type().is_char_device());
    let sock = d.join("live.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).expect("bind");
    let e = AtomicFile::create(&sock).expect_err("a socket is refused");
    assert!(e.to_string().contains("socket"), "{e}");
    assert!(std::fs::symlink_metadata(&sock).expect("stat").file_type().is_socket());
    std::fs::remove_dir_all(&d).expect("clean");
}

/// The second-uid case: another user (uid 65534, `nobody`) plants `res.csv` as a link to a file
/// only root may write, in a sticky folder everyone can write (as `/tmp`) and in a folder of its
/// own (where the kernel's `protected_symlinks` lets the owner's links through). Root's write
/// refuses the link, naming it, and the file is untouched.
#[test]
fn a_link_planted_by_another_user_in_a_shared_folder_is_refused() {
    if !is_root() {
        eprintln!("skipped: needs root to give a link to a second uid (CI runs as root)");
        return;
    }
    let d = tmp("other-uid");
    let private = d.join("private");
    std::fs::create_dir(&private).expect("mkdir");
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let victim = private.join("victim.conf");
    std::fs::write(&victim, "precious").expect("seed");
    let shared = d.join("shared");
    std::fs::create_dir(&shared).expect("mkdir");
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).expect("chmod");
    let link = shared.join("res.csv");
    std::os::unix::fs::symlink(&victim, &link).expect("plant");
    std::os::unix::fs::lchown(&link, Some(65534), Some(65534)).expect("give the link to nobody");
    let e = files::write_atomic(&link, b"forged").expect_err("a link planted by another user");
    assert!(e.to_string().contains("res.csv") && e.to_string().contains("uid 65534"), "{e}");
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "precious");
    let theirs = d.join("theirs");
    std::fs::create_dir(&theirs).expect("mkdir");
    std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).expect("give the folder to nobody");
    let link2 = theirs.join("res.csv");
    std::os::unix::fs::symlink(&victim, &link2).expect("plant");
    std::os::unix::fs::lchown(&link2, Some(65534), Some(65534)).expect("give the link to nobody");
    let e = files::write_atomic(&link2, b"forged").expect_err("its owner's link in its own folder");
    assert!(e.to_string().contains("uid 65534"), "{e}");
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "precious");
    // Its own link in the same folder is followed.
    let mine = shared.join("mine.csv");
    std::os::unix::fs::symlink(private.join("mine.csv"), &mine).expect("link");
    files::write_atomic(&mine, b"ok").expect("one's own link");
    assert_eq!(std::fs::read_to_string(private.join("mine.csv")).expect("read"), "ok");
    std::fs::remove_dir_all(&d).expect("clean");
}
