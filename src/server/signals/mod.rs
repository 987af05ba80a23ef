//! What readers searched for, said and asked (issue 27), as the local service stores and
//! reads it: searches (each with the result clicked, if any), feedback (thumbs, comments,
//! code snippets) and assistant conversations, read in the hosted export's shapes.
//!
//! Cursors are opaque to clients: a page of searches (ranked by hits, so new searches can
//! move a query) is its offset in that ranking; feedback and conversations, newest first,
//! page by the time and id of the last row sent, so rows that arrive meanwhile never make
//! a page repeat or skip one.

mod seed;
mod write;

use std::collections::HashMap;

pub use seed::{INVENTED_IN, seed};
pub use write::{
    NewConversation, NewFeedback, Said, import_said, normal_query, record_said, record_search,
};

use super::db::StoreError;
use super::store::{Engine, Sql, Value};
use crate::api::format_timestamp;
use crate::api::signals::{
    AssistantPage, Conversation, FeedbackByPage, FeedbackItem, FeedbackPage, Kind, PageFeedback,
    SearchRow, SearchesPage, SignalsQuery, SignalsQueryError, SourceLink,
};

/// A page whose `nextCursor` the service signs before sending it.
pub trait NextCursor {
    fn next_cursor(&mut self) -> Option<&mut String>;
}

impl NextCursor for SearchesPage {
    fn next_cursor(&mut self) -> Option<&mut String> {
        self.next_cursor.as_mut()
    }
}

impl NextCursor for FeedbackPage {
    fn next_cursor(&mut self) -> Option<&mut String> {
        self.next_cursor.as_mut()
    }
}

impl NextCursor for AssistantPage {
    fn next_cursor(&mut self) -> Option<&mut String> {
        self.next_cursor.as_mut()
    }
}

impl NextCursor for FeedbackByPage {
    fn next_cursor(&mut self) -> Option<&mut String> {
        None
    }
}

/// Where the next page starts, as read from a client's `cursor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cursor {
    First,
    /// Rows of the ranking already sent.
    Offset(u64),
    /// The time and id of the last row sent, newest first.
    After {
        ts_ms: i64,
        id: i64,
    },
}

impl Cursor {
    /// Reads the cursor of `query`, which must be one this service gave for its kind.
    pub fn of(query: &SignalsQuery) -> Result<Self, SignalsQueryError> {
        let Some(text) = query.cursor.as_deref() else {
            return Ok(Self::First);
        };
        let bad = || SignalsQueryError::Cursor(crate::text::excerpt(text, 64));
        match query.kind {
            Kind::Searches => text
                .strip_prefix("s.")
                .and_then(|n| n.parse().ok())
                .map(Self::Offset)
                .ok_or_else(bad),
            Kind::Feedback | Kind::Assistant => {
                let (ts, id) = text
                    .strip_prefix(prefix(query.kind))
                    .and_then(|rest| rest.split_once('.'))
                    .ok_or_else(bad)?;
                Ok(Self::After {
                    ts_ms: ts.parse().map_err(|_| bad())?,
                    id: id.parse().map_err(|_| bad())?,
                })
            }
            Kind::FeedbackByPage => Ok(Self::First),
        }
    }
}

impl Cursor {
    /// The time and id a newest-first read starts below: the last row sent, or above
    /// every row on the first page.
    fn below(self) -> (i64, i64) {
        match self {
            Self::After { ts_ms, id } => (ts_ms, id),
            _ => (i64::MAX, i64::MAX),
        }
    }
}

/// One page of a newest-first read of `kind` from `found` (its rows' time, id and item,
/// read one past `limit` to know whether more follow): the items, the cursor of the next
/// page (the time and id of the last row sent) and whether more follow.
fn newest_page<T>(
    mut found: Vec<(i64, i64, T)>,
    limit: i64,
    kind: Kind,
) -> (Vec<T>, Option<String>, bool) {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let has_more = found.len() > limit;
    found.truncate(limit);
    let next_cursor = has_more
        .then(|| {
            found
                .last()
                .map(|(ts, id, _)| format!("{}{ts}.{id}", prefix(kind)))
        })
        .flatten();
    let items = found.into_iter().map(|(_, _, item)| item).collect();
    (items, next_cursor, has_more)
}

fn prefix(kind: Kind) -> &'static str {
    match kind {
        Kind::Feedback => "f.",
        _ => "a.",
    }
}

fn time(ts_ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ts_ms)
        .map(|t| format_timestamp(&t))
        .unwrap_or_default()
}

fn range(query: &SignalsQuery) -> (i64, i64) {
    (
        query.date_from.map_or(i64::MIN, |d| d.millis()),
        query.date_to.map_or(i64::MAX, |d| d.millis()),
    )
}

/// Per query: hits, clicks, the last time, and the clicks of each page.
type Tally = (u64, u64, i64, Vec<(String, u64)>);

/// Searches of the range by query, most searched first (then by query), with the share
/// followed by a click and the page clicked most (then the first by path).
pub fn searches(
    sql: &mut dyn Sql,
    project: &str,
    query: &SignalsQuery,
    cursor: Cursor,
) -> Result<SearchesPage, StoreError> {
    let (from, to) = range(query);
    let rows = sql.rows(
        "SELECT query, clicked, COUNT(*), MAX(ts_ms) FROM searches
         WHERE project = $1 AND ts_ms >= $2 AND ts_ms < $3 GROUP BY query, clicked",
        &[project.into(), from.into(), to.into()],
    )?;
    let mut by_query: HashMap<String, Tally> = HashMap::new();
    for row in rows {
        let text = row.text(0)?;
        let clicked = row.opt_text(1)?;
        let n = u64::try_from(row.int(2)?).unwrap_or(0);
        let last = row.int(3)?;
        let entry = by_query.entry(text).or_insert((0, 0, i64::MIN, Vec::new()));
        entry.0 += n;
        entry.2 = entry.2.max(last);
        if let Some(page) = clicked {
            entry.1 += n;
            entry.3.push((page, n));
        }
    }
    let total_searches = by_query.values().map(|entry| entry.0).sum();
    let mut ranked: Vec<SearchRow> = by_query
        .into_iter()
        .map(|(text, (hits, clicks, last, mut pages))| {
            pages.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            #[allow(clippy::cast_precision_loss)]
            let ctr = if hits == 0 {
                0.0
            } else {
                clicks as f64 / hits as f64
            };
            SearchRow {
                search_query: text,
                hits,
                ctr: (ctr * 10_000.0).round() / 10_000.0,
                top_clicked_page: pages.into_iter().next().map(|(page, _)| page),
                last_searched_at: time(last),
            }
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.hits
            .cmp(&a.hits)
            .then_with(|| a.search_query.cmp(&b.search_query))
    });
    let offset = match cursor {
        Cursor::Offset(n) => usize::try_from(n).unwrap_or(usize::MAX),
        _ => 0,
    };
    let limit = query.effective_limit() as usize;
    let end = offset.saturating_add(limit);
    let next_cursor = (ranked.len() > end).then(|| format!("s.{end}"));
    let searches = ranked.into_iter().skip(offset).take(limit).collect();
    Ok(SearchesPage {
        searches,
        total_searches,
        next_cursor,
    })
}

/// The `WHERE` of a feedback read: the range and the optional filters (`status` a list
/// of statuses, comma-separated), on `engine` (whose function that finds text in text
/// differs).
fn feedback_where(engine: Engine) -> String {
    let find = match engine {
        Engine::Sqlite => "instr(',' || $5 || ',', ',' || status || ',')",
        Engine::Postgres => "strpos(',' || $5::text || ',', ',' || status || ',')",
    };
    format!(
        "project = $1 AND ts_ms >= $2 AND ts_ms < $3
         AND ($4::text IS NULL OR source = $4::text) AND ($5::text IS NULL OR {find} > 0)"
    )
}

/// The parameters of a feedback read: those of [`feedback_where`] (`$1` to `$5`), then
/// `more`.
fn feedback_params<const N: usize>(
    project: &str,
    query: &SignalsQuery,
    more: [Value; N],
) -> Vec<Value> {
    let (from, to) = range(query);
    let mut params = vec![
        project.into(),
        from.into(),
        to.into(),
        write::text(query.source.as_ref()),
        write::text(query.status.as_ref()),
    ];
    params.extend(more);
    params
}

fn cast_free(engine: Engine, sql: &str) -> String {
    // SQLite reads `::text` as nothing it knows: it is PostgreSQL's, to type a parameter
    // that is only compared with NULL.
    match engine {
        Engine::Sqlite => sql.replace("::text", ""),
        Engine::Postgres => sql.to_owned(),
    }
}

/// Feedback of the range, newest first.
pub fn feedback(
    sql: &mut dyn Sql,
    project: &str,
    query: &SignalsQuery,
    cursor: Cursor,
) -> Result<FeedbackPage, StoreError> {
    let (after_ts, after_id) = cursor.below();
    let limit = i64::from(query.effective_limit());
    let engine = sql.engine();
    let text = cast_free(
        engine,
        &format!(
            "SELECT id, ts_ms, path, comment, source, status, helpful, contact, code, filename, lang
             FROM feedback WHERE {} AND (ts_ms, id) < ($6, $7)
             ORDER BY ts_ms DESC, id DESC LIMIT $8",
            feedback_where(engine)
        ),
    );
    let rows = sql.rows(
        &text,
        &feedback_params(
            project,
            query,
            [after_ts.into(), after_id.into(), (limit + 1).into()],
        ),
    )?;
    let mut found: Vec<(i64, i64, FeedbackItem)> = Vec::with_capacity(rows.len());
    for row in rows {
        let id = row.int(0)?;
        let ts = row.int(1)?;
        let source = row.text(4)?;
        let helpful = row.opt_int(6)?.map(|value| value != 0);
        let with_thumb = matches!(source.as_str(), "contextual" | "thumbs_only");
        let snippet = source == "code_snippet";
        found.push((
            ts,
            id,
            FeedbackItem {
                id: format!("fb_{id}"),
                path: row.text(2)?,
                comment: row.opt_text(3)?,
                created_at: Some(time(ts)),
                status: row.text(5)?,
                helpful: if with_thumb { helpful } else { None },
                contact: if source == "contextual" {
                    Some(row.opt_text(7)?)
                } else {
                    None
                },
                code: if snippet { row.opt_text(8)? } else { None },
                filename: if snippet {
                    Some(row.opt_text(9)?)
                } else {
                    None
                },
                lang: if snippet {
                    Some(row.opt_text(10)?)
                } else {
                    None
                },
                source,
            },
        ));
    }
    let (items, next_cursor, has_more) = newest_page(found, limit, Kind::Feedback);
    Ok(FeedbackPage {
        feedback: items,
        next_cursor,
        has_more,
    })
}

/// Feedback of the range counted per page (a URL sent as the path counts under its
/// page's path, as views do), most first, then by path.
pub fn feedback_by_page(
    sql: &mut dyn Sql,
    project: &str,
    query: &SignalsQuery,
) -> Result<FeedbackByPage, StoreError> {
    let limit = i64::from(query.effective_limit());
    let engine = sql.engine();
    // Paths in byte order, as docdeck compares text (PostgreSQL's may follow a language).
    let by_path = match engine {
        Engine::Sqlite => "page",
        Engine::Postgres => "page COLLATE \"C\"",
    };
    let text = cast_free(
        engine,
        &format!(
            "SELECT page, SUM(CASE WHEN helpful = 1 THEN 1 ELSE 0 END),
                    SUM(CASE WHEN helpful = 0 THEN 1 ELSE 0 END),
                    SUM(CASE WHEN source = 'code_snippet' THEN 1 ELSE 0 END), COUNT(*) AS n
             FROM feedback WHERE {}
             GROUP BY page ORDER BY n DESC, {by_path} LIMIT $6",
            feedback_where(engine)
        ),
    );
    let count = |value: i64| u64::try_from(value).unwrap_or(0);
    let rows = sql.rows(
        &text,
        &feedback_params(project, query, [(limit + 1).into()]),
    )?;
    let mut pages = Vec::with_capacity(rows.len());
    for row in rows {
        pages.push(PageFeedback {
            path: row.text(0)?,
            thumbs_up: count(row.int(1)?),
            thumbs_down: count(row.int(2)?),
            code: count(row.int(3)?),
            total: count(row.int(4)?),
        });
    }
    let has_more = pages.len() > usize::try_from(limit).unwrap_or(usize::MAX);
    pages.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    Ok(FeedbackByPage {
        feedback: pages,
        has_more,
    })
}

/// Assistant conversations of the range, newest first.
pub fn assistant(
    sql: &mut dyn Sql,
    project: &str,
    query: &SignalsQuery,
    cursor: Cursor,
) -> Result<AssistantPage, StoreError> {
    let (from, to) = range(query);
    let (after_ts, after_id) = cursor.below();
    let limit = i64::from(query.effective_limit());
    let rows = sql.rows(
        "SELECT id, ts_ms, query, response, response_type, sources, answered, category, page_url
         FROM assistant WHERE project = $1 AND ts_ms >= $2 AND ts_ms < $3
           AND (ts_ms, id) < ($4, $5)
         ORDER BY ts_ms DESC, id DESC LIMIT $6",
        &[
            project.into(),
            from.into(),
            to.into(),
            after_ts.into(),
            after_id.into(),
            (limit + 1).into(),
        ],
    )?;
    let mut found: Vec<(i64, i64, Conversation)> = Vec::with_capacity(rows.len());
    for row in rows {
        let id = row.int(0)?;
        let ts = row.int(1)?;
        let sources = row.text(5)?;
        let answered = row.flag(6)?;
        found.push((
            ts,
            id,
            Conversation {
                id: format!("conv_{id}"),
                timestamp: time(ts),
                query: row.text(2)?,
                response: row.text(3)?,
                response_type: row.opt_text(4)?,
                sources: serde_json::from_str::<Vec<SourceLink>>(&sources).unwrap_or_default(),
                resolution_status: if answered { "answered" } else { "unanswered" }.to_owned(),
                query_category: row.opt_text(7)?,
                page_url: row.opt_text(8)?,
            },
        ));
    }
    let (items, next_cursor, has_more) = newest_page(found, limit, Kind::Assistant);
    Ok(AssistantPage {
        conversations: items,
        next_cursor,
        has_more,
    })
}

#[cfg(test)]
mod tests;
