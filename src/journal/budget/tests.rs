//! The analytics budget and the trend cache of the journal.

use chrono::{DateTime, TimeDelta, Utc};

use super::super::{Journal, Scope};
use super::{AnalyticsBudget, Decision};
use crate::api::VisitorTotals;

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

fn scope(service: &str, project: &str) -> Scope {
    Scope {
        service: service.into(),
        project: project.into(),
    }
}

fn totals(human: u64, ai: u64, total: u64) -> VisitorTotals {
    VisitorTotals { human, ai, total }
}

fn day(date: &str) -> (DateTime<Utc>, DateTime<Utc>) {
    let from = at(&format!("{date}T00:00:00Z"));
    (from, from + TimeDelta::days(1))
}

#[test]
fn requests_count_for_an_hour_per_service_and_project() {
    let mut journal = Journal::open_in_memory().unwrap();
    let here = scope("http://a", "p");
    journal
        .record_analytics(&here, 30, at("2026-11-20T10:00:00Z"))
        .unwrap();
    journal
        .record_analytics(&here, 5, at("2026-11-20T10:30:00Z"))
        .unwrap();
    journal
        .record_analytics(&scope("http://a", "q"), 7, at("2026-11-20T10:30:00Z"))
        .unwrap();
    journal
        .record_analytics(&scope("http://b", "p"), 9, at("2026-11-20T10:30:00Z"))
        .unwrap();
    let budget = |now| journal.analytics_budget(&here, 100, at(now)).unwrap();
    assert_eq!(budget("2026-11-20T10:45:00Z").used(), 35);
    assert_eq!(budget("2026-11-20T10:45:00Z").left(), 65);
    // At 11:00 exactly the first 30 are an hour old and no longer count.
    assert_eq!(budget("2026-11-20T11:00:00Z").used(), 5);
    assert_eq!(budget("2026-11-20T11:31:00Z").left(), 100);
}

#[test]
fn few_requests_go_more_than_ten_ask_and_more_than_left_are_refused_with_a_time() {
    let sent: Vec<_> = (0..95)
        .map(|i| at("2026-11-20T10:00:00Z") + TimeDelta::minutes(i / 10))
        .collect();
    let budget = AnalyticsBudget::new(100, sent);
    assert_eq!(budget.left(), 5);
    assert_eq!(budget.decide(5), Decision::Go);
    // 12 need 7 more than left: the 7th oldest (10:00) frees at 11:00.
    assert_eq!(
        budget.decide(12),
        Decision::Refuse {
            needed: 12,
            left: 5,
            enough_at: Some(at("2026-11-20T11:00:00Z")),
        }
    );
    // 20 need 15 more: the 15th oldest was sent at 10:01.
    assert_eq!(budget.enough_at(20), Some(at("2026-11-20T11:01:00Z")));
    // More than an hour's budget is never enough.
    assert!(matches!(
        budget.decide(101),
        Decision::Refuse {
            enough_at: None,
            ..
        }
    ));
    let fresh = AnalyticsBudget::new(100, Vec::new());
    assert_eq!(fresh.decide(10), Decision::Go);
    assert_eq!(
        fresh.decide(11),
        Decision::Ask {
            needed: 11,
            left: 100
        }
    );
    assert_eq!(
        fresh.decide(100),
        Decision::Ask {
            needed: 100,
            left: 100
        }
    );
    assert_eq!(fresh.enough_at(3), None);
}

#[test]
fn settled_buckets_are_kept_and_unsettled_ones_read_again() {
    let mut journal = Journal::open_in_memory().unwrap();
    let here = scope("http://a", "p");
    let days = [day("2026-11-15"), day("2026-11-16"), day("2026-11-17")];
    let now = at("2026-11-18T12:00:00Z");
    assert_eq!(
        journal.trend_kept(&here, &days, now, false).unwrap(),
        [None; 3]
    );
    let read: Vec<_> = days
        .iter()
        .zip([totals(1, 2, 3), totals(4, 5, 6), totals(7, 8, 9)])
        .map(|(range, totals)| (*range, totals))
        .collect();
    journal.store_trend(&here, &read, now).unwrap();
    // The 15th ended 60 hours before: settled and kept. The 16th and 17th had not.
    let later = now + TimeDelta::minutes(5);
    assert_eq!(
        journal.trend_kept(&here, &days, later, false).unwrap(),
        [Some(totals(1, 2, 3)), None, None]
    );
    // A day later the 16th has settled, but its numbers were read before: read again.
    assert_eq!(
        journal
            .trend_kept(&here, &days, now + TimeDelta::days(1), false)
            .unwrap(),
        [Some(totals(1, 2, 3)), None, None]
    );
    // A refresh reads everything again.
    assert_eq!(
        journal.trend_kept(&here, &days, later, true).unwrap(),
        [None; 3]
    );
}

#[test]
fn a_bucket_read_after_it_settled_is_kept_for_its_service_and_project_only() {
    let mut journal = Journal::open_in_memory().unwrap();
    let here = scope("http://a", "p");
    let range = [day("2026-11-01")];
    let now = at("2026-11-20T00:00:00Z");
    journal
        .store_trend(&here, &[(range[0], totals(3, 1, 4))], now)
        .unwrap();
    assert_eq!(
        journal.trend_kept(&here, &range, now, false).unwrap(),
        [Some(totals(3, 1, 4))]
    );
    for other in [scope("http://a", "q"), scope("http://b", "p")] {
        assert_eq!(
            journal.trend_kept(&other, &range, now, false).unwrap(),
            [None]
        );
    }
    // The same day clipped differently is another bucket.
    let clipped = [(range[0].0, range[0].0 + TimeDelta::hours(12))];
    assert_eq!(
        journal.trend_kept(&here, &clipped, now, false).unwrap(),
        [None]
    );
    // Read again, the new numbers replace the old.
    journal
        .store_trend(&here, &[(range[0], totals(5, 1, 6))], now)
        .unwrap();
    assert_eq!(
        journal.trend_kept(&here, &range, now, false).unwrap(),
        [Some(totals(5, 1, 6))]
    );
}

#[test]
fn a_bucket_settles_48_hours_after_its_end_and_not_a_millisecond_before() {
    let end = at("2026-11-16T00:00:00Z");
    assert!(!super::settled(end, at("2026-11-17T23:59:59.999Z")));
    assert!(super::settled(end, at("2026-11-18T00:00:00Z")));
}
