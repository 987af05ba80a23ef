//! The visitors pane: stale replies, the filter form, saved ranges.

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

use ratatui::style::Style;

use super::*;
use crate::tui::app::{FilterForm, FilterProblems};
use crate::tui::message::ExportEnd;

#[test]
fn replies_for_a_page_no_longer_wanted_are_dropped() {
    let mut h = Harness::new(vec![]);
    let first = h.key(KeyCode::Char('3'));
    let Some(Effect::Io(Io::FetchVisitors { generation: g1, .. })) = first.first().cloned() else {
        panic!("{first:?}")
    };
    let page = |path: &str, more: bool| VisitorsPage {
        totals: VisitorTotals {
            human: 1,
            ai: 0,
            total: 1,
        },
        visitors: vec![PathVisitors {
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
    let next = h.key(KeyCode::Char(']'));
    let Some(Effect::Io(Io::FetchVisitors {
        generation: g2,
        query,
    })) = next.first().cloned()
    else {
        panic!("{next:?}")
    };
    assert_eq!(query.offset, Some(50));
    let back = h.key(KeyCode::Char('['));
    let Some(Effect::Io(Io::FetchVisitors {
        generation: g3,
        query,
    })) = back.first().cloned()
    else {
        panic!("{back:?}")
    };
    assert_eq!(query.offset, Some(0));
    // The page-2 answer arrives after the user went back: it must not be shown.
    h.send(Msg::Visitors {
        generation: g2,
        result: Ok(page("/two", false)),
    });
    assert_eq!(h.app.visitors.rows()[0].path, "/one");
    assert!(h.app.visitors.load().is_fetching());
    h.send(Msg::Visitors {
        generation: g3,
        result: Ok(page("/one-again", true)),
    });
    assert_eq!(h.app.visitors.rows()[0].path, "/one-again");
    assert!(!h.app.visitors.load().is_fetching());
    assert_eq!(h.app.visitors.load().shown().unwrap().query.offset, Some(0));
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
    let problems = form.problems().clone();
    assert_eq!(Err(problems.clone()), form.check(), "kept as typed");
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
        form.problems()
            .range
            .as_deref()
            .unwrap()
            .contains("to is exclusive")
    );
    for _ in 0..2 {
        h.key(KeyCode::Backspace);
    }
    h.type_text("08");
    let effects = h.key(KeyCode::Enter);
    assert!(h.app.overlay.is_none());
    assert!(effects.iter().any(|e| matches!(e, Effect::Io(Io::SaveSetting { value, .. }) if value.starts_with("custom 2026-11-01"))), "{effects:?}");
    let query = effects.iter().find_map(|e| match e {
        Effect::Io(Io::FetchVisitors { query, .. }) => Some(query.clone()),
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
        DateRange::LastDays(7),
        DateRange::ThisMonth,
        DateRange::AllTime,
        DateRange::LastDays(90),
    ] {
        assert_eq!(DateRange::from_setting(&range.to_setting()), Some(range));
    }
    let (from, to) = DateRange::LastDays(7).bounds(today);
    assert_eq!(
        (from.unwrap().to_string(), to.unwrap().to_string()),
        ("2026-11-16".into(), "2026-11-23".into())
    );
    let (from, to) = DateRange::ThisMonth.bounds(today);
    assert_eq!(
        (from.unwrap().to_string(), to.unwrap().to_string()),
        ("2026-11-01".into(), "2026-12-01".into())
    );
    assert_eq!(DateRange::from_setting("garbage"), None);
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
    // Control characters a copy brought along are dropped, not kept out of sight.
    for _ in 0..10 {
        h.key(KeyCode::Backspace);
    }
    h.send(Msg::Input(Event::Paste("2026-11-01\u{7}\u{1}\n".into())));
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
            .any(|e| matches!(e, Effect::Io(Io::Export { path, .. }) if path.ends_with("a b.csv"))),
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
        let notice = h.app.notice.as_ref().map(|n| n.text().clone());
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
            .is_some_and(|n| n.text().contains("fix the marked")),
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
    assert!(form.on_format());
    h.key(KeyCode::Right);
    let Some(Overlay::Export(form)) = &h.app.overlay else {
        panic!()
    };
    assert_eq!(form.format, crate::export::DataFormat::Json);
}

fn export_effect(effects: &[Effect]) -> (std::path::PathBuf, bool) {
    effects
        .iter()
        .find_map(|e| match e {
            Effect::Io(Io::Export {
                path, overwrite, ..
            }) => Some((path.clone(), *overwrite)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no export in {effects:?}"))
}

#[test]
fn an_existing_file_is_replaced_only_after_asking() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('3'));
    h.key(KeyCode::Char('e'));
    let (path, overwrite) = export_effect(&h.key(KeyCode::Enter));
    assert!(!overwrite);
    assert!(path.to_string_lossy().starts_with("visitors-"));
    assert!(h.app.visitors.export.is_some());
    h.send(Msg::ExportDone(ExportEnd::Exists("/home/u/out.csv".into())));
    let Some(Overlay::Export(form)) = &h.app.overlay else {
        panic!("the form is back to ask: {:?}", h.app.overlay)
    };
    assert_eq!(
        form.replace.as_ref().map(|(_, p)| p.clone()),
        Some("/home/u/out.csv".into())
    );
    assert!(!form.on_format(), "the cursor is on the file name");
    assert!(h.app.visitors.export.is_none());
    let (_, overwrite) = export_effect(&h.key(KeyCode::Enter));
    assert!(overwrite, "Enter on the same name replaces it");
    // Another name asks again.
    h.send(Msg::ExportDone(ExportEnd::Exists("/home/u/out.csv".into())));
    h.type_text("x");
    let (path, overwrite) = export_effect(&h.key(KeyCode::Enter));
    assert!(!overwrite && path.to_string_lossy().ends_with(".csvx"));
}

#[test]
fn an_export_that_stops_part_way_says_where_and_why_and_what_it_kept() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('3'));
    h.key(KeyCode::Char('e'));
    h.key(KeyCode::Enter);
    h.send(Msg::ExportProgress {
        rows: 500,
        pages: 2,
    });
    h.send(Msg::ExportDone(ExportEnd::Stopped {
        offset: 500,
        reason: crate::api::ApiError::Server {
            status: 503,
            message: String::new(),
        },
        rows: 500,
        kept: Some("/tmp/v.incomplete.csv".into()),
    }));
    let notice = h.app.notice.clone().unwrap();
    assert_eq!(notice.kind, NoticeKind::Error);
    assert_eq!(
        notice.text(),
        "export stopped at offset 500: the service failed (503): try again later; kept 500 \
         rows in /tmp/v.incomplete.csv"
    );
    assert!(h.app.visitors.export.is_none());
    assert!(
        h.app.visitors.export_end.is_some(),
        "said under the table too"
    );
    // The console goes on: paging works, and a new export clears the old outcome.
    h.key(KeyCode::Char('e'));
    h.key(KeyCode::Enter);
    assert!(h.app.visitors.export_end.is_none());
}

#[test]
fn a_full_bar_means_the_same_on_every_page() {
    let mut h = Harness::new(vec![]);
    let first = h.key(KeyCode::Char('3'));
    let generation = |effects: &[Effect]| {
        effects
            .iter()
            .find_map(|e| match e {
                Effect::Io(Io::FetchVisitors { generation, .. }) => Some(*generation),
                _ => None,
            })
            .unwrap()
    };
    let rows = |totals: &[u64]| VisitorsPage {
        totals: VisitorTotals {
            human: 5_000,
            ai: 900,
            total: 5_500,
        },
        visitors: totals
            .iter()
            .map(|t| PathVisitors {
                path: format!("/p{t}"),
                human: *t,
                ai: 0,
                total: *t,
            })
            .collect(),
        has_more: true,
    };
    h.send(Msg::Visitors {
        generation: generation(&first),
        result: Ok(rows(&[1_179, 700, 65])),
    });
    assert_eq!(h.app.visitors.bar_scale(), Some(BarScale::TopRow(1_179)));
    let next = h.key(KeyCode::Char(']'));
    h.send(Msg::Visitors {
        generation: generation(&next),
        result: Ok(rows(&[65, 4])),
    });
    assert_eq!(
        h.app.visitors.bar_scale(),
        Some(BarScale::TopRow(1_179)),
        "page 2 keeps page 1's scale"
    );
    // Another range: until its first page is seen, the range's total is the scale.
    h.app.visitors.top_forget_for_test();
    assert_eq!(h.app.visitors.bar_scale(), Some(BarScale::Total(5_500)));
}

#[test]
fn a_stop_whose_reason_names_the_offset_does_not_say_it_twice() {
    let end = ExportEnd::Stopped {
        offset: 250,
        reason: crate::api::ApiError::BrokenPaging {
            offset: 250,
            fault: crate::api::PagingFault::Empty,
        },
        rows: 250,
        kept: None,
    };
    assert_eq!(
        crate::tui::view::said::export_end_text(&end),
        "export stopped: paging stopped at offset 250: the service said there were more rows \
         but sent none; docdeck stopped rather than ask forever; the 250 rows fetched could \
         not be kept"
    );
}

fn filter_form(h: &Harness) -> &FilterForm {
    let Some(Overlay::Filter(form)) = &h.app.overlay else {
        panic!("no filter form: {:?}", h.app.overlay)
    };
    form
}

#[test]
fn the_filter_forms_problems_follow_every_change_without_a_frame() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('3'));
    h.key(KeyCode::Char('f'));
    assert_eq!(*filter_form(&h).problems(), FilterProblems::default());
    // The rows field, by typing and by pasting.
    for _ in 0..3 {
        h.key(KeyCode::Tab);
    }
    h.type_text("x");
    assert!(filter_form(&h).problems().rows.is_some(), "typed");
    h.key(KeyCode::Backspace);
    assert_eq!(*filter_form(&h).problems(), FilterProblems::default());
    h.send(Msg::Input(Event::Paste("999".into())));
    assert!(filter_form(&h).problems().rows.is_some(), "pasted");
    for _ in 0..3 {
        h.key(KeyCode::Backspace);
    }
    // A bad date, then a preset that replaces it.
    h.key(KeyCode::Tab);
    h.key(KeyCode::Tab);
    h.type_text("zz");
    assert!(filter_form(&h).problems().from.is_some());
    h.key(KeyCode::BackTab);
    h.key(KeyCode::Right);
    let form = filter_form(&h);
    assert_eq!(*form.problems(), FilterProblems::default());
    assert!(
        form.check().is_ok(),
        "the preset's dates replaced the bad one"
    );
}

#[test]
fn only_the_field_with_the_cursor_shows_it() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('3'));
    h.key(KeyCode::Char('f'));
    let shows = |area: &ratatui_textarea::TextArea<'_>| area.cursor_style() != Style::new();
    let form = filter_form(&h);
    assert!(!shows(&form.from) && !shows(&form.to) && !shows(&form.rows));
    h.key(KeyCode::Tab);
    let form = filter_form(&h);
    assert!(shows(&form.from) && !shows(&form.to) && !shows(&form.rows));
    h.key(KeyCode::Tab);
    let form = filter_form(&h);
    assert!(!shows(&form.from) && shows(&form.to) && !shows(&form.rows));
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('e'));
    let Some(Overlay::Export(form)) = &h.app.overlay else {
        panic!()
    };
    assert!(form.on_format() && !shows(&form.path));
    h.key(KeyCode::Tab);
    let Some(Overlay::Export(form)) = &h.app.overlay else {
        panic!()
    };
    assert!(!form.on_format() && shows(&form.path));
}

#[test]
fn a_failed_export_is_kept_as_what_failed_and_the_view_words_it() {
    let mut h = Harness::new(vec![]);
    let end = ExportEnd::Failed(crate::tui::message::ExportError::NoHome);
    h.send(Msg::ExportDone(end.clone()));
    let notice = h.app.notice.clone().unwrap();
    assert_eq!(notice.said, crate::tui::app::Said::Export(end));
    assert_eq!(
        notice.text(),
        "export failed: ~ needs HOME to be set: type the whole path; nothing was written"
    );
}
