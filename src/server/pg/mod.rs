//! The service's store on PostgreSQL (issue 26): a small pool of connections of the
//! synchronous `postgres` client, used from the blocking pool as the SQLite store is, the
//! versioned schema, and the pieces that differ from SQLite (claiming a turn with a lease).
//!
//! The synchronous client is chosen because every query of the service is a synchronous
//! closure run by `spawn_blocking` today: a PostgreSQL connection slots in where a SQLite
//! one does. Each client drives its own small runtime, so it is only ever used (and
//! dropped) on a blocking thread, never on one of axum's async threads.

pub mod bulk;
pub mod claim;
pub mod import;
mod kept;
pub mod limits;
mod names;
pub mod node;
pub mod nodes;
mod outage;
pub mod schema;
pub mod url;
pub mod views;

use std::sync::{Arc, Mutex};

use postgres::{Client, NoTls};

pub use self::url::PgUrl;
use super::db::StoreError;

/// How many idle connections a node keeps.
const IDLE_CONNECTIONS: usize = 8;
/// How many calls from the async side run at once: each holds a connection, and a burst
/// of requests must not open more connections than the server allows (100 by default,
/// shared by every node). Further calls wait their turn.
const PARALLEL_CALLS: usize = 16;

/// A PostgreSQL database shared by any number of service nodes. Cheap to clone.
#[derive(Clone)]
pub struct PgStore {
    url: PgUrl,
    idle: Arc<Idle>,
    calls: Arc<tokio::sync::Semaphore>,
}

/// Connections not in use. Dropped on a thread of their own: a client owns a runtime,
/// which must not be dropped on an async thread.
struct Idle(Mutex<Vec<Client>>);

impl Drop for Idle {
    fn drop(&mut self) {
        let clients = std::mem::take(
            self.0
                .get_mut()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        if !clients.is_empty() {
            std::thread::spawn(move || drop(clients));
        }
    }
}

/// A PostgreSQL error in words, without anything of the URL.
#[must_use]
pub fn describe(err: &postgres::Error) -> String {
    match err.as_db_error() {
        Some(db) => format!("{}: {}", db.severity(), db.message()),
        None => {
            let mut text = err.to_string();
            let mut source = std::error::Error::source(err);
            while let Some(cause) = source {
                text.push_str(": ");
                text.push_str(&cause.to_string());
                source = cause.source();
            }
            text
        }
    }
}

impl From<postgres::Error> for StoreError {
    /// A lost connection (closed, or a broken pipe on the socket), or a server shutting
    /// down or starting, is `Unreachable` (the
    /// request may be made again); any other error is the query's.
    fn from(err: postgres::Error) -> Self {
        let class = err.code().map(|state| &state.code()[..2]);
        let shutting = err
            .code()
            .is_some_and(|state| state.code().starts_with("57P"));
        // A broken pipe or a reset while writing or reading (the server went away).
        let io = std::error::Error::source(&err).is_some_and(|cause| cause.is::<std::io::Error>());
        if err.is_closed() || class == Some("08") || shutting || io {
            Self::Unreachable(describe(&err))
        } else {
            Self::Postgres(describe(&err))
        }
    }
}

impl PgStore {
    /// Connects and brings the schema to this build's version (refusing a newer one).
    /// Blocking: call it from a blocking thread.
    pub fn open(url: &PgUrl) -> Result<Self, StoreError> {
        let store = Self {
            url: url.clone(),
            idle: Arc::new(Idle(Mutex::new(Vec::new()))),
            calls: Arc::new(tokio::sync::Semaphore::new(PARALLEL_CALLS)),
        };
        store.blocking(|client| schema::migrate(client, url))?;
        Ok(store)
    }

    /// The database's URL (its `Display` masks the password).
    #[must_use]
    pub fn url(&self) -> &PgUrl {
        &self.url
    }

    /// A new connection of its own, such as for `LISTEN`.
    pub fn connect(&self) -> Result<Client, StoreError> {
        Client::connect(self.url.expose(), NoTls).map_err(|err| StoreError::Open {
            path: self.url.redacted().into(),
            reason: format!(
                "{}; check that the PostgreSQL server runs and that the URL's host, user, password and database are right (in a URL, write # ? / @ : in a password as %23 %3F %2F %40 %3A, or give it as ?password=…)",
                describe(&err)
            ),
        })
    }

    /// Runs `work` with a pooled connection on the current (blocking) thread.
    pub fn blocking<T>(
        &self,
        work: impl FnOnce(&mut Client) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let pooled = self
            .idle
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop();
        let mut client = match pooled {
            Some(client) if !client.is_closed() => client,
            _ => self.connect()?,
        };
        let result = work(&mut client);
        if !client.is_closed() {
            let mut idle = self
                .idle
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if idle.len() < IDLE_CONNECTIONS {
                idle.push(client);
                return result;
            }
        }
        drop(client);
        result
    }

    /// Runs `work` with a pooled connection on the blocking pool.
    pub async fn call<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Client) -> Result<T, StoreError> + Send + 'static,
    {
        let store = self.clone();
        // Never closed, so acquiring cannot fail.
        let turn = self
            .calls
            .clone()
            .acquire_owned()
            .await
            .map_err(|err| StoreError::Task(err.to_string()))?;
        tokio::task::spawn_blocking(move || {
            let result = store.blocking(work);
            drop(turn);
            // The last handle may be this one: its connections go on this blocking thread.
            drop(store);
            result
        })
        .await
        .map_err(|err| StoreError::Task(err.to_string()))?
    }
}
