//! The journal file as the CLI makes it: private to the user, and a damaged one set
//! aside and reported once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{journal_path, run_cli, text};

#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[cfg(unix)]
#[test]
fn the_data_folder_and_the_journal_are_private_to_the_user() {
    use std::os::unix::fs::PermissionsExt as _;
    let home = tempfile::tempdir().unwrap();
    let out = run_cli(home.path(), "http://127.0.0.1:9", &["jobs", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let journal = journal_path(home.path());
    assert_eq!(mode(journal.parent().unwrap()), 0o700);
    assert_eq!(mode(&journal), 0o600);
    for suffix in ["-wal", "-shm"] {
        let side = journal.with_file_name(format!("docdeck.sqlite{suffix}"));
        if side.exists() {
            assert_eq!(mode(&side), 0o600, "{suffix}");
        }
    }
    // A journal an older docdeck left readable by others is made private.
    std::fs::set_permissions(&journal, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = run_cli(home.path(), "http://127.0.0.1:9", &["jobs", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(mode(&journal), 0o600);
}

#[test]
fn a_damaged_journal_is_set_aside_and_reported_once() {
    let home = tempfile::tempdir().unwrap();
    let journal = journal_path(home.path());
    std::fs::create_dir_all(journal.parent().unwrap()).unwrap();
    std::fs::write(&journal, vec![0x5a_u8; 8192]).unwrap();
    let out = run_cli(home.path(), "http://127.0.0.1:9", &["jobs", "list"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr.matches("moved to").count(), 1, "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}
