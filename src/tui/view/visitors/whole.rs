//! What the footer says of the whole range while it is not read: coming (with how far),
//! too large to read (so the pages stay), or stopped and why.

use ratatui::text::Span;

use super::super::theme::Theme;
use super::super::thousands;
use crate::text::sanitize;
use crate::tui::app::WholeLoad;

pub(super) fn state_span(whole: &WholeLoad, theme: Theme) -> Option<Span<'static>> {
    Some(match whole {
        WholeLoad::Off | WholeLoad::Table(_) => return None,
        WholeLoad::Asking { requests, .. } => Span::styled(
            format!(" · whole range: asking ({requests} requests)"),
            theme.warning(),
        ),
        WholeLoad::Fetching {
            requests,
            rows,
            most,
            ..
        } => Span::styled(
            if *most == 0 {
                " · reading the whole range… · Esc stops".to_owned()
            } else {
                format!(
                    " · reading the whole range… {requests} of ≤{most} requests, {} rows · Esc \
                     stops",
                    thousands(*rows as u64)
                )
            },
            theme.warning(),
        ),
        WholeLoad::TooMany { max_rows } => Span::styled(
            format!(
                " · over {} rows: pages stay (sort and filter need the whole range)",
                thousands(*max_rows as u64)
            ),
            theme.warning(),
        ),
        WholeLoad::Stopped(why) => Span::styled(format!(" · {}", sanitize(why)), theme.dim()),
    })
}
