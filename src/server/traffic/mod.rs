//! Real traffic into the local service: access logs (nginx/Apache combined and common,
//! Caddy JSON) and the hosted service's event stream, classified by user agent as the
//! hosted service does (`rules`), each view stored once (`store`), read whole or followed
//! live across rotation (`follow`).

mod batch;
pub mod follow;
pub mod formats;
mod importer;
pub mod ingest;
pub(crate) mod known;
pub mod page;
pub mod rules;
pub mod search;
pub(crate) mod sink;
pub mod store;
pub mod summary;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek as _};
use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, MutexGuard, mpsc};
use std::time::{Duration, Instant};

use rusqlite::Connection;

pub(crate) use batch::{Item, Ready, Stored, Writer};
pub use importer::{Importer, Settings};
pub use summary::{Counts, Summary};

use super::db::{Db, StoreError};
use super::import::ImportError;
use sink::Sink;

/// Bytes read from a file at a time.
const BUFFER: usize = 256 * 1024;

/// Opens an input: `-` is standard input, a name ending in `.gz` is read as gzip (several
/// members, as `cat a.gz b.gz` makes, are read one after the other). Once `stop` is set
/// (a signal), the input ends at its next read, even one waiting on a pipe or a FIFO, so
/// the import commits what was read and stops at once.
pub fn open(path: &Path, stop: Arc<AtomicBool>) -> io::Result<Opened> {
    let (read, poll): (Box<dyn Read + Send>, Option<Waitable>) = if path.as_os_str() == "-" {
        (Box::new(io::stdin()), Some(Waitable::Stdin))
    } else {
        let file = File::open(path)?;
        if is_gzip(path) {
            let buffered = BufReader::with_capacity(BUFFER, file);
            (Box::new(flate2::read::MultiGzDecoder::new(buffered)), None)
        } else {
            let waitable = match file.metadata() {
                Ok(meta) if !meta.is_file() => Some(Waitable::File(file.try_clone()?)),
                _ => None,
            };
            (Box::new(file), waitable)
        }
    };
    let mut opened = Opened::new(read);
    opened.stop = Some((stop, poll));
    Ok(opened)
}

/// What a read from may wait (a pipe, a FIFO, a terminal): looked at with `poll` first,
/// so that a stop is seen while nothing comes.
enum Waitable {
    Stdin,
    File(File),
}

/// How long a read waits for input before it looks at the stop flag again.
const STOP_CHECK: Duration = Duration::from_millis(100);

/// Whether `path` names a gzip file.
#[must_use]
pub fn is_gzip(path: &Path) -> bool {
    path.extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("gz"))
}

/// The longest line an import reads: a longer one (a garbage stream, `/dev/zero`) is
/// skipped and counted as too long, in constant memory.
pub const MAX_LINE: usize = 64 * 1024;

/// An input to import, buffered, that can say whether what it holds is all read: the
/// next read may then wait (on a pipe, a FIFO), and what was read is committed first.
pub trait Input: BufRead + Send {
    /// Whether the buffer is empty, so the next read goes to the source.
    fn drained(&self) -> bool;
}

impl Input for &[u8] {
    fn drained(&self) -> bool {
        self.is_empty()
    }
}

/// A file, a gzip stream or standard input, opened by [`open`].
pub struct Opened {
    inner: BufReader<Box<dyn Read + Send>>,
    /// The stop flag, and what to wait on before a read that may block.
    stop: Option<(Arc<AtomicBool>, Option<Waitable>)>,
}

impl Opened {
    fn new(inner: Box<dyn Read + Send>) -> Self {
        Self {
            inner: BufReader::with_capacity(BUFFER, inner),
            stop: None,
        }
    }

    /// Whether the input is to end now: the stop flag is set (looked at before each read
    /// of the source, and while a read would wait).
    fn stopped(&self) -> io::Result<bool> {
        let Some((stop, waitable)) = &self.stop else {
            return Ok(false);
        };
        loop {
            if stop.load(Ordering::SeqCst) {
                return Ok(true);
            }
            let Some(waitable) = waitable else {
                return Ok(false);
            };
            if ready(waitable, STOP_CHECK)? {
                return Ok(false);
            }
        }
    }
}

/// Whether `waitable` has input (or its end) within `wait`.
fn ready(waitable: &Waitable, wait: Duration) -> io::Result<bool> {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let stdin = io::stdin();
    let mut fds = [match waitable {
        Waitable::Stdin => PollFd::new(&stdin, PollFlags::IN),
        Waitable::File(file) => PollFd::new(file, PollFlags::IN),
    }];
    let timeout = Timespec {
        tv_sec: 0,
        tv_nsec: i64::from(wait.subsec_nanos()),
    };
    match poll(&mut fds, Some(&timeout)) {
        Ok(ready) => Ok(ready > 0),
        Err(rustix::io::Errno::INTR) => Ok(false),
        Err(err) => Err(err.into()),
    }
}

impl Read for Opened {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.inner.buffer().is_empty() && self.stopped()? {
            return Ok(0);
        }
        self.inner.read(buf)
    }
}

impl BufRead for Opened {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.inner.buffer().is_empty() && self.stopped()? {
            return Ok(&[]);
        }
        self.inner.fill_buf()
    }
    fn consume(&mut self, amount: usize) {
        self.inner.consume(amount);
    }
}

impl Input for Opened {
    fn drained(&self) -> bool {
        self.inner.buffer().is_empty()
    }
}

/// What [`read_line`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Piece {
    /// The end of the input, with nothing read.
    End,
    /// A line, in the buffer given (with its `\n`, if it had one before the end).
    Line,
    /// A line longer than [`MAX_LINE`], skipped: the buffer is empty.
    TooLong,
}

/// Reads the next line into `line` (emptied first), keeping at most [`MAX_LINE`] bytes of
/// it: a longer line is read to its end and dropped, so memory stays bounded whatever the
/// input holds.
pub(crate) fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<Piece> {
    line.clear();
    let (mut any, mut overlong) = (false, false);
    loop {
        let available = input.fill_buf()?;
        if available.is_empty() {
            return Ok(match (overlong, any) {
                (true, _) => Piece::TooLong,
                (false, true) => Piece::Line,
                (false, false) => Piece::End,
            });
        }
        any = true;
        let (take, ended) = match memchr::memchr(b'\n', available) {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        if !overlong {
            if line.len() + take > MAX_LINE {
                overlong = true;
                line.clear();
            } else {
                line.extend_from_slice(&available[..take]);
            }
        }
        input.consume(take);
        if ended {
            return Ok(if overlong {
                Piece::TooLong
            } else {
                Piece::Line
            });
        }
    }
}

/// Lines a reading thread hands over at a time.
const CHUNK: usize = 1024;
/// Chunks read ahead of the writer at most: memory stays bounded whatever the file.
const AHEAD: usize = 8;
/// The longest a transaction of an import stays open: the service (and anything else
/// writing) waits at most this long for the database, never for the import's input.
const COMMIT_EVERY: Duration = Duration::from_secs(1);

/// Reads a whole input and returns what it did.
///
/// Without `--strict`, views are committed at least once a second and whenever the input
/// pauses (a pipe, a FIFO), so the database is never held while the import waits for
/// input, and what was read is kept if the import is stopped. With `--strict` a broken
/// line ends it and nothing of the input is kept: the input is first copied whole into a
/// file of its own, and then written in one transaction that never waits for input.
///
/// Lines are read, parsed and classified on a thread of their own while this one writes to
/// the database: the two halves take about the same time, so on two cores the import
/// takes about half as long.
pub(crate) fn import_all(
    sink: &mut Sink,
    lines: &mut ingest::Lines,
    mut input: impl Input,
) -> Result<Summary, ImportError> {
    if !lines.reader.strict() {
        return write_all(sink, lines, input, false);
    }
    let mut spool = tempfile::tempfile().map_err(|err| spool_error(&err))?;
    io::copy(&mut input, &mut spool).map_err(|err| spool_error(&err))?;
    spool
        .seek(io::SeekFrom::Start(0))
        .map_err(|err| spool_error(&err))?;
    write_all(sink, lines, Opened::new(Box::new(spool)), true)
}

fn spool_error(err: &io::Error) -> ImportError {
    ImportError::Read {
        line: 0,
        reason: format!("cannot keep the input aside for --strict: {err}"),
    }
}

/// [`import_all`]'s writing: one transaction (`once`), or one a batch of what was read.
fn write_all(
    sink: &mut Sink,
    lines: &mut ingest::Lines,
    input: impl Input,
    once: bool,
) -> Result<Summary, ImportError> {
    let ingest::Lines {
        reader,
        summary,
        source,
        progress,
    } = lines;
    let progress = &**progress;
    let source = source.as_deref();
    let read_into = &mut *summary;
    let finished = AtomicBool::new(false);
    let written = std::thread::scope(|scope| {
        let (chunks, received) = mpsc::sync_channel::<Vec<Item>>(AHEAD);
        let reading = {
            let finished = &finished;
            // The sender moves to the reader: when it ends, the writer's loop ends.
            scope.spawn(move || {
                let read = read_all(reader, read_into, source, input, &chunks, progress);
                finished.store(read.is_ok(), Ordering::SeqCst);
                read
            })
        };
        let mut written = Summary::default();
        let outcome = write_chunks(sink, &received, &mut written, progress, once, &finished);
        // A writer that stopped drops its end, so the reader stops at its next chunk.
        drop(received);
        let read = reading
            .join()
            .unwrap_or_else(|_| Err(StoreError::Task("the reading thread panicked".into()).into()));
        // The reader's error (a broken line with --strict) explains a writer that stopped.
        read?;
        outcome?;
        Ok::<_, ImportError>(written)
    })?;
    summary.add(&written);
    Ok(std::mem::take(summary))
}

/// Writes the chunks as they come, each transaction taken only once a chunk is there and
/// committed when no more is waiting, after [`COMMIT_EVERY`], or (`once`) at the end.
fn write_chunks(
    sink: &mut Sink,
    received: &mpsc::Receiver<Vec<Item>>,
    written: &mut Summary,
    progress: &ingest::Progress,
    once: bool,
    finished: &AtomicBool,
) -> Result<(), ImportError> {
    while let Ok(first) = received.recv() {
        let before = written.kept();
        let mut tx = sink.begin()?;
        let started = Instant::now();
        let mut next = Some(first);
        while let Some(chunk) = next {
            let kept = written.kept();
            for item in chunk {
                tx.take(item)?.count(written);
            }
            progress.add(0, written.kept() - kept);
            next = if once {
                received.recv().ok()
            } else if started.elapsed() < COMMIT_EVERY {
                received.try_recv().ok()
            } else {
                None
            };
        }
        if once && !finished.load(Ordering::SeqCst) {
            // The reader stopped on a broken line: nothing of the input is kept (its
            // error is the one reported).
            return Ok(());
        }
        // The writer holds back a batch until it is flushed: those views are kept too.
        let flushed = written.kept();
        tx.flush()?.count(written);
        progress.add(0, written.kept() - flushed);
        tx.commit()?;
        progress.commit(written.kept() - before);
    }
    Ok(())
}

/// The reading half of [`import_all`]: lines into views, handed over a chunk at a time,
/// and what was read handed over before a read that may wait.
fn read_all(
    reader: &mut ingest::Reader,
    summary: &mut Summary,
    source: Option<&str>,
    mut input: impl Input,
    chunks: &mpsc::SyncSender<Vec<Item>>,
    progress: &ingest::Progress,
) -> Result<(), ImportError> {
    let mut buffer = Vec::with_capacity(1024);
    let mut chunk = Vec::with_capacity(CHUNK);
    let mut number = 0u64;
    // Lines already added to `progress`.
    let mut counted = 0u64;
    loop {
        if input.drained() {
            // A read that may wait comes next: the progress line says what was read.
            progress.add(number - counted, 0);
            counted = number;
        }
        if input.drained() && !chunk.is_empty() {
            let some = std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK));
            if chunks.send(some).is_err() {
                return Ok(());
            }
        }
        let piece = read_line(&mut input, &mut buffer).map_err(|err| ImportError::Read {
            line: usize::try_from(number + 1).unwrap_or(usize::MAX),
            reason: err.to_string(),
        })?;
        if piece == Piece::End {
            break;
        }
        number += 1;
        if number - counted >= PROGRESS_LINES {
            progress.add(number - counted, 0);
            counted = number;
        }
        if piece == Piece::TooLong {
            summary.too_long();
            continue;
        }
        if let Some(item) = reader.read(summary, source, number, &buffer)? {
            chunk.push(item);
        }
        if chunk.len() >= CHUNK {
            let full = std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK));
            if chunks.send(full).is_err() {
                // The writer failed; it reports why.
                return Ok(());
            }
        }
    }
    progress.add(number - counted, 0);
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
