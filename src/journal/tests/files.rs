//! The journal's file on bad ground: a file that is not a journal, a journal of a newer
//! docdeck, a full disk.

use super::*;

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_file_that_is_not_a_database_is_moved_aside_not_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("docdeck.sqlite");
    let garbage = b"this is not a database, but it is somebody's file\n".repeat(200);
    std::fs::write(&path, &garbage).unwrap();

    let mut journal = Journal::open(&path).unwrap();
    let set_aside = journal
        .set_aside()
        .cloned()
        .expect("the file was set aside");
    assert_eq!(std::fs::read(&set_aside.moved_to).unwrap(), garbage);
    let message = set_aside.to_string();
    assert!(
        message.contains("moved to") && message.contains("nothing was deleted"),
        "{message}"
    );
    assert!(
        set_aside
            .moved_to
            .to_string_lossy()
            .contains("docdeck.sqlite.damaged-")
    );
    // The new journal works, and opening it again sets nothing aside.
    journal.track(&scope(), "j1", at(0)).unwrap();
    drop(journal);
    let again = Journal::open(&path).unwrap();
    assert!(again.set_aside().is_none());
    assert_eq!(again.tracked(&scope()).unwrap().len(), 1);
}

#[test]
fn a_journal_of_a_newer_docdeck_is_moved_aside_with_its_wal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("docdeck.sqlite");
    {
        let mut journal = Journal::open(&path).unwrap();
        journal.track(&scope(), "kept", at(0)).unwrap();
        journal
            .conn
            .pragma_update(None, "user_version", 99)
            .unwrap();
        // Leave the WAL behind, as a running newer docdeck would.
        std::mem::forget(journal);
    }
    let journal = Journal::open(&path).unwrap();
    let set_aside = journal.set_aside().cloned().expect("set aside");
    assert!(set_aside.reason.contains("newer docdeck"), "{set_aside}");
    assert!(journal.tracked(&scope()).unwrap().is_empty());
    let names = files_in(dir.path());
    assert!(
        names
            .iter()
            .any(|n| n.contains(".newer-") && n.ends_with("-wal")),
        "the WAL moved with its database: {names:?}"
    );
    // The moved file still holds what the newer docdeck wrote.
    let old = Connection::open(&set_aside.moved_to).unwrap();
    let kept: String = old
        .query_row("SELECT job_id FROM jobs", [], |row| row.get(0))
        .unwrap();
    assert_eq!(kept, "kept");
}

#[test]
fn a_full_disk_is_a_clear_error_and_loses_nothing_already_saved() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("docdeck.sqlite");
    let mut journal = Journal::open(&path).unwrap();
    let s = scope();
    // The file may not grow past its current size plus a few pages: the disk is "full".
    let pages: i64 = journal
        .conn
        .pragma_query_value(None, "page_count", |row| row.get(0))
        .unwrap();
    journal
        .conn
        .pragma_update(None, "max_page_count", pages + 4)
        .unwrap();
    let mut saved = 0;
    let err = loop {
        let prompt = format!("prompt {saved} {}", "x".repeat(2000));
        match journal.begin_submission(&s, SubmissionKind::Create, None, &prompt, at(0)) {
            Ok(_) => saved += 1,
            Err(err) => break err,
        }
        assert!(saved < 10_000, "the limit never applied");
    };
    assert!(matches!(err, JournalError::DiskFull), "{err:?}");
    assert!(err.to_string().contains("disk is full"), "{err}");
    assert!(saved > 0);
    drop(journal);

    let journal = Journal::open(&path).unwrap();
    let check: String = journal
        .conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let count: i64 = journal
        .conn
        .query_row("SELECT count(*) FROM submissions", [], |row| row.get(0))
        .unwrap();
    assert_eq!(count, saved, "every write that succeeded is there");
}
