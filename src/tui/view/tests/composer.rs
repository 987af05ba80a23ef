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
