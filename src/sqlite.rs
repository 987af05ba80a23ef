//! SQLite set-up shared by the journal and the local service: opening a file in WAL mode
//! and applying numbered schema steps.

use std::path::Path;
use std::time::Duration;

use rusqlite::Connection;

/// Why a database could not be brought to this build's schema.
#[derive(Debug)]
pub enum SchemaError {
    /// The file was written by a newer docdeck; it is left untouched.
    TooNew {
        found: i64,
        known: usize,
    },
    Sql(rusqlite::Error),
}

impl From<rusqlite::Error> for SchemaError {
    fn from(err: rusqlite::Error) -> Self {
        Self::Sql(err)
    }
}

/// Opens (creating its folder if needed) a database file for use by several processes at
/// once: WAL, a busy timeout instead of "database is locked", foreign keys on.
pub fn open_shared(path: &Path) -> Result<Connection, String> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|err| err.to_string())?;
    }
    let conn = Connection::open(path).map_err(|err| err.to_string())?;
    configure(&conn).map_err(|err| format!("{err} (is it a SQLite database?)"))?;
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(|err| format!("{err} (is it a SQLite database?)"))?;
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(|err| err.to_string())?;
    Ok(conn)
}

/// Settings every connection gets, file or memory.
pub fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(Duration::from_secs(10))?;
    conn.pragma_update(None, "foreign_keys", "ON")
}

/// Applies the steps the database has not seen yet; step `n` takes it from version `n` to
/// `n + 1` (kept in `PRAGMA user_version`), each in its own transaction.
pub fn migrate(conn: &Connection, steps: &[&str]) -> Result<(), SchemaError> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    let known = steps.len();
    let start = usize::try_from(version).unwrap_or(usize::MAX);
    if start > known {
        return Err(SchemaError::TooNew {
            found: version,
            known,
        });
    }
    for (step, sql) in steps.iter().enumerate().skip(start) {
        let tx = conn.unchecked_transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(
            None,
            "user_version",
            i64::try_from(step + 1).unwrap_or(i64::MAX),
        )?;
        tx.commit()?;
    }
    Ok(())
}
