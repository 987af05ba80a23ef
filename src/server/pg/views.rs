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
    let from = request.from_ms.unwrap_or(i64::MIN);
    let to = request.to_ms.unwrap_or(i64::MAX);
    let mut tx = client
        .build_transaction()
        .read_only(true)
        .isolation_level(postgres::IsolationLevel::RepeatableRead)
        .start()?;
    tx.execute(
        "SELECT set_config('docdeck.project', $1, true), set_config('docdeck.from', $2, true),
                set_config('docdeck.to', $3, true)",
        &[&project, &from.to_string(), &to.to_string()],
    )?;
    let paths: HashMap<i64, String> = tx
        .query("SELECT id, path FROM pages WHERE project = $1", &[&project])?
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    let views = read_keys(tx.copy_out(COPY_RANGE)?)?;
    tx.commit()?;
    Ok(count_views(views, &paths, request))
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
