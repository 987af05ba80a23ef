//! Property tests of the wire contract and the local service: dates, queries and response
//! decoding never panic and round-trip; the analytics keep their invariants on any set of
//! view events, checked against a model computed here by brute force.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};

use chrono::{NaiveDate, TimeZone, Utc};
use docdeck::api::{ApiError, DateParam, ErrorBody, Job, VisitorsPage, VisitorsQuery};
use docdeck::server::db::{Db, DbLocation};
use docdeck::server::views::{self, Traffic, ViewEvent, VisitorsRequest};
use proptest::prelude::*;
use serde_json::Value;

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".*".prop_map(Value::String),
        prop_oneof![
            Just("active"),
            Just("completed"),
            Just("2026-11-22T10:00:00Z"),
            Just("https://github.com/a/b/pull/1")
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| {
        let keys = prop_oneof![
            Just("id".to_owned()),
            Just("status".to_owned()),
            Just("source".to_owned()),
            Just("prLink".to_owned()),
            Just("createdAt".to_owned()),
            Just("totals".to_owned()),
            Just("visitors".to_owned()),
            Just("hasMore".to_owned()),
            Just("human".to_owned()),
            Just("ai".to_owned()),
            Just("total".to_owned()),
            Just("path".to_owned()),
            Just("error".to_owned()),
            Just("details".to_owned()),
            ".{0,8}",
        ];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(keys, inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn no_control(text: &str) -> bool {
    !text.chars().any(|c| c.is_control() && c != '\n')
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn dates_round_trip(days in 0i64..60_000, millis in 0i64..86_400_000) {
        let date = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap() + chrono::Duration::days(days);
        let param = DateParam::from_date(date);
        prop_assert_eq!(param.to_string().parse::<DateParam>().unwrap(), param);
        let instant = date.and_hms_opt(0, 0, 0).unwrap().and_utc()
            + chrono::Duration::milliseconds(millis);
        let param = DateParam::from_instant(instant);
        let again = param.to_string().parse::<DateParam>().unwrap();
        prop_assert_eq!(again.instant(), instant);
    }

    #[test]
    fn any_text_is_a_date_or_a_clear_error(text in "\\PC{0,40}|[0-9T:.+Z-]{0,30}") {
        match DateParam::parse("dateFrom", &text) {
            Ok(param) => {
                let again = param.to_string().parse::<DateParam>().unwrap();
                prop_assert_eq!(again.instant(), param.instant());
            }
            Err(err) => {
                let message = err.to_string();
                prop_assert!(message.contains("dateFrom"), "{}", message);
                prop_assert!(no_control(&message), "{:?}", message);
            }
        }
    }

    #[test]
    fn any_query_is_parsed_or_refused_and_round_trips(
        pairs in prop::collection::vec(
            (
                prop_oneof![
                    Just("dateFrom".to_owned()),
                    Just("dateTo".to_owned()),
                    Just("limit".to_owned()),
                    Just("offset".to_owned()),
                    "[a-z]{1,6}",
                ],
                prop_oneof![
                    "[0-9]{1,4}",
                    "-?[0-9]{1,25}",
                    "20[0-9]{2}-[01][0-9]-[0-3][0-9]",
                    "\\PC{0,20}",
                ],
            ),
            0..6,
        )
    ) {
        let borrowed: Vec<(&str, &str)> =
            pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        match VisitorsQuery::from_pairs(borrowed) {
            Ok(query) => {
                let sent = query.to_pairs();
                let again = VisitorsQuery::from_pairs(
                    sent.iter().map(|(k, v)| (*k, v.as_str())),
                )
                .unwrap();
                prop_assert_eq!(again, query);
            }
            Err(err) => prop_assert!(no_control(&err.to_string()), "{:?}", err.to_string()),
        }
    }

    #[test]
    fn any_json_decodes_to_a_value_or_an_error(value in any_json()) {
        let bytes = serde_json::to_vec(&value).unwrap();
        let _ = serde_json::from_slice::<Job>(&bytes);
        if let Ok(page) = serde_json::from_slice::<VisitorsPage>(&bytes) {
            // What decodes re-encodes and decodes to the same value.
            let again = serde_json::to_vec(&page).unwrap();
            prop_assert_eq!(serde_json::from_slice::<VisitorsPage>(&again).unwrap(), page);
        }
        let _ = serde_json::from_slice::<ErrorBody>(&bytes);
        for status in [400u16, 401, 404, 429, 500, 503, 418] {
            let message = ApiError::from_status(status, None, &bytes).to_string();
            prop_assert!(no_control(&message), "{:?}", message);
        }
    }

    #[test]
    fn any_bytes_decode_to_a_value_or_an_error(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = serde_json::from_slice::<Job>(&bytes);
        let _ = serde_json::from_slice::<VisitorsPage>(&bytes);
        let message = ApiError::from_status(502, None, &bytes).to_string();
        prop_assert!(no_control(&message), "{:?}", message);
        if let Err(err) = serde_json::from_slice::<Job>(&bytes) {
            let message = ApiError::decode(200, &err, &bytes).to_string();
            prop_assert!(no_control(&message), "{:?}", message);
        }
    }
}

/// Base of the generated events: 2026-11-01 00:00 UTC, in ms.
fn base_ms() -> i64 {
    Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0)
        .unwrap()
        .timestamp_millis()
}

fn events() -> impl Strategy<Value = Vec<ViewEvent>> {
    prop::collection::vec(
        (0i64..10 * 86_400_000, 0u8..12, 0u8..25, any::<bool>()),
        0..120,
    )
    .prop_map(|raw| {
        raw.into_iter()
            .map(|(offset, page, visitor, ai)| ViewEvent {
                ts_ms: base_ms() + offset,
                path: format!("/page-{page}"),
                visitor: format!("v{visitor}"),
                traffic: if ai { Traffic::Ai } else { Traffic::Human },
            })
            .collect()
    })
}

/// (human, ai, total) computed by brute force.
fn model(events: &[&ViewEvent]) -> (u64, u64, u64) {
    let set = |pick: &dyn Fn(&ViewEvent) -> bool| {
        events
            .iter()
            .filter(|e| pick(e))
            .map(|e| e.visitor.clone())
            .collect::<BTreeSet<_>>()
            .len() as u64
    };
    (
        set(&|e| e.traffic == Traffic::Human),
        set(&|e| e.traffic == Traffic::Ai),
        set(&|_| true),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn analytics_match_a_brute_force_model_whatever_the_paging(
        events in events(),
        from_hours in 0i64..240,
        span_hours in 0i64..240,
        limit in 1u32..8,
    ) {
        let db = Db::open(&DbLocation::Memory).unwrap();
        let written = events.clone();
        db.blocking(move |conn| {
            let tx = docdeck::sqlite::write_transaction(conn)?;
            views::insert_views(&tx, "p", &written)?;
            tx.commit()?;
            Ok(())
        })
        .unwrap();
        let from_ms = base_ms() + from_hours * 3_600_000;
        let to_ms = from_ms + span_hours * 3_600_000;
        let ask = |limit: u32, offset: u64| {
            let request = VisitorsRequest { from_ms: Some(from_ms), to_ms: Some(to_ms), limit, offset };
            db.blocking(|conn| views::visitors(conn, "p", &request)).unwrap()
        };

        let in_range: Vec<&ViewEvent> =
            events.iter().filter(|e| e.ts_ms >= from_ms && e.ts_ms < to_ms).collect();
        let whole = ask(250, 0);
        let (human, ai, total) = model(&in_range);
        prop_assert_eq!((whole.totals.human, whole.totals.ai, whole.totals.total), (human, ai, total));
        prop_assert!(human.max(ai) <= total && total <= human + ai);
        prop_assert!(!whole.has_more);

        let mut by_page: BTreeMap<&str, Vec<&ViewEvent>> = BTreeMap::new();
        for event in &in_range {
            by_page.entry(event.path.as_str()).or_default().push(event);
        }
        prop_assert_eq!(whole.visitors.len(), by_page.len());
        for row in &whole.visitors {
            prop_assert_eq!(model(&by_page[row.path.as_str()]), (row.human, row.ai, row.total));
            prop_assert!(row.human.max(row.ai) <= row.total && row.total <= row.human + row.ai);
        }
        // The order is total DESC, path ASC: a total order.
        for pair in whole.visitors.windows(2) {
            prop_assert!(
                (std::cmp::Reverse(pair[0].total), &pair[0].path)
                    < (std::cmp::Reverse(pair[1].total), &pair[1].path)
            );
        }

        // Pages of any size concatenate to the single big page; totals ignore paging.
        let mut joined = Vec::new();
        let mut offset = 0;
        loop {
            let page = ask(limit, offset);
            prop_assert_eq!(&page.totals, &whole.totals);
            prop_assert!(page.visitors.len() <= limit as usize);
            offset += page.visitors.len() as u64;
            joined.extend(page.visitors);
            if !page.has_more {
                break;
            }
        }
        prop_assert_eq!(joined, whole.visitors.clone());

        // An empty range gives zeros.
        if span_hours == 0 {
            prop_assert_eq!(whole.totals.total, 0);
            prop_assert!(whole.visitors.is_empty());
        }
    }
}
