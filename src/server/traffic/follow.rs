//! `import --follow`: reads files as they grow, like `tail -F`. A file renamed away
//! (rotation) is read to its end and the new file at the path is followed from its start;
//! a file that shrinks (truncation) is read again from its start. Views and the position
//! of each file (by device and inode) are committed together, at least once a second, so
//! a restart resumes where the last commit stopped and counts nothing twice.

use std::fs::{self, File, Metadata};
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::Summary;
use super::ingest::Lines;
use super::sink::{Sink, Tx};
use super::store::{FileId, Position};
use crate::server::import::ImportError;

/// How long to wait before looking again when nothing is new.
const POLL: Duration = Duration::from_millis(100);
/// Longest time read lines stay uncommitted.
const COMMIT_EVERY: Duration = Duration::from_millis(500);
/// Time between two commits of a follower that caught up: a busy log is read in bursts
/// of this much, not every poll. Each commit writes the same last pages of the indexes
/// again, so ten commits a second cost twice the CPU of two (BENCHMARKS.md).
const COMMIT_GAP: Duration = Duration::from_millis(500);
/// Bytes read from a file at a time.
const BUFFER: usize = 256 * 1024;

/// One followed path and the file open at it.
struct Tail {
    path: PathBuf,
    open: Option<Open>,
    /// Whether "waiting for it to appear" was said (once per absence).
    said_missing: bool,
}

struct Open {
    reader: BufReader<File>,
    id: FileId,
    at: Position,
    /// The start of a line whose end has not been written yet.
    partial: Vec<u8>,
    /// Whether that line is already longer than the longest read (its bytes are dropped).
    overlong: bool,
    /// Bytes read of that line: `at` moves past them once it ends, so a restart reads the
    /// whole line again.
    pending: u64,
}

/// Follows `paths` into `importer` until `stop` is set; then commits and returns the counts.
/// `note` is told of files appearing, rotating and shrinking.
pub(crate) fn follow(
    sink: &mut Sink,
    importer: &mut Lines,
    project: &str,
    paths: &[PathBuf],
    stop: &AtomicBool,
    note: &mut dyn FnMut(String),
) -> Result<Summary, ImportError> {
    let mut tails: Vec<Tail> = paths
        .iter()
        .map(|path| Tail {
            path: path.clone(),
            open: None,
            said_missing: false,
        })
        .collect();
    loop {
        let stopping = stop.load(Ordering::SeqCst);
        if !stopping && !tails.iter().any(Tail::has_news) {
            std::thread::sleep(POLL);
            continue;
        }
        let mut tx = sink.begin()?;
        let before = (importer.summary.lines, importer.summary.kept());
        let deadline = Instant::now() + COMMIT_EVERY;
        let mut busy = false;
        for tail in &mut tails {
            busy |= tail.step(&mut tx, importer, project, deadline, note)?;
        }
        tx.flush()?.count(&mut importer.summary);
        tx.commit()?;
        let kept = importer.summary.kept().saturating_sub(before.1);
        importer
            .progress
            .add(importer.summary.lines.saturating_sub(before.0), kept);
        importer.progress.commit(kept);
        if stopping {
            return Ok(std::mem::take(&mut importer.summary));
        }
        if !busy {
            // Caught up: let lines gather, looking at `stop` as often as when idle.
            let resume = Instant::now() + COMMIT_GAP;
            while !stop.load(Ordering::SeqCst) && Instant::now() < resume {
                std::thread::sleep(POLL.min(resume.saturating_duration_since(Instant::now())));
            }
        }
    }
}

impl Tail {
    /// Whether anything changed since the last read: the file grew or shrank, or the path
    /// now names another file (or, for a file not open yet, exists).
    fn has_news(&self) -> bool {
        let at_path = fs::metadata(&self.path).ok();
        let Some(open) = &self.open else {
            return at_path.is_some() || !self.said_missing;
        };
        let consumed = open.at.offset + open.pending;
        let len = open
            .reader
            .get_ref()
            .metadata()
            .map_or(consumed, |meta| meta.len());
        len != consumed || at_path.is_some_and(|meta| file_id(&meta) != open.id)
    }

    /// Reads what is new until `deadline`; true when it stopped before the end.
    fn step(
        &mut self,
        tx: &mut Tx<'_>,
        importer: &mut Lines,
        project: &str,
        deadline: Instant,
        note: &mut dyn FnMut(String),
    ) -> Result<bool, ImportError> {
        if self.open.is_none() {
            self.open = self.reopen(tx, project, note)?;
            if self.open.is_none() && !self.said_missing {
                note(format!(
                    "{}: not there yet; waiting for it to appear",
                    self.path.display()
                ));
            }
            self.said_missing = self.open.is_none();
        }
        let Some(open) = self.open.as_mut() else {
            return Ok(false);
        };
        let path = self.path.display().to_string();
        if open
            .reader
            .get_ref()
            .metadata()
            .map(|meta| meta.len())
            .unwrap_or(0)
            < open.at.offset
        {
            note(format!(
                "{path} was truncated: reading it again from the start"
            ));
            open.rewind().map_err(|err| read_error(open.at, &err))?;
        }
        importer.source = Some(path.clone());
        let more = open.read(tx, importer, deadline)?;
        tx.save_position(project, open.id, &path, open.at)?;
        if more {
            return Ok(true);
        }
        // At the end: has the path moved on to another file (rotation)?
        let now = fs::metadata(&self.path).ok().map(|meta| file_id(&meta));
        if now.is_some_and(|id| id != open.id) {
            // What is left of the old file's last line was cut at rotation.
            if open.overlong {
                open.at.line += 1;
                importer.summary.too_long();
            } else if !open.partial.is_empty() {
                let line = std::mem::take(&mut open.partial);
                open.at.line += 1;
                importer.line(tx, open.at.line, &line)?;
            }
            note(format!("{path} was rotated: following the new file"));
            self.open = None;
            return Ok(true);
        }
        Ok(false)
    }

    /// Opens the file now at the path, at the position stored for it (its start if none).
    fn reopen(
        &self,
        tx: &mut Tx<'_>,
        project: &str,
        note: &mut dyn FnMut(String),
    ) -> Result<Option<Open>, ImportError> {
        let Ok(file) = File::open(&self.path) else {
            return Ok(None);
        };
        let meta = file
            .metadata()
            .map_err(|err| read_error(Position::default(), &err))?;
        let id = file_id(&meta);
        let mut at = tx.position(project, id)?.unwrap_or_default();
        if at.offset > meta.len() {
            at = Position::default();
        }
        if at.offset > 0 {
            note(format!(
                "{}: resuming after line {}",
                self.path.display(),
                at.line
            ));
        }
        let mut reader = BufReader::with_capacity(BUFFER, file);
        reader
            .seek(SeekFrom::Start(at.offset))
            .map_err(|err| read_error(at, &err))?;
        Ok(Some(Open {
            reader,
            id,
            at,
            partial: Vec::new(),
            overlong: false,
            pending: 0,
        }))
    }
}

impl Open {
    /// Reads whole lines until the end of the file or `deadline`; true if it stopped early.
    fn read(
        &mut self,
        tx: &mut Tx<'_>,
        importer: &mut Lines,
        deadline: Instant,
    ) -> Result<bool, ImportError> {
        let mut count = 0u32;
        loop {
            let Some(ended) = self.next_line().map_err(|err| read_error(self.at, &err))? else {
                return Ok(false);
            };
            self.at.line += 1;
            if ended {
                let line = std::mem::take(&mut self.partial);
                importer.line(tx, self.at.line, &line)?;
                self.partial = line;
            } else {
                importer.summary.too_long();
            }
            self.partial.clear();
            count += 1;
            if count.is_multiple_of(1024) && Instant::now() >= deadline {
                return Ok(true);
            }
        }
    }

    /// Reads on to the end of the current line: `Some(true)` when it ended within
    /// [`super::MAX_LINE`] (in `partial`), `Some(false)` when it ended longer (dropped as it
    /// was read, so a file with no line end cannot fill memory), `None` at the end of what
    /// is written so far (what was read of the line waits for the rest). The position
    /// moves past a line once it ends, kept or dropped.
    fn next_line(&mut self) -> std::io::Result<Option<bool>> {
        loop {
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                return Ok(None);
            }
            let (take, ended) = match memchr::memchr(b'\n', available) {
                Some(at) => (at + 1, true),
                None => (available.len(), false),
            };
            if !self.overlong {
                if self.partial.len() + take > super::MAX_LINE {
                    self.overlong = true;
                    self.partial.clear();
                } else {
                    self.partial.extend_from_slice(&available[..take]);
                }
            }
            self.reader.consume(take);
            self.pending += take as u64;
            if ended {
                self.at.offset += std::mem::take(&mut self.pending);
                let whole = !self.overlong;
                self.overlong = false;
                return Ok(Some(whole));
            }
        }
    }

    fn rewind(&mut self) -> std::io::Result<()> {
        self.reader.seek(SeekFrom::Start(0))?;
        self.at = Position::default();
        self.partial.clear();
        self.overlong = false;
        self.pending = 0;
        Ok(())
    }
}

fn read_error(at: Position, err: &std::io::Error) -> ImportError {
    ImportError::Read {
        line: usize::try_from(at.line + 1).unwrap_or(usize::MAX),
        reason: err.to_string(),
    }
}

#[cfg(unix)]
fn file_id(meta: &Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt as _;
    FileId {
        device: meta.dev(),
        inode: meta.ino(),
    }
}

#[cfg(not(unix))]
fn file_id(_meta: &Metadata) -> FileId {
    FileId {
        device: 0,
        inode: 0,
    }
}

/// Whether `path` can be followed (standard input and gzip files cannot grow in place).
#[must_use]
pub fn followable(path: &Path) -> bool {
    // A pipe or FIFO does not grow as a file does: reading it waits inside the follower's
    // transaction. (A file that does not exist yet is followed once it appears.)
    let special = fs::metadata(path).is_ok_and(|meta| !meta.is_file());
    path.as_os_str() != "-" && !super::is_gzip(path) && !special
}
