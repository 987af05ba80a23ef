//! Tests of whole imports into an in-memory database: keys, strictness, gzip.

use std::io::Write as _;
use std::sync::Arc;

use super::*;
use crate::server::db::DbLocation;
use crate::server::traffic::formats::LogFormat;
use crate::server::traffic::rules::Rules;

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
    let rules = Arc::new(Rules::shipped().unwrap());
    db.blocking(|conn| Importer::new(conn, "p", LogFormat::Combined, rules, strict))
        .unwrap()
}

fn views(db: &Db) -> i64 {
    db.blocking(|conn| Ok(conn.query_row("SELECT COUNT(*) FROM views", [], |r| r.get(0))?))
        .unwrap()
}

#[test]
fn a_reimport_adds_nothing_and_broken_lines_are_counted() {
    let db = Db::open(&DbLocation::Memory).unwrap();
    let first = import_all(&db, &mut importer(&db, false), log().as_bytes()).unwrap();
    assert_eq!(
        (first.lines, first.human, first.ai, first.broken),
        (4, 1, 1, 1)
    );
    assert_eq!(first.first_broken[0].0, "line 4");
    let again = import_all(&db, &mut importer(&db, false), log().as_bytes()).unwrap();
    assert_eq!((again.kept(), views(&db)), (0, 2));
    assert!(again.to_string().contains("already stored 2"), "{again}");
}

#[test]
fn strict_fails_the_whole_file() {
    let db = Db::open(&DbLocation::Memory).unwrap();
    let err = import_all(&db, &mut importer(&db, true), log().as_bytes()).unwrap_err();
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
    let summary = import_all(&db, &mut importer(&db, false), open(&path).unwrap()).unwrap();
    assert_eq!(summary.kept(), 2);
}
