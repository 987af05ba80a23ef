//! Issue 23, "jobs that tell the truth all day": ended jobs are read again, the local
//! service's failure reason and queue are shown, notices are kept in a log and cleared
//! when what they said stops being true.

use crossterm::event::KeyCode;

use super::*;

#[test]
fn a_failed_job_is_read_again_at_the_rare_cadence_and_its_revival_is_shown() {
    let mut h = Harness::new(vec![tracked("f", "failed", 0)]);
    assert!(
        h.app.poll.next_due().is_some(),
        "a failed job can be revived by a follow-up sent elsewhere: it is still read"
    );
    let due = h.tick(601.0);
    assert_eq!(fetches(&due), vec!["f"], "read within one rare cadence");
    let mut done = job("f", "completed", 0);
    done.pr_link = Some("https://github.com/o/r/pull/9".into());
    h.send(Msg::JobFetched {
        id: "f".into(),
        result: Ok(done),
    });
    let row = h.app.jobs.get("f").unwrap();
    assert_eq!(row.status(), Some(&JobStatus::Completed));
    assert_eq!(row.pr_link(), Some("https://github.com/o/r/pull/9"));
    let notice = h.app.notice.clone().unwrap();
    assert_eq!(notice.kind, NoticeKind::Done);
    assert!(notice.text.contains("completed"), "{notice:?}");
}

#[test]
fn r_reads_a_failed_job_at_once() {
    let mut h = Harness::new(vec![tracked("f", "failed", 0)]);
    assert_eq!(fetches(&h.key(KeyCode::Char('r'))), vec!["f"]);
}

#[test]
fn a_failed_job_the_service_archives_reads_archived_without_a_notice() {
    let mut h = Harness::new(vec![tracked("f", "failed", 0)]);
    h.app.notice = None;
    assert_eq!(fetches(&h.key(KeyCode::Char('r'))), vec!["f"]);
    h.send(Msg::JobFetched {
        id: "f".into(),
        result: Ok(job("f", "archived", 0)),
    });
    assert_eq!(
        h.app.jobs.get("f").unwrap().status(),
        Some(&JobStatus::Archived)
    );
    assert_eq!(h.app.notice, None, "an ended job archiving is not news");
    assert_eq!(h.app.poll.next_due(), None, "and is never read again");
}
