//! One page of the visitors pane (Enter on its row): its figures over the range, its 👍
//! and 👎 with 👎 per 1,000 human visitors (words under `NO_COLOR`), and what readers
//! said of it, newest first, each with its date and source; Esc goes back to the table.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::super::wrap::wrap;
use super::super::{ViewContext, thousands};
use super::thumbs::rate_text;
use crate::api::signals::FeedbackItem;
use crate::text::sanitize;
use crate::tui::app::{App, COMMENT_PAGES, CommentsLoad, PageView};
use crate::tui::keymap::{Action, KeyContext};

pub(super) fn draw(
    frame: &mut Frame<'_>,
    area: Rect,
    page: &PageView,
    app: &App,
    cx: &ViewContext,
) {
    let theme = cx.theme;
    let columns = usize::from(area.width.saturating_sub(2));
    let height = usize::from(area.height.saturating_sub(2)).max(1);
    let rows: Vec<Line<'static>> = lines(page, cx)
        .iter()
        .flat_map(|(line, indent)| wrap(line, *indent, columns))
        .collect();
    let scroll = page.scroll.min(rows.len().saturating_sub(height));
    let below = rows.len().saturating_sub(scroll + height);
    let keys = super::super::hints::Hints::new(app.keymap(), KeyContext::Visitors);
    let back = keys.one(Action::Close, "back").unwrap_or_default();
    let scroll_hint = keys.pair(Action::Down, Action::Up, "scroll");
    let mut hint = format!(" {back} ");
    if let Some(scroll_hint) = scroll_hint.filter(|_| below > 0 || scroll > 0) {
        hint = format!(" {back} · {scroll_hint} ");
    }
    let mut block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(
            format!(" Page {} ", sanitize(&page.row.path)),
            theme.accent(),
        ))
        .title_bottom(Line::from(Span::styled(hint, theme.dim())).right_aligned());
    if below > 0 {
        block = block.title_bottom(Line::from(Span::styled(
            format!(" ↓ {below} more "),
            theme.dim(),
        )));
    }
    let shown: Vec<Line<'static>> = rows.into_iter().skip(scroll).take(height).collect();
    frame.render_widget(Paragraph::new(shown).block(block), area);
}

fn range_words(page: &PageView) -> String {
    let day =
        |d: Option<crate::api::DateParam>| d.map_or_else(|| "…".to_owned(), |d| d.to_string());
    format!("{} → {}", day(page.from), day(page.to))
}

fn lines(page: &PageView, cx: &ViewContext) -> Vec<(Line<'static>, usize)> {
    let theme = cx.theme;
    let row = &page.row;
    let words = theme.words();
    let (up, down) = if words {
        ("UP", "DOWN")
    } else {
        ("👍", "👎")
    };
    let mut out = vec![
        (
            Line::from(vec![
                Span::styled(
                    format!("{} · unique visitors: ", range_words(page)),
                    theme.dim(),
                ),
                Span::raw(format!(
                    "human {}  AI {}  total {}",
                    thousands(row.human),
                    thousands(row.ai),
                    thousands(row.total)
                )),
            ]),
            2,
        ),
        (
            Line::from(match page.thumbs {
                Some(thumbs) => format!(
                    "{up} {}  {down} {}  {down} per 1,000 human visitors {}",
                    thousands(thumbs.up),
                    thousands(thumbs.down),
                    rate_text((Some(thumbs), row.human))
                ),
                None => format!(
                    "{up} and {down}: not known for this range (the feedback by page is not read or names other pages)"
                ),
            }),
            2,
        ),
        (Line::default(), 0),
    ];
    match &page.comments {
        CommentsLoad::Fetching(_) => out.push((
            Line::from(Span::styled("Comments: reading…", theme.warning())),
            2,
        )),
        CommentsLoad::Failed(why) => out.push((
            Line::from(Span::styled(
                format!("Comments could not be read: {}", sanitize(why)),
                theme.error(),
            )),
            2,
        )),
        CommentsLoad::Shown(found) => {
            let said: Vec<&FeedbackItem> = found
                .items
                .iter()
                .filter(|item| {
                    item.comment
                        .as_deref()
                        .is_some_and(|c| !c.trim().is_empty())
                })
                .collect();
            let thumbs_only = found.items.len() - said.len();
            let looked = thousands(found.looked as u64);
            let heading = if found.more {
                format!(
                    "Comments ({}, newest first, from the range's newest {looked} pieces of feedback; older ones are not read: {COMMENT_PAGES} requests at most)",
                    said.len()
                )
            } else {
                format!(
                    "Comments ({}, newest first, of the range's {looked} pieces of feedback)",
                    said.len()
                )
            };
            out.push((Line::from(Span::styled(heading, theme.bold())), 0));
            if said.is_empty() {
                out.push((
                    Line::from(Span::styled("  nobody wrote about this page", theme.dim())),
                    2,
                ));
            }
            for item in said {
                out.push((comment_head(item, words, cx), 2));
                let text = item.comment.as_deref().unwrap_or_default();
                for line in text.lines() {
                    out.push((Line::from(format!("    {}", sanitize(line))), 4));
                }
            }
            if thumbs_only > 0 {
                out.push((
                    Line::from(Span::styled(
                        format!("  and {thumbs_only} without words"),
                        theme.dim(),
                    )),
                    2,
                ));
            }
        }
    }
    out
}

/// `2026-11-20 14:02 UTC · contextual · 👎` above a comment.
fn comment_head(item: &FeedbackItem, words: bool, cx: &ViewContext) -> Line<'static> {
    let when = item
        .created_at
        .as_deref()
        .and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok())
        .map_or_else(
            || {
                item.created_at
                    .as_deref()
                    .map_or_else(|| "undated".to_owned(), sanitize)
            },
            |at| cx.date_time(at.with_timezone(&chrono::Utc)),
        );
    let helpful = match (item.helpful, words) {
        (Some(true), false) => " · 👍",
        (Some(false), false) => " · 👎",
        (Some(true), true) => " · up",
        (Some(false), true) => " · down",
        (None, _) => "",
    };
    Line::from(Span::styled(
        format!("  {when} · {}{helpful}", sanitize(&item.source)),
        cx.theme.accent(),
    ))
}
