//! Issue 23, "jobs that tell the truth all day": ended jobs are read again, the local
//! service's failure reason and queue are shown, notices are kept in a log and cleared
//! when what they said stops being true.

use crossterm::event::KeyCode;

use super::*;

#[test]
fn a_failed_job_is_read_again_at_the_rare_cadence_and_its_revival_is_shown() {
    let mut h = Harness::new(vec![tracked("f", "failed", 0)]);
    assert!(
        h.app.jobs.poll.next_due().is_some(),
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
    assert!(notice.text().contains("completed"), "{notice:?}");
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
    assert_eq!(h.app.jobs.poll.next_due(), None, "and is never read again");
}

fn failed_with_output(id: &str) -> Job {
    let mut failed = job(id, "failed", 0);
    failed.failure_reason = Some("the agent command ended with exit status: 1".into());
    failed.output_link = Some(format!("http://127.0.0.1:9/output/p/{id}/1"));
    failed
}

#[test]
fn a_failure_seen_live_says_why_in_its_notice() {
    let mut h = Harness::new(vec![tracked("a", "active", 0)]);
    h.tick(3.0);
    h.send(Msg::JobFetched {
        id: "a".into(),
        result: Ok(failed_with_output("a")),
    });
    let notice = h.app.notice.clone().unwrap();
    assert_eq!(notice.kind, NoticeKind::Error);
    assert!(
        notice
            .text()
            .contains("failed: the agent command ended with exit status: 1"),
        "{notice:?}"
    );
}

#[test]
fn o_on_a_failed_job_opens_the_output_of_its_last_turn() {
    let mut h = Harness::new(vec![tracked("a", "failed", 0)]);
    let mut failed = failed_with_output("a");
    failed.pr_link = Some("https://github.com/o/r/pull/7".into());
    h.send(Msg::Tracked {
        id: "a".into(),
        result: Ok(failed),
        first_prompt: None,
    });
    let effects = h.key(KeyCode::Char('o'));
    assert_eq!(
        effects,
        vec![Effect::Tty(Tty::Copy(
            "http://127.0.0.1:9/output/p/a/1".into()
        ))],
        "without a display the output link is copied, not the older PR link"
    );
    assert!(
        h.app
            .notice
            .as_ref()
            .unwrap()
            .text()
            .contains("the output of its last turn"),
        "{:?}",
        h.app.notice
    );
    // Revived and completed, `o` is the PR link again.
    let mut done = job("a", "completed", 0);
    done.pr_link = Some("https://github.com/o/r/pull/7".into());
    done.output_link = Some("http://127.0.0.1:9/output/p/a/2".into());
    h.send(Msg::Tracked {
        id: "a".into(),
        result: Ok(done),
        first_prompt: None,
    });
    assert_eq!(
        h.key(KeyCode::Char('o')),
        vec![Effect::Tty(Tty::Copy(
            "https://github.com/o/r/pull/7".into()
        ))]
    );
}

#[test]
fn two_jobs_ending_at_once_are_both_in_the_log_with_their_time() {
    let mut h = Harness::new(vec![tracked("a", "active", 0), tracked("b", "active", 1)]);
    h.tick(3.0);
    for id in ["a", "b"] {
        h.send(Msg::JobFetched {
            id: id.into(),
            result: Ok(job(id, "completed", 0)),
        });
    }
    let texts: Vec<String> = h.app.log.entries().map(|l| l.notice.text()).collect();
    assert_eq!(
        texts,
        ["job b completed · no change", "job a completed · no change"],
        "newest first"
    );
    assert!(h.app.log.entries().all(|l| l.at == h.clock().wall));
}

#[test]
fn l_opens_the_log_over_any_pane_and_esc_goes_back() {
    let mut h = Harness::new(vec![tracked("a", "active", 0)]);
    h.key(KeyCode::Char('L'));
    assert!(matches!(h.app.overlay, Some(Overlay::Notices)));
    h.key(KeyCode::Esc);
    assert!(h.app.overlay.is_none());
    // Over the detail, and back to it.
    h.key(KeyCode::Enter);
    h.key(KeyCode::Char('L'));
    assert!(matches!(h.app.overlay, Some(Overlay::Notices)));
    h.key(KeyCode::Char('L'));
    assert!(matches!(h.app.overlay, Some(Overlay::Detail(_))));
    // Where text is typed, L is a letter.
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('n'));
    h.key(KeyCode::Char('L'));
    assert_eq!(h.app.composer.text(), "L");
    assert!(h.app.overlay.is_none());
}

#[test]
fn a_notice_about_a_pane_goes_when_it_is_left_and_stays_in_the_log() {
    let mut h = Harness::new(vec![tracked("a", "active", 0)]);
    h.key(KeyCode::Char('o'));
    assert!(h.app.notice.is_some(), "o on a job without a link says so");
    h.key(KeyCode::Char('3'));
    assert_eq!(h.app.notice, None, "not true of the visitors pane");
    assert!(
        h.app
            .log
            .entries()
            .any(|l| l.notice.text().contains("no PR link yet"))
    );
    // What a job did stays: it is news wherever one looks.
    h.key(KeyCode::Char('1'));
    h.tick(3.0);
    h.send(Msg::JobFetched {
        id: "a".into(),
        result: Ok(job("a", "failed", 0)),
    });
    h.key(KeyCode::Char('3'));
    assert!(
        h.app
            .notice
            .as_ref()
            .is_some_and(|n| n.text().contains("failed"))
    );
}

#[test]
fn the_empty_prompt_message_goes_once_text_is_typed() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('n'));
    h.ctrl('s');
    assert!(
        h.app
            .composer
            .error
            .as_ref()
            .is_some_and(|e| e.contains("the prompt is empty"))
    );
    h.type_text(" ");
    assert!(
        h.app.composer.error.is_some(),
        "a space is still nothing to do"
    );
    h.type_text("Fix");
    assert_eq!(h.app.composer.error, None);
}

#[test]
fn a_job_completed_without_a_change_says_so_in_its_notice() {
    let mut h = Harness::new(vec![tracked("a", "active", 0)]);
    h.tick(3.0);
    h.send(Msg::JobFetched {
        id: "a".into(),
        result: Ok(job("a", "completed", 0)),
    });
    assert_eq!(
        h.app.notice.as_ref().unwrap().text(),
        "job a completed · no change"
    );
}
