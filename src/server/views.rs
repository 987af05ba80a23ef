//! The service's page views and the visitors counted over them (what `/visitors` answers):
//! distinct visitors over `[from, to)`, split into human and AI traffic, site-wide and per
//! page, in the total order of DESIGN.

use std::collections::HashMap;

use rusqlite::{Connection, params};

use super::db::StoreError;
use super::store::Sql;
use crate::api::{PathVisitors, VisitorTotals, VisitorsPage};

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
///
/// One pass reads `(page, visitor, ai)` of every view in the range through the time index;
/// the distinct counts are then made in memory by sorting packed keys, which is many times
/// faster than SQLite's `COUNT(DISTINCT ...)` per group (BENCHMARKS.md). Pages are ordered
/// `total DESC, path ASC`, a total order, so offset pages never overlap or skip.
pub fn visitors(
    conn: &Connection,
    project: &str,
    request: &VisitorsRequest,
) -> Result<VisitorsPage, StoreError> {
    let from = request.from_ms.unwrap_or(i64::MIN);
    let to = request.to_ms.unwrap_or(i64::MAX);
    // Key: page id, visitor id, ai bit. Ids are SQLite rowids (positive i64).
    let mut views: Vec<u128> = Vec::new();
    let mut statement = conn.prepare_cached(
        "SELECT page_id, visitor_id, ai FROM views
         WHERE project = ?1 AND ts_ms >= ?2 AND ts_ms < ?3",
    )?;
    let mut rows = statement.query(params![project, from, to])?;
    while let Some(row) = rows.next()? {
        let page = id(row, 0)?;
        let visitor = id(row, 1)?;
        let ai = u128::from(row.get::<_, i64>(2)? != 0);
        views.push((page << 65) | (visitor << 1) | ai);
    }
    let paths = page_paths(conn, project)?;
    Ok(count_views(views, &paths, request))
}

/// The visitors answer from the range's views as keys `page << 65 | visitor << 1 | ai`
/// (ids as unsigned): the distinct counts are made by sorting the keys, so both stores
/// give the same numbers and order. `paths` names the pages by id.
pub fn count_views(
    mut views: Vec<u128>,
    paths: &HashMap<i64, String>,
    request: &VisitorsRequest,
) -> VisitorsPage {
    views.sort_unstable();
    views.dedup();

    // Per page: walk each (page, visitor) group, which holds one or two keys (human, AI).
    let mut pages: Vec<(i64, VisitorTotals)> = Vec::new();
    let mut by_visitor: Vec<u128> = Vec::with_capacity(views.len());
    let mut i = 0;
    while i < views.len() {
        let (page, visitor) = (views[i] >> 65, (views[i] >> 1) & u128::from(u64::MAX));
        let mut flags = 0u8;
        while i < views.len() && views[i] >> 1 == (page << 64) | visitor {
            flags |= 1 << (views[i] & 1);
            by_visitor.push(views[i] & ((u128::from(u64::MAX) << 1) | 1));
            i += 1;
        }
        let page = i64::try_from(page).unwrap_or(i64::MAX);
        if pages.last().is_none_or(|(last, _)| *last != page) {
            pages.push((page, VisitorTotals::default()));
        }
        if let Some((_, counts)) = pages.last_mut() {
            count_visitor(counts, flags);
        }
    }
    drop(views);

    // Site-wide: the same walk over (visitor, ai) alone.
    by_visitor.sort_unstable();
    by_visitor.dedup();
    let mut totals = VisitorTotals::default();
    let mut i = 0;
    while i < by_visitor.len() {
        let visitor = by_visitor[i] >> 1;
        let mut flags = 0u8;
        while i < by_visitor.len() && by_visitor[i] >> 1 == visitor {
            flags |= 1 << (by_visitor[i] & 1);
            i += 1;
        }
        count_visitor(&mut totals, flags);
    }

    let mut rows: Vec<PathVisitors> = pages
        .into_iter()
        .map(|(page, counts)| PathVisitors {
            path: paths.get(&page).cloned().unwrap_or_default(),
            human: counts.human,
            ai: counts.ai,
            total: counts.total,
        })
        .collect();
    rows.sort_unstable_by(|a, b| b.total.cmp(&a.total).then_with(|| a.path.cmp(&b.path)));
    let offset = usize::try_from(request.offset).unwrap_or(usize::MAX);
    let limit = request.limit as usize;
    let has_more = rows.len() > offset.saturating_add(limit);
    let visitors = rows.into_iter().skip(offset).take(limit).collect();
    VisitorsPage {
        totals,
        visitors,
        has_more,
    }
}

/// Adds one visitor whose views were human (bit 0 of `flags`) and/or AI (bit 1).
fn count_visitor(counts: &mut VisitorTotals, flags: u8) {
    counts.human += u64::from(flags & 1);
    counts.ai += u64::from(flags >> 1);
    counts.total += 1;
}

/// A page or visitor id, which SQLite gives as a positive rowid.
fn id(row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<u128> {
    Ok(u128::from(
        u64::try_from(row.get::<_, i64>(index)?).unwrap_or(0),
    ))
}

/// Every page path of the project by id (thousands at most: one row per page, not view).
fn page_paths(conn: &Connection, project: &str) -> Result<HashMap<i64, String>, StoreError> {
    let mut statement = conn.prepare_cached("SELECT id, path FROM pages WHERE project = ?1")?;
    let paths = statement
        .query_map([project], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<Result<_, _>>()?;
    Ok(paths)
}

/// The first and last instants of `project`'s views, in ms (`None` without a view): what
/// an empty range is told, so a client can offer the dates that hold views.
pub fn span(sql: &mut dyn Sql, project: &str) -> Result<Option<(i64, i64)>, StoreError> {
    let row = sql.one(
        "SELECT MIN(ts_ms), MAX(ts_ms) FROM views WHERE project = $1",
        crate::args![project],
    )?;
    Ok(row.opt_int(0)?.zip(row.opt_int(1)?))
}

/// Whether any view of `project` is stored (the demo seed runs only on an empty project).
pub fn has_views(conn: &Connection, project: &str) -> Result<bool, StoreError> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM views WHERE project = ?1)",
        [project],
        |row| row.get(0),
    )?)
}

mod write;
pub use write::{BATCH, Lookup, ViewRow, ViewWriter, insert_views, intern, store_rows};
pub(crate) use write::{repeated, sizes, with_statement};

#[cfg(test)]
mod tests;
