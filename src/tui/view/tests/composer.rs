//! Screens of the composer: long messages are wrapped whole, never cut.

use crossterm::event::{KeyCode, KeyModifiers};

use super::*;
use crate::api::ApiError;
use crate::tui::message::{DraftKey, Submitted};

#[test]
fn a_long_send_error_is_shown_whole_at_80_columns() {
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('n'));
    scene.send(Msg::Input(Event::Key(KeyEvent::new(
        KeyCode::Char('s'),
        KeyModifiers::CONTROL,
    ))));
    scene.send(Msg::Submitted {
        draft: DraftKey::NewJob,
        outcome: Submitted::Failed(ApiError::Network {
            host: "api.mintlify.com".into(),
            reason: "the connection was reset after the request was sent".into(),
            may_have_reached_server: true,
        }),
    });
    let screen = scene.render(80, 24);
    assert!(screen.contains("MAY HAVE BEEN CREATED"), "{screen}");
    assert!(
        screen.contains("The text is kept."),
        "the end of the error is on screen:\n{screen}"
    );
    assert!(screen.contains("new jobs left this hour"), "{screen}");
}

#[test]
fn the_terminals_cursor_stands_where_the_next_character_goes() {
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('n'));
    for c in "docs 日本".chars() {
        scene.key(KeyCode::Char(c));
    }
    let mut terminal = scene.draw_in(80, 24, Theme::default());
    let screen = terminal.backend().to_string();
    let (y, line) = screen
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("docs 日本"))
        .expect("the text on screen");
    // Columns before the text (the quote TestBackend opens each line with is not one).
    let start = line[..line.find("docs").unwrap()].chars().count() - 1;
    // "docs " is 5 columns and 日本 4 more: the cursor stands just after them.
    let x = u16::try_from(start + 9).unwrap();
    terminal
        .backend_mut()
        .assert_cursor_position((x, u16::try_from(y).unwrap()));
}
