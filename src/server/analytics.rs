//! Visitor analytics of the local service: distinct visitors over `[from, to)`, split into
//! human and AI traffic, site-wide and per page, in the total order of DESIGN.

use std::collections::HashMap;

use rusqlite::{Connection, Transaction, params};

use super::db::StoreError;
use crate::api::{PageVisitors, VisitorTotals, VisitorsPage};

/// Which column a view counts in. Crawler views are never stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Traffic {
    Human,
    Ai,
}

/// One content view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewEvent {
    pub ts_ms: i64,
    pub path: String,
    pub visitor: String,
    pub traffic: Traffic,
}

/// A visitors request after validation: times in ms, `None` meaning unbounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VisitorsRequest {
    pub from_ms: Option<i64>,
    pub to_ms: Option<i64>,
    pub limit: u32,
    pub offset: u64,
}

/// Counts over the range. Each visitor counts once per column, and once in `total` however
/// it was classified, so `max(human, ai) <= total <= human + ai` holds by construction.
pub fn visitors(
    conn: &Connection,
    project: &str,
    request: &VisitorsRequest,
) -> Result<VisitorsPage, StoreError> {
    let from = request.from_ms.unwrap_or(i64::MIN);
    let to = request.to_ms.unwrap_or(i64::MAX);
    let totals = conn.query_row(
        "SELECT COUNT(DISTINCT CASE WHEN ai = 0 THEN visitor_id END),
                COUNT(DISTINCT CASE WHEN ai = 1 THEN visitor_id END),
                COUNT(DISTINCT visitor_id)
         FROM views WHERE project = ?1 AND ts_ms >= ?2 AND ts_ms < ?3",
        params![project, from, to],
        |row| {
            Ok(VisitorTotals {
                human: count(row, 0)?,
                ai: count(row, 1)?,
                total: count(row, 2)?,
            })
        },
    )?;
    // One row more than asked for tells whether another page exists.
    let fetch = i64::from(request.limit) + 1;
    let offset = i64::try_from(request.offset).unwrap_or(i64::MAX);
    let mut statement = conn.prepare_cached(
        "SELECT p.path, g.human, g.ai, g.total FROM (
             SELECT page_id,
                    COUNT(DISTINCT CASE WHEN ai = 0 THEN visitor_id END) AS human,
                    COUNT(DISTINCT CASE WHEN ai = 1 THEN visitor_id END) AS ai,
                    COUNT(DISTINCT visitor_id) AS total
             FROM views WHERE project = ?1 AND ts_ms >= ?2 AND ts_ms < ?3
             GROUP BY page_id
         ) g JOIN pages p ON p.id = g.page_id
         ORDER BY g.total DESC, p.path ASC
         LIMIT ?4 OFFSET ?5",
    )?;
    let mut rows = statement
        .query_map(params![project, from, to, fetch, offset], |row| {
            Ok(PageVisitors {
                path: row.get(0)?,
                human: count(row, 1)?,
                ai: count(row, 2)?,
                total: count(row, 3)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let has_more = rows.len() > request.limit as usize;
    rows.truncate(request.limit as usize);
    Ok(VisitorsPage {
        totals,
        visitors: rows,
        has_more,
    })
}

/// A `COUNT` column, which SQLite returns as a signed integer.
fn count(row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<u64> {
    Ok(u64::try_from(row.get::<_, i64>(index)?).unwrap_or(0))
}

/// Appends views inside the caller's transaction, so an import is all or nothing.
pub fn insert_views(
    tx: &Transaction<'_>,
    project: &str,
    events: &[ViewEvent],
) -> Result<(), StoreError> {
    let mut writer = ViewWriter::new(project);
    events.iter().try_for_each(|event| writer.write(tx, event))
}

/// Writes views one at a time, remembering the ids of pages and visitors already seen, so
/// large imports stream instead of being held in memory.
pub struct ViewWriter {
    project: String,
    pages: Interner,
    visitors: Interner,
}

impl ViewWriter {
    #[must_use]
    pub fn new(project: &str) -> Self {
        Self {
            project: project.to_owned(),
            pages: Interner::new("pages", "path"),
            visitors: Interner::new("visitors", "visitor"),
        }
    }

    /// Stores one view inside the caller's transaction.
    pub fn write(&mut self, tx: &Transaction<'_>, event: &ViewEvent) -> Result<(), StoreError> {
        let page = self.pages.id(tx, &self.project, &event.path)?;
        let visitor = self.visitors.id(tx, &self.project, &event.visitor)?;
        tx.prepare_cached(
            "INSERT INTO views (project, ts_ms, page_id, visitor_id, ai) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![
            self.project,
            event.ts_ms,
            page,
            visitor,
            event.traffic == Traffic::Ai
        ])?;
        Ok(())
    }
}

/// Whether any view of `project` is stored (the demo seed runs only on an empty project).
pub fn has_views(conn: &Connection, project: &str) -> Result<bool, StoreError> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM views WHERE project = ?1)",
        [project],
        |row| row.get(0),
    )?)
}

/// Maps strings to integer ids of a lookup table, remembering those already seen.
struct Interner {
    table: &'static str,
    column: &'static str,
    known: HashMap<String, i64>,
}

impl Interner {
    fn new(table: &'static str, column: &'static str) -> Self {
        Self {
            table,
            column,
            known: HashMap::new(),
        }
    }

    fn id(&mut self, tx: &Transaction<'_>, project: &str, value: &str) -> Result<i64, StoreError> {
        if let Some(id) = self.known.get(value) {
            return Ok(*id);
        }
        let sql = format!(
            "INSERT INTO {table} (project, {column}) VALUES (?1, ?2)
             ON CONFLICT (project, {column}) DO UPDATE SET {column} = excluded.{column}
             RETURNING id",
            table = self.table,
            column = self.column
        );
        let id = tx
            .prepare_cached(&sql)?
            .query_row(params![project, value], |row| row.get(0))?;
        self.known.insert(value.to_owned(), id);
        Ok(id)
    }
}

#[cfg(test)]
mod tests;
