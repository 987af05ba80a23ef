//! `a` (track by id or a unique prefix, the form keeping what was typed on an error, the
//! prompt back when a job is tracked again) and where `2`/Tab aim the composer.

use crossterm::event::KeyCode;

use super::*;

fn track_form_text(h: &Harness) -> Option<(String, Option<String>)> {
    match &h.app.overlay {
        Some(Overlay::Track(form)) => Some((form.id.lines().concat(), form.error.clone())),
        _ => None,
    }
}

#[test]
fn a_unique_prefix_of_a_listed_job_selects_it() {
    let mut h = Harness::new(vec![
        tracked("job_abc123456789xyz", "active", 2),
        tracked("job_zzz", "active", 1),
    ]);
    h.key(KeyCode::Char('j'));
    h.key(KeyCode::Char('a'));
    h.type_text("job_abc123456");
    let effects = h.key(KeyCode::Enter);
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::Io(Io::Track { .. })))
    );
    assert!(h.app.overlay.is_none());
    assert_eq!(h.app.jobs.selected().unwrap().id, "job_abc123456789xyz");
    assert!(h.app.notice.unwrap().text().contains("already tracked"));
}

#[test]
fn the_track_form_keeps_the_typed_id_on_an_error_and_closes_on_success() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('a'));
    h.type_text("job_typo");
    let effects = h.key(KeyCode::Enter);
    assert_eq!(
        effects,
        vec![Effect::Io(Io::Track {
            typed: "job_typo".into(),
            submission: None
        })]
    );
    assert_eq!(track_form_text(&h), Some(("job_typo".into(), None)));
    h.type_text("zz");
    assert_eq!(
        track_form_text(&h).unwrap().0,
        "job_typo",
        "no typing while looking up"
    );
    h.send(Msg::Tracked {
        id: "job_typo".into(),
        result: Err(crate::api::ApiError::NotFound {
            message: "no such job".into(),
            missing: crate::api::Missing::Job,
        }),
        first_prompt: None,
    });
    let (text, error) = track_form_text(&h).expect("the form stays open");
    assert_eq!(text, "job_typo");
    assert!(error.unwrap().contains("not found"));
    h.key(KeyCode::Backspace);
    h.type_text("e");
    assert_eq!(track_form_text(&h), Some(("job_type".into(), None)));
    assert_eq!(
        h.key(KeyCode::Enter),
        vec![Effect::Io(Io::Track {
            typed: "job_type".into(),
            submission: None
        })]
    );
    // The journal resolved the text to a whole id and had the job's first prompt.
    h.send(Msg::Tracked {
        id: "job_type_full_id".into(),
        result: Ok(job("job_type_full_id", "completed", 0)),
        first_prompt: Some("Fix the typo".into()),
    });
    assert!(h.app.overlay.is_none());
    let row = h.app.jobs.selected().unwrap();
    assert_eq!(row.id, "job_type_full_id");
    assert_eq!(row.first_prompt.as_deref(), Some("Fix the typo"));
}

#[test]
fn an_ambiguous_prefix_is_said_in_the_form_and_is_not_a_call_error() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('a'));
    h.type_text("job_");
    h.key(KeyCode::Enter);
    h.send(Msg::Tracked {
        id: "job_".into(),
        result: Err(crate::api::ApiError::InvalidInput(
            "several jobs start with job_ (job_a, job_b); type more of the id".into(),
        )),
        first_prompt: None,
    });
    let (_, error) = track_form_text(&h).unwrap();
    assert!(error.unwrap().contains("type more of the id"));
    assert_eq!(
        h.app.link.last_error, None,
        "nothing was sent to the service"
    );
}

#[test]
fn two_and_tab_aim_a_follow_up_at_the_selected_job_never_an_older_one() {
    let mut h = Harness::new(vec![tracked("a", "active", 2), tracked("b", "active", 1)]);
    let first = h.app.jobs.rows[0].id.clone();
    let second = h.app.jobs.rows[1].id.clone();
    h.key(KeyCode::Char('j'));
    h.key(KeyCode::Char('m'));
    assert_eq!(h.app.composer.target, DraftKey::FollowUp(second.clone()));
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('k'));
    h.key(KeyCode::Char('2'));
    assert_eq!(h.app.composer.target, DraftKey::FollowUp(first));
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('j'));
    h.key(KeyCode::Tab);
    assert_eq!(h.app.composer.target, DraftKey::FollowUp(second));
    // The new-job draft is not turned into a follow-up.
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('n'));
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('2'));
    assert_eq!(h.app.composer.target, DraftKey::NewJob);
}

fn with_unsure() -> Harness {
    let mut h = Harness {
        app: App::new(config()),
        base: std::time::Instant::now(),
        secs: 0.0,
    };
    let effects = h.send(Msg::Loaded(Box::new(Startup {
        jobs: vec![tracked("job_a", "completed", 0)],
        unsure: vec![
            crate::journal::UnsureSend {
                submission: 7,
                prompt: "Fix the typo".into(),
                sent_at: h.clock().wall,
            },
            crate::journal::UnsureSend {
                submission: 5,
                prompt: "older".into(),
                sent_at: h.clock().wall - chrono::Duration::minutes(1),
            },
        ],
        ..Startup::default()
    })));
    assert!(
        fetches(&effects).iter().all(|id| id == "job_a"),
        "a prompt is never read as a job: {effects:?}"
    );
    // Listed on top, as not yet read jobs are.
    h.key(KeyCode::Char('g'));
    h
}

#[test]
fn a_new_job_of_unknown_outcome_stays_listed_until_dismissed() {
    let mut h = with_unsure();
    assert_eq!(h.app.jobs.rows.len(), 3);
    assert_eq!(
        h.app.jobs.rows[1].first_prompt.as_deref(),
        Some("older"),
        "newest first"
    );
    let row = h.app.jobs.selected().unwrap();
    assert_eq!(row.first_prompt.as_deref(), Some("Fix the typo"));
    // Keys that need a job say what to do instead.
    for key in ['m', 'o'] {
        h.key(KeyCode::Char(key));
        assert_eq!(h.app.focus, Pane::Jobs);
        assert!(h.app.notice.as_ref().unwrap().text().contains("MAY exist"));
    }
    h.key(KeyCode::Enter);
    assert!(h.app.overlay.is_none());
    assert!(
        fetches(&h.key(KeyCode::Char('r')))
            .iter()
            .all(|id| id == "job_a"),
        "r reads jobs only"
    );
    let effects = h.key(KeyCode::Char('x'));
    assert_eq!(effects, vec![Effect::Io(Io::DismissUnsure(7))]);
    assert_eq!(h.app.jobs.rows.len(), 2);
}

#[test]
fn tracking_from_a_row_of_unknown_outcome_gives_the_job_its_prompt() {
    let mut h = with_unsure();
    h.key(KeyCode::Char('a'));
    h.type_text("job_found");
    let effects = h.key(KeyCode::Enter);
    assert_eq!(
        effects,
        vec![Effect::Io(Io::Track {
            typed: "job_found".into(),
            submission: Some(7)
        })]
    );
    h.send(Msg::Tracked {
        id: "job_found".into(),
        result: Ok(job("job_found", "active", 5)),
        first_prompt: Some("Fix the typo".into()),
    });
    let ids: Vec<&str> = h.app.jobs.rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        ["\0unsure:5", "job_found", "job_a"],
        "the row of unknown outcome tracked is gone, the other stays"
    );
    assert_eq!(
        h.app.jobs.selected().unwrap().first_prompt.as_deref(),
        Some("Fix the typo")
    );
}

#[test]
fn a_new_job_send_that_may_have_arrived_lists_it_at_once() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('n'));
    h.type_text("hello");
    h.ctrl('s');
    let effects = h.send(Msg::Submitted {
        draft: DraftKey::NewJob,
        outcome: Submitted::Failed(network_error(true)),
    });
    assert!(effects.contains(&Effect::Io(Io::LoadUnsure)), "{effects:?}");
}

#[test]
fn a_follow_up_refused_as_archived_offers_a_new_job_with_the_text() {
    let mut h = Harness::new(vec![tracked("job_old", "archived", 0)]);
    h.key(KeyCode::Char('m'));
    h.type_text("Add the example");
    h.ctrl('s');
    h.send(Msg::Submitted {
        draft: DraftKey::FollowUp("job_old".into()),
        outcome: Submitted::Failed(crate::api::ApiError::Conflict {
            message: "job is archived".into(),
        }),
    });
    let error = h.app.composer.error.clone().unwrap();
    assert!(
        error.contains("Ctrl+N") && !error.contains("Ctrl+S sends it again"),
        "{error}"
    );
    let effects = h.ctrl('n');
    assert_eq!(h.app.composer.target, DraftKey::NewJob);
    assert_eq!(h.app.composer.text(), "Add the example");
    assert!(effects.contains(&Effect::Io(Io::SaveDraft {
        draft: DraftKey::FollowUp("job_old".into()),
        text: String::new()
    })));
    assert!(effects.contains(&Effect::Io(Io::SaveDraft {
        draft: DraftKey::NewJob,
        text: "Add the example".into()
    })));
}

#[test]
fn o_on_an_ended_job_without_a_link_does_not_say_yet() {
    let mut h = Harness::new(vec![tracked("job_f", "failed", 0)]);
    h.key(KeyCode::Char('o'));
    assert_eq!(
        h.app.notice.unwrap().text(),
        "this job ended without a PR link"
    );
    let mut h = Harness::new(vec![tracked("job_a", "active", 0)]);
    h.key(KeyCode::Char('o'));
    assert_eq!(h.app.notice.unwrap().text(), "this job has no PR link yet");
}
