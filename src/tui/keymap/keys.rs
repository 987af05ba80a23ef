//! Keys as the person writes them in `config.toml` (`ctrl-q`, `shift-tab`, `pgdn`, `?`)
//! and as the help shows them (`Ctrl+Q`, `Shift+Tab`, `PgDn`), and the one rule for when
//! two keys are the same key.

use crossterm::event::{KeyCode, KeyModifiers};

/// A key with its modifiers, as the tables hold it.
pub type Key = (KeyCode, KeyModifiers);

/// What the help shows for keys that cannot be read, in the error that refuses one.
pub const EXAMPLES: &str =
    "q, G, ctrl-q, alt-x, shift-tab, f1, enter, esc, space, up, down, home, end, pgup, pgdn";

/// The form of a key that equal keys share. Terminals differ on whether `G` or `?` carry
/// SHIFT (the character already says it), on whether Shift+Tab carries it, and on the
/// case of a letter with Ctrl.
#[must_use]
pub fn normal((code, mods): Key) -> Key {
    match code {
        KeyCode::Char(c) if mods.contains(KeyModifiers::CONTROL) => (
            KeyCode::Char(c.to_ascii_lowercase()),
            mods - KeyModifiers::SHIFT,
        ),
        KeyCode::Char(_) | KeyCode::BackTab => (code, mods - KeyModifiers::SHIFT),
        _ => (code, mods),
    }
}

/// Reads one key as written in `config.toml`: modifiers (`ctrl-`, `alt-`, `shift-`, or
/// with `+`) before a character or a key's name, names in any case.
#[must_use]
pub fn parse(text: &str) -> Option<Key> {
    let mut mods = KeyModifiers::NONE;
    let mut rest = text.trim();
    loop {
        // A single character is the key itself, even `-` or `+`.
        if rest.chars().count() == 1 {
            break;
        }
        let Some((head, tail)) = rest.split_once(['-', '+']) else {
            break;
        };
        mods |= match head.to_ascii_lowercase().as_str() {
            "ctrl" | "control" | "c" => KeyModifiers::CONTROL,
            "alt" | "meta" | "m" => KeyModifiers::ALT,
            "shift" | "s" => KeyModifiers::SHIFT,
            _ => return None,
        };
        rest = tail;
    }
    let code = code(rest)?;
    Some(match code {
        // `shift-a` is `A`; `shift-tab` is the key terminals send as Shift+Tab.
        KeyCode::Char(c) if mods == KeyModifiers::SHIFT && c.is_ascii_alphabetic() => {
            (KeyCode::Char(c.to_ascii_uppercase()), KeyModifiers::NONE)
        }
        KeyCode::Tab if mods.contains(KeyModifiers::SHIFT) => (KeyCode::BackTab, mods),
        _ => (code, mods),
    })
}

fn code(name: &str) -> Option<KeyCode> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return Some(match c {
            '↑' => KeyCode::Up,
            '↓' => KeyCode::Down,
            '←' => KeyCode::Left,
            '→' => KeyCode::Right,
            _ => KeyCode::Char(c),
        });
    }
    let lower = name.to_ascii_lowercase();
    Some(match lower.as_str() {
        "enter" | "return" => KeyCode::Enter,
        "esc" | "escape" => KeyCode::Esc,
        "tab" => KeyCode::Tab,
        "backtab" => KeyCode::BackTab,
        "space" => KeyCode::Char(' '),
        "backspace" => KeyCode::Backspace,
        "delete" | "del" => KeyCode::Delete,
        "insert" | "ins" => KeyCode::Insert,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "pageup" | "pgup" => KeyCode::PageUp,
        "pagedown" | "pgdn" => KeyCode::PageDown,
        _ => {
            let number: u8 = lower.strip_prefix('f')?.parse().ok()?;
            if !(1..=24).contains(&number) {
                return None;
            }
            KeyCode::F(number)
        }
    })
}

/// A key as the help and the hints show it: `q`, `Ctrl+Q`, `Shift+Tab`, `↓`, `PgDn`.
#[must_use]
pub fn name((code, mods): Key) -> String {
    let base = match code {
        KeyCode::Char(' ') => "Space".to_owned(),
        KeyCode::Char(c) if mods.contains(KeyModifiers::CONTROL) => {
            c.to_ascii_uppercase().to_string()
        }
        KeyCode::Char(c) => c.to_string(),
        KeyCode::BackTab => return "Shift+Tab".to_owned(),
        KeyCode::Up => "↑".to_owned(),
        KeyCode::Down => "↓".to_owned(),
        KeyCode::Left => "←".to_owned(),
        KeyCode::Right => "→".to_owned(),
        KeyCode::PageUp => "PgUp".to_owned(),
        KeyCode::PageDown => "PgDn".to_owned(),
        KeyCode::Delete => "Del".to_owned(),
        KeyCode::Insert => "Ins".to_owned(),
        KeyCode::F(n) => format!("F{n}"),
        other => format!("{other:?}"),
    };
    let mut out = String::new();
    for (flag, word) in [
        (KeyModifiers::CONTROL, "Ctrl+"),
        (KeyModifiers::ALT, "Alt+"),
        (KeyModifiers::SHIFT, "Shift+"),
    ] {
        // A character's case already says Shift.
        if mods.contains(flag) && !(flag == KeyModifiers::SHIFT && matches!(code, KeyCode::Char(_)))
        {
            out.push_str(word);
        }
    }
    out.push_str(&base);
    out
}

/// Whether a key edits text where text is typed (a character, Enter, the arrows): in the
/// composer and forms, a global binding on it would take it from the text.
#[must_use]
pub fn edits_text((code, mods): Key) -> bool {
    let plain = !mods.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
    plain
        && matches!(
            code,
            KeyCode::Char(_)
                | KeyCode::Enter
                | KeyCode::Backspace
                | KeyCode::Delete
                | KeyCode::Left
                | KeyCode::Right
                | KeyCode::Up
                | KeyCode::Down
                | KeyCode::Home
                | KeyCode::End
                | KeyCode::PageUp
                | KeyCode::PageDown
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    const CTRL: KeyModifiers = KeyModifiers::CONTROL;
    const NONE: KeyModifiers = KeyModifiers::NONE;

    #[test]
    fn keys_are_read_as_people_write_them() {
        assert_eq!(parse("ctrl-q"), Some((KeyCode::Char('q'), CTRL)));
        assert_eq!(parse("Ctrl+Q"), Some((KeyCode::Char('Q'), CTRL)));
        assert_eq!(parse("j"), Some((KeyCode::Char('j'), NONE)));
        assert_eq!(parse("-"), Some((KeyCode::Char('-'), NONE)));
        assert_eq!(parse("ctrl--"), Some((KeyCode::Char('-'), CTRL)));
        assert_eq!(parse("shift-g"), Some((KeyCode::Char('G'), NONE)));
        assert_eq!(
            parse("shift-tab"),
            Some((KeyCode::BackTab, KeyModifiers::SHIFT))
        );
        assert_eq!(parse("PgDn"), Some((KeyCode::PageDown, NONE)));
        assert_eq!(parse("f12"), Some((KeyCode::F(12), NONE)));
        assert_eq!(parse("space"), Some((KeyCode::Char(' '), NONE)));
        for bad in ["", "ctlr-q", "hyper-x", "f0", "f99", "pagedwn", "ctrl-"] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn keys_are_named_as_the_help_shows_them() {
        let named = |text: &str| name(parse(text).unwrap());
        assert_eq!(named("ctrl-q"), "Ctrl+Q");
        assert_eq!(named("alt-x"), "Alt+x");
        assert_eq!(named("shift-tab"), "Shift+Tab");
        assert_eq!(named("down"), "↓");
        assert_eq!(named("pgdn"), "PgDn");
        assert_eq!(named("space"), "Space");
        assert_eq!(named("G"), "G");
        assert_eq!(named("esc"), "Esc");
        assert_eq!(named("f1"), "F1");
    }

    #[test]
    fn the_same_key_compares_equal_however_the_terminal_sends_it() {
        let shifted = (KeyCode::Char('G'), KeyModifiers::SHIFT);
        assert_eq!(normal(shifted), normal((KeyCode::Char('G'), NONE)));
        let ctrl_upper = (KeyCode::Char('C'), CTRL | KeyModifiers::SHIFT);
        assert_eq!(normal(ctrl_upper), normal((KeyCode::Char('c'), CTRL)));
        assert_ne!(
            normal((KeyCode::Char('g'), NONE)),
            normal((KeyCode::Char('G'), NONE))
        );
    }
}
