//! The shared insight fetches against the local service: a whole range up to its
//! threshold, cancelled, and a trend's buckets read beside the ones already known, each
//! equal to a direct request for the bucket's range; on both stores.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{client, import_views_into, options_on, start, view};
use docdeck::api::{DateParam, VisitorsQuery};
use docdeck::insight::Cancel;
use docdeck::insight::buckets::{By, buckets};
use docdeck::insight::trend::{TrendEnd, read_trend};
use docdeck::insight::whole::{Whole, WholeRange, fetch_whole};
use docdeck::server::RunningServer;
use docdeck::server::db::DbLocation;

/// The service over `db`, `lines` imported into it first (either store).
async fn service_with(db: DbLocation, lines: &[String]) -> RunningServer {
    import_views_into(&db, common::PROJECT, lines);
    start(options_on(&db)).await
}

fn range(from: &str, to: &str) -> VisitorsQuery {
    VisitorsQuery {
        date_from: Some(DateParam::parse("dateFrom", from).unwrap()),
        date_to: Some(DateParam::parse("dateTo", to).unwrap()),
        ..VisitorsQuery::default()
    }
}

/// 600 paths with one human visitor each on 2026-11-10.
fn six_hundred_paths() -> Vec<String> {
    (0..600)
        .map(|i| view("2026-11-10T10:00:00Z", &format!("/p{i:03}"), "v", "human"))
        .collect()
}

on_both_stores_kept! {
    async fn a_whole_range_under_the_threshold_is_held_and_one_over_it_says_so(db: DbLocation) {
        let server = service_with(db.clone(), &six_hundred_paths()).await;
        let client = client(&server);
        let query = range("2026-11-01", "2026-12-01");
        let mut seen = Vec::new();
        let fetched = fetch_whole(
            &client,
            &query,
            5_000,
            |p| seen.push(p.rows),
            &Cancel::new(),
        )
        .await;
        assert_eq!(fetched.requests, 3);
        assert_eq!(seen, [250, 500, 600]);
        let Ok(Whole::All(page)) = fetched.outcome else {
            panic!("{:?}", fetched.outcome)
        };
        assert_eq!(page.visitors.len(), 600);
        assert!(!page.has_more);
        assert_eq!(page.totals.total, 1);

        let over = fetch_whole(&client, &query, 500, |_| {}, &Cancel::new()).await;
        assert_eq!(over.requests, 2);
        let Ok(Whole::TooMany { max_rows, read }) = over.outcome else {
            panic!("{:?}", over.outcome)
        };
        assert_eq!((max_rows, read.visitors.len()), (500, 500));
        // Exactly at the threshold with nothing more is the whole range.
        let exact = fetch_whole(&client, &query, 600, |_| {}, &Cancel::new()).await;
        assert!(
            matches!(exact.outcome, Ok(Whole::All(_))),
            "{:?}",
            exact.outcome
        );
        // 550 rows read at most: the third page passes it.
        let past = fetch_whole(&client, &query, 550, |_| {}, &Cancel::new()).await;
        assert!(matches!(past.outcome, Ok(Whole::TooMany { .. })));
        assert_eq!(WholeRange::new(&query, 5_000).most_requests(), 20);
    }
}

on_both_stores_kept! {
    async fn a_cancelled_fetch_stops_and_says_so(db: DbLocation) {
        let server = service_with(db.clone(), &six_hundred_paths()).await;
        let client = client(&server);
        let cancel = Cancel::new();
        let mut whole = WholeRange::new(&range("2026-11-01", "2026-12-01"), 5_000);
        assert!(matches!(
            whole.step(&client).await.unwrap(),
            docdeck::insight::whole::Step::More
        ));
        cancel.cancel();
        let fetched = whole.run(&client, |_| {}, &cancel).await;
        assert!(matches!(fetched.outcome, Ok(Whole::Cancelled)));
        assert_eq!(fetched.requests, 1);
    }
}

on_both_stores_kept! {
    async fn a_trend_reads_only_the_unknown_buckets_each_as_its_own_range(db: DbLocation) {
        let lines = vec![
            view("2026-11-15T09:00:00Z", "/a", "A", "human"),
            view("2026-11-15T10:00:00Z", "/b", "A", "ai"),
            view("2026-11-16T09:00:00Z", "/a", "A", "human"),
            view("2026-11-16T09:00:00Z", "/a", "B", "human"),
            view("2026-11-17T23:59:59Z", "/a", "C", "ai"),
        ];
        let server = service_with(db.clone(), &lines).await;
        let client = client(&server);
        let query = range("2026-11-15", "2026-11-18");
        let (from, to) = (
            query.date_from.unwrap().instant(),
            query.date_to.unwrap().instant(),
        );
        let days = buckets(from, to, By::Day);
        let kept = docdeck::api::VisitorTotals {
            human: 7,
            ai: 7,
            total: 7,
        };
        let mut progress = Vec::new();
        let read = read_trend(
            &client,
            &days,
            vec![Some(kept), None, None],
            |done, of| progress.push((done, of)),
            &Cancel::new(),
        )
        .await;
        assert!(matches!(read.end, TrendEnd::Finished), "{:?}", read.end);
        assert_eq!(read.requests, 2);
        assert_eq!(read.read, [1, 2]);
        assert_eq!(progress, [(1, 2), (2, 2)]);
        let totals = read.complete().unwrap();
        assert_eq!(totals[0], kept, "a known bucket is not read again");
        for (bucket, got) in days.iter().zip(&totals).skip(1) {
            let direct = client.visitors(&bucket.query()).await.unwrap().totals;
            assert_eq!(*got, direct);
        }
        assert_eq!((totals[1].human, totals[1].ai, totals[1].total), (2, 0, 2));
        assert_eq!((totals[2].human, totals[2].ai, totals[2].total), (0, 1, 1));

        let cancel = Cancel::new();
        cancel.cancel();
        let stopped = read_trend(&client, &days, vec![None; 3], |_, _| {}, &cancel).await;
        assert!(matches!(stopped.end, TrendEnd::Cancelled));
        assert!(stopped.complete().is_none());
    }
}
