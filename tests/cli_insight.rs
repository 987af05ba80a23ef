//! `docdeck visitors trend`, `--compare`, `--sort` and `--filter` against `docdeck serve`
//! on port 0, over views loaded with `docdeck import` from a hand-built JSON-lines file:
//! exact numbers, the journal's trend cache, and the messages for a missing end of the
//! range (the analytics budget: `cli_budget.rs`). Each that reads the service on both
//! stores.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use common::{KEY, ServeProcess, db_arg, docdeck_command, run_cli, run_cli_failing, text, view};
use docdeck::server::db::DbLocation;
use serde_json::{Value, json};

/// Three days from Monday 2026-10-12 (the range) and three before it (the period
/// before). A is seen as human and as AI; /new has no views before, /gone none in the
/// range. By day: the 12th human {A,B} ai {C}; the 13th human {A,E} ai {C,D}; the 14th
/// ai {A}. The range: human {A,B,E} = 3, ai {A,C,D} = 3, total 5. Before: human
/// {A,F,G,H} = 4, ai {C} = 1, total 5.
fn views() -> Vec<String> {
    [
        ("2026-10-12T09:00:00Z", "/a", "A", "human"),
        ("2026-10-12T10:00:00Z", "/a", "B", "human"),
        ("2026-10-12T11:00:00Z", "/b", "C", "ai"),
        ("2026-10-13T09:00:00Z", "/a", "A", "human"),
        ("2026-10-13T09:30:00Z", "/b", "C", "ai"),
        ("2026-10-13T23:59:59Z", "/b", "D", "ai"),
        ("2026-10-13T12:00:00Z", "/new", "E", "human"),
        ("2026-10-14T00:00:00Z", "/b", "A", "ai"),
        ("2026-10-10T09:00:00Z", "/a", "A", "human"),
        ("2026-10-10T09:00:00Z", "/a", "F", "human"),
        ("2026-10-11T09:00:00Z", "/a", "G", "human"),
        ("2026-10-11T09:00:00Z", "/b", "C", "ai"),
        ("2026-10-09T00:00:00Z", "/gone", "H", "human"),
        // Outside both periods.
        ("2026-10-08T23:59:59Z", "/a", "Z", "human"),
        ("2026-10-15T00:00:00Z", "/a", "Z", "human"),
    ]
    .iter()
    .map(|(ts, path, visitor, traffic)| view(ts, path, visitor, traffic))
    .collect()
}

/// The service over the hand-built views in `db` (either store), imported with `docdeck
/// import`.
fn service(home: &Path, db: &DbLocation, rate_limit: &str) -> ServeProcess {
    let file = home.join("views.jsonl");
    std::fs::write(&file, views().join("\n") + "\n").unwrap();
    let out = docdeck_command(home)
        .args(["import", "--db", &db_arg(db), file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    ServeProcess::over_store(home, db, &["--rate-limit", rate_limit])
}

fn ok(home: &Path, service: &ServeProcess, args: &[&str]) -> String {
    let out = run_cli(home, &service.base_url, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

fn json_of(home: &Path, service: &ServeProcess, args: &[&str]) -> Value {
    let mut args = args.to_vec();
    args.extend(["--format", "json"]);
    serde_json::from_str(&ok(home, service, &args)).unwrap()
}

/// `args` as a table at 80 columns, every line checked to fit.
fn table_at_80(home: &Path, service: &ServeProcess, args: &[&str]) -> String {
    let out = common::cli_command(home, &service.base_url, KEY)
        .env("COLUMNS", "80")
        .args([args, &["--format", "table"]].concat())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    for line in table.lines() {
        assert!(line.chars().count() <= 80, "{line:?} in\n{table}");
    }
    table
}

fn bucket(from: &str, to: &str, human: u64, ai: u64, total: u64) -> Value {
    json!({"from": from, "to": to, "human": human, "ai": ai, "total": total})
}

const RANGE: [&str; 4] = ["--from", "2026-10-12", "--to", "2026-10-15"];

on_both_stores_sync! {
    fn a_trend_gives_each_days_and_each_weeks_own_totals(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = service(home.path(), &db, "100");
        let days = json_of(
            home.path(),
            &service,
            &[&["visitors", "trend"][..], &RANGE].concat(),
        );
        assert_eq!(
            days,
            json!({"by": "day", "buckets": [
                bucket("2026-10-12", "2026-10-13", 2, 1, 3),
                bucket("2026-10-13", "2026-10-14", 2, 2, 4),
                bucket("2026-10-14", "2026-10-15", 0, 1, 1),
            ]})
        );
        // Weeks start on Monday; the first and last are clipped to the range.
        let args = [
            "visitors",
            "trend",
            "--from",
            "2026-10-07",
            "--to",
            "2026-10-21",
            "--by",
            "week",
        ];
        assert_eq!(
            json_of(home.path(), &service, &args),
            json!({"by": "week", "buckets": [
                // Z's views on the 8th and the 15th are inside these weeks.
                bucket("2026-10-07", "2026-10-12", 5, 1, 6),
                bucket("2026-10-12", "2026-10-19", 4, 3, 6),
                bucket("2026-10-19", "2026-10-21", 0, 0, 0),
            ]})
        );
        let csv = ok(
            home.path(),
            &service,
            &[&args[..], &["--format", "csv"]].concat(),
        );
        assert_eq!(
            csv,
            "from,to,human,ai,total\n2026-10-07,2026-10-12,5,1,6\n2026-10-12,2026-10-19,4,3,6\n2026-10-19,2026-10-21,0,0,0\n"
        );
    }
}

on_both_stores_sync! {
    fn a_trend_table_fits_80_columns_and_says_days_do_not_add_up(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = service(home.path(), &db, "100");
        let table = table_at_80(
            home.path(),
            &service,
            &[&["visitors", "trend"][..], &RANGE].concat(),
        );
        let flat = table.replace('\n', " ");
        assert!(
            flat.contains("so the days do not add up to the range's total"),
            "{table}"
        );
        assert!(
            table.contains("2026-10-13  2026-10-14      2   2      4     50.0%"),
            "{table}"
        );
    }
}

on_both_stores_sync! {
    fn a_second_trend_over_settled_days_makes_no_request(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        // Three analytics requests an hour: the first trend spends them all.
        let service = service(home.path(), &db, "3");
        let args = [&["visitors", "trend"][..], &RANGE].concat();
        let first = json_of(home.path(), &service, &args);
        let second = json_of(home.path(), &service, &args);
        assert_eq!(first, second);
        // The service's budget is spent: a request now is refused, so the second made none.
        let refreshed = run_cli(
            home.path(),
            &service.base_url,
            &[&args[..], &["--refresh"]].concat(),
        );
        assert_eq!(
            refreshed.status.code(),
            Some(1),
            "{}",
            text(&refreshed.stderr)
        );
        // The service states its limit of 3, so the client knows it is spent and sends
        // nothing (a service that stated none would answer 429).
        assert!(
            text(&refreshed.stderr)
                .contains("more than are left (0 of 3 left this hour as counted on this machine for this project; 3 is the limit the service states"),
            "{}",
            text(&refreshed.stderr)
        );
    }
}

on_both_stores_sync! {
    fn compare_adds_the_period_before_to_the_totals_and_to_each_row(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = service(home.path(), &db, "100");
        let compared = json_of(
            home.path(),
            &service,
            &[&["visitors", "--compare"][..], &RANGE].concat(),
        );
        assert_eq!(
            compared,
            json!({
                "totals": {"human": 3, "ai": 3, "total": 5},
                "visitors": [
                    {"path": "/b", "human": 0, "ai": 3, "total": 3, "previous": {"human": 0, "ai": 1, "total": 1}},
                    {"path": "/a", "human": 2, "ai": 0, "total": 2, "previous": {"human": 3, "ai": 0, "total": 3}},
                    {"path": "/new", "human": 1, "ai": 0, "total": 1, "previous": {"human": 0, "ai": 0, "total": 0}},
                    // Visitors before and none now: listed, with zeros now.
                    {"path": "/gone", "human": 0, "ai": 0, "total": 0, "previous": {"human": 1, "ai": 0, "total": 1}},
                ],
                "hasMore": false,
                "previous": {"from": "2026-10-09", "to": "2026-10-12", "totals": {"human": 4, "ai": 1, "total": 5}},
            })
        );
        let csv = ok(
            home.path(),
            &service,
            &[&["visitors", "--compare", "--format", "csv"][..], &RANGE].concat(),
        );
        assert_eq!(
            csv,
            "path,human,ai,total,previous_human,previous_ai,previous_total\n/b,0,3,3,0,1,1\n/a,2,0,2,3,0,3\n/new,1,0,1,0,0,0\n/gone,0,0,0,1,0,1\n"
        );
    }
}

on_both_stores_sync! {
    fn a_compared_table_shows_the_changes_within_80_columns(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = service(home.path(), &db, "100");
        let table = table_at_80(
            home.path(),
            &service,
            &[&["visitors", "--compare"][..], &RANGE].concat(),
        );
        let flat = table.replace('\n', " ");
        for expected in [
            "human -1 (-25.0%), AI +2 (+200.0%), total ±0 (0.0%), AI share +40.0 pp",
            "/b         0   3      3       1  +2 (+200.0%)",
            "/new       1   0      1       -           new",
            "/gone      0   0      0       1     -1 (gone)",
            // The footer tells rows of the range from the pages only the period before had
            // (it said "all 4 rows of the range" of a range with 3 pages visited).
            "all 4 rows: 3 with visitors in the range, 1 with visitors only in the period before",
        ] {
            assert!(flat.contains(expected), "{expected:?} in\n{table}");
        }
    }
}

on_both_stores_sync! {
    fn sort_orders_the_whole_range_and_filter_keeps_its_totals(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = service(home.path(), &db, "100");
        let paths = |args: &[&str]| -> Vec<String> {
            let value = json_of(
                home.path(),
                &service,
                &[&["visitors"][..], &RANGE, args].concat(),
            );
            value["visitors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|row| row["path"].as_str().unwrap().to_owned())
                .collect()
        };
        assert_eq!(paths(&["--sort", "path"]), ["/a", "/b", "/new"]);
        assert_eq!(paths(&["--sort", "path:desc"]), ["/new", "/b", "/a"]);
        assert_eq!(paths(&["--sort", "human:asc"]), ["/b", "/new", "/a"]);
        assert_eq!(paths(&["--sort", "ai-share"]), ["/b", "/a", "/new"]);
        assert_eq!(paths(&["--sort", "total"]), ["/b", "/a", "/new"]);
        assert_eq!(
            paths(&["--compare", "--sort", "change"]),
            ["/b", "/new", "/a", "/gone"]
        );
        // The biggest drops first, a page that lost every visitor among them.
        assert_eq!(
            paths(&["--compare", "--sort", "change:asc"]),
            ["/a", "/gone", "/new", "/b"]
        );
        let filtered = json_of(
            home.path(),
            &service,
            &[&["visitors", "--filter", "N*W"][..], &RANGE].concat(),
        );
        assert_eq!(
            filtered,
            json!({
                "totals": {"human": 3, "ai": 3, "total": 5},
                "visitors": [{"path": "/new", "human": 1, "ai": 0, "total": 1}],
                "hasMore": false,
                "matched": 1,
            })
        );
        let none = json_of(
            home.path(),
            &service,
            &[&["visitors", "--filter", "zzz"][..], &RANGE].concat(),
        );
        assert_eq!(
            (none["matched"].clone(), none["totals"]["total"].clone()),
            (json!(0), json!(5))
        );
    }
}

#[test]
fn a_missing_end_of_the_range_says_what_to_add() {
    let home = tempfile::tempdir().unwrap();
    let url = "http://127.0.0.1:9";
    for (args, hint) in [
        (
            &["visitors", "trend", "--to", "2026-10-15"][..],
            "add --from",
        ),
        (&["visitors", "trend"], "add --from and --to"),
        (
            &["visitors", "--compare", "--from", "2026-10-12"],
            "--compare needs both ends of the range: add --to",
        ),
        (
            &["visitors", "--sort", "human", "--to", "2026-10-12"],
            "add --from",
        ),
        (&["visitors", "--filter", "a"], "--filter needs a range"),
        (
            &[
                "visitors",
                "--sort",
                "change",
                "--from",
                "2026-10-12",
                "--to",
                "2026-10-15",
            ],
            "add --compare",
        ),
        (
            &["visitors", "--compare", "--page", "2"],
            "cannot be used with",
        ),
        (
            &["visitors", "--from", "2026-10-12", "trend"],
            "before `trend` would be ignored",
        ),
        (
            &["visitors", "--sort", "visits"],
            "use path, human, ai, total, ai-share or change",
        ),
        (&["visitors", "trend", "--by", "month"], "use day or week"),
    ] {
        let stderr = run_cli_failing(home.path(), url, args, 2);
        assert!(stderr.contains(hint), "{args:?}: {stderr}");
    }
}

on_both_stores_sync! {
    fn a_range_with_more_rows_than_the_threshold_says_so(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = service(home.path(), &db, "100");
        let out = run_cli(
            home.path(),
            &service.base_url,
            &[
                &["visitors", "--sort", "path", "--max-rows", "2"][..],
                &RANGE,
            ]
            .concat(),
        );
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("has more than 2 rows, the most read (--max-rows, at most 25,000)"),
            "{stderr}"
        );
        assert!(stderr.contains("page through it with --page"), "{stderr}");
    }
}
