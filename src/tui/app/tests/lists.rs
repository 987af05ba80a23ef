//! The jobs list's filter (`/`) and sort (`s`, `S`), and the detail's search (`/`, `n`,
//! `N`): the cursor stays on its job, and typed keys never act as list keys.

use super::*;
use crate::api::Source;
use crate::listing::Direction;
use crate::tui::app::table::SortKey as _;

/// Three jobs told apart by prompt, status, repository and model.
fn three() -> Harness {
    let with = |id: &str, status: &str, repo: &str, model: &str, prompt: &str| TrackedJob {
        snapshot: Some(Job {
            source: Some(Source {
                repository: Some(repo.into()),
                git_ref: Some("main".into()),
            }),
            model: Some(model.into()),
            ..job(id, status, 0)
        }),
        first_prompt: Some(prompt.into()),
        ..tracked(id, status, 0)
    };
    let jobs = vec![
        with(
            "job_a",
            "completed",
            "https://github.com/zeta/docs",
            "opus",
            "Fix the links",
        ),
        with(
            "job_b",
            "failed",
            "https://github.com/acme/docs",
            "sonnet",
            "Document webhooks",
        ),
        with(
            "job_c",
            "active",
            "https://github.com/beta/site",
            "haiku",
            "Translate the FAQ",
        ),
    ];
    let mut h = Harness::new(jobs.clone());
    // The first reads bring the same jobs back.
    for tracked in jobs {
        h.send(Msg::JobFetched {
            id: tracked.id,
            result: Ok(tracked.snapshot.unwrap()),
        });
    }
    h
}

fn shown(h: &Harness) -> Vec<String> {
    let list = &h.app.jobs;
    list.view()
        .order()
        .iter()
        .map(|&i| list.rows[i].id.clone())
        .collect()
}

fn selected(h: &Harness) -> Option<String> {
    h.app.jobs.selected().map(|r| r.id.clone())
}

#[test]
fn slash_filters_the_list_as_you_type_and_enter_gives_the_keys_back_to_the_list() {
    let mut h = three();
    h.key(KeyCode::Char('/'));
    h.type_text("webh");
    assert_eq!(shown(&h), ["job_b"]);
    assert_eq!(selected(&h).as_deref(), Some("job_b"));
    assert!(h.app.jobs.view().typing());
    h.key(KeyCode::Enter);
    assert!(!h.app.jobs.view().typing(), "Enter keeps the filter");
    assert_eq!(h.app.jobs.view().filter().as_typed(), "webh");
    assert_eq!((h.app.jobs.view().len(), h.app.jobs.view().total()), (1, 3));
    h.key(KeyCode::Char('n'));
    assert_eq!(h.app.focus, Pane::Composer, "n is new job again");
}

#[test]
fn keys_typed_into_the_filter_are_text_never_list_keys() {
    let mut h = three();
    h.key(KeyCode::Char('/'));
    let effects = h.type_text("q1x?");
    assert!(!h.app.quit, "q was typed, not quit");
    assert_eq!(h.app.focus, Pane::Jobs);
    assert!(h.app.overlay.is_none(), "? was typed, not help");
    assert!(effects.is_empty(), "x was typed, not untrack: {effects:?}");
    assert_eq!(h.app.jobs.view().filter().as_typed(), "q1x?");
    assert!(h.app.jobs.view().is_empty());
    h.key(KeyCode::Backspace);
    assert_eq!(h.app.jobs.view().filter().as_typed(), "q1x");
}

#[test]
fn esc_clears_the_filter_while_typing_and_from_the_list() {
    let mut h = three();
    h.key(KeyCode::Char('/'));
    h.type_text("fix");
    h.key(KeyCode::Esc);
    assert!(h.app.jobs.view().filter().is_empty() && !h.app.jobs.view().typing());
    assert_eq!(shown(&h).len(), 3);
    h.key(KeyCode::Char('/'));
    h.type_text("fix");
    h.key(KeyCode::Enter);
    h.key(KeyCode::Esc);
    assert_eq!(shown(&h).len(), 3, "Esc in the list clears a kept filter");
    assert_eq!(
        selected(&h).as_deref(),
        Some("job_a"),
        "the cursor stays on its job"
    );
}

#[test]
fn the_filter_looks_in_id_status_repository_and_model_with_a_star_for_any_run() {
    let mut h = three();
    for (typed, expect) in [
        ("FAIL", vec!["job_b"]),
        ("zeta*docs", vec!["job_a"]),
        ("haiku", vec!["job_c"]),
        ("job_*c", vec!["job_c"]),
        ("docs", vec!["job_a", "job_b"]),
    ] {
        h.key(KeyCode::Char('/'));
        h.type_text(typed);
        assert_eq!(shown(&h), expect, "{typed}");
        h.key(KeyCode::Esc);
    }
}

#[test]
fn leaving_the_pane_while_typing_keeps_the_filter() {
    let mut h = three();
    h.key(KeyCode::Char('/'));
    h.type_text("fix");
    h.key(KeyCode::Tab);
    assert_eq!(h.app.focus, Pane::Composer);
    h.key(KeyCode::BackTab);
    assert_eq!(h.app.focus, Pane::Jobs);
    assert!(!h.app.jobs.view().typing());
    assert_eq!(shown(&h), ["job_a"]);
}

#[test]
fn s_cycles_created_status_changed_and_repository_and_the_cursor_stays_on_its_job() {
    let mut h = three();
    h.key(KeyCode::Char('j'));
    assert_eq!(selected(&h).as_deref(), Some("job_b"));
    assert_eq!(
        h.app.jobs.view().sort(),
        Some((JobSort::Created, Direction::Descending))
    );
    h.key(KeyCode::Char('s'));
    assert_eq!(
        h.app.jobs.view().sort(),
        Some((JobSort::Status, Direction::Ascending))
    );
    assert_eq!(
        shown(&h),
        ["job_c", "job_b", "job_a"],
        "active, failed, completed"
    );
    assert_eq!(selected(&h).as_deref(), Some("job_b"));
    assert_eq!(h.app.jobs.view().cursor_position(), Some(1));
    h.key(KeyCode::Char('s'));
    assert_eq!(
        h.app.jobs.view().sort().map(|s| s.0),
        Some(JobSort::Changed)
    );
    h.key(KeyCode::Char('s'));
    assert_eq!(shown(&h), ["job_b", "job_c", "job_a"], "acme, beta, zeta");
    h.key(KeyCode::Char('S'));
    assert_eq!(shown(&h), ["job_a", "job_c", "job_b"], "reversed");
    assert_eq!(selected(&h).as_deref(), Some("job_b"));
    assert_eq!(h.app.jobs.view().cursor_position(), Some(2));
    h.key(KeyCode::Char('s'));
    assert_eq!(
        h.app.jobs.view().sort(),
        Some((JobSort::Created, JobSort::Created.first_direction())),
        "round again, newest first"
    );
}

#[test]
fn a_status_change_seen_here_is_the_jobs_last_change() {
    let mut h = three();
    h.key(KeyCode::Char('s'));
    h.key(KeyCode::Char('s'));
    assert_eq!(
        h.app.jobs.view().sort().map(|s| s.0),
        Some(JobSort::Changed)
    );
    h.at(30.0).send(Msg::JobFetched {
        id: "job_a".into(),
        result: Ok(job("job_a", "archived", 0)),
    });
    let row = h.app.jobs.get("job_a").unwrap();
    assert_eq!(row.changed_at, Some(h.clock().wall));
    assert_eq!(shown(&h)[0], "job_a", "the last changed first");
    h.at(40.0).send(Msg::JobFetched {
        id: "job_a".into(),
        result: Ok(job("job_a", "archived", 0)),
    });
    let row = h.app.jobs.get("job_a").unwrap();
    assert_ne!(
        row.changed_at,
        Some(h.clock().wall),
        "no change, no new time"
    );
}

#[test]
fn a_job_made_here_while_a_filter_hides_it_is_shown_and_selected() {
    let mut h = three();
    h.key(KeyCode::Char('/'));
    h.type_text("faq");
    h.key(KeyCode::Enter);
    h.send(Msg::Tracked {
        id: "job_new".into(),
        result: Ok(job("job_new", "active", 9)),
        first_prompt: None,
    });
    assert!(h.app.jobs.view().filter().is_empty());
    assert_eq!(selected(&h).as_deref(), Some("job_new"));
}

fn open_search(h: &mut Harness, typed: &str) {
    h.key(KeyCode::Enter);
    h.key(KeyCode::Char('/'));
    h.type_text(typed);
}

fn search(h: &Harness) -> Option<DetailSearch> {
    match &h.app.overlay {
        Some(Overlay::Detail(detail)) => detail.search.clone(),
        _ => None,
    }
}

fn frame_found(h: &mut Harness, matches: usize, scroll: usize) {
    h.send(Msg::Drawn(Viewport {
        found: Some(Found { matches, scroll }),
        ..Viewport::default()
    }));
}

#[test]
fn slash_in_the_detail_searches_its_text_and_the_frame_brings_the_match_into_sight() {
    let mut h = three();
    open_search(&mut h, "q?");
    let typed = search(&h).unwrap();
    assert!(typed.typing && typed.seek);
    assert_eq!(typed.pattern.as_typed(), "q?", "q and ? are text here");
    assert!(!h.app.quit);
    frame_found(&mut h, 5, 12);
    let Some(Overlay::Detail(detail)) = &h.app.overlay else {
        panic!("the detail is open");
    };
    assert_eq!(
        detail.scroll, 12,
        "the scroll starts where the match was shown"
    );
    assert!(!detail.search.as_ref().unwrap().seek);
}

#[test]
fn n_and_big_n_go_round_the_matches_and_esc_leaves_the_search_then_the_detail() {
    let mut h = three();
    open_search(&mut h, "the");
    h.key(KeyCode::Enter);
    frame_found(&mut h, 3, 0);
    h.key(KeyCode::Char('n'));
    assert_eq!(search(&h).unwrap().current, 1);
    assert!(search(&h).unwrap().seek);
    h.key(KeyCode::Char('n'));
    h.key(KeyCode::Char('n'));
    assert_eq!(search(&h).unwrap().current, 0, "past the last, the first");
    h.key(KeyCode::Char('N'));
    assert_eq!(search(&h).unwrap().current, 2, "before the first, the last");
    h.key(KeyCode::Esc);
    assert_eq!(search(&h), None);
    assert!(matches!(h.app.overlay, Some(Overlay::Detail(_))));
    h.key(KeyCode::Esc);
    assert!(h.app.overlay.is_none());
}

#[test]
fn n_without_a_match_does_nothing_and_esc_while_typing_drops_the_search() {
    let mut h = three();
    open_search(&mut h, "zzz");
    h.key(KeyCode::Enter);
    frame_found(&mut h, 0, 0);
    h.key(KeyCode::Char('n'));
    assert_eq!(search(&h).unwrap().current, 0);
    h.key(KeyCode::Char('/'));
    assert!(search(&h).unwrap().typing, "/ edits the search again");
    h.key(KeyCode::Esc);
    assert_eq!(search(&h), None);
    assert!(matches!(h.app.overlay, Some(Overlay::Detail(_))));
}

#[test]
fn ages_in_the_changed_column_wake_the_console_only_when_it_is_shown() {
    // An archived job made two hours ago, whose status changed 3m22s ago: CHANGED reads
    // `4m` in 38 s; AGE reads `3h` in an hour.
    let changed = Some(Utc.with_ymd_and_hms(2026, 11, 22, 11, 56, 38).unwrap());
    let archived = TrackedJob {
        changed_at: changed,
        ..tracked("a", "archived", 0)
    };
    let no_key = || {
        Msg::ConnectionChecked(Err(crate::api::ApiError::NotFound {
            message: String::new(),
            missing: crate::api::Missing::Job,
        }))
    };
    let shown = ConsoleOptions {
        columns: vec![JobColumn::Changed, JobColumn::Prompt],
        ..config()
    };
    let mut h = Harness::with_config(shown, vec![archived.clone()]);
    h.send(no_key());
    assert_eq!(
        h.app.next_wake(),
        Some(h.clock().mono + Duration::from_secs(38))
    );
    let mut h = Harness::new(vec![archived]);
    h.send(no_key());
    assert_eq!(
        h.app.next_wake(),
        Some(h.clock().mono + Duration::from_secs(3600)),
        "without the column, only AGE"
    );
}
