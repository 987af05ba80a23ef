//! `docdeck import --db postgres://…` (issue 26): the same access log imported into
//! PostgreSQL and into SQLite gives the same visitors for every range and page asked, the
//! same site searches and clicks; importing it again adds nothing, a change of rules
//! recounts the same views on both, JSON lines go there too, and `--follow` resumes where
//! it stopped.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use docdeck::server::db::{Db, DbLocation};
use docdeck::server::pg::{self, PgStore, PgUrl};
use docdeck::server::traffic::formats::LogFormat;
use docdeck::server::traffic::rules::Rules;
use docdeck::server::traffic::search::SearchUrl;
use docdeck::server::traffic::{Importer, Settings};
use docdeck::server::views::{self, VisitorsRequest};

const DAY_MS: i64 = 86_400_000;
/// 2026-02-01 00:00 UTC.
const FEB_MS: i64 = 1_769_904_000_000;

const AGENTS: &[&str] = &[
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
    "curl/8.5.0",
    "Claude-User (+https://support.anthropic.com/)",
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Fetchy/3.0",
];
const TARGETS: &[&str] = &[
    "/guide",
    "/guide.md",
    "/a",
    "/B",
    "/b",
    "/docs/x",
    "/docs/X",
    "/\u{e9}t\u{e9}",
    "/search?q=install",
    "/search?q=keys",
    "/style.css",
];

/// A combined log of February 2026: people, agents, a crawler, an unknown client, Markdown
/// fetches, site searches and pages opened from them, assets, and lines given twice.
fn log() -> String {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        usize::try_from(state % n).unwrap()
    };
    let mut lines = Vec::new();
    for n in 0..2_500 {
        let day = 1 + next(28);
        let (hour, minute, second) = (next(24), next(60), next(60));
        let ip = format!("203.0.113.{}", next(60));
        let agent = AGENTS[next(AGENTS.len() as u64)];
        let target = TARGETS[next(TARGETS.len() as u64)];
        let stamp = format!("{day:02}/Feb/2026:{hour:02}:{minute:02}:{second:02} +0000");
        let referer = if next(3) == 0 && agent.starts_with("Mozilla/5.0 (X") {
            // A person searched the site, then opened a page from the results.
            lines.push(format!(
                r#"{ip} - - [{stamp}] "GET /search?q=install HTTP/1.1" 200 10 "-" "{agent}""#
            ));
            "https://docs.example.com/search?q=install"
        } else {
            "-"
        };
        let line =
            format!(r#"{ip} - - [{stamp}] "GET {target} HTTP/1.1" 200 10 "{referer}" "{agent}""#);
        if n % 50 == 0 {
            lines.push(line.clone());
        }
        lines.push(line);
    }
    lines.join("\n") + "\n"
}

fn docdeck(args: &[&str], db: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_docdeck"))
        .args(args)
        .env("DOCDECK_DATABASE_URL", db)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{args:?}: {stdout}\n{stderr}");
    stdout
}

fn import(file: &Path, db: &str, more: &[&str]) -> String {
    let mut args = vec!["import", "--project", "p", "--format", "combined"];
    args.extend_from_slice(more);
    args.push(file.to_str().unwrap());
    docdeck(&args, db)
}

/// Every answer the fixture's ranges and pages give, on both stores.
fn answers(sqlite: &Db, pg: &PgStore) -> Vec<String> {
    let ranges = [
        (None, None),
        (Some(FEB_MS), Some(FEB_MS + 7 * DAY_MS)),
        (Some(FEB_MS + 9 * DAY_MS), Some(FEB_MS + 20 * DAY_MS)),
        (Some(FEB_MS + 13 * DAY_MS), Some(FEB_MS + 14 * DAY_MS)),
        (Some(FEB_MS + 40 * DAY_MS), None),
    ];
    let mut seen = Vec::new();
    for (from_ms, to_ms) in ranges {
        for (limit, offset) in [(100, 0), (3, 0), (3, 3), (3, 6), (2, 7)] {
            let request = VisitorsRequest {
                from_ms,
                to_ms,
                limit,
                offset,
            };
            let expected = sqlite
                .blocking(|c| views::visitors(c, "p", &request))
                .unwrap();
            let got = pg
                .blocking(|c| pg::views::visitors(c, "p", &request))
                .unwrap();
            assert_eq!(got, expected, "{request:?}");
            seen.push(format!("{got:?}"));
        }
    }
    seen
}

fn searches_lite(db: &Db) -> (i64, i64) {
    db.blocking(|c| {
        Ok(c.query_row(
            "SELECT COUNT(*), COUNT(clicked) FROM searches WHERE project = 'p'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?)
    })
    .unwrap()
}

fn searches_pg(pg: &PgStore) -> (i64, i64) {
    pg.blocking(|c| {
        let row = c.query_one(
            "SELECT COUNT(*), COUNT(clicked) FROM searches WHERE project = 'p'",
            &[],
        )?;
        Ok((row.get(0), row.get(1)))
    })
    .unwrap()
}

#[test]
fn an_import_into_postgres_answers_as_into_sqlite_and_adds_nothing_twice() {
    let url = pg_or_skip!();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("access.log");
    std::fs::write(&file, log()).unwrap();
    let lite_path = dir.path().join("service.sqlite");
    let lite = lite_path.to_str().unwrap();

    let on_pg = import(&file, &url, &[]);
    let on_lite = import(&file, lite, &[]);
    // The summaries say the same: lines, views by class, repeats, searches and clicks.
    assert_eq!(on_pg, on_lite);
    assert!(on_pg.contains("views added"), "{on_pg}");

    let sqlite = Db::open(&DbLocation::File(lite_path.clone())).unwrap();
    let pg = PgStore::open(&PgUrl::parse(&url).unwrap()).unwrap();
    let first = answers(&sqlite, &pg);
    assert!(first[0].contains("human"), "{}", first[0]);
    let searches = searches_lite(&sqlite);
    assert!(searches.0 > 0 && searches.1 > 0, "{searches:?}");
    assert_eq!(searches_pg(&pg), searches);

    // Again: nothing is added, on either.
    let again = import(&file, &url, &[]);
    assert!(again.contains("project p: 0 views added"), "{again}");
    assert_eq!(again, import(&file, lite, &[]));
    assert_eq!(answers(&sqlite, &pg), first);
    assert_eq!(searches_pg(&pg), searches);

    // Under other rules the same views are recounted alike: taken back, moved, added.
    let rules = dir.path().join("rules.txt");
    std::fs::write(
        &rules,
        "[other-bot]\nClaude-User\n[ai-answer]\nFetchy/\n[human]\ncurl/\n",
    )
    .unwrap();
    let rules = rules.to_str().unwrap();
    let recounted = import(&file, &url, &["--ua-rules", rules]);
    assert!(recounted.contains("changed class"), "{recounted}");
    assert_eq!(recounted, import(&file, lite, &["--ua-rules", rules]));
    let moved = answers(&sqlite, &pg);
    assert_ne!(moved, first);
}

fn settings(format: Option<LogFormat>) -> Settings {
    Settings {
        project: "p".into(),
        format,
        rules: Arc::new(Rules::shipped().unwrap()),
        strict: false,
        search: Some(SearchUrl::default()),
        discard_demo: false,
    }
}

#[test]
fn json_lines_go_into_postgres_all_or_nothing() {
    let url = pg_or_skip!();
    let location = DbLocation::Postgres(PgUrl::parse(&url).unwrap());
    let lines = [
        common::view("2026-02-01T10:00:00Z", "/a", "v1", "human"),
        common::view("2026-02-01T10:00:01Z", "/a", "v2", "ai"),
        common::view("2026-02-01T10:00:01Z", "/a", "v2", "ai"),
    ]
    .join("\n");
    let done = std::thread::spawn(move || {
        let mut importer = Importer::open(&location, settings(None)).unwrap();
        let first = importer.import_jsonl(lines.as_bytes()).unwrap();
        let again = importer.import_jsonl(lines.as_bytes()).unwrap();
        let broken = importer.import_jsonl(&b"{\"ts\": 1}\n"[..]);
        (first, again, broken.is_err())
    })
    .join()
    .unwrap();
    assert_eq!((done.0.stored, done.0.duplicates), (2, 1));
    assert_eq!((done.1.stored, done.1.duplicates), (0, 3));
    assert!(done.2, "a bad line fails the file");
}

#[test]
fn follow_on_postgres_resumes_where_it_stopped() {
    let url = pg_or_skip!();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("access.log");
    let all = log();
    let lines: Vec<&str> = all.lines().collect();
    let half = lines.len() / 2;
    std::fs::write(&file, lines[..half].join("\n") + "\n").unwrap();
    let location = DbLocation::Postgres(PgUrl::parse(&url).unwrap());
    let follow = |location: DbLocation, file: std::path::PathBuf| {
        std::thread::spawn(move || {
            let mut importer =
                Importer::open(&location, settings(Some(LogFormat::Combined))).unwrap();
            // Stopped before it starts: it reads what is there, commits and returns.
            let stop = AtomicBool::new(true);
            importer.follow(&[file], &stop, &mut |_| {}).unwrap()
        })
        .join()
        .unwrap()
    };
    let first = follow(location.clone(), file.clone());
    assert_eq!(first.lines, u64::try_from(half).unwrap());
    std::fs::write(&file, all.clone()).unwrap();
    let second = follow(location.clone(), file.clone());
    assert_eq!(second.lines, u64::try_from(lines.len() - half).unwrap());

    // The same as one whole import into SQLite.
    let lite = dir.path().join("service.sqlite");
    import(&file, lite.to_str().unwrap(), &[]);
    let sqlite = Db::open(&DbLocation::File(lite)).unwrap();
    let pg = PgStore::open(&PgUrl::parse(&url).unwrap()).unwrap();
    answers(&sqlite, &pg);
    assert_eq!(searches_pg(&pg), searches_lite(&sqlite));
}

/// A Mintlify event: its id is the view's key, so the same id under another user agent is
/// the same view in another class.
fn event(id: &str, path: &str, agent: &str, at: &str) -> String {
    serde_json::json!({"eventType": "docs.content.view", "payload": {
        "event_id": id, "anon_id": id, "path": path, "ip": "203.0.113.1",
        "user_agent": agent, "created_at": at}})
    .to_string()
}

#[test]
fn a_key_given_twice_in_one_batch_is_counted_as_on_sqlite() {
    let url = pg_or_skip!();
    let dir = tempfile::tempdir().unwrap();
    let (person, agent) = (AGENTS[0], AGENTS[3]);
    // One batch: e1 a person's then an agent's, e3 a person's, an agent's and a
    // person's again, e4 once.
    let lines = [
        event("e1", "/guide", person, "2026-02-02T10:00:00Z"),
        event("e3", "/b", person, "2026-02-02T10:00:02Z"),
        event("e1", "/guide", agent, "2026-02-02T10:00:00Z"),
        event("e3", "/b", agent, "2026-02-02T10:00:02Z"),
        event("e3", "/b", person, "2026-02-02T10:00:02Z"),
        event("e4", "/b", agent, "2026-02-02T10:00:03Z"),
    ];
    let file = dir.path().join("events.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let lite_path = dir.path().join("service.sqlite");
    let args = |db: &str| -> String {
        let file = file.to_str().unwrap();
        docdeck(
            &["import", "--project", "p", "--format", "mintlify", file],
            db,
        )
    };
    let on_pg = args(&url);
    let on_lite = args(lite_path.to_str().unwrap());
    // The first line of each key is counted, each change of class after it is a move.
    assert_eq!(on_pg, on_lite);
    assert!(on_lite.contains("(human 2, AI 1)"), "{on_lite}");
    assert!(
        on_lite.contains("3 views stored before changed class"),
        "{on_lite}"
    );

    // Both end with each view in the column its last line gives: e1 and e4 the agent's,
    // e3 a person's.
    let sqlite = Db::open(&DbLocation::File(lite_path)).unwrap();
    let pg = PgStore::open(&PgUrl::parse(&url).unwrap()).unwrap();
    let seen = answers(&sqlite, &pg);
    let whole = &seen[0];
    assert!(
        whole.contains("human: 1") && whole.contains("ai: 2"),
        "{whole}"
    );
}

/// Views of February 2026, visitor `who(i)` on page `/p{i % 7}`, the `i`th second of the
/// month, people and agents in turn.
fn views(count: usize, who: impl Fn(usize) -> String) -> String {
    views_from(0, count, who)
}

/// [`views`] from the `from`th second of the month on.
fn views_from(from: usize, count: usize, who: impl Fn(usize) -> String) -> String {
    (0..count)
        .map(|i| {
            let at = FEB_MS / 1000 + i64::try_from(from + i).unwrap();
            let ts = chrono::DateTime::from_timestamp(at, 0)
                .unwrap()
                .to_rfc3339();
            let class = if i % 3 == 0 { "ai" } else { "human" };
            common::view(&ts, &format!("/p{}", i % 7), &who(i), class)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// An import of more than one batch (50,000 views), after another import: once a batch
/// found its visitors mostly new, the next batch's are added first and only those an
/// earlier import stored are read back, and they keep their ids: every count equals
/// SQLite's, and no visitor is stored twice.
#[test]
fn a_large_import_after_another_gives_known_visitors_their_ids() {
    let url = pg_or_skip!();
    let dir = tempfile::tempdir().unwrap();
    let lite = DbLocation::File(dir.path().join("service.sqlite"));
    let pg_at = DbLocation::Postgres(PgUrl::parse(&url).unwrap());
    let earlier = views(2_000, |i| format!("known-{i}"));
    // From the 60,000th on (past the first batch, whose visitors are all new), every tenth
    // view is by a visitor of the earlier import; the rest are by new ones.
    let large = views(120_000, |i| {
        if i % 10 == 0 && i >= 60_000 {
            format!("known-{}", i % 2_000)
        } else {
            format!("new-{i}")
        }
    });
    let mut summaries = Vec::new();
    for location in [pg_at, lite.clone()] {
        let (earlier, large) = (earlier.clone(), large.clone());
        summaries.push(
            std::thread::spawn(move || {
                let first = Importer::open(&location, settings(None))
                    .unwrap()
                    .import_jsonl(earlier.as_bytes())
                    .unwrap();
                // A new importer: it remembers none of the earlier visitors.
                let second = Importer::open(&location, settings(None))
                    .unwrap()
                    .import_jsonl(large.as_bytes())
                    .unwrap();
                (first.stored, second.stored, second.duplicates)
            })
            .join()
            .unwrap(),
        );
    }
    assert_eq!(summaries[0], (2_000, 120_000, 0));
    assert_eq!(summaries[0], summaries[1]);
    let sqlite = Db::open(&lite).unwrap();
    let pg = PgStore::open(&PgUrl::parse(&url).unwrap()).unwrap();
    answers(&sqlite, &pg);
    let stored: i64 = pg
        .blocking(|c| Ok(c.query_one("SELECT count(*) FROM visitors", &[])?.get(0)))
        .unwrap();
    assert_eq!(stored, 2_000 + 114_000);
}

/// A visitor id a Mintlify event gives that reads as the hash docdeck makes of another
/// event's address and user agent ("h:…") is one visitor with it, in one batch: the import
/// used to stop, one of the two left without an id.
#[test]
fn a_given_visitor_id_that_reads_as_a_hashed_one_is_the_same_visitor() {
    let url = pg_or_skip!();
    let dir = tempfile::tempdir().unwrap();
    let pg = PgStore::open(&PgUrl::parse(&url).unwrap()).unwrap();
    let secret = pg.blocking(|c| pg::import::visitor_secret(c, "p")).unwrap();
    let (ip, person) = ("203.0.113.9", AGENTS[0]);
    let name = docdeck::server::traffic::store::hashed_visitor(&secret, ip, person);
    let given = serde_json::json!({"eventType": "docs.content.view", "payload": {
        "event_id": "g1", "anon_id": name, "path": "/guide", "ip": "198.51.100.1",
        "user_agent": person, "created_at": "2026-02-02T10:00:00Z"}});
    let hashed = serde_json::json!({"eventType": "docs.content.view", "payload": {
        "event_id": "h1", "path": "/b", "ip": ip,
        "user_agent": person, "created_at": "2026-02-02T10:00:01Z"}});
    let file = dir.path().join("events.jsonl");
    std::fs::write(&file, format!("{given}\n{hashed}\n")).unwrap();
    let file = file.to_str().unwrap();
    let said = docdeck(
        &["import", "--project", "p", "--format", "mintlify", file],
        &url,
    );
    assert!(said.contains("project p: 2 views added"), "{said}");
    let visitors: i64 = pg
        .blocking(|c| Ok(c.query_one("SELECT count(*) FROM visitors", &[])?.get(0)))
        .unwrap();
    assert_eq!(visitors, 1);
}

/// Two imports at once into one project, their visitors the same: each asks its pages'
/// and visitors' ids on a connection of its own beside the one it writes its views on.
/// Neither waits for the other (nor for itself), every visitor is stored once, and the
/// counts are those of the same two imports one after the other on SQLite.
#[test]
fn two_imports_at_once_into_one_project_store_each_visitor_once() {
    let url = pg_or_skip!();
    let dir = tempfile::tempdir().unwrap();
    let lite = DbLocation::File(dir.path().join("service.sqlite"));
    let pg_at = DbLocation::Postgres(PgUrl::parse(&url).unwrap());
    let logs = [
        views_from(0, 60_000, |i| format!("v{}", i % 7_000)),
        views_from(100_000, 60_000, |i| format!("v{}", (i * 3) % 7_000)),
    ];
    let start = Arc::new(std::sync::Barrier::new(2));
    let imports: Vec<_> = logs
        .iter()
        .map(|log| {
            let (log, location, start) = (log.clone(), pg_at.clone(), Arc::clone(&start));
            std::thread::spawn(move || {
                let mut importer = Importer::open(&location, settings(None)).unwrap();
                start.wait();
                importer.import_jsonl(log.as_bytes()).unwrap().stored
            })
        })
        .collect();
    for import in imports {
        assert_eq!(import.join().unwrap(), 60_000);
    }
    for log in &logs {
        let (log, lite) = (log.clone(), lite.clone());
        std::thread::spawn(move || {
            let stored = Importer::open(&lite, settings(None))
                .unwrap()
                .import_jsonl(log.as_bytes())
                .unwrap()
                .stored;
            assert_eq!(stored, 60_000);
        })
        .join()
        .unwrap();
    }
    let sqlite = Db::open(&lite).unwrap();
    let pg = PgStore::open(&PgUrl::parse(&url).unwrap()).unwrap();
    answers(&sqlite, &pg);
    let stored: i64 = pg
        .blocking(|c| Ok(c.query_one("SELECT count(*) FROM visitors", &[])?.get(0)))
        .unwrap();
    assert_eq!(stored, 7_000);
}
