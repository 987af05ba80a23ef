//! The visitors count on PostgreSQL: the same numbers and order as the SQLite store's, by
//! the same code (`views::count_views`). PostgreSQL reads the range's views through
//! the time index and sends each as two integers by binary `COPY` (page, visitor and AI
//! bit), read here straight from the stream; docdeck sorts and counts them. Counting
//! inside PostgreSQL (`count(DISTINCT …)` per page and overall) sorted the range seven
//! times, spilling past the default `work_mem`: 5.5 s over 3.3M views where this takes
//! about 1.5 s (BENCHMARKS.md).

use std::collections::HashMap;
use std::io::{BufReader, Read};

use postgres::Client;

use crate::api::VisitorsPage;
use crate::server::db::StoreError;
use crate::server::pg::PgStore;
use crate::server::views::{VisitorsRequest, count_views};

/// The range's views, by `COPY`, whose statement takes no parameters: the project and the
/// bounds are set for the transaction (`set_config`) and read back by the query, so no
/// value is ever spliced into SQL text.
const COPY_RANGE: &str = "COPY (SELECT page_id, (visitor_id << 1) | ai FROM views
     WHERE project = current_setting('docdeck.project')
       AND ts_ms >= current_setting('docdeck.from')::bigint
       AND ts_ms < current_setting('docdeck.to')::bigint) TO STDOUT (FORMAT binary)";

/// Distinct visitors of `project` over the request's range: each visitor once per column
/// (human, AI) and once in `total`; pages by `total DESC, path ASC` (byte order, as
/// docdeck compares strings), then the request's page of them.
pub fn visitors(
    client: &mut Client,
    project: &str,
    request: &VisitorsRequest,
) -> Result<VisitorsPage, StoreError> {
    visitors_in(client, None, project, request)
}

/// [`visitors`], the range read as two halves at once: this connection's `COPY` of the
/// first half, and one of `store`'s of the second, in the same snapshot (exported by the
/// first, imported by the second), so the count is of one state of the table. Each half
/// is read by a thread of its own; on two cores the whole read takes about two thirds of
/// one stream's time (BENCHMARKS.md).
pub fn visitors_split(
    store: &PgStore,
    client: &mut Client,
    project: &str,
    request: &VisitorsRequest,
) -> Result<VisitorsPage, StoreError> {
    visitors_in(client, Some(store), project, request)
}

fn visitors_in(
    client: &mut Client,
    second: Option<&PgStore>,
    project: &str,
    request: &VisitorsRequest,
) -> Result<VisitorsPage, StoreError> {
    let from = request.from_ms.unwrap_or(i64::MIN);
    let to = request.to_ms.unwrap_or(i64::MAX);
    let mut tx = client
        .build_transaction()
        .read_only(true)
        .isolation_level(postgres::IsolationLevel::RepeatableRead)
        .start()?;
    let paths: HashMap<i64, String> = tx
        .query("SELECT id, path FROM pages WHERE project = $1", &[&project])?
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    // The middle of the views' times in the range (two index lookups), where it splits.
    let middle = match second {
        None => None,
        Some(_) => {
            let row = tx.query_one(
                "SELECT min(ts_ms), max(ts_ms) FROM views
                 WHERE project = $1 AND ts_ms >= $2 AND ts_ms < $3",
                &[&project, &from, &to],
            )?;
            match (row.get::<_, Option<i64>>(0), row.get::<_, Option<i64>>(1)) {
                (Some(first), Some(last)) if first < last => Some(first + (last - first) / 2),
                _ => None,
            }
        }
    };
    let (Some(store), Some(middle)) = (second, middle) else {
        let views = copy_range(&mut tx, project, from, to)?;
        tx.commit()?;
        return Ok(count_views(views, &paths, request));
    };
    let snapshot: String = tx.query_one("SELECT pg_export_snapshot()", &[])?.get(0);
    let (first, later) = std::thread::scope(|scope| {
        let later = scope.spawn(|| {
            store.blocking(|other| {
                let mut tx = other
                    .build_transaction()
                    .read_only(true)
                    .isolation_level(postgres::IsolationLevel::RepeatableRead)
                    .start()?;
                // A snapshot id is PostgreSQL's own text (such as 00000003-0000001B-1);
                // it cannot be a parameter of SET, so it is checked before it is spliced.
                if !snapshot.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
                    return Err(StoreError::Postgres(format!(
                        "an exported snapshot id reads {snapshot:?}"
                    )));
                }
                tx.batch_execute(&format!("SET TRANSACTION SNAPSHOT '{snapshot}'"))?;
                let views = copy_range(&mut tx, project, middle, to)?;
                tx.commit()?;
                Ok(views)
            })
        });
        let first = copy_range(&mut tx, project, from, middle);
        (first, later.join())
    });
    let later = later.map_err(|_| StoreError::Task("a reader of the views stopped".into()))??;
    let mut views = first?;
    tx.commit()?;
    views.extend(later);
    Ok(count_views(views, &paths, request))
}

/// The views of `project` in `[from, to)` by `COPY`, in the caller's transaction.
fn copy_range(
    tx: &mut postgres::Transaction<'_>,
    project: &str,
    from: i64,
    to: i64,
) -> Result<Vec<u128>, StoreError> {
    tx.execute(
        "SELECT set_config('docdeck.project', $1, true), set_config('docdeck.from', $2, true),
                set_config('docdeck.to', $3, true)",
        &[&project, &from.to_string(), &to.to_string()],
    )?;
    read_keys(tx.copy_out(COPY_RANGE)?)
}

fn damaged(what: &str) -> StoreError {
    StoreError::Postgres(format!("the views' COPY stream {what}"))
}

/// Reads `COPY … (FORMAT binary)` of two `BIGINT` columns (page, visitor << 1 | ai) as
/// the keys `count_views` sorts, a row at a time (the stream is never held whole).
fn read_keys(reader: impl Read) -> Result<Vec<u128>, StoreError> {
    let mut reader = BufReader::with_capacity(1 << 16, reader);
    let mut exact = |buf: &mut [u8], what: &str| {
        reader.read_exact(buf).map_err(|err| match err.kind() {
            std::io::ErrorKind::UnexpectedEof => damaged(what),
            _ => StoreError::Postgres(format!("reading the views' COPY stream: {err}")),
        })
    };
    // Signature (11 bytes), flags (4), header extension length (4) and the extension.
    let mut header = [0u8; 19];
    exact(&mut header, "has no binary COPY header")?;
    if &header[..11] != b"PGCOPY\n\xff\r\n\0" {
        return Err(damaged("has no binary COPY header"));
    }
    let extension = u32::from_be_bytes([header[15], header[16], header[17], header[18]]);
    let mut skip = vec![0u8; usize::try_from(extension).unwrap_or(0).min(1 << 20)];
    exact(&mut skip, "ends inside its header")?;
    let int = |bytes: &[u8]| -> u128 {
        let mut word = [0u8; 8];
        word.copy_from_slice(bytes);
        u128::from(u64::from_be_bytes(word))
    };
    let mut views = Vec::new();
    // A row: its field count (2 bytes), then per field its length (4 bytes) and value (8).
    let mut row = [0u8; 2 + 2 * (4 + 8)];
    loop {
        exact(&mut row[..2], "ends before its trailer")?;
        if row[..2] == [0xff, 0xff] {
            return Ok(views);
        }
        exact(&mut row[2..], "ends inside a row")?;
        if row[..2] != [0, 2] || row[2..6] != [0, 0, 0, 8] || row[14..18] != [0, 0, 0, 8] {
            return Err(damaged("holds a row that is not two 8-byte integers"));
        }
        views.push((int(&row[6..14]) << 65) | int(&row[18..26]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(rows: &[(i64, i64)]) -> Vec<u8> {
        let mut out = b"PGCOPY\n\xff\r\n\0".to_vec();
        out.extend([0u8; 8]);
        for (a, b) in rows {
            out.extend(2i16.to_be_bytes());
            out.extend(8i32.to_be_bytes());
            out.extend(a.to_be_bytes());
            out.extend(8i32.to_be_bytes());
            out.extend(b.to_be_bytes());
        }
        out.extend((-1i16).to_be_bytes());
        out
    }

    #[test]
    fn a_binary_copy_of_two_integers_reads_as_keys() {
        let keys = read_keys(&stream(&[(3, 9), (1, 4)])[..]).unwrap();
        assert_eq!(keys, [(3u128 << 65) | 9, (1u128 << 65) | 4]);
    }

    #[test]
    fn a_cut_or_strange_stream_is_refused_not_read_past() {
        let whole = stream(&[(3, 9)]);
        for cut in [0, 5, 19, 25, whole.len() - 2] {
            assert!(read_keys(&whole[..cut]).is_err(), "cut at {cut}");
        }
        let mut null = whole.clone();
        null[21..25].copy_from_slice(&(-1i32).to_be_bytes());
        assert!(read_keys(&null[..]).is_err());
    }
}
