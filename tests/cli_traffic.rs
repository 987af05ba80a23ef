//! `docdeck import` of real traffic (combined, common, Caddy, the hosted event stream) and
//! `docdeck classify`, checked through the service's visitors endpoint: the exact human,
//! AI and total per page and in all, and that a re-import adds nothing: on both stores.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{db_arg, docdeck_command, text};
use docdeck::server::db::DbLocation;

/// (path, human, AI, total) per page, then the totals.
type Counts = (Vec<(&'static str, u64, u64, u64)>, (u64, u64, u64));

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/traffic")
        .join(name)
}

/// `docdeck import --db DB ARGS` with `home` as its home, `db` either store.
fn import(home: &Path, db: &DbLocation, args: &[&str]) -> Output {
    docdeck_command(home)
        .args(["import", "--db", &db_arg(db)])
        .args(args)
        .output()
        .unwrap()
}

async fn assert_counts(db: &DbLocation, expected: &Counts) {
    let (rows, totals) = common::visitors_in(db).await;
    let mut want: Vec<_> = expected
        .0
        .iter()
        .map(|(path, h, a, t)| ((*path).to_owned(), *h, *a, *t))
        .collect();
    want.sort();
    assert_eq!(rows, want, "per page");
    assert_eq!(totals, expected.1, "totals (human, ai, total)");
}

/// Imports the fixture, checks the counts and the summary, then imports it again.
async fn check_format(
    db: &DbLocation,
    (format, file): (&str, &str),
    expected: Counts,
    summary: &[&str],
) {
    let home = tempfile::tempdir().unwrap();
    let path = fixture(file);
    let out = import(
        home.path(),
        db,
        &["--format", format, path.to_str().unwrap()],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    for part in summary {
        assert!(stdout.contains(part), "{part:?} in {stdout}");
    }
    assert_counts(db, &expected).await;
    let again = import(
        home.path(),
        db,
        &["--format", format, path.to_str().unwrap()],
    );
    let again_out = text(&again.stdout);
    assert!(
        again_out.contains("kept 0 views") && again_out.contains("project demo: 0 views added"),
        "{again_out}"
    );
    assert_counts(db, &expected).await;
}

on_both_stores_kept! {
    async fn combined_log_counts_as_the_hosted_service_does(db: DbLocation) {
        let expected = (
            vec![
                ("/quickstart", 1, 9, 10),
                ("/", 1, 0, 1),
                ("/guides/setup", 2, 1, 2),
                ("/llms.txt", 0, 1, 1),
            ],
            (3, 11, 13),
        );
        let summary = [
            "read 26 lines: kept 16 views (human 5, AI 11)",
            "assets 2",
            "not GET or HEAD 1",
            "redirects and errors 2",
            "search crawlers 1",
            "training crawlers 1",
            "page views by non-browsers 1",
            "skipped 2 broken lines",
            "line 25: cut short",
            "line 26: the request line",
        ];
        check_format(&db, ("combined", "combined.log"), expected, &summary).await;
    }
}

on_both_stores_kept! {
    async fn common_log_counts_every_page_view_as_human(db: DbLocation) {
        let expected = (
            vec![
                ("/quickstart", 1, 0, 1),
                ("/", 1, 0, 1),
                ("/guides/setup", 1, 1, 1),
                ("/llms.txt", 0, 1, 1),
            ],
            (2, 2, 3),
        );
        let summary = [
            "read 13 lines: kept 6 views (human 4, AI 2)",
            "skipped 2 broken lines",
        ];
        check_format(&db, ("common", "common.log"), expected, &summary).await;
    }
}

on_both_stores_kept! {
    async fn caddy_log_counts_and_reads_accept(db: DbLocation) {
        let expected = (
            vec![
                ("/quickstart", 1, 10, 11),
                ("/", 1, 0, 1),
                ("/guides/setup", 2, 1, 2),
                ("/llms.txt", 0, 1, 1),
            ],
            (3, 12, 14),
        );
        let summary = [
            "read 27 lines: kept 17 views (human 5, AI 12)",
            "not requests 1",
            "skipped 1 broken line",
            "line 27: ",
        ];
        check_format(&db, ("caddy", "caddy.log"), expected, &summary).await;
    }
}

on_both_stores_kept! {
    async fn mintlify_events_use_anon_id_and_event_id(db: DbLocation) {
        let expected = (
            vec![
                ("/quickstart", 1, 9, 10),
                ("/", 1, 0, 1),
                ("/guides/setup", 1, 1, 1),
                ("/llms.txt", 0, 1, 1),
            ],
            (3, 11, 13),
        );
        let summary = [
            "read 22 lines: kept 15 views (human 4, AI 11)",
            "duplicates 1",
            // The stream's other events are named and counted, not lumped with server lines.
            "other events, not stored: docs.search 1",
            "assets 1",
            "skipped 1 broken line",
            "line 22: not valid JSON",
        ];
        check_format(&db, ("mintlify", "mintlify.jsonl"), expected, &summary).await;
    }
}

on_both_stores_kept! {
    /// The stream as its documentation describes it (Mintlify's docs, `analytics/streaming.mdx`
    /// and `integrations/analytics/overview.mdx`, MIT): each line an envelope whose `payload`
    /// is a JSON object *or a JSON-encoded string*, and `docs.content.md.view` for a view of a
    /// page's Markdown. Worked out by hand:
    /// - line 1: a browser views /quickstart (object payload): human.
    /// - line 2: a browser views /guides/setup (payload a string): human.
    /// - line 3: a browser fetches /quickstart's Markdown: a Markdown fetch from a
    ///   human-looking client, so AI (FACTS.md).
    /// - line 4: Googlebot fetches /quickstart's Markdown: a search crawler, in neither.
    /// - lines 5–6: a search and its result click whose properties are empty: counted by name
    ///   with what they lack (`tests/stream_signals.rs` has them with their words).
    /// - line 7: a payload string that is not whole JSON: a broken line.
    ///
    /// So /quickstart human 1, AI 1, total 2; /guides/setup 1, 0, 1; in all 2, 1, 3.
    async fn the_streams_string_payloads_and_markdown_views_count(db: DbLocation) {
        let expected = (
            vec![("/quickstart", 1, 1, 2), ("/guides/setup", 1, 0, 1)],
            (2, 1, 3),
        );
        let summary = [
            "read 7 lines: kept 3 views (human 2, AI 1)",
            "search crawlers 1",
            "docs.search.query: 1 event not stored, without the words searched",
            "docs.search.result_click: 1 event not stored, without the words searched",
            "skipped 1 broken line",
            "line 7: ",
        ];
        check_format(&db, ("mintlify", "mintlify-stream.jsonl"), expected, &summary).await;
    }
}

/// Vercel and Cloudflare fixtures hold the combined log's requests, an entry repeated
/// (the same `id` / `RayID`) and a line cut short.
fn combined_counts() -> Counts {
    (
        vec![
            ("/quickstart", 1, 9, 10),
            ("/", 1, 0, 1),
            ("/guides/setup", 2, 1, 2),
            ("/llms.txt", 0, 1, 1),
        ],
        (3, 11, 13),
    )
}

on_both_stores_kept! {
    async fn vercel_log_drain_counts_and_keys_by_id(db: DbLocation) {
        let summary = [
            "read 27 lines: kept 16 views (human 5, AI 11)",
            "not requests 1",
            "duplicates 1",
            "skipped 1 broken line",
        ];
        check_format(
            &db,
            ("vercel", "vercel.ndjson"),
            combined_counts(),
            &summary,
        )
        .await;
    }
}

on_both_stores_kept! {
    async fn cloudflare_logpush_counts_and_keys_by_ray_id(db: DbLocation) {
        let summary = [
            "read 26 lines: kept 16 views (human 5, AI 11)",
            "duplicates 1",
            "skipped 1 broken line",
        ];
        check_format(
            &db,
            ("cloudflare", "cloudflare.ndjson"),
            combined_counts(),
            &summary,
        )
        .await;
    }
}

on_both_stores_kept! {
    async fn strict_fails_the_file_and_gzip_and_stdin_are_read(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let log = fixture("combined.log");
        let out = import(
            home.path(),
            &db,
            &["--format", "combined", "--strict", log.to_str().unwrap()],
        );
        assert_eq!(out.status.code(), Some(1));
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("combined.log: line 25: cut short")
                && stderr.contains("nothing was imported"),
            "{stderr}"
        );
        assert_eq!(common::visitors_in(&db).await.1, (0, 0, 0));

        let gz = home.path().join("access.log.gz");
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut encoder, &std::fs::read(&log).unwrap()).unwrap();
        std::fs::write(&gz, encoder.finish().unwrap()).unwrap();
        let out = import(home.path(), &db, &["--format", "combined", gz.to_str().unwrap()]);
        assert!(
            text(&out.stdout).contains("kept 16 views"),
            "{}",
            text(&out.stdout)
        );
        assert_eq!(common::visitors_in(&db).await.1, (3, 11, 13));

        let out = docdeck_command(home.path())
            .args(["import", "--db", &db_arg(&db), "--format", "combined", "-"])
            .stdin(std::fs::File::open(&log).unwrap())
            .output()
            .unwrap();
        assert!(
            text(&out.stdout).contains("kept 0 views"),
            "{}",
            text(&out.stdout)
        );
    }
}

on_both_stores_sync! {
    fn the_database_keeps_no_ip_or_user_agent(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let out = import(
            home.path(),
            &db,
            &[
                "--format",
                "combined",
                fixture("combined.log").to_str().unwrap(),
            ],
        );
        assert_eq!(out.status.code(), Some(0));
        for secret in [
            "198.51.100.1",
            "203.0.113.10",
            "curl/8.5.0",
            "Chrome/131",
            "ChatGPT-User",
        ] {
            assert!(!common::stored_anywhere(&db, secret), "{secret} is stored");
        }
    }
}

fn classify(args: &[&str]) -> String {
    let home = tempfile::tempdir().unwrap();
    let out = docdeck_command(home.path())
        .arg("classify")
        .args(args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn classify_names_the_class_and_rule_of_each_list() {
    let cases = [
        (
            "Mozilla/5.0 (compatible; ChatGPT-User/1.0)",
            "class: ai-answer",
            "\"ChatGPT-User\"",
        ),
        (
            "Mozilla/5.0 (compatible; bingbot/2.0)",
            "class: search",
            "\"bingbot\"",
        ),
        (
            "Mozilla/5.0 (compatible; Bytespider)",
            "class: training",
            "\"Bytespider\"",
        ),
        (
            "Mozilla/5.0 (compatible; SemrushBot/7~bl)",
            "class: other-bot",
            "\"SemrushBot\"",
        ),
        ("Wget/1.21.4", "class: not-browser", "\"Wget/\""),
        (
            "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
            "class: human",
            "browser marker",
        ),
    ];
    for (agent, class, rule) in cases {
        let out = classify(&[agent]);
        assert!(out.contains(class) && out.contains(rule), "{agent}: {out}");
    }
    let out = classify(&["curl/8.5.0", "/guide/index.md?x=1"]);
    assert!(
        out.contains("/guide/index.md?x=1: a Markdown view of /guide: counted as AI"),
        "{out}"
    );
    let out = classify(&["curl/8.5.0", "/guide"]);
    assert!(
        out.contains("a page view of /guide: counted in neither column"),
        "{out}"
    );
}

on_both_stores_kept! {
    async fn a_rules_file_adds_an_agent(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let rules = home.path().join("acme.rules");
        std::fs::write(
            &rules,
            "# our docs agent\r\n[ai-answer]\r\nAcmeDocsAgent\r\n",
        )
        .unwrap();
        let out = classify(&[
            "--ua-rules",
            rules.to_str().unwrap(),
            "AcmeDocsAgent/0.3",
            "/guide",
        ]);
        assert!(
            out.contains("class: ai-answer")
                && out.contains("acme.rules, line 3")
                && out.contains("counted as AI"),
            "{out}"
        );
        let log = home.path().join("access.log");
        std::fs::write(
            &log,
            "192.0.2.7 - - [20/Nov/2026:09:00:00 +0000] \"GET /guide HTTP/1.1\" 200 10 \"-\" \"AcmeDocsAgent/0.3\"\n",
        )
        .unwrap();
        let out = import(
            home.path(),
            &db,
            &["--format", "combined", log.to_str().unwrap()],
        );
        assert!(
            text(&out.stdout).contains("page views by non-browsers 1"),
            "{}",
            text(&out.stdout)
        );
        let out = import(
            home.path(),
            &db,
            &[
                "--format",
                "combined",
                "--ua-rules",
                rules.to_str().unwrap(),
                log.to_str().unwrap(),
            ],
        );
        assert!(
            text(&out.stdout).contains("kept 1 view (human 0, AI 1)"),
            "{}",
            text(&out.stdout)
        );
        assert_eq!(common::visitors_in(&db).await.1, (0, 1, 1));
        let bad = home.path().join("bad.rules");
        std::fs::write(&bad, "[robots]\nX\n").unwrap();
        let out = import(
            home.path(),
            &db,
            &[
                "--format",
                "combined",
                "--ua-rules",
                bad.to_str().unwrap(),
                log.to_str().unwrap(),
            ],
        );
        assert_eq!(out.status.code(), Some(2));
        assert!(
            text(&out.stderr).contains("bad.rules line 1: unknown section [robots]"),
            "{}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_log_in_another_format_is_pointed_out() {
    let home = tempfile::tempdir().unwrap();
    let common = fixture("common.log");
    let db = DbLocation::File(home.path().join("service.sqlite"));
    let out = import(
        home.path(),
        &db,
        &["--format", "combined", common.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("no line of") && stderr.contains("another --format"),
        "{stderr}"
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("skipped 13 broken lines") && stdout.contains("\n    ...\n"),
        "{stdout}"
    );
    // The first line starts with the file's path; the rest fit 80 columns.
    assert!(
        stdout
            .lines()
            .skip(1)
            .all(|line| line.chars().count() <= 80),
        "{stdout}"
    );
}

#[test]
fn a_missing_log_fails_with_what_to_check() {
    let home = tempfile::tempdir().unwrap();
    let db = DbLocation::File(home.path().join("service.sqlite"));
    let out = import(
        home.path(),
        &db,
        &["--format", "caddy", "no-such-access.log"],
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("cannot open no-such-access.log")
            && stderr.contains("check the path, or use - for standard input"),
        "{stderr}"
    );
}
