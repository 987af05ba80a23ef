//! Visitor counts checked against a plain in-memory model of the definition.

use std::collections::{BTreeMap, BTreeSet};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::server::db::{Db, DbLocation};

fn event(ts_ms: i64, path: &str, visitor: &str, traffic: Traffic) -> ViewEvent {
    ViewEvent {
        ts_ms,
        path: path.into(),
        visitor: visitor.into(),
        traffic,
    }
}

fn load(events: &[ViewEvent]) -> Db {
    let db = Db::open(&DbLocation::Memory).unwrap();
    db.blocking(|conn| {
        let tx = conn.transaction()?;
        insert_views(&tx, "p", events)?;
        tx.commit()?;
        Ok(())
    })
    .unwrap();
    db
}

fn query(
    db: &Db,
    from_ms: Option<i64>,
    to_ms: Option<i64>,
    limit: u32,
    offset: u64,
) -> VisitorsPage {
    let request = VisitorsRequest {
        from_ms,
        to_ms,
        limit,
        offset,
    };
    db.blocking(|conn| visitors(conn, "p", &request)).unwrap()
}

/// The definition, computed the slow obvious way.
fn reference(events: &[ViewEvent], from: i64, to: i64) -> (VisitorTotals, Vec<PathVisitors>) {
    let mut site: [BTreeSet<&str>; 3] = Default::default();
    let mut pages: BTreeMap<&str, [BTreeSet<&str>; 3]> = BTreeMap::new();
    for e in events.iter().filter(|e| e.ts_ms >= from && e.ts_ms < to) {
        let column = usize::from(e.traffic == Traffic::Ai);
        let page = pages.entry(&e.path).or_default();
        for sets in [&mut site, page] {
            sets[column].insert(&e.visitor);
            sets[2].insert(&e.visitor);
        }
    }
    let count = |set: &BTreeSet<&str>| set.len() as u64;
    let totals = VisitorTotals {
        human: count(&site[0]),
        ai: count(&site[1]),
        total: count(&site[2]),
    };
    let mut rows: Vec<PathVisitors> = pages
        .into_iter()
        .map(|(path, sets)| PathVisitors {
            path: path.to_owned(),
            human: count(&sets[0]),
            ai: count(&sets[1]),
            total: count(&sets[2]),
        })
        .collect();
    rows.sort_by(|a, b| b.total.cmp(&a.total).then_with(|| a.path.cmp(&b.path)));
    (totals, rows)
}

#[test]
fn a_visitor_seen_as_both_counts_once_in_total() {
    let db = load(&[
        event(10, "/a", "v1", Traffic::Human),
        event(11, "/a", "v1", Traffic::Ai),
        event(12, "/a", "v2", Traffic::Human),
        event(13, "/b", "v2", Traffic::Human),
        event(20, "/b", "v3", Traffic::Ai),
    ]);
    let page = query(&db, Some(10), Some(20), 50, 0);
    assert_eq!(
        page.totals,
        VisitorTotals {
            human: 2,
            ai: 1,
            total: 2
        }
    );
    assert_eq!(
        page.visitors[0],
        PathVisitors {
            path: "/a".into(),
            human: 2,
            ai: 1,
            total: 2
        }
    );
    assert_eq!(
        page.visitors[1],
        PathVisitors {
            path: "/b".into(),
            human: 1,
            ai: 0,
            total: 1
        }
    );
    assert!(!page.has_more);
}

#[test]
fn random_event_sets_match_the_definition_for_every_range_and_page_size() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for round in 0..12 {
        let events: Vec<ViewEvent> = (0..rng.random_range(0..400))
            .map(|_| {
                event(
                    rng.random_range(0..1_000),
                    &format!("/p{}", rng.random_range(0..30)),
                    &format!("v{}", rng.random_range(0..60)),
                    if rng.random_bool(0.3) {
                        Traffic::Ai
                    } else {
                        Traffic::Human
                    },
                )
            })
            .collect();
        let db = load(&events);
        let from = rng.random_range(0..600);
        let to = from + rng.random_range(0..600);
        let (totals, rows) = reference(&events, from, to);
        for limit in [1, 3, 7, 250] {
            let mut offset = 0;
            let mut paged = Vec::new();
            loop {
                let page = query(&db, Some(from), Some(to), limit, offset);
                assert_eq!(
                    page.totals, totals,
                    "round {round}: totals must ignore paging"
                );
                paged.extend(page.visitors);
                if !page.has_more {
                    break;
                }
                offset += u64::from(limit);
            }
            assert_eq!(paged, rows, "round {round}, limit {limit}");
        }
        for row in &rows {
            assert!(row.human.max(row.ai) <= row.total && row.total <= row.human + row.ai);
        }
    }
}

#[test]
fn unbounded_sides_and_empty_ranges() {
    let db = load(&[
        event(-5, "/a", "v1", Traffic::Human),
        event(i64::MAX - 1, "/a", "v2", Traffic::Ai),
    ]);
    assert_eq!(query(&db, None, None, 50, 0).totals.total, 2);
    let empty = query(&db, Some(0), Some(0), 50, 0);
    assert_eq!(empty.totals, VisitorTotals::default());
    assert!(empty.visitors.is_empty() && !empty.has_more);
    assert!(query(&db, None, None, 50, 10).visitors.is_empty());
}
