//! The one face of `docdeck import` (issues 25 and 26): open an [`Importer`] on a
//! database (a SQLite file or PostgreSQL), then import whole inputs or follow files. Which
//! store is behind it, and how lines become views, stay inside.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::formats::LogFormat;
use super::ingest::{Lines, Progress};
use super::rules::Rules;
use super::search::SearchUrl;
use super::sink::Sink;
use super::{Input, Summary, Writer, follow, store};
use crate::server::db::{Db, DbLocation, StoreError};
use crate::server::import::{ImportError, Imported};
use crate::server::pg::PgStore;
use crate::server::pg::import::PgWriter;
use crate::server::seed::{self, Claimed, MixError};

/// SQLite's page cache while importing, in KiB: 1M lines took 2.3 s with 32 MiB, 2.0 s
/// with 64 MiB (BENCHMARKS.md). It bounds the import's memory with the capped caches.
const IMPORT_CACHE_KIB: i64 = 64 * 1024;

/// What an import is asked to do.
#[derive(Clone)]
pub struct Settings {
    pub project: String,
    /// The log format; `None` reads JSON lines of views (each file all or nothing).
    pub format: Option<LogFormat>,
    pub rules: Arc<Rules>,
    /// A broken line fails its whole input.
    pub strict: bool,
    /// The site's search page (`None`: its requests count as pages).
    pub search: Option<SearchUrl>,
    /// Delete the project's invented views (the demo seed's) first.
    pub discard_demo: bool,
}

/// Why an importer could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The project holds the demo's invented views (or is being seeded).
    #[error(transparent)]
    Mixed(#[from] MixError),
}

/// An import into one project of one database.
pub struct Importer {
    project: String,
    lines: Lines,
    sink: Sink,
    jsonl: bool,
    /// What claiming the project for real views did.
    pub claimed: Claimed,
}

impl Importer {
    /// Opens the database (migrating it), claims the project for real views and makes
    /// its visitor secret. Blocking; on PostgreSQL not on an async runtime's thread (the
    /// synchronous client runs a runtime of its own).
    pub fn open(location: &DbLocation, settings: Settings) -> Result<Self, OpenError> {
        let DbLocation::Postgres(url) = location else {
            return Self::on_sqlite(Db::open(location)?, settings);
        };
        let project = settings.project.as_str();
        let store = PgStore::open(url)?;
        let mut client = store.connect()?;
        let mut tx = client.transaction().map_err(StoreError::from)?;
        let claimed = seed::claim_in(&mut tx, project, settings.discard_demo)?;
        tx.commit().map_err(StoreError::from)?;
        let secret = crate::server::pg::import::visitor_secret(&mut client, project)?;
        // A second connection asks the pages' and visitors' ids beside the writing one.
        let writer = PgWriter::new(project, store.connect()?);
        Ok(Self::made(
            settings,
            Sink::Pg {
                client: Box::new(client),
                writer,
            },
            secret,
            claimed,
        ))
    }

    /// An importer into a SQLite database already open (tests import into memory).
    pub fn on_sqlite(db: Db, settings: Settings) -> Result<Self, OpenError> {
        let project = settings.project.as_str();
        let claimed = seed::claim_real(&mut db.lock(), project, settings.discard_demo)?;
        let secret = db.blocking(|conn| {
            // The indexes an import writes to at random places (visitors, view keys)
            // outgrow SQLite's default 2 MiB page cache within a few hundred thousand
            // views, and every miss is a read from the WAL.
            conn.pragma_update(None, "cache_size", -IMPORT_CACHE_KIB)?;
            store::visitor_secret(conn, project)
        })?;
        let writer = Writer::new(project);
        Ok(Self::made(
            settings,
            Sink::Lite { db, writer },
            secret,
            claimed,
        ))
    }

    fn made(settings: Settings, sink: Sink, secret: [u8; 32], claimed: Claimed) -> Self {
        let project = settings.project.as_str();
        let format = settings.format.unwrap_or(LogFormat::Combined);
        let mut lines = Lines::new(project, format, settings.rules, settings.strict, secret);
        lines.reader.set_search(settings.search);
        Self {
            project: settings.project,
            lines,
            sink,
            jsonl: settings.format.is_none(),
            claimed,
        }
    }

    /// Whether the database is PostgreSQL.
    #[must_use]
    pub fn is_postgres(&self) -> bool {
        matches!(self.sink, Sink::Pg { .. })
    }

    /// Lines read and views kept so far, for a progress line on another thread.
    #[must_use]
    pub fn progress(&self) -> Arc<Progress> {
        Arc::clone(&self.lines.progress)
    }

    /// Views committed so far: what stays whatever happens next.
    #[must_use]
    pub fn committed(&self) -> u64 {
        self.lines.progress.committed()
    }

    /// Whether a broken line fails the whole input (`--strict`).
    #[must_use]
    pub fn strict(&self) -> bool {
        self.lines.reader.strict()
    }

    /// The file being read by `--follow`, for a broken line's place.
    #[must_use]
    pub fn source(&self) -> Option<&str> {
        self.lines.source.as_deref()
    }

    /// Reads a whole log input (see [`super::import_all`] for its commits).
    pub fn import(&mut self, input: impl Input) -> Result<Summary, ImportError> {
        super::import_all(&mut self.sink, &mut self.lines, input)
    }

    /// Reads a whole input of JSON lines in one transaction: a bad line fails it.
    pub fn import_jsonl(&mut self, input: impl std::io::Read) -> Result<Imported, ImportError> {
        debug_assert!(self.jsonl);
        crate::server::import::import_into(&mut self.sink, &self.project, input)
    }

    /// Follows `paths` until `stop` is set (`import --follow`); `note` is told of files
    /// appearing, rotating and shrinking.
    pub fn follow(
        &mut self,
        paths: &[PathBuf],
        stop: &AtomicBool,
        note: &mut dyn FnMut(String),
    ) -> Result<Summary, ImportError> {
        follow::follow(
            &mut self.sink,
            &mut self.lines,
            &self.project,
            paths,
            stop,
            note,
        )
    }
}
