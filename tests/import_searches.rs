//! A site's own search in an access log (issue 27): `GET /search?q=…` by a person is a
//! search, not a page view; a page opened from that search page by the same visitor is
//! the result clicked; a referer from another site's search clicks nothing; importing the
//! same log again adds no search twice. The fixture is written here and its numbers are
//! worked out by hand beside it. Each on both stores.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{ServeProcess, db_arg, docdeck_command, run_cli, text};
use docdeck::server::db::DbLocation;
use serde_json::Value;

const FIREFOX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const CHROME: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const SAFARI: &str = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15";
const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

fn line(ip: &str, time: &str, target: &str, status: u16, referer: &str, agent: &str) -> String {
    format!(
        "{ip} - - [20/Nov/2026:{time} +0000] \"GET {target} HTTP/1.1\" {status} 512 \"{referer}\" \"{agent}\"\n"
    )
}

/// Twelve lines. By hand:
/// - searches stored: A "install guide" (1), B "sso" (4) and B "sso" again (5; the words
///   are grouped without case or blank space), A "webhooks" (11): 4;
/// - clicked through: 1 (line 2, A's result of line 1; line 3 is a second result of the
///   same search, which keeps its first; line 6 is B, who never searched those words;
///   line 8 came from Google's search, not the site's; so did line 12, although A had
///   searched the site for the same words);
/// - page views, all human: lines 2, 3, 6, 8 and 12: 5;
/// - not counted: the robot's search (7, "search crawlers"), a search answered 404
///   (10, "redirects and errors") and line 9, the search page asked with no words
///   (`/search?q=`: a search of nothing, neither a search nor a view of `/search`).
fn fixture() -> String {
    let site = "https://docs.example.test/search?q=";
    [
        line(
            "198.51.100.1",
            "09:00:00",
            "/search?q=Install+Guide",
            200,
            "-",
            FIREFOX,
        ),
        line(
            "198.51.100.1",
            "09:00:05",
            "/guides/install",
            200,
            &format!("{site}Install+Guide"),
            FIREFOX,
        ),
        line(
            "198.51.100.1",
            "09:00:30",
            "/guides/quickstart",
            200,
            &format!("{site}Install+Guide"),
            FIREFOX,
        ),
        line(
            "198.51.100.2",
            "09:01:00",
            "/search?q=sso",
            200,
            "-",
            CHROME,
        ),
        line(
            "198.51.100.2",
            "09:01:10",
            "/search?q=SSO%20",
            200,
            "-",
            CHROME,
        ),
        line(
            "198.51.100.2",
            "09:02:00",
            "/guides/install",
            200,
            &format!("{site}install+guide"),
            CHROME,
        ),
        line(
            "198.51.100.3",
            "09:03:00",
            "/search?q=api",
            200,
            "-",
            GOOGLEBOT,
        ),
        line(
            "198.51.100.4",
            "09:04:00",
            "/guides/install",
            200,
            "http://www.google.com/search?q=install+guide",
            SAFARI,
        ),
        line("198.51.100.1", "09:05:00", "/search?q=", 200, "-", FIREFOX),
        line(
            "198.51.100.2",
            "09:06:00",
            "/search?q=sso",
            404,
            "-",
            CHROME,
        ),
        line(
            "198.51.100.1",
            "09:07:00",
            "/search?q=webhooks",
            200,
            "-",
            FIREFOX,
        ),
        line(
            "198.51.100.1",
            "09:08:00",
            "/guides/webhooks",
            200,
            "https://www.google.com/search?q=webhooks",
            FIREFOX,
        ),
    ]
    .concat()
}

fn import(
    home: &std::path::Path,
    db: &DbLocation,
    log: &std::path::Path,
    extra: &[&str],
) -> String {
    let out = docdeck_command(home)
        .args(["import", "--db", &db_arg(db)])
        .args(extra)
        .arg(log)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout)
}

/// Whether nothing was ever written to `db`: no SQLite file, or no table in PostgreSQL's
/// database.
fn nothing_in(db: &DbLocation) -> bool {
    match db {
        DbLocation::File(path) => !path.exists(),
        _ => common::pg::tables_in(&db_arg(db)) == 0,
    }
}

on_both_stores_sync! {
    fn a_sites_search_in_its_log_is_a_search_and_its_clicked_result_is_kept_once(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let log = home.path().join("access.log");
        std::fs::write(&log, fixture()).unwrap();

        let first = import(home.path(), &db, &log, &[]);
        assert!(
            first.contains("read 12 lines: kept 5 views (human 5, AI 0)"),
            "{first}"
        );
        assert!(
            first.contains("site searches: 4 stored, 1 clicked through"),
            "{first}"
        );
        assert!(first.contains("search crawlers 1"), "{first}");
        assert!(first.contains("redirects and errors 1"), "{first}");
        assert!(first.contains("searches of nothing 1"), "{first}");

        let again = import(home.path(), &db, &log, &[]);
        assert!(again.contains("kept 0 views"), "{again}");
        assert!(
            again.contains(
                "site searches: 0 stored, 0 clicked through (4 stored before, not added again)"
            ),
            "nothing added twice, and said: {again}"
        );

        // A later log (a rotation, a restarted follower): B opens a page from the search of
        // line 5 nineteen minutes later. Its result is kept although another import read it.
        let later = home.path().join("later.log");
        let referer = "https://docs.example.test/search?q=sso";
        let click = line(
            "198.51.100.2",
            "09:20:00",
            "/guides/sso",
            200,
            referer,
            CHROME,
        );
        std::fs::write(&later, click).unwrap();
        let then = import(home.path(), &db, &later, &[]);
        assert!(
            then.contains("site searches: 0 stored, 1 clicked through"),
            "{then}"
        );

        let service = ServeProcess::over_store(home.path(), &db, &[]);
        let out = run_cli(
            home.path(),
            &service.base_url,
            &[
                "searches",
                "--from",
                "2026-11-20",
                "--to",
                "2026-11-21",
                "--format",
                "json",
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let page: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(page["totalSearches"], 4, "{page}");
        let rows = page["searches"].as_array().unwrap();
        let row = |query: &str| rows.iter().find(|r| r["searchQuery"] == query).unwrap();
        assert_eq!(row("sso")["hits"], 2);
        assert_eq!(row("sso")["ctr"], 0.5);
        assert_eq!(row("sso")["topClickedPage"], "/guides/sso");
        assert_eq!(row("webhooks")["topClickedPage"], Value::Null);
        assert_eq!(row("install guide")["hits"], 1);
        assert_eq!(row("install guide")["ctr"], 1.0);
        assert_eq!(row("install guide")["topClickedPage"], "/guides/install");
        assert!(
            rows.iter().all(|r| r["searchQuery"] != "api"),
            "a robot's search is no search"
        );
    }
}

on_both_stores_sync! {
    /// A log with no request of the search page says where it looked, and how to name
    /// another page: `docdeck searches` would only say "0 in all".
    fn a_log_without_searches_says_where_they_were_looked_for(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let log = home.path().join("access.log");
        let view = line(
            "198.51.100.1",
            "09:00:00",
            "/guides/install",
            200,
            "-",
            FIREFOX,
        );
        std::fs::write(&log, view).unwrap();
        let said = import(home.path(), &db, &log, &[]);
        assert!(
            said.contains(
                "site searches: none at /search?q=\n    (searched elsewhere? import again with --search-url PATH?PARAM=)"
            ),
            "{said}"
        );
        assert!(
            said.lines().skip(1).all(|l| l.chars().count() <= 80),
            "{said}"
        );
        let off = import(home.path(), &db, &log, &["--search-url", "none"]);
        assert!(!off.contains("site searches"), "{off}");
    }
}

on_both_stores_sync! {
    /// `--search-url none` counts the search page's requests as page views, as before; a
    /// wrong form says what is expected before anything is read.
    fn the_search_page_is_named_by_a_flag(db: DbLocation) {
        let home = tempfile::tempdir().unwrap();
        let log = home.path().join("access.log");
        std::fs::write(&log, fixture()).unwrap();
        let out = docdeck_command(home.path())
            .args([
                "import",
                "--db",
                &db_arg(&db),
                "--search-url",
                "search",
            ])
            .arg(&log)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(
            text(&out.stderr).contains("PATH?PARAM= (such as /search?q=)"),
            "{}",
            text(&out.stderr)
        );
        assert!(nothing_in(&db), "nothing was written");
        // Said before the input is opened: a missing file does not hide it (exit 2, not 1).
        let out = docdeck_command(home.path())
            .args(["import", "--search-url", "search", "nowhere.log"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));

        let off = import(home.path(), &db, &log, &["--search-url", "none"]);
        // Lines 1, 4, 5, 9 and 11 are views of /search now, beside the 5 other views: 10;
        // the robot's (7) is a crawler's view and the 404 (10) none.
        assert!(off.contains("kept 10 views (human 10, AI 0)"), "{off}");
        assert!(!off.contains("site searches"), "{off}");
    }
}
