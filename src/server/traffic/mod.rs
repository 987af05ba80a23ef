//! Real traffic into the local service: access logs (nginx/Apache combined and common,
//! Caddy JSON) and the hosted service's event stream, classified by user agent as the
//! hosted service does (`rules`), each view stored once (`store`), read whole or followed
//! live across rotation (`follow`).

mod batch;
pub mod follow;
pub mod formats;
pub mod ingest;
pub(crate) mod known;
pub mod page;
pub mod rules;
pub mod store;
pub mod summary;

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::sync::{MutexGuard, mpsc};

use rusqlite::Connection;

pub(crate) use batch::{Ready, Writer};
pub use ingest::Importer;
pub use summary::Summary;

use super::db::{Db, StoreError};
use super::import::ImportError;

/// Bytes read from a file at a time.
const BUFFER: usize = 256 * 1024;

/// Opens an input: `-` is standard input, a name ending in `.gz` is read as gzip (several
/// members, as `cat a.gz b.gz` makes, are read one after the other).
pub fn open(path: &Path) -> io::Result<Box<dyn BufRead + Send>> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(BufReader::with_capacity(BUFFER, io::stdin())));
    }
    let file = File::open(path)?;
    if is_gzip(path) {
        let decoder = flate2::read::MultiGzDecoder::new(BufReader::with_capacity(BUFFER, file));
        Ok(Box::new(BufReader::with_capacity(BUFFER, decoder)))
    } else {
        Ok(Box::new(BufReader::with_capacity(BUFFER, file)))
    }
}

/// Whether `path` names a gzip file.
#[must_use]
pub fn is_gzip(path: &Path) -> bool {
    path.extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("gz"))
}

/// Lines a reading thread hands over at a time.
const CHUNK: usize = 1024;
/// Chunks read ahead of the writer at most: memory stays bounded whatever the file.
const AHEAD: usize = 8;

/// Reads a whole input in one transaction and returns what it did. With `--strict` a
/// broken line ends it and nothing of the input is kept.
///
/// Lines are read, parsed and classified on a thread of their own while this one writes to
/// the database: the two halves take about the same time, so on two cores the import
/// takes about half as long.
pub fn import_all(
    db: &Db,
    importer: &mut Importer,
    input: impl BufRead + Send,
) -> Result<Summary, ImportError> {
    let mut conn = ImportConn::lock(db)?;
    let tx = crate::sqlite::write_transaction(&mut conn).map_err(StoreError::from)?;
    let Importer {
        reader,
        writer,
        summary,
        source,
        progress,
    } = importer;
    let progress = &**progress;
    let source = source.as_deref();
    let read_into = &mut *summary;
    let written = std::thread::scope(|scope| {
        let (chunks, received) = mpsc::sync_channel::<Vec<Ready>>(AHEAD);
        // The sender moves to the reader: when it ends, the writer's loop ends.
        let reading =
            scope.spawn(move || read_all(reader, read_into, source, input, &chunks, progress));
        let mut written = Summary::default();
        let mut outcome = Ok(());
        for chunk in received.iter() {
            let kept = written.kept();
            for view in chunk {
                match writer.write(&tx, view) {
                    Ok(stored) => stored.count(&mut written),
                    Err(err) => outcome = Err(err),
                }
                if outcome.is_err() {
                    break;
                }
            }
            progress.add(0, written.kept() - kept);
            if outcome.is_err() {
                break;
            }
        }
        // A writer that stopped drops its end, so the reader stops at its next chunk.
        drop(received);
        let read = reading
            .join()
            .unwrap_or_else(|_| Err(StoreError::Task("the reading thread panicked".into()).into()));
        read?;
        outcome?;
        writer.flush(&tx)?.count(&mut written);
        Ok::<_, ImportError>(written)
    })?;
    tx.commit().map_err(StoreError::from)?;
    summary.add(&written);
    Ok(std::mem::take(summary))
}

/// The reading half of [`import_all`]: lines into views, handed over a chunk at a time.
fn read_all(
    reader: &mut ingest::Reader,
    summary: &mut Summary,
    source: Option<&str>,
    mut input: impl BufRead,
    chunks: &mpsc::SyncSender<Vec<Ready>>,
    progress: &ingest::Progress,
) -> Result<(), ImportError> {
    let mut buffer = Vec::with_capacity(1024);
    let mut chunk = Vec::with_capacity(CHUNK);
    let mut number = 0u64;
    loop {
        buffer.clear();
        let read = input
            .read_until(b'\n', &mut buffer)
            .map_err(|err| ImportError::Read {
                line: usize::try_from(number + 1).unwrap_or(usize::MAX),
                reason: err.to_string(),
            })?;
        if read == 0 {
            break;
        }
        number += 1;
        if number.is_multiple_of(PROGRESS_LINES) {
            progress.add(PROGRESS_LINES, 0);
        }
        if let Some(view) = reader.read(summary, source, number, &buffer)? {
            chunk.push(view);
        }
        if chunk.len() >= CHUNK {
            let full = std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK));
            if chunks.send(full).is_err() {
                // The writer failed; it reports why.
                return Ok(());
            }
        }
    }
    progress.add(number % PROGRESS_LINES, 0);
    if !chunk.is_empty() {
        let _ = chunks.send(chunk);
    }
    Ok(())
}

/// Lines read between two updates of an import's progress.
const PROGRESS_LINES: u64 = 4096;

/// The writer connection for an import's transactions, with foreign-key checks off while
/// it is held. Every page and visitor id a view refers to was read from the database or
/// added to it by the importer, and those rows are never deleted, so the two checks per
/// view only cost time (a sixth of an import, BENCHMARKS.md). They are on again when it is
/// dropped, after the transaction and before anything else can use the connection.
pub(crate) struct ImportConn<'a> {
    conn: MutexGuard<'a, Connection>,
}

impl<'a> ImportConn<'a> {
    pub(crate) fn lock(db: &'a Db) -> Result<Self, StoreError> {
        let conn = db.lock();
        conn.pragma_update(None, "foreign_keys", false)?;
        Ok(Self { conn })
    }
}

impl Deref for ImportConn<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.conn
    }
}

impl DerefMut for ImportConn<'_> {
    fn deref_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }
}

impl Drop for ImportConn<'_> {
    fn drop(&mut self) {
        if let Err(err) = self.conn.pragma_update(None, "foreign_keys", true) {
            tracing::warn!("cannot turn foreign-key checks back on: {err}");
        }
    }
}

#[cfg(test)]
mod tests;
