//! The visitors pane: stale replies, the filter form, saved ranges.

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

use super::*;

#[test]
fn replies_for_a_page_no_longer_wanted_are_dropped() {
    let mut h = Harness::new(vec![]);
    let first = h.key(KeyCode::Char('3'));
    let Some(Effect::FetchVisitors { generation: g1, .. }) = first.first().cloned() else {
        panic!("{first:?}")
    };
    let page = |path: &str, more: bool| VisitorsPage {
        totals: VisitorTotals {
            human: 1,
            ai: 0,
            total: 1,
        },
        visitors: vec![PageVisitors {
            path: path.into(),
            human: 1,
            ai: 0,
            total: 1,
        }],
        has_more: more,
    };
    h.send(Msg::Visitors {
        generation: g1,
        result: Ok(page("/one", true)),
    });
    let next = h.key(KeyCode::Char('n'));
    let Some(Effect::FetchVisitors {
        generation: g2,
        query,
    }) = next.first().cloned()
    else {
        panic!("{next:?}")
    };
    assert_eq!(query.offset, Some(50));
    let back = h.key(KeyCode::Char('p'));
    let Some(Effect::FetchVisitors {
        generation: g3,
        query,
    }) = back.first().cloned()
    else {
        panic!("{back:?}")
    };
    assert_eq!(query.offset, Some(0));
    // The page-2 answer arrives after the user went back: it must not be shown.
    h.send(Msg::Visitors {
        generation: g2,
        result: Ok(page("/two", false)),
    });
    assert_eq!(
        h.app.visitors.page.as_ref().unwrap().visitors[0].path,
        "/one"
    );
    assert!(h.app.visitors.loading);
    h.send(Msg::Visitors {
        generation: g3,
        result: Ok(page("/one-again", true)),
    });
    assert_eq!(
        h.app.visitors.page.as_ref().unwrap().visitors[0].path,
        "/one-again"
    );
    assert!(!h.app.visitors.loading);
    assert_eq!(h.app.visitors.shown.as_ref().unwrap().offset, Some(0));
}

#[test]
fn the_filter_form_validates_inline_and_saves_the_choice() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('3'));
    h.key(KeyCode::Char('f'));
    h.key(KeyCode::Tab);
    for _ in 0..12 {
        h.key(KeyCode::Backspace);
    }
    h.type_text("2026-13-01");
    let Some(Overlay::Filter(form)) = &h.app.overlay else {
        panic!()
    };
    let problems = form.check().unwrap_err();
    assert!(problems.from.unwrap().contains("not a valid date"));
    assert!(
        h.key(KeyCode::Enter).is_empty(),
        "nothing is fetched with a bad date"
    );
    for _ in 0..10 {
        h.key(KeyCode::Backspace);
    }
    h.type_text("2026-11-01");
    h.key(KeyCode::Tab);
    h.key(KeyCode::End);
    for _ in 0..10 {
        h.key(KeyCode::Backspace);
    }
    h.type_text("2026-11-01");
    let Some(Overlay::Filter(form)) = &h.app.overlay else {
        panic!()
    };
    assert!(
        form.check()
            .unwrap_err()
            .range
            .unwrap()
            .contains("dateTo is exclusive")
    );
    for _ in 0..2 {
        h.key(KeyCode::Backspace);
    }
    h.type_text("08");
    let effects = h.key(KeyCode::Enter);
    assert!(h.app.overlay.is_none());
    assert!(effects.iter().any(|e| matches!(e, Effect::SaveSetting { value, .. } if value.starts_with("custom 2026-11-01"))), "{effects:?}");
    let query = effects.iter().find_map(|e| match e {
        Effect::FetchVisitors { query, .. } => Some(query.clone()),
        _ => None,
    });
    let query = query.unwrap();
    assert_eq!(
        (
            query.date_from.unwrap().to_string(),
            query.date_to.unwrap().to_string()
        ),
        ("2026-11-01".into(), "2026-11-08".into())
    );
}

#[test]
fn ranges_round_trip_through_the_journal_setting() {
    let today = chrono::NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
    for range in [
        Range::LastDays(7),
        Range::ThisMonth,
        Range::AllTime,
        Range::LastDays(90),
    ] {
        assert_eq!(Range::from_setting(&range.to_setting()), Some(range));
    }
    let (from, to) = Range::LastDays(7).bounds(today);
    assert_eq!(
        (from.unwrap().to_string(), to.unwrap().to_string()),
        ("2026-11-16".into(), "2026-11-23".into())
    );
    let (from, to) = Range::ThisMonth.bounds(today);
    assert_eq!(
        (from.unwrap().to_string(), to.unwrap().to_string()),
        ("2026-11-01".into(), "2026-12-01".into())
    );
    assert_eq!(Range::from_setting("garbage"), None);
}

fn form_field(h: &Harness) -> String {
    match &h.app.overlay {
        Some(Overlay::Filter(form)) => form.from.lines().join("⏎"),
        Some(Overlay::Export(form)) => form.path.lines().join("⏎"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_paste_with_line_breaks_into_a_form_field_stays_on_one_line() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('3'));
    h.key(KeyCode::Char('f'));
    h.key(KeyCode::Tab);
    for _ in 0..12 {
        h.key(KeyCode::Backspace);
    }
    // A copied line brings its line break (CR from a terminal, CRLF from a file).
    h.send(Msg::Input(Event::Paste("2026-11-01\r\n".into())));
    assert_eq!(form_field(&h), "2026-11-01");
    // Ctrl+J (LF) is the Enter of some terminals: it never deletes what was typed.
    h.ctrl('j');
    assert!(
        h.app.overlay.is_none(),
        "Ctrl+J applied the form like Enter"
    );
    h.key(KeyCode::Char('e'));
    h.key(KeyCode::Tab);
    for _ in 0..80 {
        h.key(KeyCode::Backspace);
    }
    // Several lines are joined with spaces, so nothing pasted is hidden.
    h.send(Msg::Input(Event::Paste("/tmp/a\r\nb.csv\r".into())));
    assert_eq!(form_field(&h), "/tmp/a b.csv");
    // Shift+Enter adds no second line either: it is Enter.
    let effects = h.send(Msg::Input(Event::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::SHIFT,
    ))));
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Export { path, .. } if path.ends_with("a b.csv"))),
        "{effects:?}"
    );
}

#[test]
fn fix_the_marked_fields_is_gone_after_a_good_apply() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('3'));
    h.key(KeyCode::Char('f'));
    h.key(KeyCode::Tab);
    h.type_text("x");
    h.key(KeyCode::Enter);
    let said = |h: &Harness| {
        let notice = h.app.notice.as_ref().map(|n| n.text.clone());
        let form = match &h.app.overlay {
            Some(Overlay::Filter(form)) => form.refused,
            _ => false,
        };
        (notice, form)
    };
    assert_eq!(said(&h), (None, true), "the form itself says it");
    h.key(KeyCode::Backspace);
    h.key(KeyCode::Enter);
    assert!(h.app.overlay.is_none());
    assert!(
        !h.app
            .notice
            .as_ref()
            .is_some_and(|n| n.text.contains("fix the marked")),
        "{:?}",
        h.app.notice
    );
}

#[test]
fn the_export_form_opens_on_the_format_choice() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('3'));
    h.key(KeyCode::Char('e'));
    let Some(Overlay::Export(form)) = &h.app.overlay else {
        panic!("{:?}", h.app.overlay)
    };
    assert!(form.on_format);
    h.key(KeyCode::Right);
    let Some(Overlay::Export(form)) = &h.app.overlay else {
        panic!()
    };
    assert_eq!(form.format, crate::cli::Format::Json);
}
