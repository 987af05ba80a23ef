//! Tests of whole imports into an in-memory database: keys, strictness, gzip.

use std::io::Write as _;
use std::sync::Arc;

use super::*;
use crate::server::db::DbLocation;
use crate::server::traffic::formats::LogFormat;
use crate::server::traffic::rules::Rules;
use crate::server::traffic::summary::Dropped;

const CHROME: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

fn log() -> String {
    [
        format!(r#"203.0.113.1 - - [20/Nov/2026:09:00:00 +0000] "GET /guide HTTP/1.1" 200 10 "-" "{CHROME}""#),
        r#"203.0.113.2 - - [20/Nov/2026:09:00:01 +0000] "GET /guide.md HTTP/1.1" 200 10 "-" "curl/8.5.0""#.to_owned(),
        r#"203.0.113.2 - - [20/Nov/2026:09:00:02 +0000] "GET /guide HTTP/1.1" 200 10 "-" "curl/8.5.0""#.to_owned(),
        r#"203.0.113.3 - - [20/Nov/2026:09:00:0"#.to_owned(),
    ]
    .join("\n")
}

fn importer(db: &Db, strict: bool) -> Importer {
    under(db, Rules::shipped().unwrap(), strict)
}

fn under(db: &Db, rules: Rules, strict: bool) -> Importer {
    let settings = Settings {
        project: "p".into(),
        format: Some(LogFormat::Combined),
        rules: Arc::new(rules),
        strict,
        search: Some(search::SearchUrl::default()),
        discard_demo: false,
    };
    Importer::on_sqlite(db.clone(), settings).unwrap()
}

fn views(db: &Db) -> i64 {
    db.blocking(|conn| Ok(conn.query_row("SELECT COUNT(*) FROM views", [], |r| r.get(0))?))
        .unwrap()
}

#[test]
fn a_reimport_adds_nothing_and_broken_lines_are_counted() {
    let db = Db::open(&DbLocation::Memory).unwrap();
    let first = importer(&db, false).import(log().as_bytes()).unwrap();
    assert_eq!(
        (
            first.lines,
            first.counts.human,
            first.counts.ai,
            first.broken
        ),
        (4, 1, 1, 1)
    );
    assert_eq!(first.first_broken[0].0, "line 4");
    let again = importer(&db, false).import(log().as_bytes()).unwrap();
    assert_eq!((again.kept(), views(&db)), (0, 2));
    assert!(again.to_string().contains("duplicates 2"), "{again}");
}

#[test]
fn strict_fails_the_whole_file() {
    let db = Db::open(&DbLocation::Memory).unwrap();
    let err = importer(&db, true).import(log().as_bytes()).unwrap_err();
    assert!(err.to_string().starts_with("line 4: "), "{err}");
    assert_eq!(views(&db), 0);
}

#[test]
fn gzip_files_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("access.log.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(log().as_bytes()).unwrap();
    std::fs::write(&path, encoder.finish().unwrap()).unwrap();
    let db = Db::open(&DbLocation::Memory).unwrap();
    let summary = importer(&db, false)
        .import(open(&path, Arc::default()).unwrap())
        .unwrap();
    assert_eq!(summary.kept(), 2);
}

/// Views go to the database in batches: repeats are found within a batch, across batches
/// and against an earlier import, and the counts come out exact.
#[test]
fn repeats_are_found_within_and_across_batches() {
    let line = |i: usize| {
        format!(
            r#"203.0.113.{} - - [20/Nov/2026:09:{:02}:{:02} +0000] "GET /p{} HTTP/1.1" 200 10 "-" "{CHROME}""#,
            i % 7,
            (i / 60) % 60,
            i % 60,
            i % 13
        )
    };
    // 700 distinct views, each written twice in a row, and the first 100 once more at
    // the end: 1,500 lines over several batches.
    let mut lines: Vec<String> = (0..700).flat_map(|i| [line(i), line(i)]).collect();
    lines.extend((0..100).map(line));
    let log = lines.join("\n");
    let db = Db::open(&DbLocation::Memory).unwrap();
    let first = importer(&db, false).import(log.as_bytes()).unwrap();
    assert_eq!(
        (first.lines, first.counts.human, first.counts.ai),
        (1_500, 700, 0)
    );
    assert_eq!(first.dropped.get(&Dropped::AlreadyStored), Some(&800));
    assert_eq!(views(&db), 700);
    let again = importer(&db, false).import(log.as_bytes()).unwrap();
    assert_eq!(
        (again.kept(), again.dropped.get(&Dropped::AlreadyStored)),
        (0, Some(&1_500))
    );
    assert_eq!(views(&db), 700);
}

/// A full batch of new views takes the quick way in; a file that repeats part of it after
/// that stores only the new views.
#[test]
fn a_batch_of_new_views_and_then_a_partial_repeat() {
    let line = |i: usize| {
        format!(
            r#"198.51.100.{} - - [21/Nov/2026:10:{:02}:{:02} +0000] "GET /q{} HTTP/1.1" 200 10 "-" "{CHROME}""#,
            i % 11,
            i / 60,
            i % 60,
            i % 5
        )
    };
    let db = Db::open(&DbLocation::Memory).unwrap();
    let first: Vec<String> = (0..300).map(line).collect();
    let summary = importer(&db, false)
        .import(first.join("\n").as_bytes())
        .unwrap();
    assert_eq!((summary.kept(), views(&db)), (300, 300));
    let second: Vec<String> = (200..600).map(line).collect();
    let summary = importer(&db, false)
        .import(second.join("\n").as_bytes())
        .unwrap();
    assert_eq!(
        (summary.kept(), summary.dropped.get(&Dropped::AlreadyStored)),
        (300, Some(&100))
    );
    assert_eq!(views(&db), 600);
}

/// The visitor of a client is the documented keyed hash, the same as earlier imports made
/// (a re-import must find the same visitors and keys).
#[test]
fn hashed_visitors_keep_their_form() {
    assert_eq!(
        store::hashed_visitor(&[7; 32], "203.0.113.1", "curl/8.5.0"),
        "h:48209e6333141e73b028c74740c05cec"
    );
}

/// Foreign-key checks are off only while an import holds the connection.
#[test]
fn foreign_keys_are_checked_again_after_an_import() {
    let db = Db::open(&DbLocation::Memory).unwrap();
    importer(&db, false).import(log().as_bytes()).unwrap();
    let _ = importer(&db, true).import(log().as_bytes()).unwrap_err();
    let on: bool = db
        .blocking(|conn| Ok(conn.pragma_query_value(None, "foreign_keys", |r| r.get(0))?))
        .unwrap();
    assert!(on);
}

/// Views by class, for the recount test: (human, ai).
fn columns(db: &Db) -> (i64, i64) {
    db.blocking(|conn| {
        Ok(conn.query_row(
            "SELECT COALESCE(SUM(ai = 0), 0), COALESCE(SUM(ai = 1), 0) FROM views",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?)
    })
    .unwrap()
}

/// Re-importing a file under other `--ua-rules` recounts its views: a browser the new
/// rules call a robot is taken back, an agent they call an assistant moves to AI, a client
/// they call a browser is added; nothing is stored twice, and the summary says how many
/// changed class.
#[test]
fn a_reimport_under_other_rules_recounts_what_changed_class() {
    let db = Db::open(&DbLocation::Memory).unwrap();
    let log = [
        format!(r#"203.0.113.1 - - [20/Nov/2026:09:00:00 +0000] "GET /a HTTP/1.1" 200 10 "-" "{CHROME}""#),
        format!(r#"203.0.113.1 - - [20/Nov/2026:09:00:01 +0000] "GET /b HTTP/1.1" 200 10 "-" "{CHROME} Mine/1.0""#),
        r#"203.0.113.2 - - [20/Nov/2026:09:00:02 +0000] "GET /a HTTP/1.1" 200 10 "-" "Mozilla/5.0 (compatible; Helper/2.0)""#.to_owned(),
        r#"203.0.113.3 - - [20/Nov/2026:09:00:03 +0000] "GET /a HTTP/1.1" 200 10 "-" "Fetchy/3.0""#.to_owned(),
    ]
    .join("\n");
    let first = importer(&db, false).import(log.as_bytes()).unwrap();
    assert_eq!(
        (first.counts.human, first.counts.ai, first.counts.changed),
        (3, 0, 0),
        "{first}"
    );
    assert_eq!(columns(&db), (3, 0));

    let other = "[other-bot]\nMine/\n[ai-answer]\nHelper/\n[human]\nFetchy/\n";
    let rules = Arc::new(Rules::with_user(other, "other.txt").unwrap());
    let mut under_other = under(&db, Arc::into_inner(rules).unwrap(), false);
    let again = under_other.import(log.as_bytes()).unwrap();
    // /b by Mine/ taken back, Helper/ moved to AI, Fetchy/ added as human.
    assert_eq!(
        (again.counts.human, again.counts.ai, again.counts.changed),
        (1, 0, 2),
        "{again}"
    );
    assert_eq!(columns(&db), (2, 1));
    assert!(
        again
            .to_string()
            .contains("recounted under the rules in force: 2 views stored before changed class"),
        "{again}"
    );
    // The same rules again: nothing moves, nothing is added.
    let mut same = under(&db, Rules::with_user(other, "other.txt").unwrap(), false);
    let third = same.import(log.as_bytes()).unwrap();
    assert_eq!((third.kept(), third.counts.changed), (0, 0), "{third}");
    assert_eq!(columns(&db), (2, 1));
    // And back under the shipped rules: as the first import counted.
    let back = importer(&db, false).import(log.as_bytes()).unwrap();
    assert_eq!((back.counts.human, back.counts.changed), (1, 2), "{back}");
    assert_eq!(columns(&db), (3, 0));
}

/// The same view (one event id) given again in the same batch by another client: the
/// first line counts it, each later line of another class moves it, and the view ends in
/// the column of the last line, as its key says (the view was left in the first line's
/// column while its key moved).
#[test]
fn a_view_given_again_in_its_batch_ends_in_the_last_lines_column() {
    let event = |id: &str, agent: &str| {
        format!(
            r#"{{"eventType":"docs.content.view","payload":{{"event_id":"{id}","anon_id":"{id}","path":"/guide","ip":"203.0.113.1","user_agent":"{agent}","created_at":"2026-11-20T09:14:03Z"}}}}"#
        )
    };
    let agent = "Claude-User (+https://support.anthropic.com/)";
    let log = [
        event("e1", CHROME),
        event("e3", CHROME),
        event("e1", agent),
        event("e3", agent),
        event("e3", CHROME),
    ]
    .join("\n");
    let db = Db::open(&DbLocation::Memory).unwrap();
    let settings = Settings {
        project: "p".into(),
        format: Some(LogFormat::Mintlify),
        rules: Arc::new(Rules::shipped().unwrap()),
        strict: true,
        search: None,
        discard_demo: false,
    };
    let mut importer = Importer::on_sqlite(db.clone(), settings).unwrap();
    let summary = importer.import(log.as_bytes()).unwrap();
    assert_eq!(
        (
            summary.counts.human,
            summary.counts.ai,
            summary.counts.changed
        ),
        (2, 0, 3),
        "{summary}"
    );
    // e1 the agent's, e3 a person's; the keys say the same.
    assert_eq!(columns(&db), (1, 1));
    let keys: (i64, i64) = db
        .blocking(|conn| {
            Ok(conn.query_row(
                "SELECT SUM(counted = 1), SUM(counted = 2) FROM view_keys",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?)
        })
        .unwrap();
    assert_eq!(keys, (1, 1));
}
