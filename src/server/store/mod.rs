//! The service's store, SQLite or PostgreSQL, as request handlers reach it: queries
//! written once against [`Sql`] run on either through [`Store::write`] and
//! [`Store::read_sql`]; the SQLite-only code that has not been written against [`Sql`]
//! yet runs through [`Store::call`] and [`Store::read`], which on PostgreSQL refuse with
//! [`StoreError::NotOnPostgres`] (a 501 that names what is missing).

mod sql;

use rusqlite::Connection;

pub use self::sql::{Engine, Lite, Row, Sql, Value};
use super::db::{Db, ReadKind, StoreError};
use super::pg::PgStore;

/// Either store. Cheap to clone.
#[derive(Clone)]
pub enum Store {
    Sqlite(Db),
    Postgres(PgStore),
}

impl Store {
    /// The SQLite store, or a refusal naming `what` does not run on PostgreSQL yet.
    pub fn sqlite(&self, what: &'static str) -> Result<&Db, StoreError> {
        match self {
            Self::Sqlite(db) => Ok(db),
            Self::Postgres(_) => Err(StoreError::NotOnPostgres { what }),
        }
    }

    #[must_use]
    pub fn is_postgres(&self) -> bool {
        matches!(self, Self::Postgres(_))
    }

    /// Runs `work` in one write transaction, on the blocking pool.
    pub async fn write<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut dyn Sql) -> Result<T, StoreError> + Send + 'static,
    {
        match self {
            Self::Sqlite(db) => {
                db.call(move |conn| {
                    let tx = crate::sqlite::write_transaction(conn)?;
                    let result = work(&mut Lite(&tx))?;
                    tx.commit()?;
                    Ok(result)
                })
                .await
            }
            Self::Postgres(pg) => {
                pg.call(move |client| {
                    let mut tx = client.transaction()?;
                    let result = work(&mut tx)?;
                    tx.commit()?;
                    Ok(result)
                })
                .await
            }
        }
    }

    /// Runs read-only `work` on the blocking pool (on SQLite, on a reader of `kind`).
    pub async fn read_sql<T, F>(&self, kind: ReadKind, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut dyn Sql) -> Result<T, StoreError> + Send + 'static,
    {
        match self {
            Self::Sqlite(db) => db.read(kind, move |conn| work(&mut Lite(conn))).await,
            Self::Postgres(pg) => pg.call(move |client| work(client)).await,
        }
    }

    /// SQLite-only work with the writer (not on PostgreSQL yet).
    pub async fn call<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        self.sqlite("this request")?.call(work).await
    }

    /// SQLite-only read-only work (not on PostgreSQL yet).
    pub async fn read<T, F>(&self, kind: ReadKind, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        self.sqlite("this request")?.read(kind, work).await
    }
}

/// Wakes the nodes of a PostgreSQL store when the transaction commits: a turn waits.
/// Nothing on SQLite (its one worker is told directly).
pub fn announce(sql: &mut dyn Sql) -> Result<(), StoreError> {
    if sql.engine() == Engine::Postgres {
        sql.exec(&format!("NOTIFY {}", super::pg::claim::CHANNEL), &[])?;
    }
    Ok(())
}
