//! A copy says "copied" only when the escape can reach the clipboard; where the terminal
//! side lets nothing through (tmux with its defaults), the notice shows the text instead.

use crossterm::event::KeyCode;

use super::*;
use crate::tui::clipboard::Clipboard;

fn with_link(clipboard: Clipboard) -> Harness {
    let mut h = Harness::with_config(
        ConsoleOptions {
            clipboard,
            ..config()
        },
        vec![tracked("a", "completed", 0)],
    );
    let mut job = job("a", "completed", 0);
    job.pr_link = Some("https://github.com/o/r/pull/7".into());
    h.send(Msg::Tracked {
        id: "a".into(),
        result: Ok(job),
        first_prompt: None,
    });
    h
}

#[test]
fn y_where_tmux_refuses_the_escape_shows_the_link_to_copy_by_hand() {
    let mut h = with_link(Clipboard::Refused);
    h.key(KeyCode::Char('y'));
    let notice = &h.app.notice.as_ref().unwrap().text();
    assert!(!notice.contains("copied"), "{notice}");
    assert!(notice.contains("https://github.com/o/r/pull/7"), "{notice}");
    assert!(notice.contains("set-clipboard on"), "{notice}");
}

#[test]
fn y_where_the_escape_gets_through_says_copied() {
    let mut h = with_link(Clipboard::Plain);
    h.key(KeyCode::Char('y'));
    let notice = &h.app.notice.as_ref().unwrap().text();
    assert_eq!(notice, "copied the PR link to the clipboard (OSC 52)");
}
