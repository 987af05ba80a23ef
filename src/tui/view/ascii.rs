//! The screen in ASCII, for a locale that is not UTF-8 (`LC_ALL`, `LC_CTYPE`, `LANG`, the
//! first one set, as C programs read them; none set is the C locale): box lines, bars and
//! the console's glyphs become ASCII characters of the same width, as htop does, instead
//! of bytes such a terminal shows as garbage. Applied to the whole frame once it is drawn,
//! so no view needs to know; any other character (text from the service) becomes `?`.

use ratatui::buffer::Buffer;

/// Whether the locale `env` describes is UTF-8.
#[must_use]
pub fn utf8_locale(env: &dyn Fn(&str) -> Option<String>) -> bool {
    ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .find_map(|name| env(name).filter(|value| !value.is_empty()))
        .is_some_and(|value| {
            let value = value.to_ascii_lowercase();
            value.contains("utf-8") || value.contains("utf8")
        })
}

/// Every cell of `buffer` in ASCII.
pub fn downgrade(buffer: &mut Buffer) {
    for cell in &mut buffer.content {
        let symbol = cell.symbol();
        if symbol.is_ascii() {
            continue;
        }
        let mut chars = symbol.chars();
        let plain = match (chars.next(), chars.next()) {
            (Some(c), None) => ascii_of(c),
            _ => '?',
        };
        cell.set_char(plain);
    }
}

/// An ASCII character drawn where `c` would be.
fn ascii_of(c: char) -> char {
    match c {
        '─' | '━' | '═' | '╌' | '┄' => '-',
        '│' | '┃' | '║' | '╎' | '┆' | '▏' | '▕' => '|',
        '┌' | '┐' | '└' | '┘' | '├' | '┤' | '┬' | '┴' | '┼' | '╭' | '╮' | '╯' | '╰' | '╔' | '╗'
        | '╚' | '╝' | '┏' | '┓' | '┗' | '┛' => '+',
        '█' | '▉' | '▊' | '▋' | '▌' | '▍' | '▎' | '▓' | '▒' | '⣿' => '#',
        '░' => '.',
        '▁' | '▂' | '▃' | '▄' => '_',
        '▅' | '▆' | '▇' | '▀' => '=',
        '●' | '•' | '▪' | '⚠' => '*',
        '○' => 'o',
        '▲' | '↑' => '^',
        '▼' | '↓' => 'v',
        '→' | '›' | '▶' => '>',
        '←' | '‹' | '◀' => '<',
        '✓' => '+',
        '✗' | '×' => 'x',
        '·' => '.',
        '…' => '~',
        '≤' => '<',
        '≥' => '>',
        '±' => '~',
        '⏸' => '=',
        '⏎' => '/',
        '–' | '—' | '−' => '-',
        '◌' => 'o',
        // The chart's braille dots: a blank cell, or some dots.
        '\u{2800}' => ' ',
        '\u{2801}'..='\u{28FF}' => '.',
        // The space with no break and other spaces.
        c if c.is_whitespace() => ' ',
        _ => '?',
    }
}

#[cfg(test)]
mod tests {
    use ratatui::layout::Rect;
    use ratatui::widgets::{Block, Borders, Widget as _};

    use super::*;

    #[test]
    fn the_locale_is_the_first_of_lc_all_lc_ctype_and_lang_that_is_set() {
        let locale = |vars: &'static [(&'static str, &'static str)]| {
            utf8_locale(&move |name| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| (*v).to_owned())
            })
        };
        assert!(locale(&[("LANG", "en_US.UTF-8")]));
        assert!(locale(&[("LANG", "C.utf8")]));
        assert!(!locale(&[("LANG", "C")]));
        assert!(!locale(&[]), "nothing set is the C locale");
        assert!(!locale(&[("LC_ALL", "POSIX"), ("LANG", "en_US.UTF-8")]));
        assert!(locale(&[
            ("LC_ALL", ""),
            ("LC_CTYPE", "de_DE.UTF-8"),
            ("LANG", "C")
        ]));
    }

    #[test]
    fn boxes_bars_and_glyphs_become_ascii_of_the_same_width() {
        let area = Rect::new(0, 0, 12, 3);
        let mut buffer = Buffer::empty(area);
        Block::default()
            .borders(Borders::ALL)
            .render(area, &mut buffer);
        buffer.set_string(1, 1, "●█░…▲日", ratatui::style::Style::new());
        downgrade(&mut buffer);
        let text: String = buffer.content.iter().map(|c| c.symbol()).collect();
        assert!(text.is_ascii(), "{text}");
        assert_eq!(&text[..12], "+----------+");
        assert!(text[12..24].starts_with("|*#.~^?"), "{}", &text[12..24]);
    }

    /// The en dash of "rows 1–50", the queued mark and the chart's dots read as ASCII,
    /// not as `?`.
    #[test]
    fn dashes_the_queued_mark_and_braille_have_their_ascii() {
        let area = Rect::new(0, 0, 8, 1);
        let mut buffer = Buffer::empty(area);
        buffer.set_string(0, 0, "1–50◌⣀\u{2800}—", ratatui::style::Style::new());
        downgrade(&mut buffer);
        let text: String = buffer.content.iter().map(|c| c.symbol()).collect();
        assert_eq!(text, "1-50o. -");
    }
}
