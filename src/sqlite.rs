//! SQLite set-up shared by the journal and the local service: opening a file in WAL mode
//! and applying numbered schema steps.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior};

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

/// Why a database file could not be opened.
#[derive(Debug)]
pub struct OpenFailure {
    pub reason: String,
    /// The file is not a SQLite database or is damaged: only setting it aside helps.
    pub unusable: bool,
}

/// True for the errors that mean the file itself is not a usable database.
#[must_use]
pub fn is_unusable(err: &rusqlite::Error) -> bool {
    matches!(
        err.sqlite_error_code(),
        Some(rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt)
    )
}

/// Creates `dir` and any missing folder above it readable by this user only (0700), as
/// the XDG base directory rules ask; folders that exist are left as they are.
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Creates `path` empty and readable by this user only (0600) if it does not exist. SQLite
/// then gives its `-wal` and `-shm` files the same mode; an empty file is a new database.
pub fn create_private_file(path: &Path) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(err) => Err(err),
    }
}

/// Makes an existing database file (and its `-wal` and `-shm` files) readable by this
/// user only, when others could read it. A file that cannot be changed (another owner)
/// is left as it is.
pub fn make_private(path: &Path) {
    #[cfg(unix)]
    for suffix in ["", "-wal", "-shm"] {
        use std::os::unix::fs::PermissionsExt as _;
        let mut file = path.as_os_str().to_owned();
        file.push(suffix);
        let file = std::path::PathBuf::from(file);
        let Ok(metadata) = std::fs::metadata(&file) else {
            continue;
        };
        let mode = metadata.permissions().mode();
        if mode & 0o077 != 0
            && let Err(err) =
                std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode & 0o700))
        {
            tracing::info!(file = %file.display(), "left at mode {mode:o}: {err}");
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

/// Opens (creating its folder if needed) a database file for use by several processes at
/// once: WAL, a busy timeout instead of "database is locked", foreign keys on. The schema is
/// read once, so a file that is not a database or has a damaged schema is found here. A new
/// folder is made 0700 and a new file 0600: they hold prompts, drafts and key hashes.
pub fn open_shared(path: &Path) -> Result<Connection, OpenFailure> {
    let failed = |err: rusqlite::Error| OpenFailure {
        unusable: is_unusable(&err),
        reason: if is_unusable(&err) {
            format!("{err} (is it a SQLite database?)")
        } else {
            err.to_string()
        },
    };
    let io_failed = |err: std::io::Error| OpenFailure {
        reason: err.to_string(),
        unusable: false,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        create_private_dir(parent).map_err(io_failed)?;
    }
    create_private_file(path).map_err(io_failed)?;
    let conn = Connection::open(path).map_err(failed)?;
    configure(&conn).map_err(failed)?;
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(failed)?;
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(failed)?;
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()))
        .map_err(failed)?;
    Ok(conn)
}

/// A write transaction that takes the write lock at once. A deferred one that reads first
/// and writes later fails with "database is locked" (without waiting) when another process
/// wrote in between; an immediate one waits its turn under the busy timeout instead.
pub fn write_transaction(conn: &mut Connection) -> rusqlite::Result<rusqlite::Transaction<'_>> {
    conn.transaction_with_behavior(TransactionBehavior::Immediate)
}

/// Settings every connection gets, file or memory.
pub fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(Duration::from_secs(10))?;
    conn.pragma_update(None, "foreign_keys", "ON")
}

/// Applies the steps the database has not seen yet; step `n` takes it from version `n` to
/// `n + 1` (kept in `PRAGMA user_version`). The steps run in one IMMEDIATE transaction that
/// reads the version again, so two processes opening a new file at once migrate it once.
pub fn migrate(conn: &Connection, steps: &[&str]) -> Result<(), SchemaError> {
    let known = steps.len();
    let pending = |conn: &Connection| -> Result<usize, SchemaError> {
        let version: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
        let start = usize::try_from(version).unwrap_or(usize::MAX);
        if start > known {
            return Err(SchemaError::TooNew {
                found: version,
                known,
            });
        }
        Ok(start)
    };
    if pending(conn)? == known {
        return Ok(());
    }
    let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    for (step, sql) in steps.iter().enumerate().skip(pending(&tx)?) {
        tx.execute_batch(sql)?;
        tx.pragma_update(
            None,
            "user_version",
            i64::try_from(step + 1).unwrap_or(i64::MAX),
        )?;
    }
    tx.commit()?;
    Ok(())
}
