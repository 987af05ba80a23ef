//! The searches pane (`4`): which of its two lists is shown, the range (the visitors
//! pane's), then the searches (queries nobody clicked through first) or the questions
//! the assistant could not answer, and a footer of counts, marks and keys. Every text
//! from readers is sanitized; under `NO_COLOR` the list shown is in brackets and a
//! search without a click says "none" rather than relying on a colour.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::hints::{Hints, join};
use super::table::{self, Column, Look, TableState};
use super::wrap::fitting;
use super::{ViewContext, thousands};
use crate::api::DateParam;
use crate::api::signals::{Conversation, SearchRow};
use crate::text::{excerpt, sanitize};
use crate::tui::app::{App, SearchesPane, SignalDates, Which, unclicked};
use crate::tui::keymap::{Action, KeyContext};

pub fn draw(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    cx: &ViewContext,
    state: &mut TableState,
) {
    // A read that failed beside the rows read: said whole above the footer, wrapped.
    let failed: Vec<Line<'static>> =
        error_beside_rows(&app.searches).map_or_else(Vec::new, |error| {
            let line = Line::from(Span::styled(
                format!(" {}", sanitize(error)),
                cx.theme.error(),
            ));
            let mut lines = super::wrap::wrap(&line, 1, usize::from(area.width));
            lines.truncate(3);
            lines
        });
    let failed_height = u16::try_from(failed.len()).unwrap_or(3);
    let [strip, rows, failed_area, footer] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Min(3),
        Constraint::Length(failed_height),
        Constraint::Length(1),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(failed), failed_area);
    draw_strip(frame, strip, app, cx);
    let pane = &app.searches;
    let block = Block::default().borders(Borders::TOP);
    let shown = match pane.showing {
        Which::Searches => pane.searches.pages.as_ref().map(|p| p.rows.is_empty()),
        Which::Questions => pane.questions.pages.as_ref().map(|p| p.rows.is_empty()),
    };
    match shown {
        Some(false) => match pane.showing {
            Which::Searches => searches_table(frame, rows, app, cx, state),
            Which::Questions => questions_table(frame, rows, app, cx, state),
        },
        Some(true) | None => {
            let text = empty_text(pane, app, cx);
            frame.render_widget(
                Paragraph::new(Line::from(text))
                    .wrap(Wrap { trim: true })
                    .block(block),
                rows,
            );
        }
    }
    draw_footer(frame, footer, app, cx);
}

/// Why the list shown could not be read, when it has rows read to show beside it (with
/// none, the error stands in for them).
fn error_beside_rows(pane: &SearchesPane) -> Option<&str> {
    let read = match pane.showing {
        Which::Searches => pane.searches.pages.is_some(),
        Which::Questions => pane.questions.pages.is_some(),
    };
    pane.error()
        .filter(|_| read)
        .map(super::super::app::ListError::text)
}

/// What stands in for the rows when there are none to show.
fn empty_text(pane: &SearchesPane, app: &App, cx: &ViewContext) -> Span<'static> {
    let theme = cx.theme;
    let read = match pane.showing {
        Which::Searches => pane.searches.pages.as_ref().map(|p| p.read),
        Which::Questions => pane.questions.pages.as_ref().map(|p| p.read),
    };
    if let (None, Some(error)) = (read, pane.error()) {
        return Span::styled(sanitize(error.text()), theme.error());
    }
    let dates = dates_key(app);
    match (read, pane.showing) {
        (None, _) if pane.is_fetching() => Span::styled("loading…", theme.dim()),
        (None, _) => Span::styled(format!("{} reads the list", refresh_key(app)), theme.dim()),
        (Some(_), Which::Searches) => Span::styled(
            format!("nobody searched in this range: {dates} changes the dates"),
            theme.dim(),
        ),
        (Some(read), Which::Questions) => Span::styled(
            format!(
                "the assistant answered every question of this range ({} asked): {dates} changes the dates",
                thousands(read as u64)
            ),
            theme.dim(),
        ),
    }
}

fn refresh_key(app: &App) -> String {
    app.keymap()
        .key_or_name(KeyContext::Searches, Action::Refresh)
}

/// How the dates are changed from here: in the visitors pane, whose dates these are.
fn dates_key(app: &App) -> String {
    let keymap = app.keymap();
    let pane = keymap.key_or_name(KeyContext::Searches, Action::FocusVisitors);
    let form = keymap.key_or_name(KeyContext::Visitors, Action::Filter);
    format!("{pane} then {form}")
}

/// The two lists (the shown one in brackets) and the range they are read over.
fn draw_strip(frame: &mut Frame<'_>, area: Rect, app: &App, cx: &ViewContext) {
    let theme = cx.theme;
    let pane = &app.searches;
    let tab = |which: Which, label: String| {
        if pane.showing == which {
            Span::styled(format!("[{label}]"), theme.selected())
        } else {
            Span::styled(format!(" {label} "), theme.bold())
        }
    };
    let (from, to) = app.visitors.range.bounds(cx.wall.date_naive());
    let nobody = pane.searches.rows().iter().filter(|r| unclicked(r)).count();
    let searches = count_label(
        "Searches",
        pane.searches
            .pages
            .as_ref()
            .map(|p| (p.dates, p.next_cursor.is_some())),
        (from, to),
        pane.searches.is_fetching(),
        |more| format!("{}{more} with no click", thousands(nobody as u64)),
    );
    let questions = count_label(
        "Unanswered questions",
        (pane.questions.pages.as_ref()).map(|p| (p.dates, p.next_cursor.is_some())),
        (from, to),
        pane.questions.is_fetching(),
        |more| {
            let unanswered = pane.questions.rows().len();
            format!("{}{more}", thousands(unanswered as u64))
        },
    );
    let switch = Hints::new(app.keymap(), KeyContext::Searches)
        .one(Action::SwitchList, "switches")
        .map(|hint| Span::styled(format!("  ({hint})"), theme.dim()));
    let mut lists = vec![
        Span::raw(" "),
        tab(Which::Searches, searches),
        Span::raw(" "),
        tab(Which::Questions, questions),
    ];
    lists.extend(switch);
    let dates = format!(
        " {} · {} → {}",
        app.visitors.range.label(),
        DateParam::shown(from, "the start"),
        DateParam::shown(to, "now")
    );
    let range = fitting(
        vec![
            Line::from(Span::styled(
                format!("{dates} (UTC days, the end excluded; the visitors pane's dates)"),
                theme.accent(),
            )),
            Line::from(Span::styled(format!("{dates} (UTC days)"), theme.accent())),
        ],
        area.width,
    );
    frame.render_widget(Paragraph::new(vec![Line::from(lists), range]), area);
}

/// A list's name with its count, as far as the count is known: none before a read of
/// the range on screen (a count of other dates would be stale), `…` while it is read,
/// and `+` after it while pages are left unread (it counts only the rows read).
fn count_label(
    name: &str,
    read: Option<(SignalDates, bool)>,
    dates: SignalDates,
    fetching: bool,
    count: impl FnOnce(&str) -> String,
) -> String {
    match read {
        Some((read, more)) if read == dates => {
            format!("{name}: {}", count(if more { "+" } else { "" }))
        }
        _ if fetching => format!("{name}: …"),
        _ => name.to_owned(),
    }
}

/// `● ` before a marked row and two spaces before the others, marks or not: the list
/// does not shift when the first row is marked.
fn mark_span(marked: bool, cx: &ViewContext) -> Span<'static> {
    if marked {
        Span::styled("● ", cx.theme.accent())
    } else {
        Span::raw("  ")
    }
}

/// One of the pane's two lists as a table under a top border, at the pane's selection:
/// `cells` gives a row's.
fn list_table<'r, T>(
    frame: &mut Frame<'_>,
    (area, state): (Rect, &mut TableState),
    columns: &[Column<'_>],
    (rows, selected): (&'r [T], usize),
    cx: &ViewContext,
    cells: impl Fn(&'r T) -> Vec<Line<'r>>,
) {
    let look = Look {
        block: Block::default().borders(Borders::TOP),
        header: cx.theme.dim(),
        selected: cx.theme.selected(),
        more_marker: Some(cx.theme.dim()),
    };
    let len = rows.len();
    table::draw(frame, area, columns, look, (selected, len), state, |i| {
        cells(&rows[i])
    });
}

/// A page as the lists show it, or a dim dash where there is none (no click, no page).
fn page_or_dash(page: Option<&str>, cx: &ViewContext) -> Span<'static> {
    page.map_or_else(
        || Span::styled("—", cx.theme.dim()),
        |page| Span::raw(sanitize(page)),
    )
}

/// A click rate as the table shows it: `none` when nobody clicked, `<1%`, `8%`.
#[must_use]
pub fn click_rate(row: &SearchRow) -> String {
    if unclicked(row) {
        return "none".to_owned();
    }
    let percent = (row.ctr.min(1.0) * 100.0).round();
    if percent < 1.0 {
        "<1%".to_owned()
    } else {
        format!("{percent:.0}%")
    }
}

/// A time of the service as the table shows it (UTC): the day, with the minute where
/// there is room; the service's own text, cut, when it is not a time.
fn when(text: &str, wide: bool) -> String {
    chrono::DateTime::parse_from_rfc3339(text).map_or_else(
        |_| excerpt(&sanitize(text), 16),
        |at| {
            let at = at.with_timezone(&chrono::Utc);
            if wide {
                at.format("%Y-%m-%d %H:%M").to_string()
            } else {
                at.format("%Y-%m-%d").to_string()
            }
        },
    )
}

fn searches_table(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    cx: &ViewContext,
    state: &mut TableState,
) {
    let pane = &app.searches;
    let rows = pane.searches.rows();
    let wide = area.width >= 110;
    let count_width = rows
        .iter()
        .map(|r| thousands(r.hits).chars().count())
        .max()
        .unwrap_or(1)
        .max("SEARCHES".len());
    // The page column as wide as its longest page, unless the queries need the room:
    // then they share it, the page cut at its start (its end tells pages apart).
    let rate_width = if wide { 10 } else { 7 };
    let last_width = if wide { 19 } else { 10 };
    let fixed = count_width + rate_width + last_width + 4;
    let rest = usize::from(area.width).saturating_sub(fixed + 1);
    let longest = |texts: &mut dyn Iterator<Item = usize>| texts.max().unwrap_or(0);
    let pages = longest(
        &mut rows
            .iter()
            .filter_map(|r| r.top_clicked_page.as_deref())
            .map(|p| sanitize(p).chars().count()),
    );
    let queries = longest(
        &mut rows
            .iter()
            .map(|r| sanitize(&r.search_query).chars().count() + 4),
    );
    let page_width = pages
        .max("TOP CLICKED PAGE".len())
        .min(rest.saturating_sub(queries.clamp(16, rest / 2)))
        .max(16);
    let page_width = u16::try_from(page_width).unwrap_or(16);
    let columns = [
        Column::new("QUERY", Constraint::Min(16)),
        Column::new(
            "SEARCHES",
            Constraint::Length(u16::try_from(count_width).unwrap_or(8)),
        )
        .right(),
        Column::new(
            if wide { "CLICK RATE" } else { "CLICKED" },
            Constraint::Length(u16::try_from(rate_width).unwrap_or(7)),
        )
        .right(),
        Column::new("TOP CLICKED PAGE", Constraint::Length(page_width)).keep_end(),
        Column::new(
            if wide {
                "LAST SEARCHED (UTC)"
            } else {
                "LAST (UTC)"
            },
            Constraint::Length(u16::try_from(last_width).unwrap_or(10)),
        ),
    ];
    let at = (area, state);
    list_table(frame, at, &columns, (rows, pane.selected()), cx, |row| {
        let query = format!("{:?}", sanitize(&row.search_query));
        let rate = click_rate(row);
        let rate = if unclicked(row) {
            Span::styled(rate, cx.theme.warning())
        } else {
            Span::raw(rate)
        };
        vec![
            Line::from(vec![
                mark_span(pane.marks.has_query(&row.search_query), cx),
                Span::raw(query),
            ]),
            Line::from(thousands(row.hits)),
            Line::from(rate),
            Line::from(page_or_dash(row.top_clicked_page.as_deref(), cx)),
            Line::from(when(&row.last_searched_at, wide)),
        ]
    });
}

fn questions_table(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    cx: &ViewContext,
    state: &mut TableState,
) {
    let pane = &app.searches;
    let rows: &[Conversation] = pane.questions.rows();
    let wide = area.width >= 110;
    let mut columns = vec![
        Column::new("QUESTION", Constraint::Min(24)),
        Column::new(
            "ASKED (UTC)",
            Constraint::Length(if wide { 16 } else { 11 }),
        ),
    ];
    if wide {
        columns.push(Column::new("ON PAGE", Constraint::Length(28)).keep_end());
    }
    let at = (area, state);
    list_table(frame, at, &columns, (rows, pane.selected()), cx, |row| {
        let mut cells = vec![
            Line::from(vec![
                mark_span(pane.marks.has_question(&row.id), cx),
                Span::raw(format!("{:?}", sanitize(&row.query))),
            ]),
            Line::from(when(&row.timestamp, wide)),
        ];
        if wide {
            cells.push(Line::from(page_or_dash(row.page_url.as_deref(), cx)));
        }
        cells
    });
}

/// What the list has read (and whether there is more, with the key that reads it), the
/// marks, a read under way or failed beside the rows, and the keys.
fn draw_footer(frame: &mut Frame<'_>, area: Rect, app: &App, cx: &ViewContext) {
    let theme = cx.theme;
    let pane = &app.searches;
    let keys = Hints::new(app.keymap(), KeyContext::Searches);
    let mut spans = vec![Span::raw(" ")];
    let more = |pages_left: bool| {
        let hint = |(action, what)| keys.key(action).map(|key| format!(" · {what}: {key}"));
        let hints = [(Action::MoreRows, "more"), (Action::WholeRange, "all")];
        hints
            .into_iter()
            .filter(|_| pages_left)
            .filter_map(hint)
            .collect::<String>()
    };
    match pane.showing {
        Which::Searches => {
            if let Some(pages) = &pane.searches.pages {
                spans.push(Span::styled(
                    format!(
                        "{} queries · {} searches in all{}",
                        thousands(pages.rows.len() as u64),
                        thousands(pages.total.unwrap_or(0)),
                        more(pages.next_cursor.is_some() && !pane.reading_all())
                    ),
                    theme.bold(),
                ));
            }
        }
        Which::Questions => {
            if let Some(pages) = &pane.questions.pages {
                spans.push(Span::styled(
                    format!(
                        "{} unanswered of {} question{} read{}",
                        thousands(pages.rows.len() as u64),
                        thousands(pages.read as u64),
                        if pages.read == 1 { "" } else { "s" },
                        more(pages.next_cursor.is_some() && !pane.reading_all())
                    ),
                    theme.bold(),
                ));
            }
        }
    }
    if !pane.marks.is_empty() {
        spans.push(Span::styled(
            keys.marked(pane.marks.len(), app.config.read_only),
            theme.accent(),
        ));
    }
    if pane.is_fetching() {
        let what = if pane.reading_all() {
            "reading every page…"
        } else {
            "loading…"
        };
        spans.push(Span::styled(format!(" · {what}"), theme.warning()));
    }
    let job = || {
        keys.one(Action::NewJob, "job")
            .filter(|_| !app.config.read_only)
    };
    let hints = [
        join([
            keys.one(Action::Mark, "mark"),
            job(),
            keys.one(Action::SwitchList, "other list"),
            keys.one(Action::Help, "keys"),
        ]),
        join([keys.one(Action::Mark, "mark"), job()]),
        String::new(),
    ];
    super::hints::draw_footer(frame, area, &spans, &hints, theme.dim());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_click_rate_says_none_rather_than_a_colour() {
        let row = |ctr: f64, page: Option<&str>| SearchRow {
            search_query: "q".into(),
            hits: 10,
            ctr,
            top_clicked_page: page.map(str::to_owned),
            last_searched_at: "x".into(),
        };
        assert_eq!(click_rate(&row(0.0, None)), "none");
        assert_eq!(click_rate(&row(0.004, Some("/a"))), "<1%");
        assert_eq!(click_rate(&row(0.8125, Some("/a"))), "81%");
        assert_eq!(when("2026-11-20T02:00:00.000Z", true), "2026-11-20 02:00");
        assert_eq!(when("2026-11-20T02:00:00Z", false), "2026-11-20");
    }
}
