//! The local service's visitors query over generated view events: 1,000,000 and 10,000,000
//! views over 90 days (2,000 pages with a long tail, a visitor pool of a fifth of the
//! views, a quarter of them AI), asked for the last 30 days, first page of 50.
//!
//! ```sh
//! cargo bench --bench analytics
//! ```
//!
//! The databases are generated once into target/bench-data and reused.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use docdeck::server::db::{Db, DbLocation};
use docdeck::server::views::{self, Traffic, ViewEvent, VisitorsRequest};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const DAY_MS: i64 = 86_400_000;
/// 2026-11-22 00:00 UTC: the end of the generated range.
const END_MS: i64 = 1_795_305_600_000;

fn database(views: u64) -> Db {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("views-{views}-v1.sqlite"));
    let ready = path.exists();
    let db = Db::open(&DbLocation::File(path.clone())).unwrap();
    if !ready || !db.blocking(|conn| views::has_views(conn, "bench")).unwrap() {
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
    }
    db
}

fn last_30_days() -> VisitorsRequest {
    VisitorsRequest {
        from_ms: Some(END_MS - 30 * DAY_MS),
        to_ms: Some(END_MS),
        limit: 50,
        offset: 0,
    }
}

fn visitors(c: &mut Criterion) {
    for (views, label) in [(1_000_000, "1M"), (10_000_000, "10M")] {
        let db = database(views);
        let request = last_30_days();
        let mut group = c.benchmark_group("visitors_30_days");
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(if views > 1_000_000 { 30 } else { 10 }));
        group.bench_function(label, |b| {
            b.iter(|| {
                db.blocking(|conn| views::visitors(conn, "bench", &request))
                    .unwrap()
            });
        });
        group.finish();
    }
}

criterion_group!(benches, visitors);
criterion_main!(benches);
