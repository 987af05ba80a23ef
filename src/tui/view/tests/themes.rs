//! Each theme drawn, styles and all: the snapshots hold every cell's colours and
//! modifiers (insta's text of a `TestBackend` has none), and a few cells are checked by
//! name, so a theme that changes or breaks fails here.

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

use super::*;
use crate::config::{Located, StyleOverride};

fn theme(name: &str, styles: &[(&str, &str)]) -> Theme {
    let overrides: Vec<StyleOverride> = styles
        .iter()
        .map(|(element, style)| StyleOverride {
            element: (*element).into(),
            style: (*style).into(),
            line: 1,
        })
        .collect();
    let name = Located {
        value: name.to_owned(),
        line: 1,
    };
    Theme::build(Some(&name), &overrides).unwrap()
}

/// The jobs list with the cursor on the second row, drawn in `theme`.
fn jobs_in(theme: Theme, (width, height): (u16, u16)) -> Buffer {
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('j'));
    scene
        .draw_in(width, height, theme)
        .backend()
        .buffer()
        .clone()
}

/// The first cell of row `y` whose text starts with `text`.
fn cell_at<'a>(buffer: &'a Buffer, y: u16, text: &str) -> &'a ratatui::buffer::Cell {
    let row: String = (0..buffer.area.width)
        .map(|x| buffer[(x, y)].symbol().to_owned())
        .collect();
    let at = row
        .find(text)
        .unwrap_or_else(|| panic!("{text:?} not in {row:?}"));
    let x = row[..at].chars().count();
    &buffer[(u16::try_from(x).unwrap(), y)]
}

fn snapshots(name: &str, theme: Theme) {
    for size in [(80, 24), (120, 40)] {
        let buffer = jobs_in(theme, size);
        insta::assert_snapshot!(
            format!("theme_{name}_{}x{}", size.0, size.1),
            format!("{buffer:?}")
        );
    }
}

#[test]
fn the_terminal_theme_uses_only_the_sixteen_ansi_colours() {
    let theme = theme("terminal", &[]);
    snapshots("terminal", theme);
    for size in [(80, 24), (120, 40)] {
        let buffer = jobs_in(theme, size);
        for cell in &buffer.content {
            for color in [cell.fg, cell.bg] {
                assert!(
                    !matches!(color, Color::Indexed(_) | Color::Rgb(..)),
                    "{color:?} is not one of the 16 colours of the palette"
                );
            }
        }
        let selected = cell_at(&buffer, 4, "✓ completed");
        assert!(
            selected.modifier.contains(Modifier::REVERSED),
            "{selected:?}"
        );
        assert_eq!(cell_at(&buffer, 3, "● active").fg, Color::Yellow);
    }
}

#[test]
fn the_dark_theme_has_its_own_colours_for_a_dark_background() {
    let theme = theme("dark", &[]);
    snapshots("dark", theme);
    let buffer = jobs_in(theme, (80, 24));
    let selected = cell_at(&buffer, 4, "Fix the");
    assert_eq!(
        (selected.fg, selected.bg),
        (Color::Indexed(231), Color::Indexed(24))
    );
    // The status keeps its colour on the cursor's row.
    let status = cell_at(&buffer, 4, "✓ completed");
    assert_eq!(
        (status.fg, status.bg),
        (Color::Indexed(114), Color::Indexed(24))
    );
    assert_eq!(cell_at(&buffer, 5, "✗ failed").fg, Color::Indexed(203));
    assert_eq!(cell_at(&buffer, 0, "docdeck").fg, Color::Indexed(81));
}

#[test]
fn the_light_theme_has_dark_text_for_a_light_background() {
    let theme = theme("light", &[]);
    snapshots("light", theme);
    let buffer = jobs_in(theme, (120, 40));
    let selected = cell_at(&buffer, 4, "Fix the");
    assert_eq!(
        (selected.fg, selected.bg),
        (Color::Indexed(16), Color::Indexed(153))
    );
    assert_eq!(cell_at(&buffer, 3, "● active").fg, Color::Indexed(130));
    assert_eq!(cell_at(&buffer, 0, "docdeck").fg, Color::Indexed(25));
}

#[test]
fn one_element_can_be_restyled_and_no_color_still_wins() {
    let restyled = theme("dark", &[("selected", "black on yellow bold")]);
    let buffer = jobs_in(restyled, (80, 24));
    let selected = cell_at(&buffer, 4, "Fix the");
    assert_eq!((selected.fg, selected.bg), (Color::Black, Color::Yellow));
    assert!(selected.modifier.contains(Modifier::BOLD));
    // Untouched elements keep the theme's style.
    assert_eq!(cell_at(&buffer, 5, "✗ failed").fg, Color::Indexed(203));

    let plain = restyled.without_color();
    let buffer = jobs_in(plain, (80, 24));
    for cell in &buffer.content {
        assert_eq!((cell.fg, cell.bg), (Color::Reset, Color::Reset), "{cell:?}");
    }
    // The cursor still stands out: its background became reversed.
    let selected = cell_at(&buffer, 4, "✓ completed");
    assert!(
        selected
            .modifier
            .contains(Modifier::REVERSED | Modifier::BOLD),
        "{selected:?}"
    );
}

#[test]
fn a_bad_theme_or_style_names_its_line() {
    let name = Located {
        value: "solarized".to_owned(),
        line: 4,
    };
    let err = Theme::build(Some(&name), &[]).unwrap_err();
    assert_eq!(err.line, 4);
    assert!(
        err.message.contains("terminal, dark, light"),
        "{}",
        err.message
    );
    let bad = |element: &str, style: &str| {
        let entry = StyleOverride {
            element: element.into(),
            style: style.into(),
            line: 9,
        };
        Theme::build(None, &[entry]).unwrap_err()
    };
    let err = bad("selected", "blak on yellow");
    assert_eq!(err.line, 9);
    assert!(err.message.contains("\"blak\""), "{}", err.message);
    let err = bad("cursor", "bold");
    assert!(
        err.message.contains("\"cursor\" is not an element"),
        "{}",
        err.message
    );
    assert!(err.message.contains("selected"), "{}", err.message);
}

#[test]
fn the_help_shows_the_keys_in_force_beside_the_action_names() {
    let overrides = [
        crate::config::KeyOverride {
            context: "global".into(),
            action: "quit".into(),
            keys: vec!["ctrl-q".into()],
            line: 2,
        },
        crate::config::KeyOverride {
            context: "jobs".into(),
            action: "down".into(),
            keys: vec!["d".into(), "down".into()],
            line: 4,
        },
    ];
    let mut scene = Scene::with_prefs(Prefs::with_keys(&overrides).unwrap());
    scene.key(KeyCode::Char('?'));
    let screen = scene.render(120, 40);
    assert!(
        screen.contains(" d ↓         down            down "),
        "{screen}"
    );
    assert!(
        screen.contains(" Ctrl+Q      quit            quit "),
        "{screen}"
    );
    assert!(!screen.contains(" q           quit"), "{screen}");
    assert!(!screen.contains(" j ↓ "), "{screen}");
    // The footer says the key that quits now.
    assert!(
        screen
            .lines()
            .next()
            .unwrap()
            .contains("? help · Ctrl+Q quit"),
        "{screen}"
    );
}

#[test]
fn the_too_small_screen_names_the_quit_key_in_force() {
    let overrides = [crate::config::KeyOverride {
        context: "global".into(),
        action: "quit".into(),
        keys: vec!["ctrl-q".into()],
        line: 2,
    }];
    let scene = Scene::with_prefs(Prefs::with_keys(&overrides).unwrap());
    let screen = scene.render(50, 12);
    assert!(screen.contains("press Ctrl+Q to quit"), "{screen}");
    assert!(!screen.contains("press q "), "{screen}");
}
