//! `docdeck searches`, `feedback [--by-page]` and `assistant [--unanswered]` against the
//! local service's demo seed, whose numbers are fixed in `server::signals::seed`: 263
//! searches over ten queries (four nobody clicked), 70 pieces of feedback on four pages
//! (six with a comment), six questions (four unanswered). Each test runs on SQLite and
//! on PostgreSQL (the seed is written to either).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use common::{KEY, ServeProcess, run_cli, text};
use serde_json::Value;

fn demo(home: &Path, db: &str) -> ServeProcess {
    ServeProcess::spawn(home, &["--db", db, "--api-key", KEY])
}

/// Each `fn name(db: &str)` as `name::sqlite` and `name::postgres`.
macro_rules! on_both_stores_cli {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[test]
                fn sqlite() {
                    super::$name(":memory:");
                }

                #[test]
                fn postgres() {
                    use super::common;
                    let url = crate::pg_or_skip!();
                    super::$name(&url);
                }
            }
        )*
    };
}

on_both_stores_cli!(
    searches_rank_queries_and_all_follows_the_cursor_to_the_end,
    feedback_by_page_joins_a_url_to_its_page_and_lists_page_by_cursor,
    assistant_unanswered_keeps_the_questions_the_docs_could_not_answer,
    wrong_input_is_refused_before_sending_or_explained_from_the_service,
);

fn json(home: &Path, service: &ServeProcess, args: &[&str]) -> Value {
    let out = run_cli(home, &service.base_url, args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn searches_rank_queries_and_all_follows_the_cursor_to_the_end(db: &str) {
    let home = tempfile::tempdir().unwrap();
    let service = demo(home.path(), db);
    let page = json(home.path(), &service, &["searches", "--format", "json"]);
    assert_eq!(page["totalSearches"], 263);
    assert_eq!(page["nextCursor"], Value::Null);
    let rows = page["searches"].as_array().unwrap();
    assert_eq!(rows.len(), 10);
    assert_eq!(rows[0]["searchQuery"], "api key");
    assert_eq!(rows[0]["hits"], 64);
    assert_eq!(rows[0]["ctr"], 0.8125, "52 of 64 clicked");
    assert_eq!(rows[0]["topClickedPage"], "/guides/authentication");
    let unclicked: Vec<&str> = rows
        .iter()
        .filter(|row| row["topClickedPage"].is_null())
        .map(|row| row["searchQuery"].as_str().unwrap())
        .collect();
    assert_eq!(
        unclicked,
        [
            "sso saml",
            "delete project",
            "terraform provider",
            "audit log export"
        ]
    );

    let gaps = json(
        home.path(),
        &service,
        &["searches", "--unclicked", "--format", "json"],
    );
    let gaps: Vec<&str> = gaps["searches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["searchQuery"].as_str().unwrap())
        .collect();
    assert_eq!(gaps, unclicked, "--unclicked keeps the gaps alone");

    // The trial: `--unclicked --limit 3` read one page of 3 (all clicked) and showed none;
    // it reads on until it has --limit of them, and its cursor goes on from the last.
    let two = json(
        home.path(),
        &service,
        &[
            "searches",
            "--unclicked",
            "--limit",
            "2",
            "--format",
            "json",
        ],
    );
    let names = |page: &Value| -> Vec<String> {
        page["searches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| row["searchQuery"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names(&two), unclicked[..2]);
    let cursor = two["nextCursor"].as_str().unwrap().to_owned();
    let rest = json(
        home.path(),
        &service,
        &[
            "searches",
            "--unclicked",
            "--limit",
            "2",
            "--cursor",
            &cursor,
            "--format",
            "json",
        ],
    );
    assert_eq!(names(&rest), unclicked[2..]);
    let table = run_cli(
        home.path(),
        &service.base_url,
        &[
            "searches",
            "--unclicked",
            "--limit",
            "1",
            "--format",
            "table",
        ],
    );
    assert_eq!(
        text(&table.stdout)
            .lines()
            .last()
            .unwrap_or_default()
            .split(" · ")
            .next(),
        Some("1 query nobody clicked through (4 queries read in 2 requests)"),
        "{}",
        text(&table.stdout)
    );

    let first = json(
        home.path(),
        &service,
        &["searches", "--limit", "4", "--format", "json"],
    );
    assert_eq!(first["searches"].as_array().unwrap().len(), 4);
    let cursor = first["nextCursor"].as_str().unwrap().to_owned();
    let second = json(
        home.path(),
        &service,
        &[
            "searches", "--limit", "4", "--cursor", &cursor, "--format", "json",
        ],
    );
    assert_eq!(second["searches"][0]["searchQuery"], "delete project");

    let csv = run_cli(
        home.path(),
        &service.base_url,
        &["searches", "--limit", "3", "--all", "--format", "csv"],
    );
    assert_eq!(csv.status.code(), Some(0), "{}", text(&csv.stderr));
    let lines: Vec<String> = text(&csv.stdout).lines().map(str::to_owned).collect();
    assert_eq!(
        lines[0],
        "searchQuery,hits,ctr,topClickedPage,lastSearchedAt"
    );
    assert_eq!(lines.len(), 11, "every query over four pages: {lines:?}");
    assert!(lines[4].starts_with("sso saml,29,0,,"), "{}", lines[4]);
}

fn feedback_by_page_joins_a_url_to_its_page_and_lists_page_by_cursor(db: &str) {
    let home = tempfile::tempdir().unwrap();
    let service = demo(home.path(), db);
    let by_page = json(
        home.path(),
        &service,
        &["feedback", "--by-page", "--format", "json"],
    );
    let rows = by_page["feedback"].as_array().unwrap();
    let counts: Vec<(String, u64, u64, u64)> = rows
        .iter()
        .map(|row| {
            (
                row["path"].as_str().unwrap().to_owned(),
                row["thumbsUp"].as_u64().unwrap(),
                row["thumbsDown"].as_u64().unwrap(),
                row["total"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        counts,
        [
            ("/quickstart".to_owned(), 23, 2, 25),
            ("/guides/authentication".to_owned(), 6, 14, 20),
            ("/guides/webhooks".to_owned(), 11, 4, 15),
            ("/api-reference/jobs/create".to_owned(), 3, 7, 10),
        ]
    );
    assert_eq!(by_page["hasMore"], false);

    let all = json(
        home.path(),
        &service,
        &["feedback", "--limit", "30", "--all", "--format", "json"],
    );
    let items = all["feedback"].as_array().unwrap();
    assert_eq!(items.len(), 70, "three pages of 30 joined");
    assert_eq!(all["hasMore"], false);
    let commented = items.iter().filter(|f| !f["comment"].is_null()).count();
    assert_eq!(commented, 6);
    let contextual = json(
        home.path(),
        &service,
        &["feedback", "--source", "contextual", "--format", "json"],
    );
    assert_eq!(contextual["feedback"].as_array().unwrap().len(), 6);

    let refused = run_cli(
        home.path(),
        &service.base_url,
        &["feedback", "--by-page", "--all"],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("--limit"),
        "{}",
        text(&refused.stderr)
    );
}

fn assistant_unanswered_keeps_the_questions_the_docs_could_not_answer(db: &str) {
    let home = tempfile::tempdir().unwrap();
    let service = demo(home.path(), db);
    let page = json(
        home.path(),
        &service,
        &["assistant", "--unanswered", "--format", "json"],
    );
    let asked: Vec<&str> = page["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["query"].as_str().unwrap())
        .collect();
    assert_eq!(
        asked,
        [
            "How do I delete a project and its data?",
            "Is there a Terraform provider?",
            "Can I export the audit log to S3?",
            "How do I set up SAML single sign-on?",
        ]
    );
    // As `searches --unclicked`: `--limit 2` filtered one page of two conversations (one of
    // them answered) and showed one; it reads on until it has two, and its cursor goes on.
    let two = json(
        home.path(),
        &service,
        &[
            "assistant",
            "--unanswered",
            "--limit",
            "2",
            "--format",
            "json",
        ],
    );
    let questions = |page: &serde_json::Value| -> Vec<String> {
        page["conversations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["query"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(questions(&two), asked[..2]);
    let cursor = two["nextCursor"].as_str().unwrap().to_owned();
    let rest = json(
        home.path(),
        &service,
        &[
            "assistant",
            "--unanswered",
            "--limit",
            "2",
            "--cursor",
            &cursor,
            "--format",
            "json",
        ],
    );
    assert_eq!(questions(&rest), asked[2..]);
}

fn wrong_input_is_refused_before_sending_or_explained_from_the_service(db: &str) {
    let home = tempfile::tempdir().unwrap();
    let service = demo(home.path(), db);
    let too_many = run_cli(
        home.path(),
        &service.base_url,
        &["searches", "--limit", "101"],
    );
    assert_eq!(too_many.status.code(), Some(2));
    assert!(
        text(&too_many.stderr).contains("between 1 and 100"),
        "{}",
        text(&too_many.stderr)
    );
    // Made up, or well formed but never given (a new user's `s.7` read as an empty last
    // page before): refused by the service either way.
    for (command, cursor) in [
        ("assistant", "made-up"),
        ("searches", "s.7"),
        ("feedback", "f.123.4"),
        ("searches", "s.3~0123456789abcdef"),
    ] {
        let made_up = run_cli(
            home.path(),
            &service.base_url,
            &[command, "--cursor", cursor],
        );
        assert_eq!(made_up.status.code(), Some(1), "{cursor}");
        assert!(
            text(&made_up.stderr).contains("is not one this service gave"),
            "{cursor}: {}",
            text(&made_up.stderr)
        );
    }
}
