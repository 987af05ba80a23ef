//! The line under the totals while comparing: how human, AI and all visitors changed
//! since the period before (by how many and by what part), and the AI share in points.

use ratatui::text::{Line, Span};

use super::super::ViewContext;
use crate::api::{DateParam, VisitorTotals};
use crate::insight::TotalsComparison;
use crate::insight::compare::{Delta, change_text};
use crate::text::sanitize;
use crate::tui::app::PreviousLoad;

/// The comparison in one line, or two where one would lose the percentages.
pub(super) fn lines(
    now: Option<VisitorTotals>,
    previous: &PreviousLoad,
    width: u16,
    cx: &ViewContext,
) -> Vec<Line<'static>> {
    let theme = cx.theme;
    let said = |text: String, style| vec![Line::from(Span::styled(text, style))];
    let (query, before) = match previous {
        PreviousLoad::Off => return Vec::new(),
        PreviousLoad::NeedsDates => {
            return said(
                " vs before: needs both dates (all time has no period before): f sets them".into(),
                theme.dim(),
            );
        }
        PreviousLoad::Fetching { .. } => {
            return said(" vs the period before: reading…".into(), theme.warning());
        }
        PreviousLoad::Failed { error, .. } => {
            return said(format!(" vs before: {}", sanitize(error)), theme.error());
        }
        PreviousLoad::Shown { query, totals } => (query, *totals),
    };
    let Some(now) = now else {
        return said(
            " vs the period before: waiting for this period".into(),
            theme.dim(),
        );
    };
    let change = TotalsComparison::new(now, before);
    let dates = format!(
        "{} → {}",
        DateParam::shown(query.date_from, "the start"),
        DateParam::shown(query.date_to, "now")
    );
    let share = crate::insight::compare::share_change_text(change.ai_share_change());
    let part = |name: &str, delta: Delta| format!("{name} {}", change_text(delta, true));
    let spans = [
        Span::styled(part("human", change.human), theme.human()),
        Span::styled(part("AI", change.ai), theme.ai()),
        Span::styled(part("total", change.total), theme.bold()),
        Span::raw(share),
    ];
    let joined = |head: String, parts: &[Span<'static>]| {
        let mut line = vec![Span::styled(head, theme.dim())];
        for (i, span) in parts.iter().enumerate() {
            line.push(Span::raw(if i == 0 { " " } else { " · " }));
            line.push(span.clone());
        }
        Line::from(line)
    };
    let whole = joined(format!(" vs {dates}:"), &spans);
    if whole.width() <= usize::from(width) {
        return vec![whole];
    }
    let short = joined(" vs before:".to_owned(), &spans);
    if short.width() <= usize::from(width) {
        return vec![short];
    }
    vec![
        joined(format!(" vs {dates}:"), &spans[..2]),
        joined("   ".to_owned(), &spans[2..]),
    ]
}
