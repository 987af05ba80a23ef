//! `docdeck import`: view events as JSON lines into the local service's database. The
//! whole file goes in one transaction: a bad line is reported with its number and nothing
//! of the file stays behind. Views are written by the one writer every format uses, with
//! their keys, so importing a file again adds nothing.

use std::io::{BufReader, Read, Seek as _, SeekFrom};

use serde_json::{Map, Value};
use thiserror::Error;

use super::db::{Db, StoreError};
use super::traffic::known::Visitor;
use super::traffic::sink::Sink;
use super::traffic::summary::{Dropped, Summary};
use super::traffic::{Item, MAX_LINE, Piece, Ready, read_line, store};
use super::views::{Traffic, ViewEvent};
use crate::api::DateParam;
use crate::text::excerpt;

/// Why an import stopped. Nothing of the file was stored.
#[derive(Debug, Error)]
pub enum ImportError {
    #[error("line {line}: {reason}; nothing was imported")]
    Line { line: usize, reason: String },
    #[error("cannot read the input at line {line}: {reason}")]
    Read { line: usize, reason: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What an import of JSON lines did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Imported {
    /// Views stored.
    pub stored: u64,
    /// Views whose key was stored before (by an earlier import, or earlier in the file).
    pub duplicates: u64,
}

/// Reads events from `input` and stores them for `project`. Blank lines are skipped.
///
/// The whole input is first copied into a file of its own, so the one transaction that
/// keeps the file all or nothing never waits for input (a pipe that stays open would
/// hold the database from the service meanwhile).
pub fn import(db: &Db, project: &str, input: impl Read) -> Result<Imported, ImportError> {
    let mut sink = Sink::Lite {
        db: db.clone(),
        writer: super::traffic::Writer::new(project),
    };
    import_into(&mut sink, project, input)
}

/// [`import`] into either store.
pub(crate) fn import_into(
    sink: &mut Sink,
    project: &str,
    mut input: impl Read,
) -> Result<Imported, ImportError> {
    let spool_failed = |err: std::io::Error| ImportError::Read {
        line: 0,
        reason: format!("cannot keep the input aside before writing it: {err}"),
    };
    let mut spool = tempfile::tempfile().map_err(spool_failed)?;
    std::io::copy(&mut input, &mut spool).map_err(spool_failed)?;
    spool.seek(SeekFrom::Start(0)).map_err(spool_failed)?;
    let mut input = BufReader::new(spool);
    let mut tx = sink.begin()?;
    let mut summary = Summary::default();
    let mut bytes = Vec::new();
    for number in 1.. {
        let piece = read_line(&mut input, &mut bytes).map_err(|err| ImportError::Read {
            line: number,
            reason: err.to_string(),
        })?;
        let line = match piece {
            Piece::End => break,
            Piece::TooLong => {
                return Err(ImportError::Line {
                    line: number,
                    reason: format!("longer than {} KiB", MAX_LINE / 1024),
                });
            }
            Piece::Line => std::str::from_utf8(&bytes).map_err(|err| ImportError::Line {
                line: number,
                reason: format!(
                    "not UTF-8 (byte {} of the line); convert the file, such as with iconv -f latin1 -t utf-8",
                    err.valid_up_to() + 1
                ),
            })?,
        };
        if line.trim().is_empty() {
            continue;
        }
        let event = parse_line(line).map_err(|reason| ImportError::Line {
            line: number,
            reason,
        })?;
        let key = store::view_key(project, None, event.ts_ms, &event.visitor, &event.path);
        let ready = Ready {
            key,
            ts_ms: event.ts_ms,
            path: event.path.into(),
            visitor: Visitor::Given(event.visitor.into()),
            traffic: Some(event.traffic),
            from_search: None,
        };
        tx.take(Item::View(ready))?.count(&mut summary);
    }
    tx.flush()?.count(&mut summary);
    tx.commit()?;
    Ok(Imported {
        stored: summary.kept(),
        duplicates: summary
            .dropped
            .get(&Dropped::AlreadyStored)
            .copied()
            .unwrap_or(0),
    })
}

/// One event: `{"ts": "<RFC 3339>", "path": "/p", "visitorId": "v1", "traffic": "human"|"ai"}`.
pub fn parse_line(line: &str) -> Result<ViewEvent, String> {
    let value: Value = serde_json::from_str(line).map_err(|err| {
        format!(
            "not valid JSON ({})",
            err.to_string().replace(" at line 1 column", " at column")
        )
    })?;
    let Value::Object(fields) = value else {
        return Err("expected a JSON object with ts, path, visitorId and traffic".to_owned());
    };
    let ts = text_field(&fields, "ts")?;
    let ts = DateParam::parse("ts", ts).map_err(|err| err.to_string())?;
    let traffic = match text_field(&fields, "traffic")? {
        "human" => Traffic::Human,
        "ai" => Traffic::Ai,
        other => {
            return Err(format!(
                "traffic must be \"human\" or \"ai\", not {:?}",
                excerpt(other, 40)
            ));
        }
    };
    let path = text_field(&fields, "path")?;
    if !path.starts_with('/') {
        return Err(format!(
            "path must start with / (such as /quickstart), not {:?}",
            excerpt(path, 60)
        ));
    }
    Ok(ViewEvent {
        ts_ms: ts.millis(),
        path: path.to_owned(),
        visitor: text_field(&fields, "visitorId")?.to_owned(),
        traffic,
    })
}

fn text_field<'a>(fields: &'a Map<String, Value>, name: &str) -> Result<&'a str, String> {
    match fields.get(name) {
        None | Some(Value::Null) => Err(format!("{name} is missing")),
        Some(Value::String(text)) if text.is_empty() => Err(format!("{name} is empty")),
        Some(Value::String(text)) => Ok(text),
        Some(_) => Err(format!("{name} must be a string")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::db::DbLocation;

    fn count_views(db: &Db) -> i64 {
        db.blocking(|conn| Ok(conn.query_row("SELECT COUNT(*) FROM views", [], |r| r.get(0))?))
            .unwrap()
    }

    #[test]
    fn a_good_file_is_stored_and_blank_lines_skipped() {
        let db = Db::open(&DbLocation::Memory).unwrap();
        let input = concat!(
            r#"{"ts": "2024-03-01T10:00:00Z", "path": "/a", "visitorId": "v1", "traffic": "human"}"#,
            "\n\n",
            r#"{"ts": "2024-03-01T12:30:00+02:00", "path": "/a", "visitorId": "v1", "traffic": "ai", "ua": "x"}"#,
            "\n"
        );
        let imported = import(&db, "p", input.as_bytes()).unwrap();
        assert_eq!(
            imported,
            Imported {
                stored: 2,
                duplicates: 0
            }
        );
        assert_eq!(count_views(&db), 2);
        // One writer, with keys, for every format: a second import adds nothing.
        let again = import(&db, "p", input.as_bytes()).unwrap();
        assert_eq!(
            again,
            Imported {
                stored: 0,
                duplicates: 2
            }
        );
        assert_eq!(count_views(&db), 2);
    }

    #[test]
    fn a_bad_line_is_named_and_nothing_is_kept() {
        let db = Db::open(&DbLocation::Memory).unwrap();
        let good = r#"{"ts": "2024-03-01T10:00:00Z", "path": "/a", "visitorId": "v1", "traffic": "human"}"#;
        let cases = [
            (
                r#"{"ts": "2024-03-01T10:00:00Z", "path": "/a", "visitorId": "v1", "traffic": "bot"}"#,
                "traffic",
            ),
            (
                r#"{"ts": "2024-02-30", "path": "/a", "visitorId": "v1", "traffic": "ai"}"#,
                "ts",
            ),
            (
                r#"{"ts": "2024-03-01", "visitorId": "v1", "traffic": "ai"}"#,
                "path is missing",
            ),
            (
                r#"{"ts": "2024-03-01", "path": 5, "visitorId": "v1", "traffic": "ai"}"#,
                "path must be a string",
            ),
            (
                r#"{"ts": "2024-03-01", "path": "/a", "visitorId": "", "traffic": "ai"}"#,
                "visitorId is empty",
            ),
            (
                r#"{"ts": "2024-03-01", "path": "quickstart", "visitorId": "v1", "traffic": "ai"}"#,
                "path must start with / (such as /quickstart), not \"quickstart\"",
            ),
            (
                r#"{"ts": "2024-03-01", "path": "https://x.dev/a", "visitorId": "v1", "traffic": "ai"}"#,
                "path must start with /",
            ),
            ("[1, 2]", "JSON object"),
            ("{\"ts\": ", "not valid JSON"),
        ];
        for (bad, hint) in cases {
            let input = format!("{good}\n{good}\n{bad}\n{good}\n");
            let err = import(&db, "p", input.as_bytes()).unwrap_err().to_string();
            assert!(err.starts_with("line 3: ") && err.contains(hint), "{err}");
            assert_eq!(count_views(&db), 0, "nothing half-loaded after {bad}");
        }
    }
}
