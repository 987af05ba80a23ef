//! PostgreSQL beside SQLite (issue 26), through the service as a client asks: visitors of
//! the last 30 days over 1,000,000 and 10,000,000 views (the views of `benches/analytics.rs`,
//! copied row for row into PostgreSQL, so both stores answer the same data), timed as
//! `GET /v1/analytics/bench/visitors` on an in-process `serve` of each store; and 10,000
//! turns claimed and finished by 4 `docdeck serve` processes on one PostgreSQL beside one
//! on SQLite, none run twice, none lost (`pg/turns.rs`; the release binary, built with
//! `cargo build --release --bin docdeck`, or `--docdeck PATH`).
//!
//! ```sh
//! cargo bench --bench pg -- --pg postgresql://docdeck@/postgres?host=/path/to/socket
//! cargo bench --bench pg -- --pg URL --views 1000000       # one size only
//! cargo bench --bench pg -- --pg URL --turns-only            # after cargo build --release --bin docdeck
//! ```
//!
//! `--pg` names a database to connect to as a user who may create databases: the bench
//! makes its own (`docdeck_bench_views_N`, kept and reused; `docdeck_bench_turns`, emptied
//! each run). The SQLite files are generated once into target/bench-data.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "pg/turns.rs"]
mod turns;

use std::path::{Path, PathBuf};
use std::time::Instant;

use docdeck::secret::Secret;
use docdeck::server::db::{Db, DbLocation};
use docdeck::server::pg::{PgStore, PgUrl};
use docdeck::server::views::{self, Traffic, ViewEvent};
use docdeck::server::{ServeOptions, start};
use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::Type;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const DAY_MS: i64 = 86_400_000;
/// 2026-11-22 00:00 UTC: the end of the generated range (as `benches/analytics.rs`).
const END_MS: i64 = 1_795_305_600_000;
const KEY: &str = "mint_bench_0123456789abcdef";

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

fn flag(name: &str) -> bool {
    std::env::args().any(|a| a == name)
}

/// The views of `benches/analytics.rs` (same file, same generator).
fn sqlite_views(views: u64) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("views-{views}-v1.sqlite"));
    let db = Db::open(&DbLocation::File(path.clone())).unwrap();
    if db.blocking(|conn| views::has_views(conn, "bench")).unwrap() {
        return path;
    }
    eprintln!("generating {views} views into {} (once)", path.display());
    let mut rng = ChaCha8Rng::seed_from_u64(views);
    let visitors = views / 5;
    db.blocking(|conn| {
        let tx = docdeck::sqlite::write_transaction(conn)?;
        let mut writer = views::ViewWriter::new("bench");
        let start = END_MS - 90 * DAY_MS;
        let step = (90 * DAY_MS) as f64 / views as f64;
        for i in 0..views {
            let u: f64 = rng.random();
            let event = ViewEvent {
                ts_ms: start + (i as f64 * step) as i64,
                path: format!("/docs/page-{}", (2000.0 * u * u * u) as u32),
                visitor: format!("v{}", rng.random_range(0..visitors)),
                traffic: if rng.random_bool(0.25) {
                    Traffic::Ai
                } else {
                    Traffic::Human
                },
            };
            writer.write(&tx, &event)?;
        }
        tx.commit()?;
        Ok(())
    })
    .unwrap();
    path
}

/// The URL of database `name` on the server of `url` (made if missing).
fn pg_database(url: &str, name: &str) -> String {
    let mut admin = postgres::Client::connect(url, postgres::NoTls).unwrap();
    let exists = admin
        .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])
        .unwrap()
        .is_some();
    if !exists {
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap();
    }
    let (before, after) = url.split_once('?').map_or((url, ""), |(b, a)| (b, a));
    let base = before.rsplit_once('/').map_or(before, |(base, _)| base);
    if after.is_empty() {
        format!("{base}/{name}")
    } else {
        format!("{base}/{name}?{after}")
    }
}

/// Copies the SQLite file's pages, visitors and views into PostgreSQL, ids included (once).
fn load_pg(sqlite: &Path, url: &str) {
    let store = PgStore::open(&PgUrl::parse(url).unwrap()).unwrap();
    let mut client = store.connect().unwrap();
    client
        .batch_execute("CREATE TABLE IF NOT EXISTS bench_loaded (views BIGINT)")
        .unwrap();
    if client
        .query_opt("SELECT views FROM bench_loaded", &[])
        .unwrap()
        .is_some()
    {
        return;
    }
    let started = Instant::now();
    let db = Db::open(&DbLocation::File(sqlite.to_path_buf())).unwrap();
    let conn = db.lock();
    let mut tx = client.transaction().unwrap();
    tx.batch_execute("TRUNCATE views, pages, visitors").unwrap();
    for (table, column) in [("pages", "path"), ("visitors", "visitor")] {
        let writer = tx
            .copy_in(&format!(
                "COPY {table} (id, project, {column}) FROM STDIN (FORMAT binary)"
            ))
            .unwrap();
        let mut copy = BinaryCopyInWriter::new(writer, &[Type::INT8, Type::TEXT, Type::TEXT]);
        let mut statement = conn
            .prepare(&format!("SELECT id, project, {column} FROM {table}"))
            .unwrap();
        let mut rows = statement.query([]).unwrap();
        while let Some(row) = rows.next().unwrap() {
            let (id, project, text): (i64, String, String) = (
                row.get(0).unwrap(),
                row.get(1).unwrap(),
                row.get(2).unwrap(),
            );
            copy.write(&[&id, &project, &text]).unwrap();
        }
        copy.finish().unwrap();
    }
    let writer = tx
        .copy_in("COPY views (project, ts_ms, page_id, visitor_id, ai) FROM STDIN (FORMAT binary)")
        .unwrap();
    let mut copy = BinaryCopyInWriter::new(
        writer,
        &[Type::TEXT, Type::INT8, Type::INT8, Type::INT8, Type::INT2],
    );
    let mut statement = conn
        .prepare("SELECT project, ts_ms, page_id, visitor_id, ai FROM views")
        .unwrap();
    let mut rows = statement.query([]).unwrap();
    let mut n: i64 = 0;
    while let Some(row) = rows.next().unwrap() {
        let project: String = row.get(0).unwrap();
        let (ts, page, visitor): (i64, i64, i64) = (
            row.get(1).unwrap(),
            row.get(2).unwrap(),
            row.get(3).unwrap(),
        );
        let ai = i16::from(row.get::<_, bool>(4).unwrap());
        copy.write(&[&project, &ts, &page, &visitor, &ai]).unwrap();
        n += 1;
    }
    copy.finish().unwrap();
    tx.execute("INSERT INTO bench_loaded VALUES ($1)", &[&n])
        .unwrap();
    tx.commit().unwrap();
    client.batch_execute("ANALYZE").unwrap();
    eprintln!(
        "copied {n} views into PostgreSQL in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// Median, fastest and slowest of 7 `GET …/visitors` of the last 30 days (first page of
/// 50) on an in-process `serve` of `location`, after one unmeasured.
async fn serve_visitors(location: DbLocation) -> (f64, f64, f64, u64) {
    let mut options = ServeOptions::new(location);
    options.project = "bench".into();
    options.api_key = Some(Secret::new(KEY));
    options.rate_limit = 10_000;
    let server = start(options).await.unwrap();
    let url = format!(
        "{}/v1/analytics/bench/visitors?dateFrom=2026-10-23&dateTo=2026-11-22&limit=50",
        server.base_url()
    );
    let http = reqwest::Client::new();
    let mut times = Vec::new();
    let mut total = 0;
    for run in 0..8 {
        let started = Instant::now();
        let answer = http.get(&url).bearer_auth(KEY).send().await.unwrap();
        assert_eq!(answer.status(), 200);
        let body: serde_json::Value =
            serde_json::from_slice(&answer.bytes().await.unwrap()).unwrap();
        if run > 0 {
            times.push(started.elapsed().as_secs_f64() * 1000.0);
        }
        total = body["totals"]["total"].as_u64().unwrap_or(0);
    }
    server.shutdown().await;
    times.sort_by(f64::total_cmp);
    (
        times[times.len() / 2],
        times[0],
        times[times.len() - 1],
        total,
    )
}

fn bench_visitors(runtime: &tokio::runtime::Runtime, url: &str, views: u64) {
    let sqlite = sqlite_views(views);
    let pg_url = pg_database(url, &format!("docdeck_bench_views_{views}"));
    load_pg(&sqlite, &pg_url);
    let pg = runtime.block_on(serve_visitors(DbLocation::Postgres(
        PgUrl::parse(&pg_url).unwrap(),
    )));
    let lite = runtime.block_on(serve_visitors(DbLocation::File(sqlite)));
    assert_eq!(pg.3, lite.3, "the two stores count the same visitors");
    println!(
        "visitors, last 30 days over {views} views, through serve: PostgreSQL median {:.0} ms ({:.0}–{:.0}); SQLite median {:.0} ms ({:.0}–{:.0}); {} visitors",
        pg.0, pg.1, pg.2, lite.0, lite.1, lite.2, pg.3
    );
}

fn main() {
    let Some(url) = arg("--pg") else {
        eprintln!(
            "give --pg URL: a PostgreSQL database to connect to, as a user who may create databases"
        );
        return;
    };
    docdeck::api::client::install_crypto_provider();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    if !flag("--turns-only") {
        let sizes: Vec<u64> = match arg("--views") {
            Some(n) => vec![n.parse().unwrap()],
            None => vec![1_000_000, 10_000_000],
        };
        for views in sizes {
            bench_visitors(&runtime, &url, views);
        }
    }
    if !flag("--visitors-only") {
        let binary = turns::binary(arg("--docdeck"));
        turns::on_postgres(&binary, &pg_database(&url, "docdeck_bench_turns"));
        turns::on_sqlite(&binary);
    }
}
