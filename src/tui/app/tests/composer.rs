//! The composer: targets and drafts, empty prompts, sends that fail or succeed, read-only.

use crossterm::event::{Event, KeyCode};

use super::*;

#[test]
fn the_composer_keeps_one_draft_per_target_and_saves_as_you_type() {
    let mut h = Harness::new(vec![tracked("a", "completed", 1)]);
    h.key(KeyCode::Char('n'));
    assert_eq!(
        (h.app.focus, &h.app.composer.target),
        (Pane::Composer, &DraftKey::NewJob)
    );
    let saves = h.type_text("new docs");
    assert!(saves.contains(&Effect::Io(Io::SaveDraft {
        draft: DraftKey::NewJob,
        text: "new docs".into()
    })));
    h.key(KeyCode::Esc);
    assert_eq!(h.app.focus, Pane::Jobs);
    h.key(KeyCode::Char('m'));
    assert_eq!(h.app.composer.target, DraftKey::FollowUp("a".into()));
    assert_eq!(h.app.composer.text(), "", "the follow-up has its own draft");
    h.type_text("more");
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('n'));
    assert_eq!(
        h.app.composer.text(),
        "new docs",
        "the new-job draft is back"
    );
    assert_eq!(h.app.composer.other_drafts(), 1);
}

#[test]
fn an_empty_prompt_is_refused_and_a_failed_send_keeps_the_text() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('n'));
    h.type_text("   ");
    assert!(
        h.ctrl('s')
            .iter()
            .all(|e| !matches!(e, Effect::Io(Io::Submit { .. })))
    );
    assert!(h.app.composer.error.as_deref().unwrap().contains("empty"));
    h.type_text("fix it");
    let sent = h.ctrl('s');
    assert!(
        sent.contains(&Effect::Io(Io::Submit {
            draft: DraftKey::NewJob,
            prompt: "fix it".into()
        })),
        "{sent:?}"
    );
    assert!(h.app.composer.sending.is_some());
    assert!(
        h.type_text("zzz").is_empty(),
        "the text is locked while sending"
    );
    assert!(
        h.ctrl('s')
            .iter()
            .all(|e| !matches!(e, Effect::Io(Io::Submit { .. }))),
        "no second send"
    );
    h.send(Msg::Submitted {
        draft: DraftKey::NewJob,
        outcome: Submitted::Failed(network_error(true)),
    });
    assert!(h.app.composer.sending.is_none());
    assert_eq!(h.app.composer.text().trim(), "fix it");
    let error = h.app.composer.error.clone().unwrap();
    assert!(
        error.contains("MAY HAVE BEEN CREATED") && error.contains("not resent"),
        "{error}"
    );
}

/// A send the service never got says "could not reach": once the service answers again
/// that is no longer true, and the composer says what is (the trial saw it stay). A send
/// that may have arrived keeps its warning whatever happens.
#[test]
fn a_send_that_did_not_reach_the_service_says_so_only_until_it_answers() {
    let mut h = Harness::new(vec![tracked("a", "active", 1)]);
    h.key(KeyCode::Char('n'));
    h.type_text("fix it");
    h.ctrl('s');
    h.send(Msg::Submitted {
        draft: DraftKey::NewJob,
        outcome: Submitted::Failed(network_error(false)),
    });
    let error = h.app.composer.error.clone().unwrap();
    assert!(error.contains("sends it again"), "{error}");
    h.send(Msg::JobFetched {
        id: "a".into(),
        result: Ok(job("a", "active", 1)),
    });
    let now = h.app.composer.error.clone().unwrap();
    assert!(
        now.starts_with("The service answers again; nothing was sent before."),
        "{now}"
    );
    assert_eq!(h.app.composer.text().trim(), "fix it");

    h.ctrl('s');
    h.send(Msg::Submitted {
        draft: DraftKey::NewJob,
        outcome: Submitted::Failed(network_error(true)),
    });
    h.send(Msg::JobFetched {
        id: "a".into(),
        result: Ok(job("a", "active", 1)),
    });
    let kept = h.app.composer.error.clone().unwrap();
    assert!(kept.contains("MAY HAVE BEEN CREATED"), "{kept}");
}

#[test]
fn an_accepted_job_is_listed_selected_polled_and_its_draft_cleared() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('n'));
    h.type_text("write the changelog\nwith details");
    h.ctrl('s');
    let effects = h.send(Msg::Submitted {
        draft: DraftKey::NewJob,
        outcome: Submitted::Accepted(Box::new(job("j9", "active", 0))),
    });
    assert!(effects.contains(&Effect::Io(Io::SaveDraft {
        draft: DraftKey::NewJob,
        text: String::new()
    })));
    assert!(effects.contains(&Effect::Io(Io::RefreshBudget)));
    assert_eq!(h.app.focus, Pane::Jobs);
    let row = h.app.jobs.selected().unwrap();
    assert_eq!(
        (row.id.as_str(), row.first_prompt.as_deref()),
        ("j9", Some("write the changelog\nwith details"))
    );
    assert_eq!(h.app.composer.text(), "");
    assert_eq!(fetches(&h.tick(3.0)), vec!["j9"]);
}

#[test]
fn read_only_hides_everything_that_writes() {
    let mut h = Harness::with_config(
        ConsoleOptions {
            read_only: true,
            ..config()
        },
        vec![tracked("a", "active", 0)],
    );
    assert!(h.key(KeyCode::Char('n')).is_empty());
    h.key(KeyCode::Char('m'));
    h.key(KeyCode::Char('2'));
    assert_eq!(h.app.focus, Pane::Jobs);
    h.key(KeyCode::Tab);
    assert_eq!(h.app.focus, Pane::Visitors, "Tab skips the composer");
}

#[test]
fn a_follow_up_that_may_have_arrived_has_its_job_read_at_once() {
    let mut h = Harness::new(vec![tracked("a", "completed", 1)]);
    h.key(KeyCode::Char('m'));
    h.type_text("and the images");
    h.ctrl('s');
    let effects = h.send(Msg::Submitted {
        draft: DraftKey::FollowUp("a".into()),
        outcome: Submitted::Failed(network_error(true)),
    });
    assert_eq!(
        fetches(&effects),
        vec!["a".to_owned()],
        "a completed job is otherwise read only every 10 minutes"
    );
}

/// The notice said "it is active" while the row said `◌ queued #1` (the soak): it says
/// what the row says.
#[test]
fn an_accepted_follow_up_says_whether_it_runs_or_waits() {
    let mut h = Harness::new(vec![tracked("a", "failed", 1)]);
    h.key(KeyCode::Char('m'));
    h.type_text("once more");
    h.ctrl('s');
    let mut waiting = job("a", "active", 1);
    waiting.run_state = Some("queued".into());
    waiting.queue_position = Some(1);
    h.send(Msg::Submitted {
        draft: DraftKey::FollowUp("a".into()),
        outcome: Submitted::Accepted(Box::new(waiting)),
    });
    let said = h.app.notice.as_ref().map(|n| n.text()).unwrap_or_default();
    assert_eq!(said, "follow-up sent to a; it waits for an agent (#1)");
}

/// The local service answers `starting` when an agent is free for the job: the notice
/// said "it is active" (issue 27).
#[test]
fn an_accepted_follow_up_an_agent_is_starting_on_says_so() {
    let mut h = Harness::new(vec![tracked("a", "failed", 1)]);
    h.key(KeyCode::Char('m'));
    h.type_text("once more");
    h.ctrl('s');
    let mut starting = job("a", "active", 1);
    starting.run_state = Some("starting".into());
    h.send(Msg::Submitted {
        draft: DraftKey::FollowUp("a".into()),
        outcome: Submitted::Accepted(Box::new(starting)),
    });
    let said = h.app.notice.as_ref().map(|n| n.text()).unwrap_or_default();
    assert_eq!(said, "follow-up sent to a; an agent is starting on it");
}

#[test]
fn a_read_sent_before_a_follow_up_was_accepted_is_not_believed() {
    let mut h = Harness::new(vec![tracked("b", "completed", 1)]);
    // A read of the completed job is on its way...
    let due = h.tick(3600.0);
    assert_eq!(fetches(&due), vec!["b".to_owned()]);
    // ...when a follow-up is accepted and makes it active...
    h.key(KeyCode::Char('m'));
    h.type_text("next");
    h.ctrl('s');
    h.send(Msg::Submitted {
        draft: DraftKey::FollowUp("b".into()),
        outcome: Submitted::Accepted(Box::new(job("b", "active", 1))),
    });
    // ...and then the old read answers "completed": the row stays active, and the job is
    // read again.
    let again = h.send(Msg::JobFetched {
        id: "b".into(),
        result: Ok(job("b", "completed", 1)),
    });
    assert_eq!(
        h.app.jobs.get("b").unwrap().status(),
        Some(&JobStatus::Active)
    );
    assert_eq!(fetches(&again), vec!["b".to_owned()]);
}

#[test]
fn a_follow_up_accepted_with_an_empty_answer_keeps_the_job_and_reads_it() {
    let mut h = Harness::new(vec![tracked("c", "completed", 1)]);
    h.key(KeyCode::Char('m'));
    h.type_text("again");
    h.ctrl('s');
    let effects = h.send(Msg::Submitted {
        draft: DraftKey::FollowUp("c".into()),
        outcome: Submitted::Accepted(Box::default()),
    });
    assert_eq!(h.app.focus, Pane::Jobs);
    assert_eq!(
        h.app.jobs.get("c").unwrap().status(),
        Some(&JobStatus::Completed)
    );
    assert_eq!(fetches(&effects), vec!["c".to_owned()]);
}

fn paste(h: &mut Harness, text: &str) -> Vec<Effect> {
    h.send(Msg::Input(Event::Paste(text.into())))
}

#[test]
fn a_pasted_cr_or_crlf_is_a_line_break_in_the_text_and_the_draft() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('n'));
    // Terminals paste line breaks as CR; files copied from Windows bring CRLF.
    let saves = paste(&mut h, "one\rtwo\r\nthree");
    assert_eq!(h.app.composer.textarea.lines(), ["one", "two", "three"]);
    assert!(
        saves.contains(&Effect::Io(Io::SaveDraft {
            draft: DraftKey::NewJob,
            text: "one\ntwo\nthree".into()
        })),
        "{saves:?}"
    );
    assert!(!h.app.composer.text().contains('\r'));
}

#[test]
fn a_pasted_escape_bell_or_override_is_dropped_and_never_sent() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('n'));
    paste(
        &mut h,
        "line1 \u{1b}]0;pwned\u{7} tab\there\r\nline2 \u{202e}end",
    );
    let sent = h.ctrl('s');
    assert!(
        sent.contains(&Effect::Io(Io::Submit {
            draft: DraftKey::NewJob,
            prompt: "line1 ]0;pwned tab    here\nline2 end".into()
        })),
        "{sent:?}"
    );
}

#[test]
fn ctrl_j_is_a_line_break_and_never_deletes_what_was_typed() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('n'));
    h.type_text("first line");
    // A terminal that sends LF for Enter, or an unbracketed paste, arrives as Ctrl+J.
    h.ctrl('j');
    h.type_text("second");
    assert_eq!(h.app.composer.text(), "first line\nsecond");
    h.ctrl('m');
    assert_eq!(h.app.composer.text(), "first line\nsecond\n");
}

#[test]
fn the_editor_result_and_saved_drafts_lose_their_carriage_returns() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('n'));
    let effects = h.send(Msg::EditorDone {
        draft: DraftKey::NewJob,
        result: Ok("from the editor\r\nsecond\r\n".into()),
    });
    assert_eq!(
        h.app.composer.textarea.lines(),
        ["from the editor", "second"]
    );
    assert!(effects.contains(&Effect::Io(Io::SaveDraft {
        draft: DraftKey::NewJob,
        text: "from the editor\nsecond".into()
    })));
    let mut h = Harness::new(vec![]);
    h.send(Msg::Loaded(Box::new(Startup {
        drafts: vec![("new".into(), "old\r\ndraft\r".into())],
        ..Startup::default()
    })));
    assert_eq!(h.app.composer.textarea.lines(), ["old", "draft", ""]);
}

#[test]
fn a_draft_that_could_not_be_saved_is_kept_as_what_failed_and_the_view_words_it() {
    let mut h = Harness::new(vec![]);
    h.send(Msg::DraftNotSaved(
        crate::tui::message::LocalError::JournalPoisoned,
    ));
    let notice = h.app.notice.clone().unwrap();
    assert!(matches!(
        notice.said,
        crate::tui::app::Said::DraftNotSaved(_)
    ));
    assert_eq!(
        notice.text(),
        "the draft could not be saved: the journal is unavailable after a crash in another task"
    );
}
