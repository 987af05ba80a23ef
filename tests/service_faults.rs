//! Faults on demand: each kind the local service can inject, seen through the real client
//! and the CLI, and what the client does about it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::{
    KEY, PROJECT, ServeProcess, client, docdeck_command, fast_options, options_on, start, text,
};
use docdeck::api::ApiError;
use docdeck::server::db::DbLocation;
use docdeck::server::faults::{FaultPlan, Latency};

fn plan(edit: impl FnOnce(&mut FaultPlan)) -> FaultPlan {
    let mut plan = FaultPlan::default();
    edit(&mut plan);
    plan
}

/// The jobs stored in `db` (either store), read by another connection.
fn jobs_in(db: &DbLocation) -> i64 {
    common::with_sql(db, |sql| sql.one("SELECT count(*) FROM jobs", &[])?.int(0))
}

on_both_stores_kept! {
    async fn injected_errors_are_server_failures_and_create_nothing(db: DbLocation) {
        let mut options = options_on(&db);
        options.faults = plan(|p| p.fault_rate = "1".parse().unwrap());
        let server = start(options).await;
        let client = client(&server);

        let err = client.create_job("fix the typo").await.unwrap_err();
        assert!(
            matches!(
                err,
                ApiError::Server {
                    status: 500 | 502 | 503,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(!err.may_have_reached_server(), "{err}");
        let err = client.get_job("job_x").await.unwrap_err();
        assert!(matches!(err, ApiError::Server { .. }), "{err:?}");
        assert_eq!(
            jobs_in(&db),
            0,
            "an injected error is answered before the handler"
        );
        server.shutdown().await;
    }
}

on_both_stores! {
    async fn a_dropped_connection_is_a_post_that_may_have_arrived(db: DbLocation) {
        let mut options = options_on(&db);
        options.faults = plan(|p| p.drop_rate = "1".parse().unwrap());
        let server = start(options).await;
        let client = client(&server);

        let err = client.create_job("fix the typo").await.unwrap_err();
        assert!(matches!(err, ApiError::Network { .. }), "{err:?}");
        assert!(err.may_have_reached_server(), "{err}");
        let err = client.get_job("job_x").await.unwrap_err();
        assert!(matches!(err, ApiError::Network { .. }), "{err:?}");
        assert!(!err.to_string().contains(KEY));
        server.shutdown().await;
    }
}

on_both_stores_kept! {
    async fn garbage_after_a_create_means_the_job_may_exist_and_it_does(db: DbLocation) {
        let mut options = options_on(&db);
        options.faults = plan(|p| p.garbage_rate = "1".parse().unwrap());
        let server = start(options).await;
        let client = client(&server);

        for _ in 0..5 {
            // No field of a job is required, so a JSON object of another shape reads as a job
            // without an id; anything else is an error that says the job may exist.
            match client.create_job("fix the typo").await {
                Ok(job) => assert_eq!(job.id, None),
                Err(err) => {
                    assert!(matches!(err, ApiError::Decode { .. }), "{err:?}");
                    assert!(err.may_have_reached_server(), "{err}");
                    assert!(!err.to_string().contains('\x1b'), "{err}");
                }
            }
        }
        assert_eq!(
            jobs_in(&db),
            5,
            "each create was carried out once and never resent"
        );
        let err = client
            .visitors(&docdeck::api::VisitorsQuery::default())
            .await
            .unwrap_err();
        assert!(matches!(err, ApiError::Decode { .. }), "{err:?}");
        server.shutdown().await;
    }
}

/// SQLite only: two starts on one database; PostgreSQL keeps the rate limit across them.
#[tokio::test]
async fn a_429_can_come_without_retry_after() {
    for bare in [false, true] {
        let mut options = fast_options(DbLocation::Memory);
        options.rate_limit = 1;
        options.faults = plan(|p| p.rate_limit_no_retry_after = bare);
        let server = start(options).await;
        let client = client(&server);
        client.create_job("first").await.unwrap();
        let err = client.create_job("second").await.unwrap_err();
        assert!(matches!(err, ApiError::RateLimited { .. }), "{err:?}");
        assert_eq!(err.retry_after().is_none(), bare, "{err:?}");
        server.shutdown().await;
    }
}

on_both_stores! {
    async fn latency_delays_every_answer(db: DbLocation) {
        let mut options = options_on(&db);
        options.faults = plan(|p| {
            p.latency = Some(Latency {
                min_ms: 40,
                max_ms: 60,
            });
        });
        let server = start(options).await;
        let client = client(&server);
        let started = Instant::now();
        let job = client.create_job("slow").await.unwrap();
        client.get_job(job.id.as_deref().unwrap()).await.unwrap();
        assert!(
            started.elapsed() >= Duration::from_millis(80),
            "two calls, each delayed at least 40 ms"
        );
        server.shutdown().await;
    }
}

#[test]
fn serve_refuses_rates_that_add_past_one_and_announces_faults() {
    let home = tempfile::tempdir().unwrap();
    let refused = docdeck_command(home.path())
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--fault-rate",
            "0.7",
            "--drop-rate",
            "0.5",
        ])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("at most 1"),
        "{}",
        text(&refused.stderr)
    );

    let bad = docdeck_command(home.path())
        .args(["serve", "--latency-ms", "400..50"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("50..400"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn the_cli_says_a_create_with_an_unreadable_answer_may_have_made_a_job() {
    let home = tempfile::tempdir().unwrap();
    let db = home.path().join("service.sqlite");
    let serve = ServeProcess::spawn(
        home.path(),
        &[
            "--db",
            db.to_str().unwrap(),
            "--seed",
            "none",
            "--api-key",
            KEY,
            "--garbage-rate",
            "1",
        ],
    );
    let out = common::run_cli(home.path(), &serve.base_url, &["jobs", "create", "fix it"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("MAY HAVE BEEN CREATED"), "{stderr}");
    assert!(!stderr.contains(KEY));
    assert_eq!(jobs_in(&DbLocation::File(db.clone())), 1);
    let journal = rusqlite::Connection::open(common::journal_path(home.path())).unwrap();
    let outcome: String = journal
        .query_row(
            "SELECT outcome FROM submissions WHERE project = ?1",
            [PROJECT],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(outcome, "unknown");
}

// Deep, huge and absurd requests get a 4xx and the service keeps answering.
on_both_stores! {
    async fn hostile_requests_are_refused_and_the_service_stays_up(db: DbLocation) {
        let server = start(options_on(&db)).await;
        docdeck::api::client::install_crypto_provider();
        let http = reqwest::Client::new();
        let base = server.base_url();
        let create = format!("{base}/v2/agent/{PROJECT}/job");
        let post = |body: Vec<u8>| {
            http.post(&create)
                .bearer_auth(KEY)
                .header("content-type", "application/json")
                .body(body)
                .send()
        };
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let deep_object = format!(
            "{{\"prompt\": \"x\", \"extra\": {}1{}}}",
            "{\"a\":".repeat(5_000),
            "}".repeat(5_000)
        );
        let wide = format!(
            "{{\"prompt\": \"x\", \"pad\": [{}0]}}",
            "0,".repeat(400_000)
        );
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (deep.into_bytes(), "deep array"),
            (deep_object.into_bytes(), "deep object"),
            (vec![0xff; 1000], "not UTF-8"),
            (b"{\"prompt\": \"\\ud800\"}".to_vec(), "lone surrogate"),
            (
                format!("{{\"prompt\": {}}}", "9".repeat(5000)).into_bytes(),
                "huge number",
            ),
            (vec![b' '; 2 * 1024 * 1024], "oversize"),
        ];
        for (body, what) in cases {
            let status = post(body).await.unwrap().status().as_u16();
            assert!((400..500).contains(&status), "{what}: {status}");
        }
        // A big but legal body (under 1 MiB, extra fields ignored) is a normal create.
        assert_eq!(
            post(wide.into_bytes()).await.unwrap().status().as_u16(),
            201
        );

        let long_query = format!(
            "{base}/v1/analytics/{PROJECT}/visitors?{}",
            "a=1&".repeat(6_000)
        );
        let long_path = format!("{base}/v2/agent/{PROJECT}/job/{}", "j".repeat(30_000));
        for (what, url) in [("long query", long_query), ("long path", long_path)] {
            let status = http
                .get(&url)
                .bearer_auth(KEY)
                .send()
                .await
                .map(|r| r.status().as_u16());
            // The URL is not printed on failure: it is tens of kilobytes.
            assert!(
                matches!(status, Ok(400..=499)),
                "{what}: {:?}",
                status.map_err(|e| e.is_builder())
            );
        }

        // Still up, and still right.
        let job = client(&server).create_job("after all that").await.unwrap();
        assert!(job.id.is_some());
        server.shutdown().await;
    }
}
