//! One import: each line of a log becomes a stored view, a line not counted (with why), or
//! a broken line; views are classified by the rules, given a visitor, and keyed so that
//! the same view is stored once.

use std::borrow::Cow;
use std::sync::Arc;

use rusqlite::{Connection, Transaction};

use super::batch::{Batch, Pending};
use super::formats::{self, Clock, Line, LogFormat, Record};
use super::known::{Agents, NO_AGENT, Targets, Visitors};
use super::rules::{Class, Rules};
use super::store;
use super::summary::{Dropped, Summary};
use crate::server::analytics::Traffic;
use crate::server::db::StoreError;
use crate::server::import::ImportError;

/// SQLite's page cache while importing, in KiB.
const IMPORT_CACHE_KIB: i64 = 32 * 1024;

/// Reads lines of one format into one project, inside the caller's transactions. Views are
/// written in batches: call [`Importer::flush`] before committing (the summary counts a
/// view once it is written).
pub struct Importer {
    project: String,
    format: LogFormat,
    rules: Arc<Rules>,
    strict: bool,
    clock: Clock,
    agents: Agents,
    targets: Targets,
    visitors: Visitors,
    batch: Batch,
    /// Counts since the importer was made or last taken.
    pub summary: Summary,
    /// The file being read, where broken lines must name it (`--follow` across files).
    pub source: Option<String>,
}

impl Importer {
    /// An importer for `project`, making the project's visitor secret if it has none.
    pub fn new(
        conn: &Connection,
        project: &str,
        format: LogFormat,
        rules: Arc<Rules>,
        strict: bool,
    ) -> Result<Self, StoreError> {
        // The indexes an import writes to at random places (visitors, view keys) outgrow
        // SQLite's default 2 MiB page cache within a few hundred thousand views, and every
        // miss is a read from the WAL. The cache only grows as far as it is used.
        conn.pragma_update(None, "cache_size", -IMPORT_CACHE_KIB)?;
        Ok(Self {
            project: project.to_owned(),
            format,
            rules,
            strict,
            clock: Clock::default(),
            agents: Agents::new(),
            targets: Targets::new(),
            visitors: Visitors::new(store::visitor_secret(conn, project)?),
            batch: Batch::new(project),
            summary: Summary::default(),
            source: None,
        })
    }

    /// Reads line `number`. A broken line is counted, or with `--strict` ends the file.
    pub fn line(
        &mut self,
        tx: &Transaction<'_>,
        number: u64,
        bytes: &[u8],
    ) -> Result<(), ImportError> {
        let text = match std::str::from_utf8(bytes) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(bytes),
        };
        let text = text.trim_end_matches(['\n', '\r']);
        if text.trim().is_empty() {
            return Ok(());
        }
        self.summary.lines += 1;
        let record = match formats::parse(self.format, text, &mut self.clock) {
            Ok(Line::Request(record)) => record,
            Ok(Line::Other) => {
                self.summary.drop_line(Dropped::NotRequest);
                return Ok(());
            }
            Err(reason) if self.strict => {
                return Err(ImportError::Line {
                    line: usize::try_from(number).unwrap_or(usize::MAX),
                    reason,
                });
            }
            Err(reason) => {
                let source = self.source.as_deref();
                let place = || match source {
                    Some(file) => format!("{file} line {number}"),
                    None => format!("line {number}"),
                };
                self.summary.broken_line(place, reason);
                return Ok(());
            }
        };
        if let Err(why) = self.take(tx, &record)? {
            self.summary.drop_line(why);
        }
        Ok(())
    }

    /// Writes the views still waiting. Call it before committing.
    pub fn flush(&mut self, tx: &Transaction<'_>) -> Result<(), StoreError> {
        let stored = self.batch.flush(tx)?;
        self.summary.human += stored.human;
        self.summary.ai += stored.ai;
        if stored.repeats > 0 {
            *self
                .summary
                .dropped
                .entry(Dropped::AlreadyStored)
                .or_default() += stored.repeats;
        }
        Ok(())
    }

    /// Queues the record's view, or says why it counts as none, by the rules of the issue.
    fn take(
        &mut self,
        tx: &Transaction<'_>,
        record: &Record<'_>,
    ) -> Result<Result<(), Dropped>, StoreError> {
        if let Err(why) = super::page::check_request(&record.method, record.status) {
            return Ok(Err(Dropped::NotAView(why)));
        }
        let page = match self.targets.get(&record.target) {
            Ok(page) => page,
            Err(why) => return Ok(Err(Dropped::NotAView(why))),
        };
        let markdown = page.markdown
            || record
                .accept
                .as_deref()
                .is_some_and(formats::prefers_markdown);
        // No user agent recorded at all (common log): a person's browser.
        let (agent, class) = match record.user_agent.as_deref() {
            None => (NO_AGENT, Class::Human),
            Some(text) => {
                let (index, class, emptied) = self.agents.get(&self.rules, text);
                if emptied {
                    self.visitors.forget_clients();
                }
                (index, class)
            }
        };
        let traffic = match traffic_of(class, markdown) {
            Ok(traffic) => traffic,
            Err(why) => return Ok(Err(why)),
        };
        let page_id = page.id(tx, &self.project)?;
        let visitor = match record.anon_id.as_deref() {
            Some(anon) => self.visitors.given(tx, &self.project, anon)?,
            None => self.visitors.client(
                tx,
                &self.project,
                record.ip.as_deref().unwrap_or_default(),
                (agent, record.user_agent.as_deref().unwrap_or_default()),
            )?,
        };
        let key = store::view_key(
            &self.project,
            record.event_id.as_deref(),
            record.ts_ms,
            visitor.name.as_str(),
            &page.path,
        );
        let full = self.batch.push(Pending {
            key,
            ts_ms: record.ts_ms,
            page: page_id,
            visitor: visitor.id,
            traffic,
        });
        if full {
            self.flush(tx)?;
        }
        Ok(Ok(()))
    }
}

/// The column a view of this class counts in (Markdown or not), or why it counts in none.
pub fn traffic_of(class: Class, markdown: bool) -> Result<Traffic, Dropped> {
    match (class, markdown) {
        (Class::AiAnswer, _) | (Class::Human | Class::NotBrowser, true) => Ok(Traffic::Ai),
        (Class::Human, false) => Ok(Traffic::Human),
        (Class::NotBrowser, false) => Err(Dropped::NotBrowserPage),
        (Class::Search | Class::Training | Class::OtherBot, _) => Err(Dropped::Crawler(class)),
    }
}
