//! The line under the totals while comparing: how human, AI and all visitors changed
//! since the period before (by how many and by what part), and the AI share in points.

use ratatui::text::{Line, Span};

use super::super::{ViewContext, thousands};
use super::fitting;
use crate::api::{DateParam, VisitorTotals};
use crate::text::sanitize;
use crate::tui::app::{Change, PreviousLoad, share_points};

/// `+120`, `−40` or `±0`.
pub(super) fn signed(by: i128) -> String {
    let size = u64::try_from(by.unsigned_abs()).unwrap_or(u64::MAX);
    match by.signum() {
        1 => format!("+{}", thousands(size)),
        -1 => format!("−{}", thousands(size)),
        _ => "±0".to_owned(),
    }
}

/// `+120 (+5.1%)`, or `+7 (new)` from nothing.
pub(super) fn change_text(change: Change, percent: bool) -> String {
    let by = signed(change.by);
    if !percent {
        return by;
    }
    match change.percent {
        Some(p) => format!("{by} ({p:+.1}%)"),
        None if change.by == 0 => by,
        None => format!("{by} (from 0)"),
    }
}

pub(super) fn line(
    now: Option<VisitorTotals>,
    previous: &PreviousLoad,
    width: u16,
    cx: &ViewContext,
) -> Line<'static> {
    let theme = cx.theme;
    let said = |text: String, style| Line::from(Span::styled(text, style));
    let (query, before) = match previous {
        PreviousLoad::Off => return Line::default(),
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
    let dates = format!(
        "{} → {}",
        DateParam::shown(query.date_from, "the start"),
        DateParam::shown(query.date_to, "now")
    );
    let build = |with_dates: bool, percent: bool| {
        let head = if with_dates {
            format!(" vs {dates}:")
        } else {
            " vs before:".to_owned()
        };
        let part = |name: &str, a: u64, b: u64| {
            format!(" {name} {}", change_text(Change::of(a, b), percent))
        };
        Line::from(vec![
            Span::styled(head, theme.dim()),
            Span::styled(part("human", now.human, before.human), theme.human()),
            Span::styled(part("· AI", now.ai, before.ai), theme.ai()),
            Span::styled(part("· total", now.total, before.total), theme.bold()),
            Span::raw(format!(" · AI share {:+.1} pp", share_points(now, before))),
        ])
    };
    fitting(
        vec![
            build(true, true),
            build(false, true),
            build(true, false),
            build(false, false),
        ],
        width,
    )
}
