//! Making text from outside the process safe to print: no control characters, bounded length.
//! How much of a terminal it takes, and cutting it to fit, is `cells`.

mod cells;
mod url;

pub use cells::{is_steady, keep_end, keep_start, steady, width};
pub use url::mask_password;

/// Replaces control characters (C0, DEL, C1) with U+FFFD so that text sent by a service
/// (paths, links, error messages) cannot move the cursor or inject terminal escapes.
/// Tabs and newlines become spaces: every caller prints the result on one line.
/// Bidirectional overrides and isolates are replaced too: a right-to-left override in a
/// page path could otherwise reverse the rest of a table row on screen.
#[must_use]
pub fn sanitize(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => ' ',
            c if c.is_control() || is_bidi_control(c) => '\u{FFFD}',
            c => c,
        })
        .collect()
}

/// Bidirectional overrides, embeddings, isolates and marks: invisible, and able to
/// reorder what is drawn after them.
#[must_use]
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `sanitize`, then cut to at most `max_chars` characters with a trailing `…` when cut.
#[must_use]
pub fn excerpt(text: &str, max_chars: usize) -> String {
    let clean = sanitize(text.trim());
    if clean.chars().count() <= max_chars {
        return clean;
    }
    let mut cut: String = clean.chars().take(max_chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Line breaks as LF only: terminals paste and send Enter as CR, Windows files and some
/// editors write CRLF. Every way text comes in (keys, paste, standard input, `$EDITOR`)
/// goes through this, so no CR reaches a draft or the agent.
#[must_use]
pub fn normalize_newlines(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\r') {
        std::borrow::Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// A count with thousands separators, for people (tables, screens, notices): `12,345`.
/// CSV and JSON keep plain digits.
#[must_use]
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A short age such as `12s`, `4m`, `3h`, `2d` or `2y`, as terminal tools show them. The
/// unit is always there and the text is at most four characters up to 999 years, so the
/// AGE columns (four wide) never cut it: days up to 365, whole years (of 365 days) after.
#[must_use]
pub fn age(elapsed: chrono::TimeDelta) -> String {
    const DAY: i64 = 86_400;
    const YEAR: i64 = 365 * DAY;
    let secs = elapsed.num_seconds().max(0);
    match secs {
        0..60 => format!("{secs}s"),
        60..3_600 => format!("{}m", secs / 60),
        3_600..DAY => format!("{}h", secs / 3_600),
        DAY..YEAR => format!("{}d", secs / DAY),
        _ => format!("{}y", secs / YEAR),
    }
}

/// The elapsed time at which [`age`] of `elapsed` next shows something else: the next
/// whole second, minute, hour or day. A console that shows ages wakes then, and not before.
#[must_use]
pub fn age_next_change(elapsed: chrono::TimeDelta) -> chrono::TimeDelta {
    let secs = elapsed.num_seconds().max(0);
    let unit = match secs {
        0..60 => 1,
        60..3_600 => 60,
        3_600..86_400 => 3_600,
        _ => 86_400,
    };
    chrono::TimeDelta::seconds((secs / unit + 1) * unit)
}

/// The first line of a text, cut to `max_chars`: how a prompt is shown in a list. When
/// more lines follow, it ends with ` …`, as any cut text does.
#[must_use]
pub fn first_line(text: &str, max_chars: usize) -> String {
    let mut lines = text.lines().skip_while(|line| line.trim().is_empty());
    let first = lines.next().unwrap_or_default();
    let line = excerpt(first, max_chars);
    if line.ends_with('…') || !lines.any(|line| !line.trim().is_empty()) {
        return line;
    }
    let room = max_chars.saturating_sub(2);
    let kept: String = line.chars().take(room).collect();
    format!("{} …", kept.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn age_next_change_is_the_next_time_the_age_reads_differently() {
        let ms = chrono::TimeDelta::milliseconds;
        for elapsed in [
            -5_000,
            0,
            999,
            59_999,
            60_000,
            61_500,
            3_599_000,
            3_600_000,
            86_399_999,
            200_000_000,
        ] {
            let elapsed = ms(elapsed);
            let change = age_next_change(elapsed);
            assert!(change > elapsed, "{elapsed}");
            assert_eq!(
                age(change - ms(1)),
                age(elapsed.max(ms(0))),
                "no change missed before {change}"
            );
            assert_ne!(age(change), age(elapsed), "{elapsed} changes at {change}");
        }
        assert_eq!(
            age_next_change(ms(202_000)),
            ms(240_000),
            "3m22s next reads 4m at 4m"
        );
    }

    #[test]
    fn cr_and_crlf_become_lf() {
        assert_eq!(normalize_newlines("a\r\nb\rc\n\r\n"), "a\nb\nc\n\n");
        assert!(matches!(
            normalize_newlines("plain\n"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn bidi_overrides_are_neutralised() {
        let clean = sanitize("/docs/\u{202E}txt.exe\u{2066}x\u{2069}");
        assert_eq!(clean, "/docs/\u{FFFD}txt.exe\u{FFFD}x\u{FFFD}");
    }

    #[test]
    fn escapes_and_controls_are_neutralised() {
        let hostile = "/docs\x1b]52;c;ZXZpbA==\x07\x1b[2J\u{9b}31m";
        let clean = sanitize(hostile);
        assert!(!clean.chars().any(char::is_control), "{clean:?}");
        assert!(clean.starts_with("/docs\u{FFFD}]52;c;"));
    }

    #[test]
    fn newlines_become_spaces_and_unicode_is_kept() {
        assert_eq!(sanitize("a\nb\tc"), "a b c");
        assert_eq!(sanitize("página ✓ שלום"), "página ✓ שלום");
    }

    #[test]
    fn ages_and_first_lines() {
        assert_eq!(age(chrono::TimeDelta::seconds(59)), "59s");
        assert_eq!(age(chrono::TimeDelta::seconds(3_599)), "59m");
        assert_eq!(age(chrono::TimeDelta::hours(49)), "2d");
        assert_eq!(age(chrono::TimeDelta::seconds(-5)), "0s");
        assert_eq!(
            first_line("\n  \nFix links\nin the guide", 20),
            "Fix links …"
        );
        assert_eq!(first_line("Fix links\n\n  \n", 20), "Fix links");
        assert_eq!(first_line("Fix the links\nmore", 10), "Fix the l…");
        assert_eq!(first_line("Fix the links\nmore", 14), "Fix the link …");
    }

    #[test]
    fn ages_keep_their_unit_past_a_thousand_days() {
        let days = chrono::TimeDelta::days;
        assert_eq!(age(days(1) - chrono::TimeDelta::seconds(1)), "23h");
        assert_eq!(age(days(1)), "1d");
        assert_eq!(age(days(364)), "364d");
        assert_eq!(age(days(365) - chrono::TimeDelta::seconds(1)), "364d");
        assert_eq!(age(days(365)), "1y");
        assert_eq!(age(days(729)), "1y");
        assert_eq!(age(days(730)), "2y");
        assert_eq!(age(days(1_057)), "2y");
        assert!(
            age(chrono::TimeDelta::MAX).ends_with('y'),
            "no overflow at the end"
        );
        for d in (0..40_000).step_by(7) {
            let text = age(days(d));
            assert!(
                text.len() <= 4 && text.ends_with(['s', 'm', 'h', 'd', 'y']),
                "{d}: {text}"
            );
        }
    }

    #[test]
    fn excerpt_cuts_on_characters_not_bytes() {
        assert_eq!(excerpt("ééééé", 3), "éé…");
        assert_eq!(excerpt("  short  ", 10), "short");
    }
}
