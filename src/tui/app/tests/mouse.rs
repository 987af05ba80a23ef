//! The mouse: tabs, rows and the wheel, found against where the last frame drew them.

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Rect;

use super::*;

/// A frame with the tabs on the top line and three job rows from the third.
fn drawn(h: &mut Harness) {
    h.send(Msg::Drawn(Viewport {
        jobs_rows: 3,
        hits: Hits {
            tabs: [
                Some((Rect::new(10, 0, 10, 1), Pane::Jobs)),
                Some((Rect::new(21, 0, 12, 1), Pane::Composer)),
                Some((Rect::new(34, 0, 12, 1), Pane::Visitors)),
                Some((Rect::new(47, 0, 12, 1), Pane::Searches)),
            ],
            rows: Some(RowsArea {
                area: Rect::new(0, 2, 80, 10),
                first: 0,
                drawn: 3,
            }),
        },
        ..Viewport::default()
    }));
}

fn mouse(h: &mut Harness, kind: MouseEventKind, column: u16, row: u16) -> Vec<Effect> {
    h.send(Msg::Input(Event::Mouse(MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    })))
}

fn click(h: &mut Harness, column: u16, row: u16) -> Vec<Effect> {
    mouse(h, MouseEventKind::Down(MouseButton::Left), column, row)
}

fn three() -> Harness {
    let mut h = Harness::new(vec![
        tracked("a", "completed", 3),
        tracked("b", "completed", 2),
        tracked("c", "completed", 1),
    ]);
    drawn(&mut h);
    h
}

fn selected(h: &Harness) -> Option<&str> {
    h.app.jobs.selected().map(|r| r.id.as_str())
}

#[test]
fn a_click_on_a_tab_switches_pane_and_closes_what_was_open() {
    let mut h = three();
    h.key(KeyCode::Enter);
    assert!(h.app.overlay.is_some());
    let effects = click(&mut h, 36, 0);
    assert_eq!(h.app.focus, Pane::Visitors);
    assert!(h.app.overlay.is_none());
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Io(Io::FetchVisitors { .. }))),
        "the pane loads as with 3: {effects:?}"
    );
    click(&mut h, 12, 0);
    assert_eq!(h.app.focus, Pane::Jobs);
}

#[test]
fn a_click_on_a_row_selects_it_and_a_second_click_opens_it() {
    let mut h = three();
    assert_eq!(selected(&h), Some("a"));
    assert!(click(&mut h, 5, 4).is_empty());
    assert_eq!(selected(&h), Some("c"));
    assert!(h.app.overlay.is_none(), "one click only selects");
    let effects = click(&mut h, 40, 4);
    assert!(matches!(&h.app.overlay, Some(Overlay::Detail(d)) if d.id == "c"));
    assert_eq!(effects, vec![Effect::Io(Io::LoadDetail("c".into()))]);
}

#[test]
fn a_click_below_the_last_row_or_on_an_overlay_hits_nothing() {
    let mut h = three();
    h.app.take_dirty();
    click(&mut h, 5, 6);
    assert_eq!(selected(&h), Some("a"));
    assert!(!h.app.take_dirty(), "nothing changed, nothing drawn");
    h.key(KeyCode::Char('?'));
    click(&mut h, 5, 3);
    assert_eq!(selected(&h), Some("a"), "the help covers the list");
}

#[test]
fn a_click_while_typing_a_filter_keeps_it_and_selects() {
    let mut h = three();
    h.key(KeyCode::Char('/'));
    h.type_text("prompt");
    click(&mut h, 5, 3);
    assert!(!h.app.jobs.view().typing());
    assert_eq!(h.app.jobs.view().filter().as_typed(), "prompt");
    assert_eq!(selected(&h), Some("b"));
}

#[test]
fn the_wheel_moves_the_list_and_scrolls_the_detail_and_the_help() {
    let jobs = (0..10)
        .map(|i| tracked(&format!("j{i}"), "completed", -i))
        .collect();
    let mut h = Harness::new(jobs);
    drawn(&mut h);
    mouse(&mut h, MouseEventKind::ScrollDown, 5, 5);
    assert_eq!(h.app.jobs.selected_index(), Some(3));
    mouse(&mut h, MouseEventKind::ScrollUp, 5, 5);
    assert_eq!(h.app.jobs.selected_index(), Some(0));
    h.key(KeyCode::Enter);
    mouse(&mut h, MouseEventKind::ScrollDown, 5, 5);
    assert!(matches!(&h.app.overlay, Some(Overlay::Detail(d)) if d.scroll == 3));
    h.key(KeyCode::Char('?'));
    mouse(&mut h, MouseEventKind::ScrollDown, 5, 5);
    assert_eq!(h.app.help.scroll, 3);
}

#[test]
fn moves_and_releases_draw_nothing() {
    let mut h = three();
    h.app.take_dirty();
    mouse(&mut h, MouseEventKind::Moved, 5, 3);
    mouse(&mut h, MouseEventKind::Up(MouseButton::Left), 5, 3);
    mouse(&mut h, MouseEventKind::Drag(MouseButton::Left), 5, 4);
    assert!(!h.app.take_dirty());
    assert_eq!(selected(&h), Some("a"));
}

#[test]
fn with_the_mouse_off_clicks_and_the_wheel_do_nothing() {
    let mut h = Harness::with_config(
        ConsoleOptions {
            mouse: false,
            ..config()
        },
        vec![tracked("a", "completed", 2), tracked("b", "completed", 1)],
    );
    drawn(&mut h);
    click(&mut h, 36, 0);
    click(&mut h, 5, 3);
    mouse(&mut h, MouseEventKind::ScrollDown, 5, 3);
    assert_eq!(h.app.focus, Pane::Jobs);
    assert_eq!(selected(&h), Some("a"));
}

#[test]
fn what_a_frame_measured_arrives_as_a_message_and_draws_nothing_again() {
    let mut h = Harness::new(vec![tracked("a", "completed", 3)]);
    h.app.take_dirty();
    assert_eq!(click(&mut h, 36, 0), vec![], "no frame yet: no tab to hit");
    drawn(&mut h);
    assert!(
        !h.app.take_dirty(),
        "the frame's numbers change nothing on screen, so they never draw a frame again"
    );
    click(&mut h, 36, 0);
    assert_eq!(h.app.focus, Pane::Visitors, "the measured tabs are hit");
}
