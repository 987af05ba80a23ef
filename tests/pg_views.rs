//! Visitors counts on PostgreSQL equal SQLite's on the same data, for every range and page
//! asked. And, for BENCHMARKS.md, what PostgreSQL takes to read the visitors of the last 30 days over
//! 1,000,000 and 10,000,000 views of 90 days (2,000 pages, a visitor pool of a fifth of
//! the views, a quarter AI: the shape of `benches/analytics.rs`). Two ways: the rows the
//! service's counting reads today, streamed out, and the counts made inside PostgreSQL.
//! Run: `cargo test --release --test pg_views -- --ignored --nocapture`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Instant;

use docdeck::server::db::{Db, DbLocation, ReadKind};
use docdeck::server::pg::{self, PgStore, PgUrl, bulk};
use docdeck::server::traffic::store::view_key;
use docdeck::server::views::{self, Traffic, ViewEvent, VisitorsRequest};
use postgres::fallible_iterator::FallibleIterator as _;

const DAY_MS: i64 = 86_400_000;

/// A fixture with ties in totals, visitors seen as both human and AI, paths that sort
/// differently by bytes than by a language's rules, and views outside most ranges.
fn fixture() -> Vec<String> {
    let paths = [
        "/a",
        "/B",
        "/b",
        "/Zeta",
        "/\u{e9}t\u{e9}",
        "/docs/x",
        "/docs/X",
        "/_",
    ];
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    (0..3000)
        .map(|_| {
            let day = 1 + next(28);
            let hour = next(24);
            let path = paths[usize::try_from(next(8)).unwrap()];
            let visitor = format!("v{}", next(400));
            let traffic = if next(4) == 0 { "ai" } else { "human" };
            common::view(
                &format!("2026-02-{day:02}T{hour:02}:00:00Z"),
                path,
                &visitor,
                traffic,
            )
        })
        .collect()
}

#[test]
fn visitors_on_postgres_equal_sqlite_for_every_range_and_page() {
    let url = pg_or_skip!();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("service.sqlite");
    common::import_views(&path, "demo", &fixture());
    let sqlite = Db::open(&DbLocation::File(path)).unwrap();
    // The same rows, ids included, into PostgreSQL.
    let (pages, visitors, rows) = sqlite
        .blocking(|c| {
            let pages: Vec<(i64, String, String)> = c
                .prepare("SELECT id, project, path FROM pages")?
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<Result<_, _>>()?;
            let visitors: Vec<(i64, String, String)> = c
                .prepare("SELECT id, project, visitor FROM visitors")?
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<Result<_, _>>()?;
            let views: Vec<(String, i64, i64, i64, i64)> = c
                .prepare("SELECT project, ts_ms, page_id, visitor_id, ai FROM views")?
                .query_map([], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                })?
                .collect::<Result<_, _>>()?;
            Ok((pages, visitors, views))
        })
        .unwrap();
    assert!(rows.len() > 2000, "the fixture was imported");
    let store = PgStore::open(&PgUrl::parse(&url).unwrap()).unwrap();
    store
        .blocking(move |c| {
            let mut tx = c.transaction()?;
            for (id, project, path) in &pages {
                tx.execute("INSERT INTO pages (id, project, path) VALUES ($1, $2, $3)", &[id, project, path])?;
            }
            for (id, project, visitor) in &visitors {
                tx.execute(
                    "INSERT INTO visitors (id, project, visitor) VALUES ($1, $2, $3)",
                    &[id, project, visitor],
                )?;
            }
            for (project, ts, page, visitor, ai) in &rows {
                let ai = i16::try_from(*ai).unwrap();
                tx.execute(
                    "INSERT INTO views (project, ts_ms, page_id, visitor_id, ai) VALUES ($1, $2, $3, $4, $5)",
                    &[project, ts, page, visitor, &ai],
                )?;
            }
            tx.commit()?;
            Ok(())
        })
        .unwrap();
    let day = |d: i64| Some(1_769_904_000_000 + (d - 1) * DAY_MS); // 2026-02-01 + d - 1
    let ranges = [
        (None, None),
        (day(1), day(29)),
        (day(3), day(4)),
        (day(10), day(17)),
        (day(28), day(29)),
        (day(40), day(41)),
        (day(5), day(5)),
    ];
    let mut compared = 0;
    for (from_ms, to_ms) in ranges {
        for (limit, offset) in [(50, 0), (3, 0), (3, 3), (3, 6), (1, 7), (10, 100)] {
            let request = VisitorsRequest {
                from_ms,
                to_ms,
                limit,
                offset,
            };
            let expected = {
                let sqlite = sqlite.clone();
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .build()
                    .unwrap();
                runtime
                    .block_on(sqlite.read(ReadKind::Scan, move |c| {
                        views::visitors(c, "demo", &request)
                    }))
                    .unwrap()
            };
            let got = store
                .blocking(move |c| pg::views::visitors(c, "demo", &request))
                .unwrap();
            assert_eq!(
                got, expected,
                "{from_ms:?}..{to_ms:?} limit {limit} offset {offset}"
            );
            // The range read as two halves at once (as `serve` reads it) counts the same.
            let split = store
                .blocking(|c| pg::views::visitors_split(&store, c, "demo", &request))
                .unwrap();
            assert_eq!(split, expected, "split: {from_ms:?}..{to_ms:?}");
            compared += 1;
        }
    }
    assert_eq!(compared, 42);
}

#[test]
#[ignore = "a benchmark: run by hand"]
fn bench_visitors_30_days_over_1m_and_10m_views() {
    let url = pg_or_skip!();
    let store = PgStore::open(&PgUrl::parse(&url).unwrap()).unwrap();
    let mut made = 0_i64;
    for views in [1_000_000_i64, 10_000_000] {
        let started = Instant::now();
        store
            .blocking(move |c| {
                c.execute(
                    "INSERT INTO pages (id, project, path)
                     SELECT n, 'bench', '/docs/page-' || n FROM generate_series(1, 2000) n
                     ON CONFLICT DO NOTHING",
                    &[],
                )?;
                c.execute(
                    "INSERT INTO visitors (id, project, visitor)
                     SELECT n, 'bench', 'v' || n FROM generate_series($1::bigint + 1, $2::bigint) n",
                    &[&(made / 5), &(views / 5)],
                )?;
                c.execute("TRUNCATE views", &[])?;
                // Pages by a long tail (the square of a uniform draw), times spread evenly.
                c.execute(
                    "INSERT INTO views (project, ts_ms, page_id, visitor_id, ai)
                     SELECT 'bench', n * (90 * $2::bigint / $1::bigint),
                            1 + floor(2000 * random() ^ 2)::bigint,
                            1 + floor(random() * ($1::bigint / 5))::bigint,
                            (random() < 0.25)::int::smallint
                     FROM generate_series(0, $1::bigint - 1) n",
                    &[&views, &DAY_MS],
                )?;
                c.batch_execute("VACUUM ANALYZE views")?;
                Ok(())
            })
            .unwrap();
        made = views;
        eprintln!("{views} views made in {:.1?}", started.elapsed());
        let (from, to) = (60 * DAY_MS, 90 * DAY_MS);
        for round in 0..3 {
            let started = Instant::now();
            let rows = store
                .blocking(move |c| {
                    let params: [&(dyn postgres::types::ToSql + Sync); 3] = [&"bench", &from, &to];
                    let mut rows = c.query_raw(
                        "SELECT page_id, visitor_id, ai FROM views
                         WHERE project = $1 AND ts_ms >= $2 AND ts_ms < $3",
                        params,
                    )?;
                    let mut keys: Vec<u128> = Vec::new();
                    while let Some(row) = rows.next()? {
                        let page: i64 = row.get(0);
                        let visitor: i64 = row.get(1);
                        let ai: i16 = row.get(2);
                        keys.push(
                            (u128::from(page.unsigned_abs()) << 65)
                                | (u128::from(visitor.unsigned_abs()) << 1)
                                | u128::from(ai != 0),
                        );
                    }
                    keys.sort_unstable();
                    keys.dedup();
                    Ok(keys.len())
                })
                .unwrap();
            let streamed = started.elapsed();
            let started = Instant::now();
            let pages: i64 = store
                .blocking(move |c| {
                    Ok(c.query_one(
                        "SELECT count(*) FROM (
                           SELECT page_id, count(DISTINCT visitor_id) FILTER (WHERE ai = 0),
                                  count(DISTINCT visitor_id) FILTER (WHERE ai = 1),
                                  count(DISTINCT visitor_id)
                           FROM views WHERE project = $1 AND ts_ms >= $2 AND ts_ms < $3
                           GROUP BY page_id) p",
                        &[&"bench", &from, &to],
                    )?
                    .get(0))
                })
                .unwrap();
            eprintln!(
                "{views} views, last 30 days, round {round}: rows streamed and counted in Rust {streamed:.2?} ({rows} distinct keys); counted in PostgreSQL {:.2?} ({pages} pages)",
                started.elapsed()
            );
        }
    }
}

/// The fixture's events as the importer hands them to a store, with their keys.
fn keyed(lines: &[String]) -> Vec<([u8; 16], ViewEvent)> {
    lines
        .iter()
        .map(|line| {
            let json: serde_json::Value = serde_json::from_str(line).unwrap();
            let ts_ms = chrono::DateTime::parse_from_rfc3339(json["ts"].as_str().unwrap())
                .unwrap()
                .timestamp_millis();
            let event = ViewEvent {
                ts_ms,
                path: json["path"].as_str().unwrap().to_owned(),
                visitor: json["visitorId"].as_str().unwrap().to_owned(),
                traffic: if json["traffic"] == "ai" {
                    Traffic::Ai
                } else {
                    Traffic::Human
                },
            };
            let key = view_key("demo", None, ts_ms, &event.visitor, &event.path);
            (key, event)
        })
        .collect()
}

#[test]
fn copy_import_stores_nothing_twice_and_counts_as_sqlite_does() {
    let url = pg_or_skip!();
    let store = PgStore::open(&PgUrl::parse(&url).unwrap()).unwrap();
    let mut lines = fixture();
    // Characters CSV and COPY treat specially, in paths and visitors.
    lines.push(common::view(
        "2026-02-03T01:00:00Z",
        "/a,b\"c\\d\te",
        "v\"1,\n2",
        "human",
    ));
    lines.push(common::view("2026-02-03T02:00:00Z", "/NULL", "\\N", "ai"));
    let events = keyed(&lines);
    let (first, second) = events.split_at(2000);
    let written = store
        .blocking({
            let first = first.to_vec();
            move |c| bulk::copy_views(c, "demo", &first)
        })
        .unwrap();
    // The fixture repeats some (time, visitor, page): those are one view, as on SQLite.
    assert!(
        written.stored > 1900 && written.stored + written.known == 2000,
        "{written:?}"
    );
    // Everything again, the first part overlapping: only the new views are stored.
    let again = store
        .blocking({
            let all = events.clone();
            move |c| bulk::copy_views(c, "demo", &all)
        })
        .unwrap();
    assert_eq!(
        again.stored + again.known,
        u64::try_from(events.len()).unwrap()
    );
    let twice = store
        .blocking({
            let second = second.to_vec();
            move |c| bulk::copy_views(c, "demo", &second)
        })
        .unwrap();
    assert_eq!(twice.stored, 0, "a view was stored twice");

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("service.sqlite");
    common::import_views(&path, "demo", &lines);
    let sqlite = Db::open(&DbLocation::File(path)).unwrap();
    let stored_sqlite: i64 = sqlite
        .blocking(|c| Ok(c.query_row("SELECT count(*) FROM views", [], |r| r.get(0))?))
        .unwrap();
    let stored_pg: i64 = store
        .blocking(|c| Ok(c.query_one("SELECT count(*) FROM views", &[])?.get(0)))
        .unwrap();
    assert_eq!(stored_pg, stored_sqlite);
    let request = VisitorsRequest {
        from_ms: None,
        to_ms: None,
        limit: 100,
        offset: 0,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let expected = runtime
        .block_on(sqlite.read(ReadKind::Scan, move |c| {
            views::visitors(c, "demo", &request)
        }))
        .unwrap();
    let got = store
        .blocking(move |c| pg::views::visitors(c, "demo", &request))
        .unwrap();
    assert_eq!(got, expected);
    assert!(got.visitors.iter().any(|row| row.path == "/a,b\"c\\d\te"));
}

/// BENCHMARKS.md: 1,000,000 keyed views written by `COPY` in batches of 100,000, then the
/// same again (every key known). Run as the bench above.
#[test]
#[ignore = "a benchmark: run by hand"]
fn bench_copy_1m_views() {
    let url = pg_or_skip!();
    let store = PgStore::open(&PgUrl::parse(&url).unwrap()).unwrap();
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let events: Vec<([u8; 16], ViewEvent)> = (0..1_000_000_i64)
        .map(|n| {
            let ts_ms = 1_769_904_000_000 + n * 7_776;
            let page = next(2000);
            let event = ViewEvent {
                ts_ms,
                path: format!("/docs/page-{}", page * page / 2000),
                visitor: format!("v{}", next(200_000)),
                traffic: if next(4) == 0 {
                    Traffic::Ai
                } else {
                    Traffic::Human
                },
            };
            (
                view_key("bench", None, ts_ms, &event.visitor, &event.path),
                event,
            )
        })
        .collect();
    let events = std::sync::Arc::new(events);
    for round in ["first import", "the same again"] {
        let started = Instant::now();
        let mut stored = 0;
        for chunk in 0..10 {
            let events = events.clone();
            let written = store
                .blocking(move |c| {
                    bulk::copy_views(c, "bench", &events[chunk * 100_000..(chunk + 1) * 100_000])
                })
                .unwrap();
            stored += written.stored;
        }
        eprintln!(
            "1,000,000 views by COPY, {round}: {:.2?} ({stored} stored)",
            started.elapsed()
        );
    }
}
