//! Two `serve` nodes starting at once on one PostgreSQL without `--api-key` (issue 26):
//! the project gets one generated key, not one per node.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use docdeck::server::keys::{self, KeyHasher};
use docdeck::server::pg::{PgStore, PgUrl};

#[test]
fn two_nodes_starting_at_once_generate_one_key() {
    let url = pg_or_skip!();
    let store = PgStore::open(&PgUrl::parse(&url).unwrap()).unwrap();
    let mut first = store.connect().unwrap();
    let mut second = store.connect().unwrap();
    let mut watch = store.connect().unwrap();

    // The database's key secret is there already (made by an earlier start): otherwise
    // the second start waits for the first's secret, not for its key.
    KeyHasher::load(&mut first).unwrap();
    // The first node's start has generated its key and not committed yet.
    let mut tx = first.transaction().unwrap();
    let hasher = KeyHasher::load(&mut tx).unwrap();
    let made = keys::at_start(&mut tx, &hasher, "demo", None, 1).unwrap();
    assert!(made.is_some());

    // The second node starts meanwhile.
    let (done, finished) = mpsc::channel();
    let other = std::thread::spawn(move || {
        let mut tx = second.transaction().unwrap();
        let hasher = KeyHasher::load(&mut tx).unwrap();
        let made = keys::at_start(&mut tx, &hasher, "demo", None, 2).unwrap();
        tx.commit().unwrap();
        done.send(()).unwrap();
        made.is_some()
    });
    // It either waits for the first (a lock not granted yet) or, without that
    // wait, finishes on its own: the first commits after one of the two.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if finished.try_recv().is_ok() {
            break;
        }
        let waiting: i64 = watch
            .query_one("SELECT count(*) FROM pg_locks WHERE NOT granted", &[])
            .unwrap()
            .get(0);
        if waiting > 0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the second start neither waited nor ended"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    tx.commit().unwrap();
    let second_made = other.join().unwrap();
    assert!(!second_made, "the second node generated a key of its own");
    let keys: i64 = watch
        .query_one("SELECT count(*) FROM api_keys WHERE project = 'demo'", &[])
        .unwrap()
        .get(0);
    assert_eq!(keys, 1);
}
