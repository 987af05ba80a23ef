//! `docdeck visitors` against `docdeck serve` on port 0: where a page is, page numbers out
//! of range, tables that fit the width, and service text on a terminal versus a pipe.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use common::pty::Pty;
use common::{KEY, ServeProcess, import_views_into, run_cli, text, view};
use docdeck::server::db::DbLocation;

const LONG_PATH: &str = "/guides/authentication/single-sign-on/troubleshooting-saml";
const HOSTILE_PATH: &str = "/evil\u{1b}]0;owned\u{7}\u{1b}[31mred\u{202e}txt";

/// A service over a database with ten pages of falling totals (`/p01` has 10 visitors,
/// `/p10` one), a long path with 1,234 visitors and a path holding escapes.
fn service(home: &Path, db: &DbLocation) -> ServeProcess {
    let mut lines = Vec::new();
    for page in 1..=10 {
        for visitor in 0..=(10 - page) {
            let path = format!("/p{page:02}");
            lines.push(view(
                "2026-11-20T09:00:00Z",
                &path,
                &format!("v{visitor}"),
                "human",
            ));
        }
    }
    for visitor in 0..1_234 {
        lines.push(view(
            "2026-11-20T09:00:00Z",
            LONG_PATH,
            &format!("w{visitor}"),
            "ai",
        ));
    }
    lines.push(view("2026-11-20T09:00:00Z", HOSTILE_PATH, "x", "human"));
    import_views_into(db, "demo", &lines);
    ServeProcess::over_store(home, db, &[])
}

fn table(home: &Path, service: &ServeProcess, args: &[&str]) -> String {
    let args: Vec<&str> = ["visitors", "--format", "table"]
        .iter()
        .chain(args)
        .copied()
        .collect();
    let out = run_cli(home, &service.base_url, &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

on_both_stores_sync! {
    fn a_page_is_labelled_by_its_offset_and_says_how_to_get_the_next(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let service = service(home.path(), &db);
        let shifted = table(home.path(), &service, &["--offset", "5", "--limit", "3"]);
        assert!(
            shifted.contains("rows 6–8 (offset 5) · more: --offset 8 --limit 3"),
            "{shifted}"
        );
        assert!(!shifted.contains("page 2"), "{shifted}");
        let second = table(home.path(), &service, &["--page", "2", "--limit", "3"]);
        assert!(
            second.contains("page 2 · rows 4–6 · more: --page 3 --limit 3"),
            "{second}"
        );
        // Past the last row, in a pipe too: nothing on stdout, exit 2, and stderr names the
        // last page (issue 22).
        for (args, says) in [
            (
                &["visitors", "--page", "2"][..],
                "page 2 is past the end: there is 1 page (rows 1–12 of 12); the last is --page 1",
            ),
            (
                &["visitors", "--page", "99999", "--limit", "5"],
                "page 99,999 is past the end: there are 3 pages (rows 1–12 of 12); the last is --page 3 --limit 5",
            ),
            (
                &["visitors", "--offset", "12"],
                "offset 12 is past the end: there is 1 page (rows 1–12 of 12)",
            ),
            (
                &[
                    "visitors",
                    "--page",
                    "2",
                    "--from",
                    "2020-01-01",
                    "--to",
                    "2020-01-02",
                ],
                "page 2 is past the end: this range has no rows",
            ),
        ] {
            let past = run_cli(home.path(), &service.base_url, args);
            let stderr = text(&past.stderr);
            assert_eq!(past.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(stderr.contains(says), "{args:?}: {stderr}");
            assert!(past.stdout.is_empty(), "{args:?}: {}", text(&past.stdout));
        }
    }
}

#[test]
fn page_numbers_out_of_range_say_which_are_valid() {
    let home = tempfile::tempdir().unwrap();
    let url = "http://127.0.0.1:9";
    for (args, hint) in [
        (
            &["visitors", "--page", "0"][..],
            "the first page is --page 1",
        ),
        (
            &["visitors", "--page", "999999999999999999"],
            "pages go from 1 to 184467440737095517",
        ),
        (
            &["visitors", "--page", "99999999999999999", "--limit", "250"],
            "pages go from 1 to 36893488147419104",
        ),
        (
            &["visitors", "--offset", "99999999999999999999"],
            "from 0 to",
        ),
        // Said with the flags typed, not the interface's parameter names (a trial).
        (
            &["visitors", "--from", "2015-05-21", "--to", "2015-05-17"],
            "--from 2015-05-21 is after --to 2015-05-17",
        ),
    ] {
        let out = run_cli(home.path(), url, args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(hint), "{args:?}: {stderr}");
    }
}

#[test]
fn tables_fit_the_width_keep_the_end_of_paths_and_group_digits() {
    let home = tempfile::tempdir().unwrap();
    // The terminal's side only: SQLite is enough.
    let db = DbLocation::File(home.path().join("service.sqlite"));
    let service = service(home.path(), &db);
    let wide = table(home.path(), &service, &["--limit", "2"]);
    assert!(wide.contains(&format!("{LONG_PATH}  ")), "{wide}");
    assert!(wide.contains("1,234"), "{wide}");
    let out = common::cli_command(home.path(), &service.base_url, KEY)
        .env("COLUMNS", "50")
        .args(["visitors", "--format", "table", "--limit", "2"])
        .output()
        .unwrap();
    let narrow = text(&out.stdout);
    for line in narrow.lines() {
        assert!(line.chars().count() <= 50, "{line:?} in\n{narrow}");
    }
    let cut = narrow
        .lines()
        .find(|line| line.starts_with('…'))
        .unwrap_or_default();
    assert!(
        cut.contains("/troubleshooting-saml  "),
        "the end of the path stays: {narrow}"
    );
    assert!(narrow.contains("1,234"), "{narrow}");
    // CSV and JSON keep plain digits.
    let csv = run_cli(
        home.path(),
        &service.base_url,
        &["visitors", "--format", "csv", "--limit", "1"],
    );
    assert!(
        text(&csv.stdout).contains(",0,1234,1234"),
        "{}",
        text(&csv.stdout)
    );
}

#[test]
fn service_text_is_exact_in_a_pipe() {
    let home = tempfile::tempdir().unwrap();
    // The terminal's side only: SQLite is enough.
    let db = DbLocation::File(home.path().join("service.sqlite"));
    let service = service(home.path(), &db);
    let out = run_cli(
        home.path(),
        &service.base_url,
        &["visitors", "--format", "csv"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains(HOSTILE_PATH),
        "{}",
        text(&out.stdout)
    );
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}

#[test]
fn service_text_cannot_drive_the_terminal_and_the_change_is_said_once() {
    let home = tempfile::tempdir().unwrap();
    // The terminal's side only: SQLite is enough.
    let db = DbLocation::File(home.path().join("service.sqlite"));
    let service = service(home.path(), &db);
    let env = [
        ("DOCDECK_BASE_URL", service.base_url.as_str()),
        ("DOCDECK_PROJECT_ID", "demo"),
        ("DOCDECK_API_KEY", KEY),
    ];
    for format in ["csv", "json", "table"] {
        let pty_home = tempfile::tempdir().unwrap();
        let mut pty = Pty::spawn(pty_home, &["visitors", "--format", format], &env);
        assert!(pty.wait_exit().success(), "{format}: {}", pty.text());
        let shown = pty.text();
        assert!(shown.contains("/evil"), "{format}: {shown}");
        for raw in ['\u{1b}', '\u{7}', '\u{202e}'] {
            assert!(
                !shown.contains(raw),
                "{format}: {raw:?} reached the terminal: {shown:?}"
            );
        }
        let notes = shown.matches("shown as \u{FFFD}").count();
        assert_eq!(notes, usize::from(format == "csv"), "{format}: {shown}");
    }
}

on_both_stores_sync! {
    fn an_empty_range_names_the_dates_that_hold_views(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        common::import_views_into(
            &db,
            common::PROJECT,
            &[
                common::view("2015-05-17T10:05:03Z", "/a", "v1", "human"),
                common::view("2015-05-20T21:05:15Z", "/b", "v2", "ai"),
            ],
        );
        let service = common::ServeProcess::over_store(home.path(), &db, &[]);
        let out = common::run_cli(
            home.path(),
            &service.base_url,
            &["visitors", "--from", "2026-11-01", "--format", "json"],
        );
        assert_eq!(out.status.code(), Some(0));
        let said = common::text(&out.stderr);
        assert!(
            said.contains("the views run from 2015-05-17 to 2015-05-20 (UTC): --from 2015-05-17 --to 2015-05-21 shows them"),
            "{said}"
        );
        let again = common::run_cli(
            home.path(),
            &service.base_url,
            &[
                "visitors",
                "--from",
                "2015-05-17",
                "--to",
                "2015-05-21",
                "--format",
                "json",
            ],
        );
        let page: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
        assert_eq!(page["totals"]["total"], 2);
        assert!(common::text(&again.stderr).is_empty());
        // --compare and the trend say so too (a trial found them silent).
        for args in [
            &[
                "visitors",
                "--compare",
                "--from",
                "2026-11-01",
                "--to",
                "2026-11-03",
            ][..],
            &[
                "visitors",
                "trend",
                "--from",
                "2026-11-01",
                "--to",
                "2026-11-03",
            ],
        ] {
            let out = common::run_cli(
                home.path(),
                &service.base_url,
                &[args, &["--format", "json"]].concat(),
            );
            let said = common::text(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {said}");
            assert!(
                said.contains("--from 2015-05-17 --to 2015-05-21 shows them"),
                "{args:?}: {said}"
            );
        }
    }
}
