//! Tests of the job lifecycle at the storage level.

use super::*;
use crate::server::db::{Db, DbLocation};

const HOUR: i64 = 3_600_000;

fn defaults() -> JobDefaults {
    JobDefaults {
        repository: "https://github.com/acme/docs".into(),
        git_ref: Some("main".into()),
        model: "sim".into(),
    }
}

fn run_turn(conn: &mut Connection, id: &str, outcome: TurnOutcome, now: i64) {
    let turn = next_turn(conn, id).unwrap().expect("a pending turn");
    finish_turn(conn, &turn, &super::TurnResult::of(outcome), now).unwrap();
}

#[test]
fn a_job_goes_from_active_to_completed_with_a_pull_request() {
    let db = Db::open(&DbLocation::Memory).unwrap();
    db.blocking(|conn| {
        let job = create(conn, "p", "fix typos", &defaults(), 1_000).unwrap();
        assert_eq!(job.status, JobStatus::Active);
        assert_eq!(
            next_turn(conn, &job.id).unwrap().unwrap().prompt,
            "fix typos"
        );
        run_turn(conn, &job.id, TurnOutcome::PullRequest, 2_000);
        let done = get(conn, "p", &job.id, 2_000, HOUR).unwrap().unwrap();
        assert_eq!(done.status, JobStatus::Completed);
        assert_eq!(
            done.to_wire().pr_link.as_deref(),
            Some("https://github.com/acme/docs/pull/1")
        );
        assert_eq!(next_turn(conn, &job.id).unwrap(), None);
        Ok(())
    })
    .unwrap();
}

#[test]
fn a_follow_up_reactivates_hides_then_keeps_the_link() {
    let db = Db::open(&DbLocation::Memory).unwrap();
    db.blocking(|conn| {
        let job = create(conn, "p", "first", &defaults(), 0).unwrap();
        run_turn(conn, &job.id, TurnOutcome::PullRequest, 10);
        let again = add_message(conn, "p", &job.id, "second", 20, HOUR)
            .unwrap()
            .unwrap();
        assert_eq!(again.status, JobStatus::Active);
        assert_eq!(again.to_wire().pr_link, None, "prLink is null while active");
        run_turn(conn, &job.id, TurnOutcome::NoChange, 30);
        let done = get(conn, "p", &job.id, 30, HOUR).unwrap().unwrap();
        assert_eq!(
            done.to_wire().pr_link.as_deref(),
            Some("https://github.com/acme/docs/pull/1")
        );
        Ok(())
    })
    .unwrap();
}

#[test]
fn follow_ups_to_an_active_job_queue_behind_the_current_turn() {
    let db = Db::open(&DbLocation::Memory).unwrap();
    db.blocking(|conn| {
        let job = create(conn, "p", "first", &defaults(), 0).unwrap();
        add_message(conn, "p", &job.id, "second", 1, HOUR)
            .unwrap()
            .unwrap();
        run_turn(conn, &job.id, TurnOutcome::Failed, 2);
        let between = get(conn, "p", &job.id, 2, HOUR).unwrap().unwrap();
        assert_eq!(between.status, JobStatus::Active, "a turn is still queued");
        assert_eq!(next_turn(conn, &job.id).unwrap().unwrap().prompt, "second");
        run_turn(conn, &job.id, TurnOutcome::PullRequest, 3);
        assert_eq!(
            get(conn, "p", &job.id, 3, HOUR).unwrap().unwrap().status,
            JobStatus::Completed
        );
        Ok(())
    })
    .unwrap();
}

#[test]
fn idle_jobs_archive_at_the_due_instant_and_refuse_messages() {
    let db = Db::open(&DbLocation::Memory).unwrap();
    db.blocking(|conn| {
        let job = create(conn, "p", "first", &defaults(), 0).unwrap();
        run_turn(conn, &job.id, TurnOutcome::Failed, 100);
        let before = get(conn, "p", &job.id, 100 + HOUR - 1, HOUR)
            .unwrap()
            .unwrap();
        assert_eq!(before.status, JobStatus::Failed);
        let after = get(conn, "p", &job.id, 100 + 5 * HOUR, HOUR)
            .unwrap()
            .unwrap();
        assert_eq!(after.status, JobStatus::Archived);
        assert_eq!(after.archived_ms, Some(100 + HOUR));
        let refused = add_message(conn, "p", &job.id, "more", 100 + 6 * HOUR, HOUR).unwrap();
        assert_eq!(refused, Err(MessageRefusal::Archived));
        Ok(())
    })
    .unwrap();
}

#[test]
fn active_jobs_never_archive() {
    let db = Db::open(&DbLocation::Memory).unwrap();
    db.blocking(|conn| {
        let job = create(conn, "p", "first", &defaults(), 0).unwrap();
        let later = get(conn, "p", &job.id, 10 * HOUR, HOUR).unwrap().unwrap();
        assert_eq!(later.status, JobStatus::Active);
        assert_eq!(active_ids(conn).unwrap(), vec![job.id]);
        Ok(())
    })
    .unwrap();
}

#[test]
fn jobs_are_scoped_to_their_project() {
    let db = Db::open(&DbLocation::Memory).unwrap();
    db.blocking(|conn| {
        let job = create(conn, "p", "first", &defaults(), 0).unwrap();
        assert_eq!(get(conn, "q", &job.id, 0, HOUR).unwrap(), None);
        assert_eq!(
            add_message(conn, "q", &job.id, "x", 0, HOUR).unwrap(),
            Err(MessageRefusal::NotFound)
        );
        Ok(())
    })
    .unwrap();
}

#[test]
fn pull_request_numbers_count_up_per_repository() {
    let db = Db::open(&DbLocation::Memory).unwrap();
    db.blocking(|conn| {
        let links: Vec<String> = (0..3)
            .map(|i| {
                let job = create(conn, "p", "x", &defaults(), i).unwrap();
                run_turn(conn, &job.id, TurnOutcome::PullRequest, i);
                get(conn, "p", &job.id, i, HOUR)
                    .unwrap()
                    .unwrap()
                    .pr_link
                    .unwrap()
            })
            .collect();
        assert!(
            links[0].ends_with("/pull/1") && links[2].ends_with("/pull/3"),
            "{links:?}"
        );
        Ok(())
    })
    .unwrap();
}
