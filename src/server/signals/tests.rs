//! Searches, feedback and conversations stored and read back with numbers worked out by
//! hand: ranking, click rate, top page, cursors, filters, URL paths joined to pages.

use chrono::NaiveDate;
use rusqlite::Connection;

use super::*;
use crate::api::DateParam;
use crate::server::db::MIGRATIONS;
use crate::server::store::Lite;

fn db() -> Connection {
    let conn = Connection::open_in_memory().unwrap();
    crate::sqlite::migrate(&conn, MIGRATIONS).unwrap();
    conn
}

const DAY: i64 = 86_400_000;
/// 2026-11-01T00:00:00Z.
const T0: i64 = 1_793_491_200_000;

fn query(kind: Kind) -> SignalsQuery {
    SignalsQuery::new(kind)
}

#[test]
fn searches_rank_by_hits_with_click_rate_top_page_and_a_cursor() {
    let conn = db();
    let p = "demo";
    // "api key" 4 times: 2 clicks on auth, 1 on keys, 1 none. "SSO  saml" twice, no click,
    // once in another case and spacing. "webhooks" once, clicked as a full URL.
    for (i, (text, clicked)) in [
        ("api key", Some("/guides/auth")),
        ("api key", Some("/guides/keys")),
        ("api key", Some("/guides/auth/")),
        ("api key", None),
        ("SSO  saml", None),
        ("sso saml", None),
        (
            "webhooks",
            Some("https://docs.acme.dev/guides/webhooks.html?x=1"),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        record_search(&mut Lite(&conn), p, T0 + i as i64 * DAY, text, clicked).unwrap();
    }
    record_search(&mut Lite(&conn), "other", T0, "api key", None).unwrap();
    let all = searches(&mut Lite(&conn), p, &query(Kind::Searches), Cursor::First).unwrap();
    assert_eq!(all.total_searches, 7);
    assert_eq!(all.next_cursor, None);
    let rows: Vec<(&str, u64, f64, Option<&str>)> = all
        .searches
        .iter()
        .map(|r| {
            (
                r.search_query.as_str(),
                r.hits,
                r.ctr,
                r.top_clicked_page.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("api key", 4, 0.75, Some("/guides/auth")),
            ("sso saml", 2, 0.0, None),
            ("webhooks", 1, 1.0, Some("/guides/webhooks")),
        ]
    );
    assert_eq!(all.searches[0].last_searched_at, "2026-11-04T00:00:00.000Z");

    let mut first = query(Kind::Searches);
    first.limit = Some(2);
    let page = searches(&mut Lite(&conn), p, &first, Cursor::First).unwrap();
    assert_eq!(page.searches.len(), 2);
    assert_eq!(
        page.total_searches, 7,
        "the whole range's hits on every page"
    );
    let cursor = page.next_cursor.unwrap();
    first.cursor = Some(cursor);
    let next = searches(&mut Lite(&conn), p, &first, Cursor::of(&first).unwrap()).unwrap();
    assert_eq!(next.searches[0].search_query, "webhooks");
    assert_eq!(next.next_cursor, None);

    let mut ranged = query(Kind::Searches);
    ranged.date_from = Some(DateParam::parse("dateFrom", "2026-11-04").unwrap());
    let late = searches(&mut Lite(&conn), p, &ranged, Cursor::First).unwrap();
    assert_eq!(late.total_searches, 4, "the 4th to the 7th");
}

#[test]
fn a_cursor_of_another_kind_or_made_up_is_refused() {
    for (kind, text) in [
        (Kind::Searches, "f.1.2"),
        (Kind::Searches, "s.x"),
        (Kind::Feedback, "s.10"),
        (Kind::Assistant, "a.1"),
    ] {
        let mut q = query(kind);
        q.cursor = Some(text.to_owned());
        let err = Cursor::of(&q).unwrap_err();
        assert!(
            err.to_string().contains("is not one this service gave"),
            "{err}"
        );
    }
}

fn thumbs(conn: &Connection, path: &str, helpful: bool, ts: i64, comment: Option<&str>) {
    let comment = comment.map(str::to_owned);
    let thumb = NewFeedback::thumb(ts, path.to_owned(), Some(helpful), comment);
    record_said(&mut Lite(conn), "demo", &thumb).unwrap();
}

#[test]
fn feedback_pages_newest_first_and_joins_urls_to_pages() {
    let conn = db();
    thumbs(&conn, "/quickstart", true, T0, None);
    thumbs(
        &conn,
        "https://docs.acme.dev/quickstart/?ref=nav",
        false,
        T0 + DAY,
        Some("Too short"),
    );
    thumbs(&conn, "/guides/auth", false, T0 + 2 * DAY, None);
    record_said(
        &mut Lite(&conn),
        "demo",
        &NewFeedback {
            ts_ms: T0 + 3 * DAY,
            path: "/guides/auth".into(),
            source: "code_snippet".into(),
            comment: Some("Does not compile".into()),
            code: Some("let x = ;".into()),
            lang: Some("rust".into()),
            ..NewFeedback::default()
        },
    )
    .unwrap();
    let mut q = query(Kind::Feedback);
    q.limit = Some(3);
    let page = feedback(&mut Lite(&conn), "demo", &q, Cursor::First).unwrap();
    assert!(page.has_more);
    let ids: Vec<&str> = page.feedback.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids, ["fb_4", "fb_3", "fb_2"]);
    let snippet = &page.feedback[0];
    assert_eq!(snippet.code.as_deref(), Some("let x = ;"));
    assert_eq!(snippet.lang, Some(Some("rust".into())));
    assert_eq!(snippet.filename, Some(None));
    assert_eq!(snippet.helpful, None);
    let contextual = &page.feedback[2];
    assert_eq!(
        contextual.path, "https://docs.acme.dev/quickstart/?ref=nav",
        "kept as sent"
    );
    assert_eq!(contextual.helpful, Some(false));
    assert_eq!(contextual.contact, Some(None));
    q.cursor = page.next_cursor;
    let rest = feedback(&mut Lite(&conn), "demo", &q, Cursor::of(&q).unwrap()).unwrap();
    assert_eq!(rest.feedback.len(), 1);
    assert_eq!(rest.feedback[0].id, "fb_1");
    assert!(!rest.has_more);
    assert_eq!(rest.next_cursor, None);

    let by_page = feedback_by_page(&mut Lite(&conn), "demo", &query(Kind::FeedbackByPage)).unwrap();
    let rows: Vec<(&str, u64, u64, u64, u64)> = by_page
        .feedback
        .iter()
        .map(|r| (r.path.as_str(), r.thumbs_up, r.thumbs_down, r.code, r.total))
        .collect();
    assert_eq!(
        rows,
        [("/guides/auth", 0, 1, 1, 2), ("/quickstart", 1, 1, 0, 2)]
    );

    let mut only = query(Kind::Feedback);
    only.source = Some("code_snippet".into());
    assert_eq!(
        feedback(&mut Lite(&conn), "demo", &only, Cursor::First)
            .unwrap()
            .feedback
            .len(),
        1
    );
    only.source = None;
    only.status = Some("resolved".into());
    assert!(
        feedback(&mut Lite(&conn), "demo", &only, Cursor::First)
            .unwrap()
            .feedback
            .is_empty()
    );
}

#[test]
fn the_demo_seed_holds_gaps_a_thumbed_down_page_and_unanswered_questions() {
    let conn = db();
    let today = NaiveDate::from_ymd_opt(2026, 11, 27).unwrap();
    seed(&mut Lite(&conn), "demo", today).unwrap();
    let all = searches(
        &mut Lite(&conn),
        "demo",
        &query(Kind::Searches),
        Cursor::First,
    )
    .unwrap();
    assert_eq!(
        all.total_searches,
        64 + 41 + 37 + 29 + 23 + 18 + 16 + 14 + 12 + 9
    );
    let gaps: Vec<&str> = all
        .searches
        .iter()
        .filter(|r| r.top_clicked_page.is_none())
        .map(|r| r.search_query.as_str())
        .collect();
    assert_eq!(
        gaps,
        [
            "sso saml",
            "delete project",
            "terraform provider",
            "audit log export"
        ]
    );
    let by_page = feedback_by_page(&mut Lite(&conn), "demo", &query(Kind::FeedbackByPage)).unwrap();
    let auth = by_page
        .feedback
        .iter()
        .find(|r| r.path == "/guides/authentication")
        .unwrap();
    assert_eq!((auth.thumbs_up, auth.thumbs_down, auth.total), (6, 14, 20));
    let hooks = by_page
        .feedback
        .iter()
        .find(|r| r.path == "/guides/webhooks")
        .unwrap();
    assert_eq!(
        (hooks.thumbs_up, hooks.thumbs_down),
        (11, 4),
        "the URL joined to its page"
    );
    let mut q = query(Kind::Feedback);
    q.limit = Some(100);
    let comments = feedback(&mut Lite(&conn), "demo", &q, Cursor::First)
        .unwrap()
        .feedback
        .into_iter()
        .filter(|f| f.comment.is_some())
        .count();
    assert_eq!(comments, 3 + 1 + 1 + 1);
    let asked = assistant(
        &mut Lite(&conn),
        "demo",
        &query(Kind::Assistant),
        Cursor::First,
    )
    .unwrap();
    assert_eq!(asked.conversations.len(), 6);
    assert_eq!(
        asked
            .conversations
            .iter()
            .filter(|c| c.unanswered())
            .count(),
        4
    );
    let first = asked.conversations.last().unwrap();
    assert_eq!(first.query, "How do I set up SAML single sign-on?");
    assert!(first.sources.is_empty());
}

#[test]
fn the_demo_seeds_clicks_spread_so_the_last_week_shows_the_same_gaps() {
    let conn = db();
    let today = NaiveDate::from_ymd_opt(2026, 11, 27).unwrap();
    seed(&mut Lite(&conn), "demo", today).unwrap();
    let week = SignalsQuery {
        date_from: Some(DateParam::parse("dateFrom", "2026-11-21").unwrap()),
        date_to: Some(DateParam::parse("dateTo", "2026-11-28").unwrap()),
        ..query(Kind::Searches)
    };
    let page = searches(&mut Lite(&conn), "demo", &week, Cursor::First).unwrap();
    let mut gaps: Vec<&str> = page
        .searches
        .iter()
        .filter(|r| r.top_clicked_page.is_none())
        .map(|r| r.search_query.as_str())
        .collect();
    gaps.sort_unstable();
    assert_eq!(
        gaps,
        [
            "audit log export",
            "delete project",
            "sso saml",
            "terraform provider"
        ],
        "{page:?}"
    );
}

#[test]
fn a_newest_first_page_keeps_its_limit_and_says_where_the_next_starts() {
    let found = vec![(30, 3, 'c'), (20, 2, 'b'), (10, 1, 'a')];
    let (items, next, more) = newest_page(found.clone(), 2, Kind::Feedback);
    assert_eq!(
        (items, next.as_deref(), more),
        (vec!['c', 'b'], Some("f.20.2"), true)
    );
    let (items, next, more) = newest_page(found, 3, Kind::Assistant);
    assert_eq!((items, next, more), (vec!['c', 'b', 'a'], None, false));
    assert_eq!(Cursor::First.below(), (i64::MAX, i64::MAX));
    assert_eq!(Cursor::After { ts_ms: 20, id: 2 }.below(), (20, 2));
}

#[test]
fn feedback_that_names_no_source_is_given_one_by_what_it_carries() {
    assert_eq!(NewFeedback::source_of(true, true), "code_snippet");
    assert_eq!(NewFeedback::source_of(false, true), "contextual");
    assert_eq!(NewFeedback::source_of(false, false), "thumbs_only");
    let said = NewFeedback::thumb(1, "/a".into(), Some(false), Some("too short".into()));
    assert_eq!(said.source, "contextual");
    assert_eq!(
        NewFeedback::thumb(1, "/a".into(), Some(true), None).source,
        "thumbs_only"
    );
}
