//! How `docdeck searches`, `feedback` and `assistant` print: JSON as the service sent it
//! (every page joined into one with `--all`), CSV with a header, or a table fitted to the
//! terminal with a footer that says where the page is and how to get the next one.

use super::CliError;
use super::output::Format;
use super::table::{self, Column, Fit};
use crate::api::signals::{
    AssistantPage, FeedbackByPage, FeedbackPage, PageFeedback, SearchRow, SearchesPage,
    SignalsQuery,
};
use crate::export;
use crate::text::{sanitize, thousands};

fn json(value: &impl serde::Serialize) -> Result<String, CliError> {
    let pretty = std::io::IsTerminal::is_terminal(&std::io::stdout());
    Ok(export::json_text(value, pretty)? + "\n")
}

fn csv(header: &[&str], rows: Vec<Vec<String>>) -> Result<String, CliError> {
    Ok(export::csv_text(Some(header), rows)?)
}

/// A listing in `format`: JSON is the page as the service sent it, CSV the `header` over
/// each of `rows` as `cells` gives it (as sent), and a table what `table` writes.
fn listing<R>(
    page: &impl serde::Serialize,
    format: Format,
    (header, rows, cells): (&[&str], &[R], impl Fn(&R) -> Vec<String>),
    table: impl FnOnce() -> String,
) -> Result<String, CliError> {
    match format {
        Format::Json => json(page),
        Format::Csv => csv(header, rows.iter().map(cells).collect()),
        Format::Table => Ok(table()),
    }
}

/// The range a table covers, as its heading says it.
fn range(query: &SignalsQuery) -> String {
    super::range::range_text(query.date_from, query.date_to)
}

/// `1 query`, `2 queries`: a count with its noun, singular or plural, and separators.
fn count(n: usize, (one, many): (&str, &str)) -> String {
    format!(
        "{} {}",
        thousands(n as u64),
        if n == 1 { one } else { many }
    )
}

/// The footer: every page fetched, or where the next page is. `rows` counted with its
/// nouns; `of`, what they were kept from (`of 10 queries`), said after.
fn footer(rows: String, of: &str, all: bool, next: Option<&str>) -> String {
    let of = if of.is_empty() {
        String::new()
    } else {
        format!(" {of}")
    };
    match (all, next) {
        (true, _) if of.is_empty() => format!("{rows}: all of the range\n"),
        (true, _) => format!("{rows}{of}: the whole range\n"),
        (false, Some(cursor)) => format!("{rows}{of} · more: --cursor {cursor} (or --all)\n"),
        (false, None) => format!("{rows}{of} · the last page\n"),
    }
}

/// What a listing's kept rows were kept from, said after their count with the rows'
/// noun: `(of 10 queries)` when one page was read, or `(40 queries read in 2 requests)`
/// when it read on.
fn kept_from(of: usize, nouns: (&str, &str), requests: u32) -> String {
    let read = count(of, nouns);
    match requests {
        0 => format!("(of {read})"),
        n => format!(
            "({read} read in {})",
            count(n as usize, ("request", "requests"))
        ),
    }
}

/// A table newest first (feedback, conversations): `what` (its range said) as the
/// heading, the rows fitted, and the footer with their count, what they were kept from
/// and where the next page is.
fn newest_first(
    what: &str,
    (columns, rows): (&[Column], &[Vec<String>]),
    (counted, of): (String, &str),
    all: bool,
    next: Option<&str>,
) -> String {
    let mut text = format!("{what}, newest first:\n");
    text.push_str(&fitted(columns, rows));
    text.push_str(&footer(counted, of, all, next));
    text
}

/// `rows` as a table fitted to the terminal; nothing when there are none.
fn fitted(columns: &[Column], rows: &[Vec<String>]) -> String {
    if rows.is_empty() {
        String::new()
    } else {
        table::render(columns, rows, table::target_width())
    }
}

/// The date part of an RFC 3339 time, as tables show it.
fn day(time: &str) -> String {
    time.get(..10).unwrap_or(time).to_owned()
}

/// A share from 0 to 1 as a whole percentage.
fn percent(share: f64) -> String {
    format!("{:.0}%", share * 100.0)
}

/// Under a range nobody searched: where searches come from on the local service.
const NO_SEARCHES: &str = "nobody searched in this range; the local service learns searches from `docdeck import`: of an access log (requests of /search?q=, or the page --search-url names), or of the event stream (--format mintlify)";

pub fn searches(
    page: &SearchesPage,
    query: &SignalsQuery,
    shown: Shown,
    format: Format,
) -> Result<String, CliError> {
    let cells = |row: &SearchRow, with_raw: bool| -> Vec<String> {
        vec![
            if with_raw {
                row.search_query.clone()
            } else {
                sanitize(&row.search_query)
            },
            row.hits.to_string(),
            if with_raw {
                row.ctr.to_string()
            } else {
                percent(row.ctr)
            },
            row.top_clicked_page.clone().unwrap_or_default(),
            row.last_searched_at.clone(),
        ]
    };
    listing(
        page,
        format,
        (
            &[
                "searchQuery",
                "hits",
                "ctr",
                "topClickedPage",
                "lastSearchedAt",
            ],
            &page.searches,
            |row| cells(row, true),
        ),
        || {
            let columns = [
                Column::new("QUERY", Fit::CutEnd),
                Column::new("SEARCHES", Fit::Number),
                Column::new("CLICKED", Fit::Number),
                Column::new("TOP CLICKED PAGE", Fit::CutStart),
                Column::new("LAST", Fit::Keep),
            ];
            let rows: Vec<Vec<String>> = (page.searches.iter())
                .map(|row| cells(row, false))
                .map(|mut row| {
                    if row[3].is_empty() {
                        row[3] = "none: nobody clicked".to_owned();
                    } else {
                        row[3] = sanitize(&row[3]);
                    }
                    row[4] = day(&row[4]);
                    row
                })
                .collect();
            let mut text = format!(
                "searches, {}: {} in all\n",
                range(query),
                thousands(page.total_searches)
            );
            text.push_str(&fitted(&columns, &rows));
            if page.total_searches == 0 && query.cursor.is_none() {
                text.push_str(&table::wrap(NO_SEARCHES, table::target_width()));
            }
            let (rows, of) = match shown.of {
                Some(of) => (
                    count(
                        rows.len(),
                        (
                            "query nobody clicked through",
                            "queries nobody clicked through",
                        ),
                    ),
                    kept_from(of, ("query", "queries"), shown.requests),
                ),
                None => (count(rows.len(), ("query", "queries")), String::new()),
            };
            text.push_str(&footer(rows, &of, shown.all, page.next_cursor.as_deref()));
            text
        },
    )
}

/// A thumb as words: up, down, or a dash when the feedback has none.
fn thumb(helpful: Option<bool>) -> &'static str {
    match helpful {
        Some(true) => "up",
        Some(false) => "down",
        None => "-",
    }
}

/// How a reader said they may be reached (the widget's optional `contact`, which the
/// hosted export has on contextual feedback), or nothing.
fn contact(item: &crate::api::signals::FeedbackItem) -> &str {
    item.contact
        .as_ref()
        .and_then(Option::as_deref)
        .unwrap_or("")
}

pub fn feedback(
    page: &FeedbackPage,
    query: &SignalsQuery,
    all: bool,
    format: Format,
) -> Result<String, CliError> {
    listing(
        page,
        format,
        (
            &[
                "id",
                "createdAt",
                "path",
                "source",
                "status",
                "helpful",
                "comment",
                "contact",
            ],
            &page.feedback,
            |f| {
                vec![
                    f.id.clone(),
                    f.created_at.clone().unwrap_or_default(),
                    f.path.clone(),
                    f.source.clone(),
                    f.status.clone(),
                    f.helpful.map(|h| h.to_string()).unwrap_or_default(),
                    f.comment.clone().unwrap_or_default(),
                    contact(f).to_owned(),
                ]
            },
        ),
        || {
            let columns = [
                Column::new("DATE", Fit::Keep),
                Column::new("PAGE", Fit::CutStart),
                Column::new("SOURCE", Fit::Keep),
                Column::new("STATUS", Fit::Keep),
                Column::new("THUMB", Fit::Keep),
                Column::new("COMMENT", Fit::CutEnd),
                Column::new("CONTACT", Fit::CutEnd),
            ];
            // The contact column only when a reader left one.
            let contacts = page.feedback.iter().any(|f| !contact(f).is_empty());
            let columns = &columns[..if contacts { 7 } else { 6 }];
            let rows: Vec<Vec<String>> = page
                .feedback
                .iter()
                .map(|f| {
                    let mut row = vec![
                        f.created_at.as_deref().map(day).unwrap_or_default(),
                        sanitize(&f.path),
                        f.source.clone(),
                        f.status.clone(),
                        thumb(f.helpful).to_owned(),
                        sanitize(f.comment.as_deref().unwrap_or("")),
                    ];
                    if contacts {
                        row.push(sanitize(contact(f)));
                    }
                    row
                })
                .collect();
            let shown = count(rows.len(), ("piece of feedback", "pieces of feedback"));
            newest_first(
                &format!("feedback, {}", range(query)),
                (columns, &rows),
                (shown, ""),
                all,
                page.next_cursor.as_deref().filter(|_| page.has_more),
            )
        },
    )
}

pub fn feedback_by_page(
    page: &FeedbackByPage,
    query: &SignalsQuery,
    format: Format,
) -> Result<String, CliError> {
    let cells = |row: &PageFeedback, path: &dyn Fn(&str) -> String| -> Vec<String> {
        vec![
            path(&row.path),
            row.thumbs_up.to_string(),
            row.thumbs_down.to_string(),
            row.code.to_string(),
            row.total.to_string(),
        ]
    };
    listing(
        page,
        format,
        (
            &["path", "thumbsUp", "thumbsDown", "code", "total"],
            &page.feedback,
            |row| cells(row, &str::to_owned),
        ),
        || {
            let columns = [
                Column::new("PAGE", Fit::CutStart),
                Column::new("UP", Fit::Number),
                Column::new("DOWN", Fit::Number),
                Column::new("CODE", Fit::Number),
                Column::new("TOTAL", Fit::Number),
            ];
            let rows: Vec<Vec<String>> = (page.feedback.iter())
                .map(|row| cells(row, &sanitize))
                .collect();
            let mut text = format!("feedback per page, {}, most first:\n", range(query));
            text.push_str(&fitted(&columns, &rows));
            let shown = count(rows.len(), ("page", "pages"));
            if page.has_more {
                let more = query.effective_limit().saturating_mul(2).min(100);
                text.push_str(&format!("{shown} · more: --limit {more}\n"));
            } else {
                text.push_str(&format!("{shown}: all of the range\n"));
            }
            text
        },
    )
}

/// What a searches or assistant listing holds: every page, of how many rows read the
/// unclicked or unanswered ones were kept, and in how many requests when it read on
/// (0: one page, or `--all`).
pub struct Shown {
    pub all: bool,
    pub of: Option<usize>,
    pub requests: u32,
}

pub fn assistant(
    page: &AssistantPage,
    query: &SignalsQuery,
    shown: Shown,
    format: Format,
) -> Result<String, CliError> {
    listing(
        page,
        format,
        (
            &[
                "id",
                "timestamp",
                "query",
                "resolutionStatus",
                "sources",
                "response",
            ],
            &page.conversations,
            |c| {
                let sources: Vec<&str> = c.sources.iter().map(|s| s.url.as_str()).collect();
                vec![
                    c.id.clone(),
                    c.timestamp.clone(),
                    c.query.clone(),
                    c.resolution_status.clone(),
                    sources.join(" "),
                    c.response.clone(),
                ]
            },
        ),
        || {
            let columns = [
                Column::new("DATE", Fit::Keep),
                Column::new("QUESTION", Fit::CutEnd),
                Column::new("ANSWER", Fit::Keep),
                Column::new("CITED", Fit::CutStart),
            ];
            let rows: Vec<Vec<String>> = page
                .conversations
                .iter()
                .map(|c| {
                    let cited = c.sources.first().map(|s| sanitize(&s.url));
                    vec![
                        day(&c.timestamp),
                        sanitize(&c.query),
                        c.resolution_status.clone(),
                        cited.unwrap_or_else(|| "-".to_owned()),
                    ]
                })
                .collect();
            let what = if shown.of.is_some() {
                "questions the assistant could not answer"
            } else {
                "questions to the assistant"
            };
            let (counted, of) = match shown.of {
                Some(of) => (
                    count(rows.len(), ("unanswered", "unanswered")),
                    kept_from(of, ("conversation", "conversations"), shown.requests),
                ),
                None => (
                    count(rows.len(), ("conversation", "conversations")),
                    String::new(),
                ),
            };
            newest_first(
                &format!("{what}, {}", range(query)),
                (&columns, &rows),
                (counted, &of),
                shown.all,
                page.next_cursor.as_deref().filter(|_| page.has_more),
            )
        },
    )
}

#[cfg(test)]
mod tests;
