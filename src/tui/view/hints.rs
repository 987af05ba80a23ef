//! Key hints drawn from the keymap in force: a hint shows the person's own keys, and
//! leaves out what no key does.

use crate::tui::keymap::{Action, KeyContext, Keymap};

/// The hints of one place.
#[derive(Clone, Copy)]
pub(crate) struct Hints<'a> {
    keymap: &'a Keymap,
    context: KeyContext,
}

impl<'a> Hints<'a> {
    pub(crate) fn new(keymap: &'a Keymap, context: KeyContext) -> Self {
        Self { keymap, context }
    }

    /// The key that does `action` here.
    pub(crate) fn key(self, action: Action) -> Option<String> {
        self.keymap.key(self.context, action)
    }

    /// `KEY what`, when a key does `action` here.
    pub(crate) fn one(self, action: Action, what: &str) -> Option<String> {
        self.key(action).map(|key| format!("{key} {what}"))
    }

    /// `A/B what` for two actions that go together (down and up), when keys do both.
    pub(crate) fn pair(self, first: Action, second: Action, what: &str) -> Option<String> {
        Some(format!("{}/{} {what}", self.key(first)?, self.key(second)?))
    }
}

impl Hints<'_> {
    /// ` · N marked`, with the key that makes a job of the marks (`(n: job)`), except
    /// under --read-only, where no job is made of them: offer nothing.
    pub(crate) fn marked(self, count: usize, read_only: bool) -> String {
        match self.key(Action::NewJob).filter(|_| !read_only) {
            Some(key) => format!(" · {count} marked ({key}: job)"),
            None => format!(" · {count} marked"),
        }
    }
}

/// Draws a pane's footer in `area`: its state `spans` (after a leading space), then the
/// first of `hints` (lines from [`join`], widest first, empty for none) that fits.
pub(crate) fn draw_footer(
    frame: &mut ratatui::Frame<'_>,
    area: ratatui::layout::Rect,
    spans: &[ratatui::text::Span<'static>],
    hints: &[String],
    dim: ratatui::style::Style,
) {
    let candidates = hints
        .iter()
        .map(|hint| {
            let mut line = spans.to_vec();
            if !hint.is_empty() {
                line.push(ratatui::text::Span::styled(format!(" · {hint}"), dim));
            }
            footer_line(line)
        })
        .collect();
    frame.render_widget(
        ratatui::widgets::Paragraph::new(super::wrap::fitting(candidates, area.width)),
        area,
    );
}

/// The hints that have keys, joined by ` · `.
pub(crate) fn join(pieces: impl IntoIterator<Item = Option<String>>) -> String {
    pieces.into_iter().flatten().collect::<Vec<_>>().join(" · ")
}

/// A footer's spans (a leading space, then pieces that each start with ` · `) as one
/// line: when nothing comes before the first piece, its ` · ` goes, so no footer starts
/// with a separator.
pub(crate) fn footer_line(
    mut spans: Vec<ratatui::text::Span<'static>>,
) -> ratatui::text::Line<'static> {
    let first = spans
        .iter()
        .position(|span| !span.content.trim().is_empty());
    if let Some(span) = first.and_then(|at| spans.get_mut(at))
        && let Some(rest) = span.content.strip_prefix(" · ")
    {
        span.content = rest.to_owned().into();
    }
    ratatui::text::Line::from(spans)
}

#[cfg(test)]
mod tests {
    use ratatui::text::Span;

    use super::footer_line;

    #[test]
    fn a_footer_never_starts_with_a_separator() {
        let line = footer_line(vec![
            Span::raw(" "),
            Span::raw(" · Space mark"),
            Span::raw(" · ? keys"),
        ]);
        assert_eq!(line.to_string(), " Space mark · ? keys");
        let line = footer_line(vec![
            Span::raw(" "),
            Span::raw("3 queries"),
            Span::raw(" · ? keys"),
        ]);
        assert_eq!(line.to_string(), " 3 queries · ? keys");
    }
}
