//! The demo seed on PostgreSQL seen from a second node (issue 26): while one node writes
//! the seed's views, a visitors request on another node never counts part of them. It
//! reads the seed's marker from the database (the node's own gate knows only its own
//! writing): it waits while the views are written, and past a few seconds says to retry.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::mpsc;

use common::{KEY, PROJECT, client, options_on, start};
use docdeck::server::SeedKind;
use docdeck::server::db::DbLocation;

/// Holds the row of the seed's pending marker (`SELECT … FOR UPDATE`) from another
/// connection, so the node writing the views stops before its next day, part of them
/// written. Returns the views written by then; dropping the sender lets the seed go on.
fn hold_the_seed(url: &str) -> (i64, mpsc::Sender<()>) {
    let (release, released) = mpsc::channel::<()>();
    let (held, holding) = mpsc::channel();
    let url = url.to_owned();
    std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let mut tx = client.transaction().unwrap();
        let row = tx
            .query_opt(
                "SELECT value FROM meta WHERE key = $1 FOR UPDATE",
                &[&format!("seed-views-pending:{PROJECT}")],
            )
            .unwrap();
        let views: i64 = tx
            .query_one("SELECT COUNT(*) FROM views", &[])
            .unwrap()
            .get(0);
        held.send(row.map(|_| views)).unwrap();
        let _ = released.recv();
        tx.commit().unwrap();
    });
    let views = holding
        .recv()
        .unwrap()
        .expect("the seed was written before the test could hold it");
    (views, release)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_node_does_not_count_the_views_another_node_is_still_writing() {
    let url = pg_or_skip_async!();
    docdeck::api::client::install_crypto_provider();
    let db = DbLocation::parse(&url);
    let mut seeding = options_on(&db);
    seeding.seed = SeedKind::Demo;
    seeding.node_name = "seeding".to_owned();
    let mut seeder = start(seeding.clone()).await;
    let url_for_hold = url.clone();
    let (written, release) = tokio::task::spawn_blocking(move || hold_the_seed(&url_for_hold))
        .await
        .unwrap();

    // A second node, started while the views are part written.
    let mut other = seeding;
    other.seed = SeedKind::None;
    other.node_name = "other".to_owned();
    let other = start(other).await;
    let everything = docdeck::api::VisitorsQuery::default();
    let asked = reqwest::Client::new()
        .get(format!(
            "{}/v1/analytics/{PROJECT}/visitors",
            other.base_url()
        ))
        .bearer_auth(KEY)
        .send()
        .await
        .unwrap();
    let status = asked.status();
    let retry = asked.headers().get("retry-after").cloned();
    let body = asked.text().await.unwrap();
    assert_eq!(status, 503, "{body}");
    assert!(retry.is_some(), "{body}");
    assert!(
        body.contains("still being written by another docdeck serve node"),
        "{body}"
    );

    // Once the seed goes on and ends, both nodes count all of it alike.
    drop(release);
    let seeded = seeder
        .seeded()
        .await
        .unwrap()
        .expect("a new project is seeded");
    assert!(
        i64::try_from(seeded.views).unwrap() > written,
        "held at {written} of {} views",
        seeded.views
    );
    let on_seeder = client(&seeder).visitors(&everything).await.unwrap();
    let on_other = client(&other).visitors(&everything).await.unwrap();
    assert_eq!(on_seeder, on_other);
    assert!(on_other.totals.total > 1_000, "{:?}", on_other.totals);
    other.shutdown().await;
    seeder.shutdown().await;
}
