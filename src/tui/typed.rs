//! Text that comes into the console's inputs (a paste into the composer or a form, the
//! draft `$EDITOR` gives back): one function makes it what the input shows, so nothing
//! kept is invisible and nothing invisible is sent.

/// Columns a pasted tab becomes: a text area draws a tab as spaces anyway, and the agent
/// and the service then get what the screen shows.
const TAB: &str = "    ";

/// `text` as an input keeps it: line breaks as LF only (CR and CRLF become LF), a tab as
/// four spaces, and every other control character (ESC, BEL, NUL, DEL, C1) and every
/// bidirectional control (such as U+202E, which reverses what follows it) dropped: the
/// screen would hide them, yet they would reach a field's check or the agent. A one-line
/// field joins the lines it is given itself.
#[must_use]
pub(crate) fn typed(text: &str) -> String {
    let text = crate::text::normalize_newlines(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push('\n'),
            '\t' => out.push_str(TAB),
            c if c.is_control() || crate::text::is_bidi_control(c) => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::typed;

    #[test]
    fn a_paste_keeps_what_is_seen_and_drops_what_is_hidden() {
        let pasted = "line1 \u{1b}]0;pwned\u{7} tab\there\r\nline2 \u{202e}end";
        assert_eq!(typed(pasted), "line1 ]0;pwned tab    here\nline2 end");
    }

    #[test]
    fn a_date_pasted_with_control_characters_is_the_date() {
        assert_eq!(typed("2026-11-01\u{7}\u{1}\n"), "2026-11-01\n");
        assert_eq!(typed("a\u{0}b\u{7f}c\u{85}d\u{2066}e"), "abcde");
    }

    #[test]
    fn emoji_sequences_and_other_scripts_are_kept_whole() {
        let text = "第二部分 🇫🇷 👍🏽 👩‍💻 مرحبا";
        assert_eq!(typed(text), text);
    }
}
