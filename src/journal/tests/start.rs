//! The journal as the console's start reads it: the hour's budget counted no further than
//! its cap, many jobs with their first prompts, and the columns kept with each job.

use super::*;

#[test]
fn budget_counts_stop_at_the_cap() {
    let mut journal = Journal::open_in_memory().unwrap();
    let s = scope();
    for minute in 0..5 {
        journal
            .begin_submission(&s, SubmissionKind::Create, None, "a", at(minute))
            .unwrap();
    }
    let used = |cap| {
        journal
            .uses_last_hour(&s, SubmissionKind::Create, at(10), cap)
            .unwrap()
    };
    assert_eq!(used(3), 3);
    assert_eq!(used(100), 5);
}

#[test]
fn a_journal_of_many_jobs_reads_each_with_its_first_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let mut journal = Journal::open(&dir.path().join("j.sqlite")).unwrap();
    let s = scope();
    // Enough jobs that the snapshots are read on two threads as well.
    for i in 0..1200 {
        let id = format!("j{i:04}");
        let sub = journal
            .begin_submission(
                &s,
                SubmissionKind::Create,
                None,
                &format!("prompt {i}"),
                at(i),
            )
            .unwrap();
        journal
            .submission_accepted(&s, sub, &job(&id, "active", at(i)), at(i))
            .unwrap();
        let follow = journal
            .begin_submission(&s, SubmissionKind::Message, Some(&id), "later", at(i + 1))
            .unwrap();
        journal
            .submission_accepted(&s, follow, &job(&id, "active", at(i)), at(i + 1))
            .unwrap();
    }
    // Tracked by id: no prompt was sent from here, and a follow-up is not one.
    journal.track(&s, "by-id", at(5000)).unwrap();
    let tracked = journal.tracked(&s).unwrap();
    assert_eq!(tracked.len(), 1201);
    assert_eq!(tracked[0].id, "by-id");
    assert_eq!(tracked[0].first_prompt, None);
    let follow = journal
        .begin_submission(&s, SubmissionKind::Message, Some("by-id"), "also", at(5001))
        .unwrap();
    journal
        .submission_accepted(&s, follow, &job("by-id", "active", at(0)), at(5001))
        .unwrap();
    let by_id = journal
        .tracked(&s)
        .unwrap()
        .into_iter()
        .find(|j| j.id == "by-id");
    assert_eq!(by_id.unwrap().first_prompt, None);
    assert_eq!(tracked[1].id, "j1199");
    assert_eq!(tracked[1].first_prompt.as_deref(), Some("prompt 1199"));
    assert_eq!(tracked[1200].first_prompt.as_deref(), Some("prompt 0"));
    assert!(tracked[1..].iter().all(|job| job.snapshot.is_some()));
}

#[test]
fn a_journal_from_before_the_kept_columns_gets_them_from_the_timeline_and_submissions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let s = scope();
    {
        let mut journal = Journal::open(&path).unwrap();
        let sub = journal
            .begin_submission(&s, SubmissionKind::Create, None, "p", at(0))
            .unwrap();
        journal
            .submission_accepted(&s, sub, &job("j1", "active", at(0)), at(0))
            .unwrap();
        journal
            .observe(&s, &job("j1", "completed", at(0)), at(7))
            .unwrap();
    }
    // As an older docdeck left it: no columns, the changes only in the timeline and the
    // prompts only with the submissions.
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .unwrap();
        // The kept columns came in migration 7; the stated analytics limits (8) after them;
        // 9 took the first prompts again from the creates only (no schema to undo).
        conn.execute_batch(
            "ALTER TABLE jobs DROP COLUMN changed_ms; ALTER TABLE jobs DROP COLUMN first_prompt;
             DROP TABLE analytics_limits;",
        )
        .unwrap();
        assert_eq!(version, 9, "a migration was added: undo it here too");
        conn.pragma_update(None, "user_version", 6).unwrap();
    }
    let journal = Journal::open(&path).unwrap();
    let tracked = journal.tracked(&s).unwrap();
    assert_eq!(tracked[0].changed_at, Some(at(7)));
    assert_eq!(tracked[0].first_prompt.as_deref(), Some("p"));
}
