//! One import: each line of a log becomes a stored view, a line not counted (with why), or
//! a broken line; views are classified by the rules, given a visitor, and keyed so that
//! the same view is stored once.

use std::borrow::Cow;
use std::sync::Arc;

use super::batch::{Item, Keyed, Ready};
use super::formats::stream::{Signal, Streamed};
use super::formats::{self, Clock, Line, LogFormat, Record};
use super::known::{Agents, Clients, NO_AGENT, Targets, Visitor};
use super::rules::{Class, Rules};
use super::search::{Search, SearchUrl, StreamClick};
use super::sink::Tx;
use super::store;
use super::summary::{Dropped, Summary};
use crate::server::import::ImportError;
use crate::server::signals::normal_query;
use crate::server::views::Traffic;

/// The reading side of one import: the reader, its counts, the file being read (for
/// broken lines' places) and the progress. Views it reads go to a [`Tx`].
pub struct Lines {
    pub reader: Reader,
    /// Counts since the importer was made or last taken.
    pub summary: Summary,
    /// The file being read, where broken lines must name it (`--follow` across files).
    pub source: Option<String>,
    /// Lines read and views kept so far, for a progress line on another thread.
    pub progress: Arc<Progress>,
}

/// How far an import has come, updated as it goes (a chunk or a commit at a time).
#[derive(Debug, Default)]
pub struct Progress {
    pub lines: std::sync::atomic::AtomicU64,
    pub views: std::sync::atomic::AtomicU64,
    /// Views committed: what stays whatever happens next (a full disk, a signal).
    pub committed: std::sync::atomic::AtomicU64,
}

impl Progress {
    /// Lines read and views kept so far.
    #[must_use]
    pub fn read(&self) -> (u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (self.lines.load(Relaxed), self.views.load(Relaxed))
    }

    /// Views committed so far.
    #[must_use]
    pub fn committed(&self) -> u64 {
        self.committed.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub(crate) fn commit(&self, views: u64) {
        self.committed
            .fetch_add(views, std::sync::atomic::Ordering::Relaxed);
    }

    pub(crate) fn add(&self, lines: u64, views: u64) {
        use std::sync::atomic::Ordering::Relaxed;
        self.lines.fetch_add(lines, Relaxed);
        self.views.fetch_add(views, Relaxed);
    }
}

/// Turns lines into views ready to write: parsed, judged, classified, given a visitor and
/// a key.
pub struct Reader {
    project: String,
    format: LogFormat,
    rules: Arc<Rules>,
    strict: bool,
    clock: Clock,
    agents: Agents,
    targets: Targets,
    clients: Clients,
    /// The site's search page; `None` counts its requests as page views.
    search: Option<SearchUrl>,
}

impl Lines {
    /// Lines of `format` for `project`, whose visitors are hashed with `secret`.
    pub fn new(
        project: &str,
        format: LogFormat,
        rules: Arc<Rules>,
        strict: bool,
        secret: [u8; 32],
    ) -> Self {
        Self {
            reader: Reader {
                project: project.to_owned(),
                format,
                rules,
                strict,
                clock: Clock::default(),
                agents: Agents::new(),
                targets: Targets::new(),
                clients: Clients::new(secret),
                search: Some(SearchUrl::default()),
            },
            summary: Summary::default(),
            source: None,
            progress: Arc::default(),
        }
    }

    /// Reads line `number` into `tx`. A broken line is counted, or with `--strict` ends
    /// the file.
    pub(crate) fn line(
        &mut self,
        tx: &mut Tx<'_>,
        number: u64,
        bytes: &[u8],
    ) -> Result<(), ImportError> {
        let source = self.source.as_deref();
        if let Some(item) = self.reader.read(&mut self.summary, source, number, bytes)? {
            tx.take(item)?.count(&mut self.summary);
        }
        Ok(())
    }
}

impl Reader {
    /// Whether a broken line fails the whole input (`--strict`).
    #[must_use]
    pub fn strict(&self) -> bool {
        self.strict
    }

    /// Where the site's search page is (`None`: its requests are page views like any).
    pub fn set_search(&mut self, search: Option<SearchUrl>) {
        self.search = search;
    }

    /// Reads line `number` of `source`, counting it in `summary`: the view or search it
    /// records, if any. A broken line is counted, or with `--strict` ends the file.
    pub fn read(
        &mut self,
        summary: &mut Summary,
        source: Option<&str>,
        number: u64,
        bytes: &[u8],
    ) -> Result<Option<Item>, ImportError> {
        // An event stream says its searches as events, never as a search page's requests.
        if summary.search_page.is_none() && self.format != LogFormat::Mintlify {
            summary.search_page = self.search.as_ref().map(SearchUrl::text);
        }
        let text = match std::str::from_utf8(bytes) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(bytes),
        };
        let text = text.trim_end_matches(['\n', '\r']);
        if text.trim().is_empty() {
            return Ok(None);
        }
        summary.lines += 1;
        let record = match formats::parse(self.format, text, &mut self.clock) {
            Ok(Line::Request(record)) => record,
            Ok(Line::Event(name)) => {
                summary.event(name);
                return Ok(None);
            }
            Ok(Line::Signal(streamed)) => return Ok(self.said(summary, *streamed)),
            Ok(Line::Other) => {
                summary.drop_line(Dropped::NotRequest);
                return Ok(None);
            }
            Err(reason) if self.strict => {
                return Err(ImportError::Line {
                    line: usize::try_from(number).unwrap_or(usize::MAX),
                    reason,
                });
            }
            Err(reason) => {
                let place = || match source {
                    Some(file) => format!("{file} line {number}"),
                    None => format!("line {number}"),
                };
                summary.broken_line(place, reason);
                return Ok(None);
            }
        };
        match self.judge(&record) {
            Ok((item, None)) => Ok(Some(item)),
            // A page view counted in neither column still goes to the writer: an import
            // under other rules may have counted it, and then it is taken back.
            Ok((item, Some(why))) => {
                summary.drop_line(why);
                Ok(Some(item))
            }
            Err(why) => {
                summary.drop_line(why);
                Ok(None)
            }
        }
    }

    /// The record's view (or search), with why it counts in neither column if it does
    /// not, or why it is not a page view at all.
    fn judge(&mut self, record: &Record<'_>) -> Result<(Item, Option<Dropped>), Dropped> {
        super::page::check_request(&record.method, record.status).map_err(Dropped::NotAView)?;
        if self
            .search
            .as_ref()
            .is_some_and(|s| s.searched_nothing(&record.target))
        {
            return Err(Dropped::EmptySearch);
        }
        if let Some(words) = self
            .search
            .as_ref()
            .and_then(|s| s.query_of(&record.target))
        {
            return self.judge_search(record, words);
        }
        let page = self
            .targets
            .get(&record.target)
            .map_err(Dropped::NotAView)?
            .clone();
        let markdown = page.markdown
            || record
                .accept
                .as_deref()
                .is_some_and(formats::prefers_markdown);
        let (class, visitor) = self.who(record);
        let traffic = traffic_of(class, markdown);
        let key = store::view_key(
            &self.project,
            record.event_id.as_deref(),
            record.ts_ms,
            visitor.name().as_str(),
            &page.path,
        );
        let from_search = match (&self.search, record.referer.as_deref()) {
            (Some(search), Some(referer)) => search.referred(referer).map(String::into_boxed_str),
            _ => None,
        };
        let ready = Ready {
            key,
            ts_ms: record.ts_ms,
            path: page.path,
            visitor,
            traffic: traffic.ok(),
            from_search,
        };
        Ok((Item::View(ready), traffic.err()))
    }

    /// Who made the request: the class of its user agent and the visitor.
    fn who(&mut self, record: &Record<'_>) -> (Class, Visitor) {
        // No user agent recorded at all (common log): a person's browser.
        let (agent, class) = match record.user_agent.as_deref() {
            None => (NO_AGENT, Class::Human),
            Some(text) => {
                let (index, class, emptied) = self.agents.get(&self.rules, text);
                if emptied {
                    self.clients.forget();
                }
                (index, class)
            }
        };
        let visitor = match record.anon_id.as_deref() {
            Some(anon) => Visitor::Given(anon.into()),
            None => Visitor::Hashed(self.clients.visitor(
                record.ip.as_deref().unwrap_or_default(),
                (agent, record.user_agent.as_deref().unwrap_or_default()),
            )),
        };
        (class, visitor)
    }

    /// A request of the site's search page: a search when a person's browser made it
    /// (a robot's is counted as its page views are, and stored nowhere).
    fn judge_search(
        &mut self,
        record: &Record<'_>,
        words: String,
    ) -> Result<(Item, Option<Dropped>), Dropped> {
        let (class, visitor) = self.who(record);
        match traffic_of(class, false)? {
            Traffic::Human => {}
            Traffic::Ai => return Err(Dropped::AgentSearch),
        }
        let name = visitor.name();
        let key = store::view_key(
            &self.project,
            record.event_id.as_deref(),
            record.ts_ms,
            name.as_str(),
            &format!("search\0{words}"),
        );
        let search = Search {
            key,
            ts_ms: record.ts_ms,
            query: words,
            visitor: name.as_str().to_owned(),
        };
        Ok((Item::Search(search), None))
    }
}

impl Reader {
    /// What a stream's search, result click, feedback or answer gives to write, keyed by
    /// the event's id (or its time, visitor and content where it has none).
    fn said(&mut self, summary: &mut Summary, streamed: Streamed) -> Option<Item> {
        let Streamed { record, signal } = streamed;
        let key = |reader: &mut Self, what: &str| {
            let (_, visitor) = reader.who(&record);
            store::view_key(
                &reader.project,
                record.event_id.as_deref(),
                record.ts_ms,
                visitor.name().as_str(),
                what,
            )
        };
        match signal {
            Signal::Search { query } => {
                let words = normal_query(&query);
                if words.is_empty() {
                    summary.drop_line(Dropped::EmptySearch);
                    return None;
                }
                match self.judge_search(&record, words) {
                    Ok((item, _)) => Some(item),
                    Err(why) => {
                        summary.drop_line(why);
                        None
                    }
                }
            }
            Signal::Click { query, page } => {
                let (_, visitor) = self.who(&record);
                Some(Item::Click(StreamClick {
                    visitor: visitor.name().as_str().to_owned(),
                    ts_ms: record.ts_ms,
                    words: normal_query(&query),
                    page: super::page::page_of(&page).map_or(page, |view| view.path),
                }))
            }
            Signal::Feedback(said) => {
                let what = format!("feedback\0{}\0{:?}", said.path, said.comment);
                let key = key(self, &what);
                Some(Item::Feedback(Box::new(Keyed { key, said })))
            }
            Signal::Conversation {
                conversation,
                status_said,
            } => {
                let key = key(self, &format!("assistant\0{}", conversation.query));
                Some(Item::Conversation {
                    keyed: Box::new(Keyed {
                        key,
                        said: conversation,
                    }),
                    status_said,
                })
            }
            Signal::Unread { event, missing } => {
                summary.unread(event, missing);
                None
            }
        }
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
