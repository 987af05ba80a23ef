//! Visitor analytics through the real client and service: exact counts on a hand-built
//! dataset, the edges of the date range, offsets in times, and paging; each on both stores
//! (SQLite and PostgreSQL), the fixture imported into either by the same importer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{client, import_views_into, options_on, start, view};
use docdeck::api::{ApiError, DateParam, PathVisitors, QueryError, VisitorTotals, VisitorsQuery};
use docdeck::server::RunningServer;
use docdeck::server::db::DbLocation;

/// The service over `db`, `lines` imported into it first.
async fn service_with(db: DbLocation, lines: &[String]) -> RunningServer {
    import_views_into(&db, common::PROJECT, lines);
    let mut options = options_on(&db);
    // Paging one row at a time takes more calls than the default hourly budget.
    options.rate_limit = 10_000;
    start(options).await
}

fn range(from: &str, to: &str) -> VisitorsQuery {
    VisitorsQuery {
        date_from: Some(DateParam::parse("dateFrom", from).unwrap()),
        date_to: Some(DateParam::parse("dateTo", to).unwrap()),
        ..VisitorsQuery::default()
    }
}

fn row(path: &str, human: u64, ai: u64, total: u64) -> PathVisitors {
    PathVisitors {
        path: path.into(),
        human,
        ai,
        total,
    }
}

/// Visitor A is seen as human and AI; C's view sits exactly on dateTo, A's first exactly
/// on dateFrom; D's view is a millisecond before the range.
fn hand_built() -> Vec<String> {
    vec![
        view("2024-03-01T00:00:00Z", "/docs/a", "A", "human"),
        view("2024-03-02T10:00:00Z", "/docs/a", "A", "ai"),
        view("2024-03-03T08:30:00Z", "/docs/a", "B", "human"),
        view("2024-03-07T23:59:59.999Z", "/docs/b", "B", "human"),
        view("2024-03-08T00:00:00Z", "/docs/b", "C", "ai"),
        view("2024-02-29T23:59:59.999Z", "/docs/c", "D", "human"),
        view("2024-03-05T12:00:00+05:00", "/docs/c", "E", "ai"),
        view("2024-03-05T13:00:00Z", "/docs/c", "E", "ai"),
    ]
}

on_both_stores_kept! {
    async fn exact_counts_with_inclusive_from_and_exclusive_to(db: DbLocation) {
        let server = service_with(db, &hand_built()).await;
        let client = client(&server);
        let page = client
            .visitors(&range("2024-03-01", "2024-03-08"))
            .await
            .unwrap();
        assert_eq!(
            page.totals,
            VisitorTotals {
                human: 2,
                ai: 2,
                total: 3
            }
        );
        assert!(page.totals.total < page.totals.human + page.totals.ai);
        assert_eq!(
            page.visitors,
            [
                row("/docs/a", 2, 1, 2),
                row("/docs/b", 1, 0, 1),
                row("/docs/c", 0, 1, 1)
            ]
        );
        assert!(!page.has_more);

        // One millisecond more at the end brings C in.
        let wider = client
            .visitors(&range("2024-03-01", "2024-03-08T00:00:00.001Z"))
            .await
            .unwrap();
        assert_eq!(
            wider.totals,
            VisitorTotals {
                human: 2,
                ai: 3,
                total: 4
            }
        );
        // One millisecond more at the start brings D in.
        let earlier = client
            .visitors(&range("2024-02-29T23:59:59.999Z", "2024-03-08"))
            .await
            .unwrap();
        assert_eq!(earlier.totals.human, 3);
        server.shutdown().await;
    }

    async fn times_with_offsets_mean_the_same_instants(db: DbLocation) {
        let server = service_with(db, &hand_built()).await;
        let client = client(&server);
        let utc = client
            .visitors(&range("2024-03-01", "2024-03-08"))
            .await
            .unwrap();
        let shifted = client
            .visitors(&range(
                "2024-03-01T02:00:00+02:00",
                "2024-03-07T19:00:00-05:00",
            ))
            .await
            .unwrap();
        assert_eq!(shifted, utc);
        // Without an offset a time is UTC.
        let naive = client
            .visitors(&range("2024-03-01T00:00:00", "2024-03-08T00:00"))
            .await
            .unwrap();
        assert_eq!(naive, utc);
        server.shutdown().await;
    }

    async fn open_ended_ranges_and_empty_results(db: DbLocation) {
        let server = service_with(db, &hand_built()).await;
        let client = client(&server);
        let everything = client.visitors(&VisitorsQuery::default()).await.unwrap();
        assert_eq!(
            everything.totals,
            VisitorTotals {
                human: 3,
                ai: 3,
                total: 5
            }
        );
        let only_from = VisitorsQuery {
            date_from: Some(DateParam::parse("dateFrom", "2024-03-05").unwrap()),
            ..VisitorsQuery::default()
        };
        assert_eq!(client.visitors(&only_from).await.unwrap().totals.total, 3);
        let nothing = client
            .visitors(&range("2030-01-01", "2030-02-01"))
            .await
            .unwrap();
        assert_eq!(nothing.totals, VisitorTotals::default());
        assert!(nothing.visitors.is_empty() && !nothing.has_more);
        server.shutdown().await;
    }
}

/// 120 pages with many ties in total, so the order's tie-break on path is exercised.
fn many_pages() -> Vec<String> {
    let mut lines = Vec::new();
    for page in 0..120 {
        for visitor in 0..(page % 9 + 1) {
            let traffic = if visitor % 4 == 0 { "ai" } else { "human" };
            let day = visitor % 28 + 1;
            lines.push(view(
                &format!("2024-02-{day:02}T12:00:00Z"),
                &format!("/p/{page:03}"),
                &format!("v{visitor}"),
                traffic,
            ));
        }
    }
    lines
}

on_both_stores_kept! {
    async fn pages_of_any_size_concatenate_to_the_single_big_page(db: DbLocation) {
        let server = service_with(db, &many_pages()).await;
        let client = client(&server);
        let base = range("2024-02-01", "2024-03-01");
        let big = client
            .visitors(&VisitorsQuery {
                limit: Some(250),
                ..base.clone()
            })
            .await
            .unwrap();
        assert_eq!(big.visitors.len(), 120);
        assert!(!big.has_more);
        let order_ok = big
            .visitors
            .windows(2)
            .all(|w| w[0].total > w[1].total || (w[0].total == w[1].total && w[0].path < w[1].path));
        assert!(order_ok, "rows are ordered by total desc, then path asc");
        for limit in [1, 7, 50, 119, 120] {
            let mut query = VisitorsQuery {
                limit: Some(limit),
                ..base.clone()
            };
            let mut rows = Vec::new();
            loop {
                let page = client.visitors(&query).await.unwrap();
                assert_eq!(
                    page.totals, big.totals,
                    "totals ignore paging (limit {limit})"
                );
                assert!(page.visitors.len() <= limit as usize);
                rows.extend(page.visitors);
                if !page.has_more {
                    break;
                }
                query = query.next_page();
            }
            assert_eq!(rows, big.visitors, "limit {limit}");
        }
        let all = client
            .visitors_all(
                &VisitorsQuery {
                    limit: Some(13),
                    ..base.clone()
                },
                |_| {},
            )
            .await
            .unwrap();
        assert_eq!(all.visitors, big.visitors);
        let mut pages_seen = 0;
        let default_all = client
            .visitors_all(&base, |_| pages_seen += 1)
            .await
            .unwrap();
        assert_eq!(default_all.visitors, big.visitors);
        assert_eq!(
            pages_seen, 1,
            "without a limit, --all asks for pages of 250"
        );
        let past_end = client
            .visitors(&VisitorsQuery {
                offset: Some(500),
                ..base
            })
            .await
            .unwrap();
        assert!(past_end.visitors.is_empty() && !past_end.has_more);
        server.shutdown().await;
    }
}

#[tokio::test]
async fn bad_queries_are_refused_before_anything_is_sent() {
    // Nothing listens on this address: an error other than a query error would mean
    // the client tried to send.
    let client = common::client_with("http://127.0.0.1:9", "demo", "mint_x");
    let cases = [
        VisitorsQuery {
            limit: Some(0),
            ..VisitorsQuery::default()
        },
        VisitorsQuery {
            limit: Some(251),
            ..VisitorsQuery::default()
        },
        range("2024-03-02", "2024-03-01"),
        range("2024-03-01", "2024-03-01T00:00:00Z"),
    ];
    for query in cases {
        let err = client.visitors(&query).await.unwrap_err();
        assert!(
            matches!(err, ApiError::InvalidQuery(_)),
            "{query:?}: {err:?}"
        );
    }
    assert!(matches!(
        DateParam::parse("dateFrom", "2024-02-30"),
        Err(QueryError::BadDate { .. })
    ));
}

on_both_stores_kept! {
    async fn a_404_on_the_visitors_path_says_to_check_the_project_not_a_job(db: DbLocation) {
        let server = service_with(db, &hand_built()).await;
        let wrong_prefix = format!("{}/api/", server.base_url());
        let client = common::client_with(&wrong_prefix, common::PROJECT, common::KEY);
        let err = client
            .visitors(&range("2024-03-01", "2024-03-08"))
            .await
            .unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, ApiError::NotFound { .. }), "{err:?}");
        assert!(
            text.contains("check the project id") && text.contains("base URL"),
            "{text}"
        );
        assert!(!text.contains("job id"), "{text}");
    }
}
