//! The local service's SQLite database: opening it, its schema, and running statements
//! on the blocking pool so that no request handler ever blocks an async thread.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use rusqlite::Connection;
use thiserror::Error;

use super::pg::PgUrl;
use crate::sqlite::{self, SchemaError};

/// Where the database lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbLocation {
    /// Gone when the service stops: for demos and tests.
    Memory,
    File(PathBuf),
    /// A PostgreSQL database that many service nodes may share.
    Postgres(PgUrl),
}

impl DbLocation {
    /// Reads the `--db` argument; `:memory:` means an in-memory database, and a
    /// `postgres://` or `postgresql://` URL a PostgreSQL one.
    #[must_use]
    pub fn parse(text: &str) -> Self {
        if text == ":memory:" {
            Self::Memory
        } else if let Some(url) = PgUrl::parse(text) {
            Self::Postgres(url)
        } else {
            Self::File(PathBuf::from(text))
        }
    }
}

impl std::fmt::Display for DbLocation {
    /// Where the database is, as said to a person (a URL's password masked).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Memory => f.write_str(":memory:"),
            Self::File(path) => write!(f, "{}", path.display()),
            Self::Postgres(url) => write!(f, "{url}"),
        }
    }
}

/// A failure of the service's storage.
#[derive(Debug, Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("PostgreSQL error: {0}")]
    Postgres(String),
    /// PostgreSQL cannot be reached now (refused, shut down, the connection lost): a
    /// request may be made again once it is back.
    #[error("PostgreSQL cannot be reached: {0}")]
    Unreachable(String),
    #[error("{what} does not run on PostgreSQL yet (issue 26): give --db a SQLite file for it")]
    NotOnPostgres { what: &'static str },
    #[error("cannot open the database {path}: {reason}")]
    Open { path: PathBuf, reason: String },
    #[error(
        "the database {path} was written by a newer docdeck (schema {found}; this build knows up to {known}): use a newer docdeck or another --db"
    )]
    TooNew {
        path: String,
        found: i64,
        known: usize,
    },
    #[error("cannot build the demo data: {0}")]
    Seed(String),
    #[error("a database task stopped unexpectedly: {0}")]
    Task(String),
    #[error("the database is damaged: {0}")]
    Damaged(String),
}

/// Schema steps; entry `n` takes the database from version `n` to `n + 1`.
pub(crate) const MIGRATIONS: &[&str] = &[
    r"
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE api_keys (
    hash TEXT PRIMARY KEY,
    project TEXT NOT NULL,
    created_ms INTEGER NOT NULL
);
CREATE TABLE jobs (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    project TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'completed', 'archived', 'failed')),
    repository TEXT NOT NULL,
    git_ref TEXT,
    model TEXT NOT NULL,
    pr_link TEXT,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    archived_ms INTEGER
);
CREATE INDEX jobs_active ON jobs (status) WHERE status = 'active';
CREATE TABLE turns (
    job_seq INTEGER NOT NULL REFERENCES jobs (seq),
    turn INTEGER NOT NULL,
    prompt TEXT NOT NULL,
    received_ms INTEGER NOT NULL,
    outcome TEXT CHECK (outcome IN ('pr', 'nochange', 'fail')),
    finished_ms INTEGER,
    PRIMARY KEY (job_seq, turn)
) WITHOUT ROWID;
CREATE TABLE pr_numbers (repository TEXT PRIMARY KEY, next INTEGER NOT NULL);
CREATE TABLE pages (
    id INTEGER PRIMARY KEY,
    project TEXT NOT NULL,
    path TEXT NOT NULL,
    UNIQUE (project, path)
);
CREATE TABLE visitors (
    id INTEGER PRIMARY KEY,
    project TEXT NOT NULL,
    visitor TEXT NOT NULL,
    UNIQUE (project, visitor)
);
CREATE TABLE views (
    project TEXT NOT NULL,
    ts_ms INTEGER NOT NULL,
    page_id INTEGER NOT NULL REFERENCES pages (id),
    visitor_id INTEGER NOT NULL REFERENCES visitors (id),
    ai INTEGER NOT NULL CHECK (ai IN (0, 1))
);
CREATE INDEX views_by_time ON views (project, ts_ms);
",
    r"
-- Keys of imported views (a hash of the project and event id, or of the time, visitor and
-- page): a view whose key is here is not stored again (issue 15).
CREATE TABLE view_keys (key BLOB PRIMARY KEY) WITHOUT ROWID;
-- Where `import --follow` stopped in each file, by the file's identity.
CREATE TABLE import_positions (
    project TEXT NOT NULL,
    device INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    offset INTEGER NOT NULL,
    line INTEGER NOT NULL,
    path TEXT NOT NULL,
    updated_ms INTEGER NOT NULL,
    PRIMARY KEY (project, device, inode)
) WITHOUT ROWID;
",
    r"
-- The real agent (issue 14): when a turn began (a turn begun and not finished at a start
-- was interrupted), why it failed, and where its output is kept.
ALTER TABLE turns ADD COLUMN started_ms INTEGER;
ALTER TABLE turns ADD COLUMN reason TEXT;
ALTER TABLE turns ADD COLUMN output TEXT;
",
    r"
-- Keys that can be listed and revoked (issue 24): an id, a prefix to recognise a key by,
-- when it was last used and revoked. `keyed` 0 marks a plain SHA-256 from before, which
-- the service rehashes with its secret when it opens the database.
CREATE TABLE api_keys_v2 (
    id INTEGER PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    keyed INTEGER NOT NULL CHECK (keyed IN (0, 1)),
    project TEXT NOT NULL,
    prefix TEXT,
    created_ms INTEGER NOT NULL,
    last_used_ms INTEGER,
    revoked_ms INTEGER
);
INSERT INTO api_keys_v2 (hash, keyed, project, created_ms)
    SELECT hash, 0, project, created_ms FROM api_keys ORDER BY created_ms;
DROP TABLE api_keys;
ALTER TABLE api_keys_v2 RENAME TO api_keys;
",
    r"
-- The column each imported view was counted in (1 human, 2 AI), so an import of the same
-- lines under other rules recounts them (issue 22). NULL: stored before it was kept.
ALTER TABLE view_keys ADD COLUMN counted INTEGER;
",
    r"
-- What readers searched for, said and asked (issue 27). `clicked` and `page` are page
-- paths as views count them; `path` is the feedback's path or URL as sent.
CREATE TABLE searches (
    id INTEGER PRIMARY KEY,
    project TEXT NOT NULL,
    ts_ms INTEGER NOT NULL,
    query TEXT NOT NULL,
    clicked TEXT
);
CREATE INDEX searches_by_time ON searches (project, ts_ms);
CREATE TABLE feedback (
    id INTEGER PRIMARY KEY,
    project TEXT NOT NULL,
    ts_ms INTEGER NOT NULL,
    path TEXT NOT NULL,
    page TEXT NOT NULL,
    source TEXT NOT NULL,
    status TEXT NOT NULL,
    helpful INTEGER,
    comment TEXT,
    contact TEXT,
    code TEXT,
    filename TEXT,
    lang TEXT
);
CREATE INDEX feedback_by_time ON feedback (project, ts_ms);
CREATE TABLE assistant (
    id INTEGER PRIMARY KEY,
    project TEXT NOT NULL,
    ts_ms INTEGER NOT NULL,
    query TEXT NOT NULL,
    response TEXT NOT NULL,
    response_type TEXT,
    sources TEXT NOT NULL,
    answered INTEGER NOT NULL,
    category TEXT,
    page_url TEXT
);
CREATE INDEX assistant_by_time ON assistant (project, ts_ms);
",
    r"
-- The service node that ran each turn (`serve --node-name`), as on PostgreSQL (issue 26).
ALTER TABLE turns ADD COLUMN node TEXT;
",
    r"
-- A search read from an access log keeps a key (its time, visitor and words), so that
-- importing the same log again adds no search twice, and its visitor, so that the page
-- they open from it, read by this import or a later one, is its result (issue 27).
-- NULL for the others.
ALTER TABLE searches ADD COLUMN key BLOB;
ALTER TABLE searches ADD COLUMN visitor TEXT;
CREATE UNIQUE INDEX searches_by_key ON searches (project, key);
-- The demo seed's signals are invented, as its views are: `import --discard-demo`
-- deletes them with the views.
ALTER TABLE searches ADD COLUMN invented INTEGER NOT NULL DEFAULT 0;
ALTER TABLE feedback ADD COLUMN invented INTEGER NOT NULL DEFAULT 0;
ALTER TABLE assistant ADD COLUMN invented INTEGER NOT NULL DEFAULT 0;
CREATE INDEX searches_by_visitor ON searches (project, visitor, query, ts_ms);
",
    r"
-- Feedback and answers read from the event stream keep a key (the event's id), so that
-- importing the same stream again adds nothing twice (issue 27). NULL for the others.
ALTER TABLE feedback ADD COLUMN key BLOB;
CREATE UNIQUE INDEX feedback_by_key ON feedback (project, key);
ALTER TABLE assistant ADD COLUMN key BLOB;
CREATE UNIQUE INDEX assistant_by_key ON assistant (project, key);
",
];

/// How many read-only connections a file database gets beside its writer, for each kind
/// of read.
const READERS_PER_KIND: usize = 2;

/// Which readers a read uses: quick lookups never queue behind long scans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadKind {
    /// A lookup by key, such as a job.
    Quick,
    /// A scan, such as the visitors count.
    Scan,
}

/// The service's connections: one writer behind a mutex (writes are short), and for a file
/// database a few read-only connections, so that a long read (a visitors count) never
/// holds up a job read or a write. WAL gives each reader a consistent snapshot and lets
/// `docdeck import` write beside them. An in-memory database has only the writer.
#[derive(Clone)]
pub struct Db {
    conn: Arc<Mutex<Connection>>,
    readers: Arc<Vec<Mutex<Connection>>>,
    next_reader: Arc<AtomicUsize>,
}

impl Db {
    /// Opens (creating if needed) and migrates the database.
    pub fn open(location: &DbLocation) -> Result<Self, StoreError> {
        let (mut conn, label) = match location {
            DbLocation::Memory => {
                let conn = Connection::open_in_memory()?;
                sqlite::configure(&conn)?;
                (conn, ":memory:".to_owned())
            }
            DbLocation::Postgres(_) => {
                return Err(StoreError::NotOnPostgres {
                    what: "this part of docdeck",
                });
            }
            DbLocation::File(path) => {
                let conn = sqlite::open_shared(path).map_err(|failure| StoreError::Open {
                    path: path.clone(),
                    reason: failure.reason,
                })?;
                (conn, path.display().to_string())
            }
        };
        sqlite::migrate(&conn, MIGRATIONS).map_err(|err| match err {
            SchemaError::TooNew { found, known } => StoreError::TooNew {
                path: label,
                found,
                known,
            },
            SchemaError::Sql(err) => StoreError::Sql(err),
        })?;
        super::keys::upgrade(&mut conn)?;
        if let DbLocation::File(path) = location {
            // It holds prompts, key hashes and their secret: as private as the journal.
            sqlite::make_private(path);
        }
        let readers = match location {
            DbLocation::Memory | DbLocation::Postgres(_) => Vec::new(),
            DbLocation::File(path) => (0..2 * READERS_PER_KIND)
                .map(|_| {
                    let reader = sqlite::open_shared(path).map_err(|failure| StoreError::Open {
                        path: path.clone(),
                        reason: failure.reason,
                    })?;
                    reader.pragma_update(None, "query_only", true)?;
                    Ok(Mutex::new(reader))
                })
                .collect::<Result<_, StoreError>>()?,
        };
        Ok(Self {
            conn: Arc::new(Mutex::new(conn)),
            readers: Arc::new(readers),
            next_reader: Arc::new(AtomicUsize::new(0)),
        })
    }

    /// Runs read-only `work` on the blocking pool, on a free reader of its kind if there
    /// is one (an in-memory database has none and uses the writer).
    pub async fn read<T, F>(&self, kind: ReadKind, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let db = self.clone();
        tokio::task::spawn_blocking(move || {
            if db.readers.is_empty() {
                return work(&db.lock());
            }
            let base = match kind {
                ReadKind::Quick => 0,
                ReadKind::Scan => READERS_PER_KIND,
            };
            let first = db.next_reader.fetch_add(1, Ordering::Relaxed) % READERS_PER_KIND;
            for i in 0..READERS_PER_KIND {
                if let Ok(reader) = db.readers[base + (first + i) % READERS_PER_KIND].try_lock() {
                    return work(&reader);
                }
            }
            // Every reader of this kind is busy: wait for the one this call was given.
            let reader = db.readers[base + first]
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            work(&reader)
        })
        .await
        .map_err(|err| StoreError::Task(err.to_string()))?
    }

    /// Runs `work` with the connection on the blocking pool.
    pub async fn call<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let db = self.clone();
        tokio::task::spawn_blocking(move || db.blocking(work))
            .await
            .map_err(|err| StoreError::Task(err.to_string()))?
    }

    /// Runs `work` with the connection on the current thread (for start-up and tools).
    pub fn blocking<T>(
        &self,
        work: impl FnOnce(&mut Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        work(&mut self.lock())
    }

    /// The connection itself, for long sync work such as an import.
    pub fn lock(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock leaves SQLite itself consistent (an open
        // transaction is rolled back when its guard drops), so the poison is ignored.
        self.conn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Milliseconds since the Unix epoch, the unit every stored time uses.
#[must_use]
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrates_once_and_refuses_newer_schemas() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("service.sqlite");
        let location = DbLocation::File(path.clone());
        Db::open(&location).unwrap();
        Db::open(&location).unwrap();
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
        drop(conn);
        let err = Db::open(&location).err().unwrap().to_string();
        assert!(err.contains("newer docdeck"), "{err}");
    }

    #[test]
    fn a_postgres_url_selects_postgres_and_shows_no_password() {
        let location = DbLocation::parse("postgres://app:hunter2@db.local/docdeck");
        assert!(matches!(location, DbLocation::Postgres(_)));
        assert_eq!(location.to_string(), "postgres://app:***@db.local/docdeck");
        assert!(!format!("{location:?}").contains("hunter2"));
        assert_eq!(
            DbLocation::parse("service.sqlite"),
            DbLocation::File(PathBuf::from("service.sqlite"))
        );
        let err = Db::open(&location).err().unwrap().to_string();
        assert!(err.contains("PostgreSQL"), "{err}");
    }

    #[test]
    fn a_file_that_is_not_a_database_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.txt");
        std::fs::write(&path, vec![b'x'; 4096]).unwrap();
        let err = Db::open(&DbLocation::File(path)).err().unwrap().to_string();
        assert!(err.contains("notes.txt"), "{err}");
    }
}
