//! The chart above the visitors table: unique human and AI visitors per day (per ISO
//! week over 60 days), one line each. Its title says each day is counted alone, so no
//! one reads the days as parts of the range's total.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Borders, Chart, Dataset, GraphType, Paragraph, Wrap};

use super::super::{ViewContext, thousands};
use super::fitting;
use crate::api::VisitorTotals;
use crate::insight::By;
use crate::text::sanitize;
use crate::tui::app::TrendLoad;
use crate::tui::message::TrendPlan;

/// Rows the chart takes in a pane of `height` rows.
#[must_use]
pub(super) fn height(pane: u16) -> u16 {
    (pane / 3).clamp(6, 12)
}

/// Draws the chart of `trend`; `page_loading`: the page is on its way (the trend follows it).
pub(super) fn draw(
    frame: &mut Frame<'_>,
    area: Rect,
    trend: &TrendLoad,
    page_loading: bool,
    cx: &ViewContext,
) {
    let theme = cx.theme;
    let by = trend.plan().map_or(By::Day, |p| p.by);
    let block = Block::default()
        .borders(Borders::TOP)
        .title(title(by, area.width, cx));
    // A refusal in the CLI's words takes more than a line at 80 columns.
    let said = |text: String, style| {
        Paragraph::new(Line::from(Span::styled(text, style)))
            .wrap(Wrap { trim: false })
            .block(block.clone())
    };
    let widget = match trend {
        TrendLoad::Shown { plan, totals } if !totals.is_empty() => {
            draw_lines(frame, area, plan, totals, block, cx);
            return;
        }
        TrendLoad::Shown { .. } => said(" no days in this range".into(), theme.dim()),
        TrendLoad::Idle if page_loading => said(" the trend follows the page…".into(), theme.dim()),
        TrendLoad::Idle => said(" r reads the trend".into(), theme.dim()),
        TrendLoad::NeedsDates => said(
            " the chart needs both dates (all time has none): f sets them".into(),
            theme.dim(),
        ),
        TrendLoad::Fetching { done, of, .. } => {
            let text = if *of == 0 {
                " reading the trend…".to_owned()
            } else {
                format!(" reading the trend… {done} of {of} · Esc stops")
            };
            said(text, theme.warning())
        }
        TrendLoad::Asking { requests, .. } => said(
            format!(" waiting for your answer ({requests} requests)"),
            theme.warning(),
        ),
        TrendLoad::Declined { why, .. } => said(format!(" {why}"), theme.dim()),
        TrendLoad::Failed { error, .. } => said(format!(" {}", sanitize(error)), theme.error()),
    };
    frame.render_widget(widget, area);
}

/// What the chart shows, as much as fits: per day or week, unique, counted alone.
fn title(by: By, width: u16, cx: &ViewContext) -> Line<'static> {
    let per = match by {
        By::Day => "day",
        By::Week => "ISO week",
    };
    let legend = |line: &str| {
        Line::from(vec![
            Span::styled(" ⣿ human", cx.theme.human()),
            Span::styled(" • AI ", cx.theme.ai()),
            Span::styled(line.to_owned(), cx.theme.dim()),
        ])
    };
    fitting(
        vec![
            legend(&format!(
                "unique visitors per {per}, each {per} counted alone: they do not add up to \
                 the range's total "
            )),
            legend(&format!(
                "unique visitors per {per} (each counted alone; no sum) "
            )),
            legend(&format!("unique per {per}, not a sum ")),
        ],
        width,
    )
}

fn draw_lines(
    frame: &mut Frame<'_>,
    area: Rect,
    plan: &TrendPlan,
    totals: &[VisitorTotals],
    block: Block<'_>,
    cx: &ViewContext,
) {
    #[expect(clippy::cast_precision_loss)]
    let points = |get: fn(&VisitorTotals) -> u64| -> Vec<(f64, f64)> {
        totals
            .iter()
            .enumerate()
            .map(|(i, b)| (i as f64, get(b) as f64))
            .collect()
    };
    let human = points(|b| b.human);
    let ai = points(|b| b.ai);
    let top = totals
        .iter()
        .map(|b| b.human.max(b.ai))
        .max()
        .unwrap_or(0)
        .max(1);
    let buckets = plan.buckets();
    let last = totals.len().saturating_sub(1);
    let first_day = buckets.first().map_or(plan.from, |b| b.from);
    let last_day = buckets.get(last).map_or(plan.to, |b| b.from);
    let day = |at| crate::insight::buckets::shown(at);
    let datasets = vec![
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(cx.theme.human())
            .data(&human),
        Dataset::default()
            .marker(Marker::Dot)
            .graph_type(GraphType::Line)
            .style(cx.theme.ai())
            .data(&ai),
    ];
    #[expect(clippy::cast_precision_loss)]
    let (x_max, y_max) = (last.max(1) as f64, top as f64);
    let chart = Chart::new(datasets)
        .block(block)
        .x_axis(
            Axis::default()
                .style(cx.theme.dim())
                .bounds([0.0, x_max])
                .labels([day(first_day), day(last_day)]),
        )
        .y_axis(
            Axis::default()
                .style(cx.theme.dim())
                .bounds([0.0, y_max])
                .labels(["0".to_owned(), thousands(top)]),
        )
        .legend_position(None);
    frame.render_widget(chart, area);
}
