//! The local service on hostile ground (issue 24): keys revoked while it runs, clients that
//! keep sending wrong keys, slow, silent and too many connections, and prompts no agent can
//! receive.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::{KEY, PROJECT, eventually, fast_options, options_on, start};
use docdeck::server::db::{Db, DbLocation};
use docdeck::server::listen::ConnLimits;
use docdeck::server::throttle::FREE_FAILURES;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// Far longer than any limit set here: a connection still open then was not closed.
const PATIENCE: Duration = Duration::from_secs(10);
/// How long an answer past the free wrong keys is held back here.
const PENALTY: Duration = Duration::from_millis(1500);

fn http() -> reqwest::Client {
    docdeck::api::client::install_crypto_provider();
    reqwest::Client::new()
}

async fn create(base: &str, key: &str, prompt: &str) -> reqwest::Response {
    http()
        .post(format!("{base}/v2/agent/{PROJECT}/job"))
        .bearer_auth(key)
        .header("content-type", "application/json")
        .body(json!({ "prompt": prompt }).to_string())
        .send()
        .await
        .unwrap()
}

async fn error_of(response: reqwest::Response) -> String {
    let body: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
    body.to_string()
}

// On both stores (SQLite and PostgreSQL), one body each.
on_both_stores! {
    async fn a_prompt_with_a_nul_is_refused_with_400_on_create_and_follow_up(db: DbLocation) {
        let server = start(options_on(&db)).await;
        let base = server.base_url();
        let refused = create(&base, KEY, "fix the typo\u{0}; rm -rf /").await;
        assert_eq!(refused.status(), 400);
        let text = error_of(refused).await;
        assert!(text.contains("NUL"), "{text}");

        let created = create(&base, KEY, "fix the typo")
            .await
            .bytes()
            .await
            .unwrap();
        let created: Value = serde_json::from_slice(&created).unwrap();
        let id = created["id"].as_str().unwrap();
        let follow_up = http()
            .post(format!("{base}/v2/agent/{PROJECT}/job/{id}/message"))
            .bearer_auth(KEY)
            .header("content-type", "application/json")
            .body(json!({ "prompt": "and\u{0}this" }).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(follow_up.status(), 400);
        assert!(error_of(follow_up).await.contains("NUL"));
        server.shutdown().await;
    }

    async fn wrong_keys_from_one_address_are_slowed_but_a_valid_key_never_is(db: DbLocation) {
        let mut options = options_on(&db);
        options.auth_penalty = PENALTY;
        let server = start(options).await;
        let base = server.base_url();
        for i in 0..FREE_FAILURES {
            let started = Instant::now();
            let status = create(&base, "mint_guess_0123456789abc", "x")
                .await
                .status();
            assert_eq!(status, 401, "failure {i}");
            assert!(started.elapsed() < PENALTY, "failure {i} was held back");
        }
        let started = Instant::now();
        let malformed = http()
            .get(format!("{base}/v2/agent/{PROJECT}/job/x"))
            .header("authorization", "Basic abc")
            .send()
            .await
            .unwrap();
        assert_eq!(malformed.status(), 401, "still the documented answer");
        assert!(
            started.elapsed() >= PENALTY,
            "a malformed header counts too"
        );

        let started = Instant::now();
        assert_eq!(create(&base, KEY, "still welcome").await.status(), 201);
        assert!(
            started.elapsed() < PENALTY,
            "a valid key waited {:?}",
            started.elapsed()
        );
        server.shutdown().await;
    }
}

on_both_stores_kept! {
    async fn a_key_revoked_while_the_service_runs_is_refused_at_its_next_request(db: DbLocation) {
        let server = start(options_on(&db)).await;
        let base = server.base_url();
        assert_eq!(create(&base, KEY, "first").await.status(), 201);

        // As `docdeck serve keys revoke` does it: another connection to the same database.
        let revoked = common::with_sql(&db, |sql| {
            Ok(docdeck::server::keys::revoke(sql, "mint_tes", 1))
        })
        .unwrap();
        assert_eq!(revoked.project, PROJECT);

        let refused = create(&base, KEY, "second").await;
        assert_eq!(refused.status(), 401);
        assert!(error_of(refused).await.contains("revoked"));
        server.shutdown().await;
    }
}

/// A service whose limits are short enough for a test.
async fn limited(db: &DbLocation, max_connections: usize) -> docdeck::server::RunningServer {
    let mut options = options_on(db);
    options.limits = ConnLimits {
        header_timeout: Duration::from_millis(300),
        idle_timeout: Duration::from_millis(600),
        body_timeout: Duration::from_millis(1500),
        max_connections,
    };
    start(options).await
}

/// Sends `first`, then reads until the service closes the connection; what it sent and
/// how long it took. Fails the test when the connection is still open after `PATIENCE`.
async fn until_closed(stream: &mut TcpStream, first: &[u8]) -> (String, Duration) {
    let started = Instant::now();
    stream.write_all(first).await.unwrap();
    let mut received = Vec::new();
    let read = tokio::time::timeout(PATIENCE, async {
        let mut buffer = [0u8; 4096];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await;
    assert!(
        read.is_ok(),
        "the connection was still open after {PATIENCE:?}"
    );
    (
        String::from_utf8_lossy(&received).into_owned(),
        started.elapsed(),
    )
}

// The HTTP layer's limits, on both stores: the store behind must not change them.
on_both_stores! {
    async fn a_half_sent_request_line_and_a_silent_connection_are_closed_at_the_header_timeout(db: DbLocation) {
        let server = limited(&db, 16).await;
        for first in [&b"GET /openapi.json HT"[..], b""] {
            let mut stream = TcpStream::connect(server.addr).await.unwrap();
            let (_, took) = until_closed(&mut stream, first).await;
            assert!(
                took >= Duration::from_millis(250) && took < Duration::from_secs(3),
                "closed after {took:?}, with a header timeout of 300 ms"
            );
        }
        server.shutdown().await;
    }

    async fn a_kept_alive_connection_that_goes_quiet_is_closed(db: DbLocation) {
        let server = limited(&db, 16).await;
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        let request = b"GET /openapi.json HTTP/1.1\r\nhost: x\r\n\r\n";
        let (answer, _) = until_closed(&mut stream, request).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer:.80}");
        server.shutdown().await;
    }

    async fn a_request_whose_body_stops_coming_is_closed_at_the_idle_timeout(db: DbLocation) {
        let server = limited(&db, 16).await;
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        let head = format!(
            "POST /v2/agent/{PROJECT}/job HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {KEY}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{{\"prompt\": "
        );
        // The headers are whole, so only the idle limit (600 ms) can end the wait for the rest.
        let (_, took) = until_closed(&mut stream, head.as_bytes()).await;
        assert!(took >= Duration::from_millis(500), "closed after {took:?}");
        server.shutdown().await;
    }

    async fn a_body_trickled_in_never_idle_is_answered_408_at_the_body_timeout(db: DbLocation) {
        let server = limited(&db, 16).await;
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        let head = format!(
            "POST /v2/agent/{PROJECT}/job HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {KEY}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        let started = Instant::now();
        // One byte every 200 ms: never idle for the idle limit (600 ms), and never done.
        let mut tick = tokio::time::interval(Duration::from_millis(200));
        let mut received = Vec::new();
        let mut buffer = [0u8; 4096];
        let answered = tokio::time::timeout(PATIENCE, async {
            loop {
                tokio::select! {
                    _ = tick.tick() => {
                        if stream.write_all(b" ").await.is_err() {
                            break;
                        }
                    }
                    read = stream.read(&mut buffer) => match read {
                        Ok(0) | Err(_) => break,
                        Ok(n) => received.extend_from_slice(&buffer[..n]),
                    },
                }
            }
        })
        .await;
        assert!(answered.is_ok(), "still open after {PATIENCE:?}");
        let answer = String::from_utf8_lossy(&received);
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(
            answer.contains("took longer than 1 s to arrive"),
            "{answer}"
        );
        let took = started.elapsed();
        assert!(
            took >= Duration::from_millis(1400),
            "answered after {took:?}"
        );
        server.shutdown().await;
    }

    async fn a_connection_past_the_cap_is_answered_503_and_closed(db: DbLocation) {
        let server = limited(&db, 1).await;
        let mut holding = TcpStream::connect(server.addr).await.unwrap();
        holding.write_all(b"GET /open").await.unwrap();
        // The first connection holds the only place until its header timeout.
        let mut second = TcpStream::connect(server.addr).await.unwrap();
        let (answer, _) = until_closed(&mut second, b"").await;
        assert!(answer.starts_with("HTTP/1.1 503"), "{answer:?}");
        assert!(answer.contains("Too many open connections"), "{answer}");
        let (_, _) = until_closed(&mut holding, b"").await;
        // Once the place is free again (just after the first connection closes), requests
        // are served.
        let url = format!("{}/openapi.json", server.base_url());
        eventually("a request served after the cap freed", || async {
            let response = http().get(&url).send().await.ok()?;
            (response.status() == 200).then_some(())
        })
        .await;
        server.shutdown().await;
    }
}

/// SQLite only by nature: a SQLite file's permissions (PostgreSQL keeps its own files).
#[cfg(unix)]
#[tokio::test]
async fn an_existing_database_that_others_could_read_is_made_private() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("service.sqlite");
    Db::open(&DbLocation::File(path.clone())).unwrap();
    let wal = dir.path().join("service.sqlite-wal");
    for file in [&path, &wal] {
        if !file.exists() {
            std::fs::write(file, "").unwrap();
        }
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let server = start(fast_options(DbLocation::File(path.clone()))).await;
    for file in [&path, &wal] {
        let mode = std::fs::metadata(file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", file.display());
    }
    server.shutdown().await;
}
