//! BENCHMARKS.md: what PostgreSQL takes to read the visitors of the last 30 days over
//! 1,000,000 and 10,000,000 views of 90 days (2,000 pages, a visitor pool of a fifth of
//! the views, a quarter AI: the shape of `benches/analytics.rs`). Two ways: the rows the
//! service's counting reads today, streamed out, and the counts made inside PostgreSQL.
//! Run: `cargo test --release --test pg_views -- --ignored --nocapture`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Instant;

use docdeck::server::pg::{PgStore, PgUrl};
use postgres::fallible_iterator::FallibleIterator as _;

const DAY_MS: i64 = 86_400_000;

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
