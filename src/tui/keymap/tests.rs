//! Tests of the keymap in force: the person's `[keys.<context>]` over the defaults, and
//! every mistake in them refused with its line.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::config::read_preferences;

/// The keymap of a `config.toml` holding `text`.
fn keymap(text: &str) -> Result<Keymap, KeymapError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, text).unwrap();
    Keymap::build(&read_preferences(Some(&path)).unwrap().keys)
}

fn refused(text: &str) -> KeymapError {
    keymap(text).expect_err("the keymap was accepted")
}

fn press(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
    KeyEvent::new(code, modifiers)
}

fn char_key(c: char) -> KeyEvent {
    press(KeyCode::Char(c), KeyModifiers::NONE)
}

#[test]
fn every_action_of_the_tables_has_a_name() {
    let defaults = KeyContext::ALL
        .iter()
        .flat_map(|c| bindings(*c))
        .chain(GLOBAL);
    for binding in defaults {
        let name = binding.action.name();
        assert_eq!(Action::from_name(name), Some(binding.action), "{name}");
    }
}

#[test]
fn a_remapped_key_does_the_action_and_the_old_one_nothing() {
    let keymap =
        keymap("[keys.global]\nquit = \"ctrl-q\"\n[keys.jobs]\ndown = [\"d\", \"down\"]\n")
            .unwrap();
    let ctrl_q = press(KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert_eq!(keymap.action(KeyContext::Jobs, &ctrl_q), Some(Action::Quit));
    assert_eq!(keymap.action(KeyContext::Jobs, &char_key('q')), None);
    // Ctrl+Q types no text, so it quits from the composer too.
    assert_eq!(
        keymap.action(KeyContext::Composer, &ctrl_q),
        Some(Action::Quit)
    );
    assert_eq!(
        keymap.action(KeyContext::Jobs, &char_key('d')),
        Some(Action::Down)
    );
    assert_eq!(keymap.action(KeyContext::Jobs, &char_key('j')), None);
    assert_eq!(
        keymap.key(KeyContext::Jobs, Action::Down).as_deref(),
        Some("d")
    );
    assert_eq!(
        keymap.key(KeyContext::Jobs, Action::Quit).as_deref(),
        Some("Ctrl+Q")
    );
    // The detail has its own `down`: unchanged.
    assert_eq!(
        keymap.action(KeyContext::Detail, &char_key('j')),
        Some(Action::Down)
    );
}

#[test]
fn an_empty_list_unbinds_an_action() {
    let keymap = keymap("[keys.jobs]\nuntrack = []\n").unwrap();
    assert_eq!(keymap.action(KeyContext::Jobs, &char_key('x')), None);
    assert!(
        keymap
            .bindings(KeyContext::Jobs)
            .iter()
            .all(|b| b.action != Action::Untrack)
    );
}

#[test]
fn the_defaults_keep_only_keys_that_type_no_text_where_text_is_typed() {
    let keymap = Keymap::default();
    let labels: Vec<&str> = keymap
        .globals(KeyContext::Composer)
        .iter()
        .map(|b| b.label.as_str())
        .collect();
    assert_eq!(labels, ["Ctrl+C", "F1", "Tab", "Shift+Tab", "Ctrl+Z"]);
    assert_eq!(keymap.action(KeyContext::Composer, &char_key('q')), None);
}

#[test]
fn a_key_bound_twice_in_one_place_names_the_line() {
    let err = refused("[keys.jobs]\n\ndown = \"n\"\n");
    assert_eq!(err.line, 3);
    assert!(
        err.message.contains("the key n is bound to both"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains("new_job (docdeck's default)"),
        "{}",
        err.message
    );
    assert!(err.message.contains("new_job = []"), "{}", err.message);

    let err = refused("[keys.visitors]\nexport = \"x\"\nfilter = \"x\"\n");
    assert_eq!(err.line, 3);
    assert!(err.message.contains("export (line 2)"), "{}", err.message);

    let err = refused("[keys.detail]\ncopy = [\"c\", \"c\"]\n");
    assert_eq!(err.line, 2);
    assert!(err.message.contains("write it once"), "{}", err.message);
}

#[test]
fn the_same_key_in_two_places_is_allowed() {
    let keymap = keymap("[keys.jobs]\ncopy = \"c\"\n[keys.detail]\ncopy = \"c\"\n").unwrap();
    assert_eq!(
        keymap.action(KeyContext::Detail, &char_key('c')),
        Some(Action::Copy)
    );
}

#[test]
fn an_unknown_action_names_the_line_and_the_actions_there() {
    let err = refused("[keys.jobs]\ndown = \"j\"\nsned = \"ctrl-s\"\n");
    assert_eq!(err.line, 3);
    assert!(
        err.message
            .contains("\"sned\" is not an action of [keys.jobs]"),
        "{}",
        err.message
    );
    assert!(err.message.contains("new_job"), "{}", err.message);
    // An action of another place is not one of this place.
    let err = refused("[keys.jobs]\nsend = \"ctrl-s\"\n");
    assert_eq!(err.line, 2);
}

#[test]
fn an_unknown_place_names_the_line_and_the_places() {
    let err = refused("[keys.jobs]\ndown = \"j\"\n\n[keys.job_list]\ndown = \"j\"\n");
    assert_eq!(err.line, 5);
    assert!(
        err.message.contains("there is no [keys.job_list]"),
        "{}",
        err.message
    );
    assert!(
        err.message
            .contains("global, jobs, detail, composer, visitors, searches, forms")
    );
}

#[test]
fn an_unreadable_key_names_the_line_and_how_keys_are_written() {
    let err = refused("[keys.global]\nquit = \"ctlr-q\"\n");
    assert_eq!(err.line, 2);
    assert!(
        err.message
            .contains("cannot read the key \"ctlr-q\" of quit"),
        "{}",
        err.message
    );
    assert!(err.message.contains("ctrl-q"), "{}", err.message);
}
