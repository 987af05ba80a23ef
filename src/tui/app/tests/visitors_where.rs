//! The visitors pane telling where things are: an empty range offers the dates that
//! hold views, and where an export went is said once on screen.

use crossterm::event::KeyCode;

use super::*;
use crate::tui::message::ExportEnd;

#[test]
fn an_empty_range_offers_the_dates_the_service_says_hold_views() {
    let mut h = Harness::new(vec![]);
    let first = h.key(KeyCode::Char('3'));
    let Some(Effect::Io(Io::FetchVisitors { generation, .. })) = first.first().cloned() else {
        panic!("{first:?}")
    };
    let span = crate::api::limit::ViewsSpan::from_millis(1_431_857_103_000, 1_432_155_915_000);
    h.send(Msg::ViewsSpan(span));
    h.send(Msg::Visitors {
        generation,
        result: Ok(VisitorsPage::default()),
    });
    assert!(h.app.visitors.offered_range().is_some());
    h.key(KeyCode::Char('f'));
    let Some(Overlay::Filter(form)) = &h.app.overlay else {
        panic!("no form")
    };
    assert_eq!(form.from.lines().join(""), "2015-05-17");
    assert_eq!(form.to.lines().join(""), "2015-05-21");
    let applied = h.key(KeyCode::Enter);
    let Some(Effect::Io(Io::FetchVisitors { query, .. })) = applied
        .iter()
        .find(|e| matches!(e, Effect::Io(Io::FetchVisitors { .. })))
        .cloned()
    else {
        panic!("{applied:?}")
    };
    assert_eq!(
        query.date_from.map(|d| d.to_string()).as_deref(),
        Some("2015-05-17")
    );
    assert_eq!(
        query.date_to.map(|d| d.to_string()).as_deref(),
        Some("2015-05-21")
    );

    // A service that says nothing of its views: the pane says only how to change dates.
    let mut h = Harness::new(vec![]);
    let first = h.key(KeyCode::Char('3'));
    let Some(Effect::Io(Io::FetchVisitors { generation, .. })) = first.first().cloned() else {
        panic!("{first:?}")
    };
    h.send(Msg::ViewsSpan(None));
    h.send(Msg::Visitors {
        generation,
        result: Ok(VisitorsPage::default()),
    });
    assert_eq!(h.app.visitors.offered_range(), None);
}

#[test]
fn where_an_export_went_is_said_once_on_screen() {
    let mut h = Harness::new(vec![]);
    h.key(KeyCode::Char('3'));
    let path = std::path::PathBuf::from("/home/me/visitors.csv");
    h.send(Msg::ExportDone(ExportEnd::Written {
        path: path.clone(),
        rows: 12,
    }));
    let notice = h.app.notice.clone().unwrap().text();
    assert!(
        !notice.contains("/home/me"),
        "the line under the table names it: {notice}"
    );
    assert!(matches!(
        &h.app.visitors.export_end,
        Some(ExportEnd::Written { path: p, .. }) if *p == path
    ));
    h.key(KeyCode::Char('1'));
    h.send(Msg::ExportDone(ExportEnd::Written {
        path: path.clone(),
        rows: 12,
    }));
    let notice = h.app.notice.clone().unwrap().text();
    assert!(
        notice.contains("/home/me/visitors.csv"),
        "from another pane the notice names it: {notice}"
    );
}
