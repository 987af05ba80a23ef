//! Load on the local service: concurrent HTTP clients creating jobs, sending follow-ups,
//! polling jobs and paging visitors against the real service (file database, demo seed,
//! simulated agent), with throughput and p50/p99 latency per operation. At the end it checks
//! that every job a client was told about exists once, that nothing else was created, and
//! that no answer was a 5xx (SQLite's "database is locked" would surface as one).
//!
//! ```sh
//! cargo bench --bench load                                  # mixed, 32 clients, 10 s
//! cargo bench --bench load -- --mix get --clients 64        # polling only (issue 5's target)
//! cargo bench --bench load -- --clients 16 --seconds 30
//! ```
//!
//! Clients and service share this process and its 2 cores, so the figures are a floor for
//! what the service alone could do.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::cast_precision_loss)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use docdeck::api::{ApiError, Client, ClientOptions, RetryPolicy, VisitorsQuery};
use docdeck::config::Secret;
use docdeck::server::db::{Db, DbLocation};
use docdeck::server::{self, SeedKind, ServeOptions};
use rand::{Rng, SeedableRng};
use tokio::sync::Mutex;

const KEY: &str = "mint_load_0123456789abcdef";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Op {
    Create,
    Message,
    Get,
    Visitors,
}

#[derive(Default)]
struct Tally {
    latencies: BTreeMap<Op, Vec<Duration>>,
    errors: BTreeMap<String, usize>,
    created: Vec<String>,
}

struct Args {
    clients: usize,
    seconds: u64,
    mix: String,
}

fn args() -> Args {
    let mut args = Args {
        clients: 32,
        seconds: 10,
        mix: "mixed".to_owned(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--clients" => args.clients = it.next().and_then(|v| v.parse().ok()).unwrap_or(32),
            "--seconds" => args.seconds = it.next().and_then(|v| v.parse().ok()).unwrap_or(10),
            "--mix" => args.mix = it.next().unwrap_or_default(),
            // cargo bench passes --bench; anything else is ignored.
            _ => {}
        }
    }
    assert!(
        args.mix == "mixed" || args.mix == "get",
        "--mix is mixed or get"
    );
    args
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let index = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[index]
}

fn pick(mix: &str, rng: &mut impl Rng) -> Op {
    if mix == "get" {
        return Op::Get;
    }
    match rng.random_range(0..100) {
        0..10 => Op::Create,
        10..20 => Op::Message,
        20..80 => Op::Get,
        _ => Op::Visitors,
    }
}

#[tokio::main]
async fn main() {
    let args = args();
    let dir = tempfile::tempdir().unwrap();
    let db_path = dir.path().join("service.sqlite");
    let mut options = ServeOptions::new(DbLocation::File(db_path.clone()));
    options.api_key = Some(Secret::new(KEY));
    options.seed = SeedKind::Demo;
    options.agent.delay = Duration::from_millis(50);
    options.rate_limit = u32::MAX;
    let running = server::start(options).await.expect("the service starts");
    let seeded: Vec<String> = running.seeded_jobs.iter().map(|j| j.id.clone()).collect();
    let base = running.base_url();
    println!(
        "load: {} clients, {} s, mix {}, service at {base} (file database, demo seed)",
        args.clients, args.seconds, args.mix
    );

    let tally = Arc::new(Mutex::new(Tally::default()));
    let deadline = Instant::now() + Duration::from_secs(args.seconds);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..args.clients {
        let mut options = ClientOptions::new(base.parse().unwrap(), "demo", Secret::new(KEY));
        options.retry = RetryPolicy {
            attempts: 1,
            base_delay: Duration::ZERO,
            max_delay: Duration::ZERO,
        };
        let client = Client::new(options).unwrap();
        let tally = Arc::clone(&tally);
        let mix = args.mix.clone();
        let mut known = seeded.clone();
        tasks.push(tokio::spawn(async move {
            let mut rng = rand::rngs::StdRng::from_os_rng();
            let mut mine = Tally::default();
            let query = VisitorsQuery {
                date_from: Some(
                    (chrono::Utc::now().date_naive() - chrono::Days::new(30))
                        .to_string()
                        .parse()
                        .unwrap(),
                ),
                limit: Some(50),
                ..VisitorsQuery::default()
            };
            while Instant::now() < deadline {
                let op = pick(&mix, &mut rng);
                let target = known[rng.random_range(0..known.len())].clone();
                let began = Instant::now();
                let result: Result<(), ApiError> = match op {
                    Op::Create => client
                        .create_job("load test: tidy the docs")
                        .await
                        .map(|job| {
                            let id = job.id.unwrap();
                            mine.created.push(id.clone());
                            known.push(id);
                        }),
                    Op::Message => client
                        .send_message(&target, "and the next page")
                        .await
                        .map(drop),
                    Op::Get => client.get_job(&target).await.map(drop),
                    Op::Visitors => {
                        let mut page = query.clone();
                        page.offset = Some(50 * rng.random_range(0..4));
                        client.visitors(&page).await.map(drop)
                    }
                };
                let took = began.elapsed();
                match result {
                    Ok(()) => mine.latencies.entry(op).or_default().push(took),
                    // A follow-up to an archived job is refused by design (409).
                    Err(ApiError::Conflict { .. }) if op == Op::Message => {
                        mine.latencies.entry(op).or_default().push(took);
                    }
                    Err(err) => *mine.errors.entry(format!("{op:?}: {err}")).or_default() += 1,
                }
            }
            let mut tally = tally.lock().await;
            for (op, mut latencies) in mine.latencies {
                tally
                    .latencies
                    .entry(op)
                    .or_default()
                    .append(&mut latencies);
            }
            for (error, n) in mine.errors {
                *tally.errors.entry(error).or_default() += n;
            }
            tally.created.append(&mut mine.created);
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let elapsed = started.elapsed();
    running.shutdown().await;

    let mut tally = Arc::try_unwrap(tally).ok().unwrap().into_inner();
    println!(
        "{:<9} {:>9} {:>11} {:>9} {:>9}",
        "operation", "requests", "per second", "p50", "p99"
    );
    let mut total = 0;
    for (op, latencies) in &mut tally.latencies {
        latencies.sort_unstable();
        total += latencies.len();
        println!(
            "{:<9} {:>9} {:>11.0} {:>7.2}ms {:>7.2}ms",
            format!("{op:?}"),
            latencies.len(),
            latencies.len() as f64 / elapsed.as_secs_f64(),
            percentile(latencies, 0.5).as_secs_f64() * 1000.0,
            percentile(latencies, 0.99).as_secs_f64() * 1000.0
        );
    }
    println!(
        "{:<9} {:>9} {:>11.0}",
        "all",
        total,
        total as f64 / elapsed.as_secs_f64()
    );

    // Every job a client was told about exists once; nothing else was created.
    let db = Db::open(&DbLocation::File(db_path)).unwrap();
    let (jobs, distinct): (i64, i64) = db
        .blocking(|conn| {
            Ok(
                conn.query_row("SELECT count(*), count(DISTINCT id) FROM jobs", [], |row| {
                    Ok((row.get(0)?, row.get(1)?))
                })?,
            )
        })
        .unwrap();
    let created = tally.created.len() + seeded.len();
    let mut ids = tally.created.clone();
    ids.sort_unstable();
    ids.dedup();
    println!(
        "jobs: {} created by clients (+{} seeded), service holds {jobs} ({distinct} distinct)",
        tally.created.len(),
        seeded.len()
    );
    let errors: usize = tally.errors.values().sum();
    for (error, n) in &tally.errors {
        println!("error x{n}: {error}");
    }
    let ok = i64::try_from(created).unwrap() == jobs
        && jobs == distinct
        && ids.len() == tally.created.len()
        && errors == 0;
    println!(
        "{}",
        if ok {
            "ok: no lost or duplicated job, no error"
        } else {
            "FAILED"
        }
    );
    if !ok {
        std::process::exit(1);
    }
}
