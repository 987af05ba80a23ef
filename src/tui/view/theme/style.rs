//! A style as `[theme.styles]` writes it: colour words, `on` before the background, and
//! modifiers, in any order: `"black on yellow bold"`, `"#ff8800 underline"`, `"245"`.

use std::str::FromStr as _;

use ratatui::style::{Color, Modifier, Style};

/// What the error for a style that cannot be read says it takes.
pub const SYNTAX: &str = "colours (black, red, lightblue, darkgray, default, a number 0-255, #rrggbb), `on COLOUR` for the background, and bold, dim, italic, underline, reversed, crossed_out, blink";

/// Reads a style; the error names the word that could not be read.
pub fn parse(text: &str) -> Result<Style, String> {
    let mut style = Style::new();
    let mut words = text.split_whitespace().peekable();
    if words.peek().is_none() {
        return Err("it is empty (\"plain\" means no colour and no modifier)".to_owned());
    }
    while let Some(word) = words.next() {
        let lower = word.to_ascii_lowercase();
        if lower == "plain" {
            continue;
        }
        if lower == "on" {
            let Some(background) = words.next() else {
                return Err("`on` needs a colour after it".to_owned());
            };
            style = style.bg(color(background)?);
            continue;
        }
        if let Some(modifier) = modifier(&lower) {
            style = style.add_modifier(modifier);
            continue;
        }
        style = style.fg(color(word)?);
    }
    Ok(style)
}

fn color(word: &str) -> Result<Color, String> {
    if word.eq_ignore_ascii_case("default") {
        return Ok(Color::Reset);
    }
    Color::from_str(word).map_err(|_| format!("{word:?} is not a colour or a modifier"))
}

fn modifier(word: &str) -> Option<Modifier> {
    Some(match word {
        "bold" => Modifier::BOLD,
        "dim" => Modifier::DIM,
        "italic" => Modifier::ITALIC,
        "underline" | "underlined" => Modifier::UNDERLINED,
        "reversed" | "reverse" => Modifier::REVERSED,
        "crossed_out" | "strikethrough" => Modifier::CROSSED_OUT,
        "blink" => Modifier::SLOW_BLINK,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_are_read_in_any_order() {
        assert_eq!(
            parse("black on yellow bold"),
            Ok(Style::new()
                .fg(Color::Black)
                .bg(Color::Yellow)
                .add_modifier(Modifier::BOLD))
        );
        assert_eq!(
            parse("underline #ff8800"),
            Ok(Style::new()
                .fg(Color::Rgb(255, 136, 0))
                .add_modifier(Modifier::UNDERLINED))
        );
        assert_eq!(parse("245"), Ok(Style::new().fg(Color::Indexed(245))));
        assert_eq!(parse("plain"), Ok(Style::new()));
    }

    #[test]
    fn a_style_that_cannot_be_read_names_the_word() {
        assert!(parse("blak on yellow").unwrap_err().contains("\"blak\""));
        assert!(parse("red on").unwrap_err().contains("`on`"));
        assert!(parse("  ").unwrap_err().contains("empty"));
    }
}
