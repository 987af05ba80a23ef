//! `docdeck serve` on PostgreSQL (issue 26), in process: jobs, follow-ups, keys and rate
//! limits through the real client, on one or two nodes sharing a throwaway database; what
//! is not on PostgreSQL yet answers 501 naming it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::{KEY, PROJECT, client, client_with, eventually, fast_options, start};
use docdeck::api::{ApiError, JobStatus};
use docdeck::server::db::DbLocation;
use docdeck::server::keys;
use docdeck::server::pg::{PgStore, PgUrl, bulk};
use docdeck::server::traffic::store::view_key;
use docdeck::server::views::{Traffic, ViewEvent};

fn pg_options(url: &str) -> docdeck::server::ServeOptions {
    let mut options = fast_options(DbLocation::parse(url));
    options.poll = Duration::from_millis(200);
    options.lease = Duration::from_secs(3);
    options
}

#[tokio::test]
async fn jobs_run_and_follow_up_on_postgres() {
    let url = pg_or_skip_async!();
    let server = start(pg_options(&url)).await;
    let client = client(&server);
    let created = client.create_job("Fix the broken links").await.unwrap();
    assert_eq!(created.status, Some(JobStatus::Active));
    let id = created.id.clone().unwrap();
    let done = eventually("the job to complete", || async {
        let job = client.get_job(&id).await.unwrap();
        (job.status == Some(JobStatus::Completed)).then_some(job)
    })
    .await;
    assert!(done.pr_link.unwrap().contains("/pull/1"));
    let again = client.send_message(&id, "Also the images").await.unwrap();
    assert_eq!(again.status, Some(JobStatus::Active));
    let done = eventually("the follow-up to complete", || async {
        let job = client.get_job(&id).await.unwrap();
        (job.status == Some(JobStatus::Completed)).then_some(job)
    })
    .await;
    assert!(done.pr_link.unwrap().contains("/pull/2"));
    let missing = client.get_job("job_nope").await.unwrap_err();
    assert!(matches!(missing, ApiError::NotFound { .. }), "{missing:?}");
    let bad = client_with(&server.base_url(), PROJECT, "mint_wrong_key_123456");
    let err = bad.get_job(&id).await.unwrap_err();
    assert!(matches!(err, ApiError::Unauthorized { .. }), "{err:?}");
    server.shutdown().await;
}

#[tokio::test]
async fn two_nodes_count_one_rate_limit_and_record_where_turns_ran() {
    let url = pg_or_skip_async!();
    let mut first = pg_options(&url);
    first.rate_limit = 3;
    first.node_name = "first".to_owned();
    let mut second = first.clone();
    second.node_name = "second".to_owned();
    let (a, b) = (start(first).await, start(second).await);
    let (on_a, on_b) = (client(&a), client(&b));
    let one = on_a.create_job("one").await.unwrap().id.unwrap();
    on_b.create_job("two").await.unwrap();
    on_a.create_job("three").await.unwrap();
    for refused in [on_a.create_job("four").await, on_b.create_job("four").await] {
        assert!(
            matches!(refused, Err(ApiError::RateLimited { .. })),
            "{refused:?}"
        );
    }
    let done = eventually("the first job to complete", || async {
        let job = on_b.get_job(&one).await.unwrap();
        (job.status == Some(JobStatus::Completed)).then_some(job)
    })
    .await;
    let node = done.node.clone().expect("the node that ran the turn");
    assert!(&*node == "first" || &*node == "second", "{node}");
    assert_eq!(on_a.get_job(&one).await.unwrap(), done);
    a.shutdown().await;
    b.shutdown().await;
}

#[tokio::test]
async fn a_key_revoked_elsewhere_is_refused_by_every_node_at_its_next_request() {
    let url = pg_or_skip_async!();
    let (a, b) = (start(pg_options(&url)).await, start(pg_options(&url)).await);
    let (on_a, on_b) = (client(&a), client(&b));
    let id = on_a.create_job("first").await.unwrap().id.unwrap();
    on_b.get_job(&id).await.unwrap();
    // As `docdeck serve keys revoke` would: another connection to the same database.
    let revoked = tokio::task::spawn_blocking(move || {
        let store = PgStore::open(&PgUrl::parse(&url).unwrap()).unwrap();
        store.blocking(|client| Ok(keys::revoke(client, "mint_tes", 1)))
    })
    .await
    .unwrap()
    .unwrap()
    .unwrap();
    assert_eq!(revoked.project, PROJECT);
    for refused in [on_a.get_job(&id).await, on_b.get_job(&id).await] {
        let err = refused.unwrap_err();
        assert!(matches!(err, ApiError::Unauthorized { .. }), "{err:?}");
    }
    a.shutdown().await;
    b.shutdown().await;
}

/// The signals' reads answered 501 on PostgreSQL before they were written against `Sql`.
#[tokio::test]
async fn signals_are_read_on_postgres_as_on_sqlite() {
    let url = pg_or_skip_async!();
    let server = start(pg_options(&url)).await;
    docdeck::api::client::install_crypto_provider();
    let http = reqwest::Client::new();
    let sent = http
        .post(format!("{}/v1/feedback/{PROJECT}", server.base_url()))
        .header("content-type", "application/json")
        .body(r#"{"path": "/guide", "helpful": false, "comment": "no retries"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), 201);
    for what in ["searches", "feedback", "feedback/by-page", "assistant"] {
        let answer = http
            .get(format!(
                "{}/v1/analytics/{PROJECT}/{what}",
                server.base_url()
            ))
            .bearer_auth(KEY)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200, "{what}");
        let body = answer.text().await.unwrap();
        if what.starts_with("feedback") {
            assert!(body.contains("/guide"), "{what}: {body}");
        }
    }
    server.shutdown().await;
}

#[tokio::test]
async fn visitors_are_counted_in_postgres_alike_on_two_nodes() {
    let url = pg_or_skip_async!();
    let views = [
        (1_000, "/a", "v1", Traffic::Human),
        (2_000, "/a", "v2", Traffic::Ai),
        (3_000, "/b", "v1", Traffic::Human),
        (4_000, "/a", "v1", Traffic::Human),
    ]
    .map(|(ts_ms, path, visitor, traffic)| {
        let event = ViewEvent {
            ts_ms,
            path: path.to_owned(),
            visitor: visitor.to_owned(),
            traffic,
        };
        (view_key(PROJECT, None, ts_ms, visitor, path), event)
    });
    let copy_url = url.clone();
    tokio::task::spawn_blocking(move || {
        let store = PgStore::open(&PgUrl::parse(&copy_url).unwrap()).unwrap();
        store.blocking(|client| bulk::copy_views(client, PROJECT, &views))
    })
    .await
    .unwrap()
    .unwrap();
    let (a, b) = (start(pg_options(&url)).await, start(pg_options(&url)).await);
    let page = client(&a).visitors(&Default::default()).await.unwrap();
    assert_eq!(
        page,
        client(&b).visitors(&Default::default()).await.unwrap()
    );
    assert_eq!(
        (page.totals.human, page.totals.ai, page.totals.total),
        (1, 1, 2)
    );
    let rows: Vec<(String, u64)> = page
        .visitors
        .iter()
        .map(|row| (row.path.clone(), row.total))
        .collect();
    assert_eq!(rows, [("/a".to_owned(), 2), ("/b".to_owned(), 1)]);
    a.shutdown().await;
    b.shutdown().await;
}

/// `docdeck serve keys` on PostgreSQL: a key added, listed and revoked from the command
/// line counts on a running node at its next request (the command refused PostgreSQL).
#[tokio::test]
async fn serve_keys_add_list_and_revoke_on_postgres_and_a_node_follows() {
    let url = pg_or_skip_async!();
    let node = start(pg_options(&url)).await;
    let home = tempfile::tempdir().unwrap();
    let keys_cli = |args: Vec<String>| {
        let home = home.path().to_owned();
        async move {
            tokio::task::spawn_blocking(move || {
                common::docdeck_command(&home)
                    .args(["serve", "keys"])
                    .args(&args)
                    .output()
                    .unwrap()
            })
            .await
            .unwrap()
        }
    };
    let arg = |text: &str| text.to_owned();
    let added = keys_cli(vec![
        arg("add"),
        arg("--db"),
        url.clone(),
        arg("--project"),
        arg(PROJECT),
    ])
    .await;
    let said = common::text(&added.stderr);
    assert!(added.status.success(), "{said}");
    assert!(!said.contains("password"), "{said}");
    let new_key = common::text(&added.stdout).trim().to_owned();
    assert!(new_key.starts_with("mint_"), "{new_key}");
    let with_new = client_with(&node.base_url(), PROJECT, &new_key);
    with_new
        .create_job("from a key added on the command line")
        .await
        .unwrap();

    let listed = keys_cli(vec![arg("list"), arg("--db"), url.clone()]).await;
    let listed = common::text(&listed.stdout);
    assert!(
        listed.lines().count() >= 3,
        "the test key and the new one: {listed}"
    );
    let id = listed
        .lines()
        .find(|line| line.contains(&new_key[..8]))
        .and_then(|line| line.split_whitespace().next())
        .unwrap_or_else(|| panic!("{listed}"))
        .to_owned();
    let revoked = keys_cli(vec![arg("revoke"), arg("--db"), url.clone(), id]).await;
    assert!(
        revoked.status.success(),
        "{}",
        common::text(&revoked.stderr)
    );
    let err = with_new.create_job("after the revoke").await.unwrap_err();
    assert!(matches!(err, ApiError::Unauthorized { .. }), "{err:?}");
    node.shutdown().await;
}
