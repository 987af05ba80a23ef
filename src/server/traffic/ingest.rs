//! One import: each line of a log becomes a stored view, a line not counted (with why), or
//! a broken line; views are classified by the rules, given a visitor, and keyed so that
//! the same view is stored once.

use std::collections::HashMap;
use std::sync::Arc;

use rusqlite::{Connection, Transaction};

use super::formats::{self, Clock, Line, LogFormat, Record};
use super::page::{self, PageView};
use super::rules::{Class, Rules};
use super::store;
use super::summary::{Dropped, Summary};
use crate::server::analytics::{Traffic, ViewEvent, ViewWriter};
use crate::server::db::StoreError;
use crate::server::import::ImportError;

/// Entries a cache holds before it is emptied (memory stays bounded on any log).
const CACHE_LIMIT: usize = 50_000;

/// Reads lines of one format into one project, inside the caller's transactions.
pub struct Importer {
    project: String,
    format: LogFormat,
    rules: Arc<Rules>,
    strict: bool,
    secret: [u8; 32],
    writer: ViewWriter,
    clock: Clock,
    classes: HashMap<String, Class>,
    visitors: HashMap<(String, String), String>,
    /// Counts since the importer was made or last taken.
    pub summary: Summary,
    /// The file being read, where broken lines must name it (`--follow` across files).
    pub source: Option<String>,
}

/// What a record counts as, before storing.
enum Verdict {
    View(ViewEvent, Option<String>),
    Dropped(Dropped),
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
        Ok(Self {
            project: project.to_owned(),
            format,
            rules,
            strict,
            secret: store::visitor_secret(conn, project)?,
            writer: ViewWriter::new(project),
            clock: Clock::default(),
            classes: HashMap::new(),
            visitors: HashMap::new(),
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
        let text = String::from_utf8_lossy(bytes);
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
        match self.judge(record) {
            Verdict::Dropped(why) => self.summary.drop_line(why),
            Verdict::View(event, event_id) => self.store(tx, &event, event_id.as_deref())?,
        }
        Ok(())
    }

    fn store(
        &mut self,
        tx: &Transaction<'_>,
        event: &ViewEvent,
        event_id: Option<&str>,
    ) -> Result<(), StoreError> {
        let key = store::view_key(
            &self.project,
            event_id,
            event.ts_ms,
            &event.visitor,
            &event.path,
        );
        if !store::claim_key(tx, &key)? {
            self.summary.drop_line(Dropped::AlreadyStored);
            return Ok(());
        }
        self.writer.write(tx, event)?;
        match event.traffic {
            Traffic::Human => self.summary.human += 1,
            Traffic::Ai => self.summary.ai += 1,
        }
        Ok(())
    }

    /// Whether the record is a view, and of which class, by the rules of the issue.
    fn judge(&mut self, record: Record) -> Verdict {
        if let Err(why) = page::check_request(&record.method, record.status) {
            return Verdict::Dropped(Dropped::NotAView(why));
        }
        let PageView { path, mut markdown } = match page::page_of(&record.target) {
            Ok(view) => view,
            Err(why) => return Verdict::Dropped(Dropped::NotAView(why)),
        };
        markdown |= record
            .accept
            .as_deref()
            .is_some_and(formats::prefers_markdown);
        // No user agent recorded at all (common log): a person's browser.
        let class = record
            .user_agent
            .as_deref()
            .map_or(Class::Human, |agent| self.class_of(agent));
        let traffic = match traffic_of(class, markdown) {
            Ok(traffic) => traffic,
            Err(why) => return Verdict::Dropped(why),
        };
        let visitor = match record.anon_id {
            Some(anon) => anon,
            None => self.visitor_of(
                record.ip.unwrap_or_default(),
                record.user_agent.unwrap_or_default(),
            ),
        };
        Verdict::View(
            ViewEvent {
                ts_ms: record.ts_ms,
                path,
                visitor,
                traffic,
            },
            record.event_id,
        )
    }

    fn class_of(&mut self, agent: &str) -> Class {
        if let Some(class) = self.classes.get(agent) {
            return *class;
        }
        if self.classes.len() >= CACHE_LIMIT {
            self.classes.clear();
        }
        let class = self.rules.classify(agent).class;
        self.classes.insert(agent.to_owned(), class);
        class
    }

    fn visitor_of(&mut self, ip: String, agent: String) -> String {
        let key = (ip, agent);
        if let Some(visitor) = self.visitors.get(&key) {
            return visitor.clone();
        }
        if self.visitors.len() >= CACHE_LIMIT {
            self.visitors.clear();
        }
        let visitor = store::hashed_visitor(&self.secret, &key.0, &key.1);
        self.visitors.insert(key, visitor.clone());
        visitor
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
