//! The visitors count on PostgreSQL: the same numbers and order as the SQLite store's
//! (`analytics::visitors`), counted inside PostgreSQL, where only one row per page comes
//! back. Streaming the range's views out to count them in docdeck, as the SQLite store
//! does in-process, costs a socket's worth per view (BENCHMARKS.md).

use postgres::Client;

use crate::api::{PathVisitors, VisitorTotals, VisitorsPage};
use crate::server::analytics::VisitorsRequest;
use crate::server::db::StoreError;

fn count(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// Distinct visitors of `project` over the request's range: each visitor once per column
/// (human, AI) and once in `total`; pages by `total DESC, path ASC` (byte order, as
/// docdeck compares strings), then the request's page of them.
pub fn visitors(
    client: &mut Client,
    project: &str,
    request: &VisitorsRequest,
) -> Result<VisitorsPage, StoreError> {
    let from = request.from_ms.unwrap_or(i64::MIN);
    let to = request.to_ms.unwrap_or(i64::MAX);
    let limit = i64::from(request.limit);
    let offset = i64::try_from(request.offset).unwrap_or(i64::MAX);
    let mut tx = client.build_transaction().read_only(true).start()?;
    let totals = tx.query_one(
        "SELECT count(DISTINCT visitor_id) FILTER (WHERE ai = 0),
                count(DISTINCT visitor_id) FILTER (WHERE ai = 1),
                count(DISTINCT visitor_id)
         FROM views WHERE project = $1 AND ts_ms >= $2 AND ts_ms < $3",
        &[&project, &from, &to],
    )?;
    // One row more than asked says whether there are more.
    let rows = tx.query(
        "SELECT p.path, c.human, c.ai, c.total FROM (
           SELECT page_id,
                  count(DISTINCT visitor_id) FILTER (WHERE ai = 0) AS human,
                  count(DISTINCT visitor_id) FILTER (WHERE ai = 1) AS ai,
                  count(DISTINCT visitor_id) AS total
           FROM views WHERE project = $1 AND ts_ms >= $2 AND ts_ms < $3
           GROUP BY page_id) c
         JOIN pages p ON p.id = c.page_id
         ORDER BY c.total DESC, p.path COLLATE \"C\"
         LIMIT $4::bigint + 1 OFFSET $5::bigint",
        &[&project, &from, &to, &limit, &offset],
    )?;
    tx.commit()?;
    let has_more = rows.len() > usize::try_from(limit).unwrap_or(usize::MAX);
    let visitors = rows
        .iter()
        .take(usize::try_from(limit).unwrap_or(usize::MAX))
        .map(|row| PathVisitors {
            path: row.get(0),
            human: count(row.get(1)),
            ai: count(row.get(2)),
            total: count(row.get(3)),
        })
        .collect();
    Ok(VisitorsPage {
        totals: VisitorTotals {
            human: count(totals.get(0)),
            ai: count(totals.get(1)),
            total: count(totals.get(2)),
        },
        visitors,
        has_more,
    })
}
