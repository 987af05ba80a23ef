//! Tests of the journal: submissions, tracking, timelines, budgets, and two writers.

use chrono::{Duration, TimeZone, Utc};

use super::*;

mod files;
mod start;

fn scope() -> Scope {
    Scope {
        service: "http://127.0.0.1:1".into(),
        project: "p".into(),
    }
}

fn at(minute: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap() + Duration::minutes(minute)
}

fn job(id: &str, status: &str, created: DateTime<Utc>) -> Job {
    Job {
        id: Some(id.into()),
        status: Some(JobStatus::parse(status)),
        created_at: Some(created),
        ..Job::default()
    }
}

#[test]
fn a_created_job_is_tracked_with_its_prompt_and_timeline() {
    let mut journal = Journal::open_in_memory().unwrap();
    let s = scope();
    let sub = journal
        .begin_submission(&s, SubmissionKind::Create, None, "fix links", at(0))
        .unwrap();
    journal
        .submission_accepted(&s, sub, &job("j1", "active", at(0)), at(0))
        .unwrap();
    assert!(
        !journal
            .observe(&s, &job("j1", "active", at(0)), at(1))
            .unwrap()
    );
    assert!(
        journal
            .observe(&s, &job("j1", "completed", at(0)), at(4))
            .unwrap()
    );
    let msg = journal
        .begin_submission(&s, SubmissionKind::Message, Some("j1"), "and images", at(5))
        .unwrap();
    journal
        .submission_accepted(&s, msg, &job("j1", "active", at(0)), at(5))
        .unwrap();

    let tracked = journal.tracked(&s).unwrap();
    assert_eq!(tracked.len(), 1);
    assert_eq!(tracked[0].first_prompt.as_deref(), Some("fix links"));
    assert_eq!(
        tracked[0].snapshot.as_ref().unwrap().status,
        Some(JobStatus::Active)
    );
    assert_eq!(
        tracked[0].changed_at,
        Some(at(5)),
        "the last status change seen (what the console's CHANGED shows)"
    );
    let prompts: Vec<_> = journal
        .conversation(&s, "j1")
        .unwrap()
        .into_iter()
        .map(|p| p.prompt)
        .collect();
    assert_eq!(prompts, ["fix links", "and images"]);
    let timeline: Vec<_> = journal
        .timeline(&s, "j1")
        .unwrap()
        .into_iter()
        .map(|c| (c.status.to_string(), c.observed_at))
        .collect();
    assert_eq!(
        timeline,
        [
            ("active".into(), at(0)),
            ("completed".into(), at(4)),
            ("active".into(), at(5))
        ]
    );
}

/// Found by using it: a follow-up sent from here to a job created elsewhere (another node
/// of a cluster, a colleague) was shown as the job's PROMPT.
#[test]
fn a_follow_up_to_a_job_made_elsewhere_is_not_its_prompt() {
    let mut journal = Journal::open_in_memory().unwrap();
    let s = scope();
    let msg = journal
        .begin_submission(&s, SubmissionKind::Message, Some("j9"), "try again", at(1))
        .unwrap();
    journal
        .submission_accepted(&s, msg, &job("j9", "active", at(0)), at(1))
        .unwrap();
    let tracked = journal.tracked(&s).unwrap();
    assert_eq!(tracked.len(), 1);
    assert_eq!(tracked[0].first_prompt, None);
    let prompts: Vec<_> = journal.conversation(&s, "j9").unwrap();
    assert_eq!(
        prompts.len(),
        1,
        "the follow-up is still in its conversation"
    );
}

#[test]
fn the_prompt_is_kept_even_when_the_send_fails() {
    let mut journal = Journal::open_in_memory().unwrap();
    let s = scope();
    let sub = journal
        .begin_submission(&s, SubmissionKind::Create, None, "lost?", at(0))
        .unwrap();
    journal.submission_failed(sub, "no answer", true).unwrap();
    let (prompt, outcome): (String, String) = journal
        .conn
        .query_row(
            "SELECT prompt, outcome FROM submissions WHERE id = ?1",
            [sub],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((prompt.as_str(), outcome.as_str()), ("lost?", "unknown"));
}

#[test]
fn budget_counts_uses_that_may_have_reached_the_service_in_the_last_hour() {
    let mut journal = Journal::open_in_memory().unwrap();
    let s = scope();
    let accepted = journal
        .begin_submission(&s, SubmissionKind::Create, None, "a", at(0))
        .unwrap();
    journal
        .submission_accepted(&s, accepted, &job("j1", "active", at(0)), at(0))
        .unwrap();
    let unknown = journal
        .begin_submission(&s, SubmissionKind::Create, None, "b", at(10))
        .unwrap();
    journal
        .submission_failed(unknown, "timed out", true)
        .unwrap();
    let rejected = journal
        .begin_submission(&s, SubmissionKind::Create, None, "c", at(20))
        .unwrap();
    journal.submission_failed(rejected, "400", false).unwrap();
    journal
        .begin_submission(&s, SubmissionKind::Message, Some("j1"), "d", at(30))
        .unwrap();
    assert_eq!(
        journal
            .uses_last_hour(&s, SubmissionKind::Create, at(30), 100)
            .unwrap(),
        2
    );
    assert_eq!(
        journal
            .uses_last_hour(&s, SubmissionKind::Create, at(65), 100)
            .unwrap(),
        1
    );
    assert_eq!(
        journal
            .uses_last_hour(&s, SubmissionKind::Message, at(30), 100)
            .unwrap(),
        1
    );
}

#[test]
fn untracked_jobs_keep_their_history_and_are_newest_first() {
    let mut journal = Journal::open_in_memory().unwrap();
    let s = scope();
    for (id, minute) in [("old", 0), ("new", 30), ("mid", 10)] {
        journal.track(&s, id, at(40)).unwrap();
        journal
            .observe(&s, &job(id, "active", at(minute)), at(40))
            .unwrap();
    }
    let order: Vec<_> = journal
        .tracked(&s)
        .unwrap()
        .into_iter()
        .map(|j| j.id)
        .collect();
    assert_eq!(order, ["new", "mid", "old"]);
    assert!(journal.untrack(&s, "mid").unwrap());
    assert!(!journal.untrack(&s, "mid").unwrap());
    assert!(
        !journal
            .observe(&s, &job("mid", "completed", at(0)), at(50))
            .unwrap()
    );
    assert_eq!(journal.tracked(&s).unwrap().len(), 2);
    assert_eq!(journal.timeline(&s, "mid").unwrap().len(), 1);
    let other = Scope {
        project: "q".into(),
        ..s
    };
    assert!(journal.tracked(&other).unwrap().is_empty());
}

#[test]
fn two_processes_can_write_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested").join("docdeck.sqlite");
    let mut first = Journal::open(&path).unwrap();
    let mut second = Journal::open(&path).unwrap();
    let s = scope();
    first.track(&s, "a", at(0)).unwrap();
    second.track(&s, "b", at(1)).unwrap();
    assert_eq!(first.tracked(&s).unwrap().len(), 2);
}

#[test]
fn drafts_are_kept_per_key_and_removed_when_emptied() {
    let mut journal = Journal::open_in_memory().unwrap();
    let s = scope();
    journal.save_draft(&s, "new", "first", at(0)).unwrap();
    journal.save_draft(&s, "new", "first words", at(1)).unwrap();
    journal.save_draft(&s, "job:j1", "follow", at(1)).unwrap();
    assert_eq!(
        journal.drafts(&s).unwrap(),
        vec![
            ("job:j1".to_owned(), "follow".to_owned()),
            ("new".to_owned(), "first words".to_owned())
        ]
    );
    journal.save_draft(&s, "new", "  ", at(2)).unwrap();
    assert_eq!(journal.drafts(&s).unwrap().len(), 1);
    let other = Scope {
        service: s.service.clone(),
        project: "other".into(),
    };
    assert!(journal.drafts(&other).unwrap().is_empty());
}

#[test]
fn settings_are_remembered_per_scope() {
    let mut journal = Journal::open_in_memory().unwrap();
    let s = scope();
    assert_eq!(journal.setting(&s, "visitors.filter").unwrap(), None);
    journal.save_setting(&s, "visitors.filter", "30d").unwrap();
    journal.save_setting(&s, "visitors.filter", "90d").unwrap();
    assert_eq!(
        journal.setting(&s, "visitors.filter").unwrap().as_deref(),
        Some("90d")
    );
}

#[test]
fn an_unchanged_read_within_a_minute_writes_nothing() {
    let mut journal = Journal::open_in_memory().unwrap();
    let s = scope();
    journal.track(&s, "j1", at(0)).unwrap();
    let active = job("j1", "active", at(0));
    journal.observe(&s, &active, at(0)).unwrap();
    let seen = |journal: &Journal| -> i64 {
        journal
            .conn
            .query_row("SELECT seen_ms FROM jobs WHERE job_id = 'j1'", [], |row| {
                row.get(0)
            })
            .unwrap()
    };
    let first = seen(&journal);
    let changes = journal.conn.total_changes();
    journal
        .observe(&s, &active, at(0) + Duration::seconds(30))
        .unwrap();
    assert_eq!(
        journal.conn.total_changes(),
        changes,
        "no write for the same answer"
    );
    assert_eq!(seen(&journal), first);
    journal.observe(&s, &active, at(2)).unwrap();
    assert!(
        seen(&journal) > first,
        "a minute later the read is stored again"
    );
    assert!(
        journal
            .observe(
                &s,
                &job("j1", "completed", at(0)),
                at(2) + Duration::seconds(1)
            )
            .unwrap(),
        "a new status is always stored"
    );
}

#[test]
fn a_unique_prefix_resolves_to_the_job_tracked_or_not() {
    let mut journal = Journal::open_in_memory().unwrap();
    let s = scope();
    for id in ["job_abc111", "job_abc222", "job_xyz333"] {
        journal.track(&s, id, at(0)).unwrap();
    }
    journal.untrack(&s, "job_xyz333").unwrap();
    assert_eq!(
        journal.resolve_id(&s, "job_x").unwrap(),
        IdMatch::Known("job_xyz333".into())
    );
    assert_eq!(
        journal.resolve_id(&s, " job_abc222 ").unwrap(),
        IdMatch::Known("job_abc222".into())
    );
    assert_eq!(
        journal.resolve_id(&s, "job_abc").unwrap(),
        IdMatch::Ambiguous(vec!["job_abc111".into(), "job_abc222".into()])
    );
    assert_eq!(
        journal.resolve_id(&s, "job_q").unwrap(),
        IdMatch::Unknown("job_q".into())
    );
    let other = Scope {
        project: "other".into(),
        ..scope()
    };
    assert_eq!(
        journal.resolve_id(&other, "job_x").unwrap(),
        IdMatch::Unknown("job_x".into())
    );
    assert_eq!(
        journal.resolve_id(&s, "").unwrap(),
        IdMatch::Unknown(String::new())
    );
    // Another node of the same cluster (another base URL) knows the job: found there
    // (the trial of stop 33 got a 404 for a start of an id followed through the other
    // node), never for another project.
    let node_b = Scope {
        service: "http://127.0.0.1:8798".into(),
        ..scope()
    };
    assert_eq!(
        journal.resolve_id(&node_b, "job_x").unwrap(),
        IdMatch::Unknown("job_x".into())
    );
    assert_eq!(
        journal.resolve_elsewhere(&node_b, "job_x").unwrap(),
        vec![("job_xyz333".to_owned(), s.service.clone())]
    );
    assert!(journal.resolve_elsewhere(&s, "job_x").unwrap().is_empty());
    // The one such job is what a start of its id means, in the console as on the
    // command line; the whole id needs no expanding.
    assert_eq!(
        journal.only_elsewhere(&node_b, "job_x"),
        Some(("job_xyz333".to_owned(), s.service.clone()))
    );
    assert_eq!(journal.only_elsewhere(&node_b, "job_xyz333"), None);
    let other_b = Scope {
        project: "other".into(),
        ..node_b
    };
    assert!(
        journal
            .resolve_elsewhere(&other_b, "job_x")
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_create_answered_with_a_known_id_leaves_that_job_as_it_was() {
    let mut journal = Journal::open_in_memory().unwrap();
    let s = scope();
    let first = journal
        .begin_submission(&s, SubmissionKind::Create, None, "fix links", at(0))
        .unwrap();
    let recorded = journal
        .submission_accepted(&s, first, &job("j1", "active", at(0)), at(0))
        .unwrap();
    assert_eq!(recorded, Recorded::Followed);
    journal
        .observe(&s, &job("j1", "completed", at(0)), at(3))
        .unwrap();
    let second = journal
        .begin_submission(&s, SubmissionKind::Create, None, "add a FAQ", at(10))
        .unwrap();
    let recorded = journal
        .submission_accepted(&s, second, &job("j1", "active", at(10)), at(10))
        .unwrap();
    let Recorded::Refused { job_id, reason } = recorded else {
        panic!("a reused id was merged: {recorded:?}");
    };
    assert_eq!(job_id, "j1");
    assert!(reason.contains("job j1"), "{reason}");
    let tracked = journal.tracked(&s).unwrap();
    assert_eq!(tracked.len(), 1);
    assert_eq!(tracked[0].first_prompt.as_deref(), Some("fix links"));
    assert_eq!(
        tracked[0].snapshot.as_ref().unwrap().status,
        Some(JobStatus::Completed),
        "the other answer did not overwrite what was seen"
    );
    let prompts: Vec<_> = journal.conversation(&s, "j1").unwrap();
    assert_eq!(prompts.len(), 1, "{prompts:?}");
    let statuses: Vec<_> = journal
        .timeline(&s, "j1")
        .unwrap()
        .into_iter()
        .map(|change| change.status)
        .collect();
    assert_eq!(statuses, [JobStatus::Active, JobStatus::Completed]);
    assert_eq!(
        journal
            .uses_last_hour(&s, SubmissionKind::Create, at(11), 100)
            .unwrap(),
        2,
        "the refused create may have been carried out: it counts"
    );
}

#[test]
fn a_follow_up_answered_about_another_job_follows_nothing_new() {
    let mut journal = Journal::open_in_memory().unwrap();
    let s = scope();
    journal.track(&s, "job_a", at(0)).unwrap();
    let sub = journal
        .begin_submission(&s, SubmissionKind::Message, Some("job_a"), "more", at(1))
        .unwrap();
    let recorded = journal
        .submission_accepted(&s, sub, &job("job_b", "active", at(0)), at(1))
        .unwrap();
    assert!(
        matches!(&recorded, Recorded::Refused { job_id, reason }
            if job_id == "job_b" && reason.contains("job_a") && reason.contains("job_b")),
        "{recorded:?}"
    );
    let ids: Vec<_> = journal
        .tracked(&s)
        .unwrap()
        .into_iter()
        .map(|job| job.id)
        .collect();
    assert_eq!(ids, ["job_a"]);
    assert!(journal.conversation(&s, "job_a").unwrap().is_empty());
    assert!(journal.conversation(&s, "job_b").unwrap().is_empty());
}
