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

use rusqlite::{Connection, params};

pub use seed::{INVENTED_IN, seed};
pub use write::{
    NewConversation, NewFeedback, normal_query, record_conversation, record_feedback, record_search,
};

use super::db::StoreError;
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
    conn: &Connection,
    project: &str,
    query: &SignalsQuery,
    cursor: Cursor,
) -> Result<SearchesPage, StoreError> {
    let (from, to) = range(query);
    let mut statement = conn.prepare_cached(
        "SELECT query, clicked, COUNT(*), MAX(ts_ms) FROM searches
         WHERE project = ?1 AND ts_ms >= ?2 AND ts_ms < ?3 GROUP BY query, clicked",
    )?;
    let mut by_query: HashMap<String, Tally> = HashMap::new();
    let mut rows = statement.query(params![project, from, to])?;
    while let Some(row) = rows.next()? {
        let text: String = row.get(0)?;
        let clicked: Option<String> = row.get(1)?;
        let n = u64::try_from(row.get::<_, i64>(2)?).unwrap_or(0);
        let last: i64 = row.get(3)?;
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

/// The `WHERE` of a feedback read: the range, the optional filters and the cursor.
const FEEDBACK_WHERE: &str = "project = ?1 AND ts_ms >= ?2 AND ts_ms < ?3
    AND (?4 IS NULL OR source = ?4)
    AND (?5 IS NULL OR instr(',' || ?5 || ',', ',' || status || ',') > 0)";

/// Feedback of the range, newest first.
pub fn feedback(
    conn: &Connection,
    project: &str,
    query: &SignalsQuery,
    cursor: Cursor,
) -> Result<FeedbackPage, StoreError> {
    let (from, to) = range(query);
    let (after_ts, after_id) = match cursor {
        Cursor::After { ts_ms, id } => (ts_ms, id),
        _ => (i64::MAX, i64::MAX),
    };
    let limit = i64::from(query.effective_limit());
    let sql = format!(
        "SELECT id, ts_ms, path, comment, source, status, helpful, contact, code, filename, lang
         FROM feedback WHERE {FEEDBACK_WHERE} AND (ts_ms, id) < (?6, ?7)
         ORDER BY ts_ms DESC, id DESC LIMIT ?8"
    );
    let mut statement = conn.prepare_cached(&sql)?;
    let mut found: Vec<(i64, i64, FeedbackItem)> = statement
        .query_map(
            params![
                project,
                from,
                to,
                query.source,
                query.status,
                after_ts,
                after_id,
                limit + 1
            ],
            |row| {
                let id: i64 = row.get(0)?;
                let ts: i64 = row.get(1)?;
                let source: String = row.get(4)?;
                let helpful: Option<bool> = row.get(6)?;
                let with_thumb = matches!(source.as_str(), "contextual" | "thumbs_only");
                let snippet = source == "code_snippet";
                Ok((
                    ts,
                    id,
                    FeedbackItem {
                        id: format!("fb_{id}"),
                        path: row.get(2)?,
                        comment: row.get(3)?,
                        created_at: Some(time(ts)),
                        status: row.get(5)?,
                        helpful: if with_thumb { helpful } else { None },
                        contact: (source == "contextual").then(|| row.get(7)).transpose()?,
                        code: if snippet { row.get(8)? } else { None },
                        filename: snippet.then(|| row.get(9)).transpose()?,
                        lang: snippet.then(|| row.get(10)).transpose()?,
                        source,
                    },
                ))
            },
        )?
        .collect::<Result<_, _>>()?;
    let has_more = found.len() > usize::try_from(limit).unwrap_or(usize::MAX);
    found.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    let next_cursor = has_more
        .then(|| found.last().map(|(ts, id, _)| format!("f.{ts}.{id}")))
        .flatten();
    Ok(FeedbackPage {
        feedback: found.into_iter().map(|(_, _, item)| item).collect(),
        next_cursor,
        has_more,
    })
}

/// Feedback of the range counted per page (a URL sent as the path counts under its
/// page's path, as views do), most first, then by path.
pub fn feedback_by_page(
    conn: &Connection,
    project: &str,
    query: &SignalsQuery,
) -> Result<FeedbackByPage, StoreError> {
    let (from, to) = range(query);
    let limit = i64::from(query.effective_limit());
    let sql = format!(
        "SELECT page, SUM(helpful IS 1), SUM(helpful IS 0), SUM(source = 'code_snippet'), COUNT(*) AS n
         FROM feedback WHERE {FEEDBACK_WHERE}
         GROUP BY page ORDER BY n DESC, page ASC LIMIT ?6"
    );
    let count = |value: i64| u64::try_from(value).unwrap_or(0);
    let mut statement = conn.prepare_cached(&sql)?;
    let mut pages: Vec<PageFeedback> = statement
        .query_map(
            params![project, from, to, query.source, query.status, limit + 1],
            |row| {
                Ok(PageFeedback {
                    path: row.get(0)?,
                    thumbs_up: count(row.get(1)?),
                    thumbs_down: count(row.get(2)?),
                    code: count(row.get(3)?),
                    total: count(row.get(4)?),
                })
            },
        )?
        .collect::<Result<_, _>>()?;
    let has_more = pages.len() > usize::try_from(limit).unwrap_or(usize::MAX);
    pages.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    Ok(FeedbackByPage {
        feedback: pages,
        has_more,
    })
}

/// Assistant conversations of the range, newest first.
pub fn assistant(
    conn: &Connection,
    project: &str,
    query: &SignalsQuery,
    cursor: Cursor,
) -> Result<AssistantPage, StoreError> {
    let (from, to) = range(query);
    let (after_ts, after_id) = match cursor {
        Cursor::After { ts_ms, id } => (ts_ms, id),
        _ => (i64::MAX, i64::MAX),
    };
    let limit = i64::from(query.effective_limit());
    let mut statement = conn.prepare_cached(
        "SELECT id, ts_ms, query, response, response_type, sources, answered, category, page_url
         FROM assistant WHERE project = ?1 AND ts_ms >= ?2 AND ts_ms < ?3
           AND (ts_ms, id) < (?4, ?5)
         ORDER BY ts_ms DESC, id DESC LIMIT ?6",
    )?;
    let mut found: Vec<(i64, i64, Conversation)> = statement
        .query_map(
            params![project, from, to, after_ts, after_id, limit + 1],
            |row| {
                let id: i64 = row.get(0)?;
                let ts: i64 = row.get(1)?;
                let sources: String = row.get(5)?;
                let answered: bool = row.get(6)?;
                Ok((
                    ts,
                    id,
                    Conversation {
                        id: format!("conv_{id}"),
                        timestamp: time(ts),
                        query: row.get(2)?,
                        response: row.get(3)?,
                        response_type: row.get(4)?,
                        sources: serde_json::from_str::<Vec<SourceLink>>(&sources)
                            .unwrap_or_default(),
                        resolution_status: if answered { "answered" } else { "unanswered" }
                            .to_owned(),
                        query_category: row.get(7)?,
                        page_url: row.get(8)?,
                    },
                ))
            },
        )?
        .collect::<Result<_, _>>()?;
    let has_more = found.len() > usize::try_from(limit).unwrap_or(usize::MAX);
    found.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    let next_cursor = has_more
        .then(|| found.last().map(|(ts, id, _)| format!("a.{ts}.{id}")))
        .flatten();
    Ok(AssistantPage {
        conversations: found.into_iter().map(|(_, _, item)| item).collect(),
        next_cursor,
        has_more,
    })
}

#[cfg(test)]
mod tests;
