//! The keys the README calls "everywhere", in every place: a table of places by keys and
//! what each must do; the "too small" screen; `--read-only` refusals said in words.

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::tui::keymap::KeyContext;

/// Where a key is pressed, set up from the jobs list.
#[derive(Debug, Clone, Copy)]
enum Place {
    Jobs,
    Visitors,
    Searches,
    Composer,
    Detail,
    Help,
    TrackForm,
}

/// What the key must do there.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Then {
    Quits,
    HelpOver(KeyContext),
    /// The overlay closes onto the jobs list.
    Closes,
    /// Everything is read again; the place stays open.
    Refreshes,
    Pauses,
    Pane(Pane),
    /// The key is typed into the text.
    Types,
    /// The form moves to its next field; nothing is typed.
    NextField,
}

fn place(at: Place) -> Harness {
    let mut h = Harness::new(vec![tracked("job_a", "completed", 1)]);
    match at {
        Place::Jobs => {}
        Place::Visitors => {
            h.key(KeyCode::Char('3'));
        }
        Place::Searches => {
            h.key(KeyCode::Char('4'));
        }
        Place::Composer => {
            h.key(KeyCode::Char('n'));
        }
        Place::Detail => {
            h.key(KeyCode::Enter);
        }
        Place::Help => {
            h.key(KeyCode::Char('?'));
        }
        Place::TrackForm => {
            h.key(KeyCode::Char('a'));
        }
    }
    h
}

fn press(h: &mut Harness, key: &str) -> Vec<Effect> {
    let (code, mods) = match key {
        "Ctrl+C" => (KeyCode::Char('c'), KeyModifiers::CONTROL),
        "F1" => (KeyCode::F(1), KeyModifiers::NONE),
        "Tab" => (KeyCode::Tab, KeyModifiers::NONE),
        "Shift+Tab" => (KeyCode::BackTab, KeyModifiers::SHIFT),
        c => (
            KeyCode::Char(c.chars().next().unwrap_or(' ')),
            KeyModifiers::NONE,
        ),
    };
    h.send(Msg::Input(Event::Key(KeyEvent::new(code, mods))))
}

fn typed(h: &Harness) -> String {
    match &h.app.overlay {
        Some(Overlay::Track(form)) => form.id.lines().concat(),
        _ => h.app.composer.text(),
    }
}

fn check(at: Place, key: &str, then: Then) {
    let mut h = place(at);
    let effects = press(&mut h, key);
    let app = &h.app;
    let what = format!("{key} in {at:?} should give {then:?}");
    let ok = match then {
        Then::Quits => app.quit,
        Then::HelpOver(context) => {
            !app.quit && matches!(app.overlay, Some(Overlay::Help(c)) if c == context)
        }
        Then::Closes => !app.quit && app.overlay.is_none() && app.focus == Pane::Jobs,
        Then::Refreshes => {
            effects.contains(&Effect::Io(Io::ReloadTracked))
                && h.app.context() == place(at).app.context()
        }
        Then::Pauses => app.jobs.poll.is_paused() && h.app.context() == place(at).app.context(),
        Then::Pane(pane) => !app.quit && app.overlay.is_none() && app.focus == pane,
        Then::Types => !app.quit && typed(&h) == key,
        Then::NextField => !app.quit && app.context() == KeyContext::Form && typed(&h).is_empty(),
    };
    assert!(
        ok,
        "{what}; got quit={} overlay={:?} focus={:?} text={:?}",
        app.quit,
        app.context(),
        app.focus,
        typed(&h)
    );
}

#[test]
fn the_keys_called_everywhere_work_in_every_place() {
    use Then::{Closes, HelpOver, NextField, Pane as P, Pauses, Quits, Refreshes, Types};
    let keys = [
        "q",
        "Ctrl+C",
        "?",
        "F1",
        "r",
        "P",
        "1",
        "2",
        "3",
        "4",
        "Tab",
        "Shift+Tab",
    ];
    let table: [(Place, [Then; 12]); 7] = [
        (
            Place::Jobs,
            [
                Quits,
                Quits,
                HelpOver(KeyContext::Jobs),
                HelpOver(KeyContext::Jobs),
                Refreshes,
                Pauses,
                P(Pane::Jobs),
                P(Pane::Composer),
                P(Pane::Visitors),
                P(Pane::Searches),
                P(Pane::Composer),
                P(Pane::Searches),
            ],
        ),
        (
            Place::Visitors,
            [
                Quits,
                Quits,
                HelpOver(KeyContext::Visitors),
                HelpOver(KeyContext::Visitors),
                Refreshes,
                Pauses,
                P(Pane::Jobs),
                P(Pane::Composer),
                P(Pane::Visitors),
                P(Pane::Searches),
                P(Pane::Searches),
                P(Pane::Composer),
            ],
        ),
        (
            Place::Searches,
            [
                Quits,
                Quits,
                HelpOver(KeyContext::Searches),
                HelpOver(KeyContext::Searches),
                Refreshes,
                Pauses,
                P(Pane::Jobs),
                P(Pane::Composer),
                P(Pane::Visitors),
                P(Pane::Searches),
                P(Pane::Jobs),
                P(Pane::Visitors),
            ],
        ),
        (
            // The README: `q` closes the detail; Ctrl+C quits from it.
            Place::Detail,
            [
                Closes,
                Quits,
                HelpOver(KeyContext::Detail),
                HelpOver(KeyContext::Detail),
                Refreshes,
                Pauses,
                P(Pane::Jobs),
                P(Pane::Composer),
                P(Pane::Visitors),
                P(Pane::Searches),
                P(Pane::Composer),
                P(Pane::Searches),
            ],
        ),
        (
            Place::Help,
            [
                Closes,
                Quits,
                Closes,
                Closes,
                Refreshes,
                Pauses,
                P(Pane::Jobs),
                P(Pane::Composer),
                P(Pane::Visitors),
                P(Pane::Searches),
                P(Pane::Composer),
                P(Pane::Searches),
            ],
        ),
        (
            // Letters and digits are text here; Tab still switches panes (DESIGN.md).
            Place::Composer,
            [
                Types,
                Quits,
                Types,
                HelpOver(KeyContext::Composer),
                Types,
                Types,
                Types,
                Types,
                Types,
                Types,
                P(Pane::Visitors),
                P(Pane::Jobs),
            ],
        ),
        (
            // In a form Tab moves between fields (the README's forms keys).
            Place::TrackForm,
            [
                Types,
                Quits,
                Types,
                HelpOver(KeyContext::Form),
                Types,
                Types,
                Types,
                Types,
                Types,
                Types,
                NextField,
                NextField,
            ],
        ),
    ];
    for (at, thens) in table {
        for (key, then) in keys.iter().zip(thens) {
            check(at, key, then);
        }
    }
}

#[test]
fn help_over_the_detail_or_a_form_goes_back_to_it_with_what_was_typed() {
    let mut h = place(Place::TrackForm);
    h.type_text("job_");
    press(&mut h, "F1");
    assert_eq!(h.app.context(), KeyContext::Help);
    h.key(KeyCode::Esc);
    assert_eq!(typed(&h), "job_", "the form is back with its text");
    let mut h = place(Place::Detail);
    press(&mut h, "?");
    press(&mut h, "q");
    assert_eq!(h.app.context(), KeyContext::Detail);
}

#[test]
fn on_the_too_small_screen_only_quit_is_read() {
    for at in [
        Place::Composer,
        Place::TrackForm,
        Place::Jobs,
        Place::Detail,
    ] {
        let mut h = place(at);
        h.type_text("ab");
        let before = (typed(&h), h.app.context(), h.app.focus);
        h.send(Msg::Input(Event::Resize(50, 10)));
        assert!(h.app.too_small());
        for key in ["x", "Tab", "1", "?", "Shift+Tab"] {
            assert!(press(&mut h, key).is_empty(), "{key} in {at:?}");
        }
        h.send(Msg::Input(Event::Paste("pasted".into())));
        assert_eq!(
            (typed(&h), h.app.context(), h.app.focus),
            before,
            "nothing hidden changed in {at:?}"
        );
        press(&mut h, "q");
        assert!(h.app.quit, "q quits, as the screen says, in {at:?}");
        // Ctrl+C too, and a big enough screen reads keys again.
        let mut h = place(at);
        h.send(Msg::Input(Event::Resize(50, 10)));
        press(&mut h, "Ctrl+C");
        assert!(h.app.quit);
    }
    let mut h = place(Place::Composer);
    h.send(Msg::Input(Event::Resize(50, 10)));
    h.send(Msg::Input(Event::Resize(80, 24)));
    press(&mut h, "q");
    assert_eq!(h.app.composer.text(), "q");
}

#[test]
fn read_only_says_why_n_m_and_2_do_nothing() {
    let read_only = ConsoleOptions {
        read_only: true,
        ..config()
    };
    for key in ["n", "m", "2"] {
        let mut h = Harness::with_config(read_only.clone(), vec![tracked("job_a", "active", 0)]);
        press(&mut h, key);
        assert_eq!(h.app.focus, Pane::Jobs, "{key}");
        let notice = h
            .app
            .notice
            .clone()
            .unwrap_or_else(|| panic!("{key}: no word"));
        assert!(notice.text().starts_with("read-only:"), "{notice:?}");
    }
    let mut h = Harness::with_config(read_only, vec![tracked("job_a", "active", 0)]);
    h.key(KeyCode::Enter);
    press(&mut h, "m");
    assert_eq!(h.app.context(), KeyContext::Detail);
    assert!(h.app.notice.unwrap().text().starts_with("read-only:"));
}

#[test]
fn page_keys_move_by_the_rows_the_last_frame_showed() {
    let jobs = (0..30)
        .map(|i| tracked(&format!("j{i:02}"), "completed", -i))
        .collect();
    let mut h = Harness::new(jobs);
    h.key(KeyCode::PageDown);
    assert_eq!(
        h.app.jobs.selected_index(),
        Some(1),
        "one row before any frame"
    );
    h.send(Msg::Drawn(Viewport {
        jobs_rows: 7,
        ..Viewport::default()
    }));
    h.key(KeyCode::PageDown);
    assert_eq!(h.app.jobs.selected_index(), Some(8));
    h.key(KeyCode::PageUp);
    assert_eq!(h.app.jobs.selected_index(), Some(1));
}

#[test]
fn a_text_scroll_moves_from_where_the_last_frame_could_show_it() {
    let mut h = Harness::new(vec![tracked("a", "completed", 0)]);
    h.key(KeyCode::Enter);
    let scroll = |h: &Harness| match &h.app.overlay {
        Some(Overlay::Detail(detail)) => detail.scroll,
        other => panic!("{other:?}"),
    };
    h.key(KeyCode::Char('G'));
    // Drawn: 10 rows on screen, the last page starts at row 25.
    h.send(Msg::Drawn(Viewport {
        detail: Some(TextExtent { rows: 10, last: 25 }),
        ..Viewport::default()
    }));
    h.key(KeyCode::Char('k'));
    assert_eq!(scroll(&h), 24, "k after G moves at once");
    h.key(KeyCode::PageUp);
    assert_eq!(scroll(&h), 14, "a page is the rows on screen");
    for _ in 0..40 {
        h.key(KeyCode::Char('j'));
    }
    h.key(KeyCode::Char('k'));
    assert_eq!(
        scroll(&h),
        24,
        "past the end, then up one from the last page"
    );
    // New text: where it ends is not known until it is drawn, so nothing is clamped.
    h.send(Msg::Detail {
        id: "a".into(),
        conversation: Vec::new(),
        timeline: Vec::new(),
    });
    h.key(KeyCode::Char('j'));
    assert_eq!(scroll(&h), 25);
}
