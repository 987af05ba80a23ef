//! `docdeck import --format mintlify` keeps the stream's searches, result clicks, feedback
//! and assistant answers (issue 27), alike on both stores, and a second import adds none.
//!
//! The fixture `tests/fixtures/traffic/mintlify-signals.jsonl` is hand-made in the envelope
//! Mintlify's streaming docs show (`analytics/streaming.mdx`, MIT); their `properties` are
//! not documented, so they use the hosted export's field names. Worked out by hand:
//! - line 1: a browser views /quickstart: a human view.
//! - line 2: anon_r1 searches "API  Keys " → the search "api keys".
//! - line 3: anon_r1 clicks its result, a URL with a fragment → clicked /settings/api-keys.
//! - line 4: anon_r2 searches "webhooks" (properties a JSON string, `searchQuery`): no click.
//! - line 5: a search whose properties hold no words: counted as not stored.
//! - line 6: ChatGPT-User searches: a search by an AI agent, not counted.
//! - line 7: a thumb down on /quickstart with a comment and a contact: contextual.
//! - line 8: a thumb up on a URL of /quickstart (payload a JSON string): thumbs only.
//! - line 9: "How do I rotate a key?", unanswered.
//! - line 10: "Install on Windows", no resolutionStatus: stored as answered, and said.
//! - lines 11–12: the assistant's own thumbs and a nav click: other events.
//! - line 13: a result click with no result: counted as not stored.
//!
//! So: searches "api keys" 1 hit, click rate 1, top /settings/api-keys; "webhooks" 1, 0,
//! none; feedback by page /quickstart 👍 1 👎 1; assistant 2 conversations, 1 unanswered.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::process::Command;

use docdeck::api::DateParam;
use docdeck::api::signals::{Kind, SignalsQuery};
use docdeck::server::db::{Db, DbLocation, StoreError};
use docdeck::server::pg::{PgStore, PgUrl};
use docdeck::server::signals::{self, Cursor};
use docdeck::server::store::{Lite, Sql};

fn fixture() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/traffic/mintlify-signals.jsonl")
        .to_str()
        .unwrap()
        .to_owned()
}

fn import(db: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_docdeck"))
        .args([
            "import",
            "--project",
            "p",
            "--format",
            "mintlify",
            "--db",
            db,
        ])
        .arg(fixture())
        .env("NO_COLOR", "1")
        .env_remove("DOCDECK_DATABASE_URL")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn query(kind: Kind) -> SignalsQuery {
    let mut query = SignalsQuery::new(kind);
    query.date_from = Some(DateParam::parse("dateFrom", "2026-11-20").unwrap());
    query.date_to = Some(DateParam::parse("dateTo", "2026-11-21").unwrap());
    query
}

/// What the store answers: searches (query, hits, click rate, top page), feedback per
/// page (path, up, down), and conversations (query, answered) oldest first.
type Answers = (
    Vec<(String, u64, f64, Option<String>)>,
    Vec<(String, u64, u64)>,
    Vec<(String, bool)>,
);

fn answers(sql: &mut dyn Sql) -> Result<Answers, StoreError> {
    let searches = signals::searches(sql, "p", &query(Kind::Searches), Cursor::First)?
        .searches
        .into_iter()
        .map(|row| (row.search_query, row.hits, row.ctr, row.top_clicked_page))
        .collect();
    let feedback = signals::feedback_by_page(sql, "p", &query(Kind::FeedbackByPage))?
        .feedback
        .into_iter()
        .map(|row| (row.path, row.thumbs_up, row.thumbs_down))
        .collect();
    let mut conversations: Vec<_> =
        signals::assistant(sql, "p", &query(Kind::Assistant), Cursor::First)?
            .conversations
            .into_iter()
            .map(|row| (row.query, row.resolution_status == "answered"))
            .collect();
    conversations.reverse();
    Ok((searches, feedback, conversations))
}

fn expected() -> Answers {
    (
        vec![
            (
                "api keys".to_owned(),
                1,
                1.0,
                Some("/settings/api-keys".to_owned()),
            ),
            ("webhooks".to_owned(), 1, 0.0, None),
        ],
        vec![("/quickstart".to_owned(), 1, 1)],
        vec![
            ("How do I rotate a key?".to_owned(), false),
            ("Install on Windows".to_owned(), true),
        ],
    )
}

fn check_summaries(first: &str, again: &str) {
    for part in [
        "read 13 lines: kept 1 view (human 1, AI 0)",
        "site searches: 2 stored, 1 clicked through",
        "feedback: 2 stored",
        "assistant questions: 2 stored",
        "1 of them gave no resolutionStatus docdeck reads (answered or unanswered): counted as answered",
        "docs.search.query: 1 event not stored, without the words searched (properties.query)",
        "docs.search.result_click: 1 event not stored, without the result clicked (properties.url)",
        "searches by AI agents 1",
        "other events, not stored: docs.assistant.thumbs_up 1, docs.navitem.click 1",
    ] {
        assert!(first.contains(part), "{part:?} in {first}");
    }
    assert!(!first.contains("none at /search"), "{first}");
    for part in [
        "kept 0 views",
        "(2 stored before, not added again)\n  feedback: 0 stored (2 stored before, not added again)\n  assistant questions: 0 stored (2 stored before, not added again)",
    ] {
        assert!(again.contains(part), "{part:?} in {again}");
    }
    assert!(
        !again.contains("resolutionStatus"),
        "nothing stored again: {again}"
    );
}

/// A result click whose search is not stored (never sent, or later in the file) is
/// counted as not stored: it was dropped without a word (the second trial of stop 33).
#[test]
fn a_click_that_matches_no_search_is_counted() {
    let dir = tempfile::tempdir().unwrap();
    let lines = dir.path().join("orphan.jsonl");
    std::fs::write(
        &lines,
        r#"{"eventType":"docs.search.result_click","payload":{"event_id":"x-1","anon_id":"a1","user_agent":"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36","created_at":"2026-11-20T10:00:10Z","path":"/","properties":{"query":"late search","url":"/guides/setup"}}}
{"eventType":"docs.search.query","payload":{"event_id":"x-2","anon_id":"a1","user_agent":"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36","created_at":"2026-11-20T10:00:00Z","path":"/","properties":{"query":"late search"}}}
"#,
    )
    .unwrap();
    let db = dir.path().join("service.sqlite");
    let output = Command::new(env!("CARGO_BIN_EXE_docdeck"))
        .args(["import", "--project", "p", "--format", "mintlify", "--db"])
        .arg(&db)
        .arg(&lines)
        .env("NO_COLOR", "1")
        .env_remove("DOCDECK_DATABASE_URL")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{out}");
    assert!(
        out.contains("site searches: 1 stored, 0 clicked through"),
        "{out}"
    );
    assert!(
        out.contains("result clicks not stored: 1 matched no search of the same words by the same visitor in the hour before"),
        "{out}"
    );
}

#[test]
fn the_streams_searches_feedback_and_answers_are_kept_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("service.sqlite");
    let first = import(path.to_str().unwrap());
    let again = import(path.to_str().unwrap());
    check_summaries(&first, &again);
    let db = Db::open(&DbLocation::File(path)).unwrap();
    let got = db.blocking(|conn| answers(&mut Lite(conn))).unwrap();
    assert_eq!(got, expected());
}

#[test]
fn the_streams_searches_feedback_and_answers_are_kept_on_postgres() {
    let url = pg_or_skip!();
    let first = import(&url);
    let again = import(&url);
    check_summaries(&first, &again);
    let pg = PgStore::open(&PgUrl::parse(&url).unwrap()).unwrap();
    let got = pg.blocking(|client| answers(client)).unwrap();
    assert_eq!(got, expected());
}
