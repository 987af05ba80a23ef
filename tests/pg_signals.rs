//! Searches, feedback, feedback by page and assistant reads on PostgreSQL (issue 26): the
//! demo's signals written to both stores by the one seed, read back through the one set
//! of queries, give the same pages for every query and cursor asked.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use chrono::NaiveDate;
use docdeck::api::signals::{Kind, SignalsQuery};
use docdeck::server::db::{Db, DbLocation};
use docdeck::server::pg::{PgStore, PgUrl};
use docdeck::server::signals::{self, Cursor};
use docdeck::server::store::{Lite, Sql};

fn query(kind: Kind, pairs: &[(&str, &str)]) -> SignalsQuery {
    SignalsQuery::from_pairs(kind, pairs.iter().copied()).unwrap()
}

/// Every read of `sql` for the queries asked, as text to compare.
fn reads(sql: &mut dyn Sql) -> Vec<String> {
    let ranges: [&[(&str, &str)]; 3] = [
        &[],
        &[("dateFrom", "2026-11-01"), ("dateTo", "2026-11-20")],
        &[("limit", "3")],
    ];
    let mut seen = Vec::new();
    for range in ranges {
        let searches = query(Kind::Searches, range);
        let page = signals::searches(sql, "demo", &searches, Cursor::First).unwrap();
        seen.push(format!("{page:?}"));
        let feedback = query(Kind::Feedback, range);
        let page = signals::feedback(sql, "demo", &feedback, Cursor::First).unwrap();
        seen.push(format!("{page:?}"));
        for filter in [
            &[("source", "contextual")][..],
            &[("status", "pending,resolved")][..],
        ] {
            let mut pairs = range.to_vec();
            pairs.extend_from_slice(filter);
            let page =
                signals::feedback(sql, "demo", &query(Kind::Feedback, &pairs), Cursor::First)
                    .unwrap();
            seen.push(format!("{page:?}"));
        }
        let by_page = query(Kind::FeedbackByPage, range);
        let page = signals::feedback_by_page(sql, "demo", &by_page).unwrap();
        seen.push(format!("{page:?}"));
        let assistant = query(Kind::Assistant, range);
        let page = signals::assistant(sql, "demo", &assistant, Cursor::First).unwrap();
        seen.push(format!("{page:?}"));
    }
    seen
}

#[test]
fn the_demo_signals_read_alike_on_both_stores() {
    let url = pg_or_skip!();
    let today = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
    let sqlite = Db::open(&DbLocation::Memory).unwrap();
    let expected = sqlite
        .blocking(|conn| {
            signals::seed(&mut Lite(conn), "demo", today)?;
            Ok(reads(&mut Lite(conn)))
        })
        .unwrap();
    let store = PgStore::open(&PgUrl::parse(&url).unwrap()).unwrap();
    let got = store
        .blocking(move |client| {
            signals::seed(client, "demo", today)?;
            Ok(reads(client))
        })
        .unwrap();
    assert!(expected[0].contains("search_query"), "{}", expected[0]);
    assert!(expected.iter().any(|page| page.contains("thumbs_up")));
    for (got, expected) in got.iter().zip(&expected) {
        assert_eq!(got, expected);
    }
    assert_eq!(got.len(), expected.len());
}
