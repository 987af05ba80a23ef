//! Where an import writes, and its open transaction: SQLite through the batch writer
//! (`batch`), or PostgreSQL through `COPY` (`pg::import`). Whole-file imports, `--follow`
//! and JSON lines all write through [`Tx`], so each runs on either store.

use postgres::Client;

use super::ImportConn;
use super::batch::{Item, Stored, Writer};
use super::store::{self, FileId, Position};
use crate::server::db::{Db, StoreError};
use crate::server::pg::import::PgWriter;

/// An import's store, with the writer that batches its views.
pub(crate) enum Sink {
    Lite {
        db: Db,
        writer: Writer,
    },
    Pg {
        client: Box<Client>,
        writer: PgWriter,
    },
}

/// One open transaction of an import. Dropped without [`Tx::commit`], it is rolled back.
pub(crate) enum Tx<'a> {
    Lite(LiteTx<'a>),
    Pg {
        tx: postgres::Transaction<'a>,
        writer: &'a mut PgWriter,
    },
}

/// A SQLite write transaction on the import's connection (foreign-key checks off while it
/// is held, `ImportConn`), begun `IMMEDIATE` as `sqlite::write_transaction` begins one.
pub(crate) struct LiteTx<'a> {
    conn: ImportConn<'a>,
    writer: &'a mut Writer,
    open: bool,
}

impl Drop for LiteTx<'_> {
    fn drop(&mut self) {
        if self.open
            && let Err(err) = self.conn.execute_batch("ROLLBACK")
        {
            tracing::warn!("cannot roll back an import's transaction: {err}");
        }
    }
}

impl Sink {
    /// Begins a transaction.
    pub(crate) fn begin(&mut self) -> Result<Tx<'_>, StoreError> {
        match self {
            Self::Lite { db, writer } => {
                let conn = ImportConn::lock(db)?;
                conn.execute_batch("BEGIN IMMEDIATE")?;
                Ok(Tx::Lite(LiteTx {
                    conn,
                    writer,
                    open: true,
                }))
            }
            Self::Pg { client, writer } => Ok(Tx::Pg {
                tx: client.transaction()?,
                writer,
            }),
        }
    }
}

impl Tx<'_> {
    /// Writes a line's item (a view may wait for its batch: [`Tx::flush`] writes it).
    pub(crate) fn take(&mut self, item: Item) -> Result<Stored, StoreError> {
        match self {
            Self::Lite(lite) => lite.writer.take(&lite.conn, item),
            Self::Pg { tx, writer } => writer.take(tx, item),
        }
    }

    /// Writes the views still waiting. Called before committing.
    pub(crate) fn flush(&mut self) -> Result<Stored, StoreError> {
        match self {
            Self::Lite(lite) => lite.writer.flush(&lite.conn),
            Self::Pg { tx, writer } => writer.flush(tx),
        }
    }

    /// Where `--follow` stopped in the file `id`, if it ever read it.
    pub(crate) fn position(
        &mut self,
        project: &str,
        id: FileId,
    ) -> Result<Option<Position>, StoreError> {
        match self {
            Self::Lite(lite) => store::position(&lite.conn, project, id),
            Self::Pg { tx, .. } => crate::server::pg::import::position(tx, project, id),
        }
    }

    /// Stores where reading stopped, with the views read.
    pub(crate) fn save_position(
        &mut self,
        project: &str,
        id: FileId,
        path: &str,
        at: Position,
    ) -> Result<(), StoreError> {
        match self {
            Self::Lite(lite) => store::save_position(&lite.conn, project, id, path, at),
            Self::Pg { tx, .. } => {
                crate::server::pg::import::save_position(tx, project, id, path, at)
            }
        }
    }

    /// Commits what was written (flush first).
    pub(crate) fn commit(self) -> Result<(), StoreError> {
        match self {
            Self::Lite(mut lite) => {
                lite.conn.execute_batch("COMMIT")?;
                lite.open = false;
                Ok(())
            }
            Self::Pg { tx, .. } => Ok(tx.commit()?),
        }
    }
}
