//! What an import did, line by line, told at the end: lines read, views kept by class,
//! what was not a view and why, and the broken lines.

use std::collections::BTreeMap;
use std::fmt;

use super::page::NotAView;
use super::rules::Class;

/// How many broken lines are named by number.
const NAMED_BROKEN: usize = 5;

/// How many names of other events are counted apart.
const NAMED_EVENTS: usize = 12;

/// Why a well-formed line added no view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dropped {
    /// The line records no request (another event type, a server message).
    NotRequest,
    NotAView(NotAView),
    /// A crawler's view (search, training, other robots).
    Crawler(Class),
    /// A page view by a client that is not a browser.
    NotBrowserPage,
    /// Stored by an earlier import.
    AlreadyStored,
    /// A line longer than the longest read (`MAX_LINE`), skipped.
    TooLong,
    /// A search of the site by an AI agent: neither a person's search nor a page view.
    AgentSearch,
    /// The search page asked with no words (`/search?q=`): neither a search nor a view.
    EmptySearch,
}

impl Dropped {
    fn label(self) -> &'static str {
        match self {
            Self::NotRequest => "not requests",
            Self::NotAView(NotAView::Method) => "not GET or HEAD",
            Self::NotAView(NotAView::Status) => "redirects and errors",
            Self::NotAView(NotAView::Asset) => "assets",
            Self::NotAView(NotAView::Download) => "downloads and other files",
            Self::NotAView(NotAView::Feed) => "feed polls",
            Self::Crawler(Class::Search) => "search crawlers",
            Self::Crawler(Class::Training) => "training crawlers",
            Self::Crawler(_) => "other robots",
            Self::NotBrowserPage => "page views by non-browsers",
            Self::AlreadyStored => "duplicates",
            Self::TooLong => "lines over 64 KiB",
            Self::AgentSearch => "searches by AI agents",
            Self::EmptySearch => "searches of nothing",
        }
    }
}

/// What an import stored, counted alike in what one write of the database did
/// (`batch::Stored`, either store) and in the import's running summary, which adds the
/// writes up with [`Counts::add`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Views stored, by class.
    pub human: u64,
    pub ai: u64,
    /// Views stored by an earlier import whose class the rules in force changed (moved to
    /// the other column, or taken back).
    pub changed: u64,
    /// When the first and the last of the views stored were made (ms, UTC).
    pub span: Option<(i64, i64)>,
    /// Searches of the site's own search page stored, and those a result was clicked
    /// after (a later view by the same visitor referred by it).
    pub searches: u64,
    /// Site searches an earlier import stored (nothing is added twice).
    pub searches_known: u64,
    pub clicks: u64,
    /// A stream's result clicks that matched no search by the same visitor for the same
    /// words in the hour before (the search not read yet, or read later in the file): not
    /// stored.
    pub clicks_unmatched: u64,
    /// A stream's feedback and assistant answers stored, and those an earlier import
    /// stored; answers stored whose event did not say whether the docs answered (stored
    /// as answered).
    pub feedback: u64,
    pub feedback_known: u64,
    pub conversations: u64,
    pub conversations_known: u64,
    pub conversations_unsaid: u64,
}

impl Counts {
    /// Views stored.
    #[must_use]
    pub fn kept(&self) -> u64 {
        self.human + self.ai
    }

    /// Widens the span of the views stored to take in one made at `ts_ms`.
    pub fn saw(&mut self, ts_ms: i64) {
        self.span = Some(match self.span {
            None => (ts_ms, ts_ms),
            Some((first, last)) => (first.min(ts_ms), last.max(ts_ms)),
        });
    }

    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &Self) {
        self.human += other.human;
        self.ai += other.ai;
        self.changed += other.changed;
        self.searches += other.searches;
        self.searches_known += other.searches_known;
        self.clicks += other.clicks;
        self.clicks_unmatched += other.clicks_unmatched;
        self.feedback += other.feedback;
        self.feedback_known += other.feedback_known;
        self.conversations += other.conversations;
        self.conversations_known += other.conversations_known;
        self.conversations_unsaid += other.conversations_unsaid;
        if let Some((first, last)) = other.span {
            self.saw(first);
            self.saw(last);
        }
    }
}

/// The running count of one import.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub lines: u64,
    /// What was stored.
    pub counts: Counts,
    pub dropped: BTreeMap<Dropped, u64>,
    pub broken: u64,
    /// The search page looked for (`/search?q=`), when the input could have searches.
    pub search_page: Option<String>,
    /// Searches, clicks, feedback and answers whose properties lacked what they need, by
    /// event name and what was missing: counted, stored nowhere.
    pub unread: BTreeMap<(String, &'static str), u64>,
    /// Events of other types in an event stream, by name (the first [`NAMED_EVENTS`]
    /// names; the rest under `…`): stored nowhere yet, and said so.
    pub events: BTreeMap<String, u64>,
    /// The first few broken lines: where (`line 4`, or `access.log line 4` when several
    /// files are followed) and why.
    pub first_broken: Vec<(String, String)>,
}

impl Summary {
    pub(crate) fn drop_line(&mut self, why: Dropped) {
        *self.dropped.entry(why).or_default() += 1;
    }

    /// An event of another type than a page view, counted by its name.
    pub(crate) fn event(&mut self, name: String) {
        let name = if self.events.contains_key(&name) || self.events.len() < NAMED_EVENTS {
            name
        } else {
            "…".to_owned()
        };
        *self.events.entry(name).or_default() += 1;
    }

    /// A stream event of a kind that is read whose properties lacked `missing`.
    pub(crate) fn unread(&mut self, event: String, missing: &'static str) {
        *self.unread.entry((event, missing)).or_default() += 1;
    }

    /// A line over the longest read: read, skipped and counted.
    pub(crate) fn too_long(&mut self) {
        self.lines += 1;
        self.drop_line(Dropped::TooLong);
    }

    pub(crate) fn broken_line(&mut self, place: impl FnOnce() -> String, reason: String) {
        self.broken += 1;
        if self.first_broken.len() < NAMED_BROKEN {
            self.first_broken.push((place(), reason));
        }
    }

    /// Views stored.
    #[must_use]
    pub fn kept(&self) -> u64 {
        self.counts.kept()
    }

    /// Adds another file's counts (broken line numbers stay per file).
    pub fn add(&mut self, other: &Self) {
        self.lines += other.lines;
        self.counts.add(&other.counts);
        self.broken += other.broken;
        for (what, count) in &other.unread {
            *self.unread.entry(what.clone()).or_default() += count;
        }
        if self.search_page.is_none() {
            self.search_page.clone_from(&other.search_page);
        }
        for (why, count) in &other.dropped {
            *self.dropped.entry(*why).or_default() += count;
        }
        for (name, count) in &other.events {
            *self.events.entry(name.clone()).or_default() += count;
        }
    }
}

impl fmt::Display for Summary {
    /// `read 12 lines: kept 7 views (human 4, AI 3)`, then what was not kept and the broken
    /// lines, one item a line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "read {}: kept {} (human {}, AI {})",
            plural(self.lines, "line"),
            plural(self.kept(), "view"),
            crate::text::thousands(self.counts.human),
            crate::text::thousands(self.counts.ai)
        )?;
        if let Some((first, last)) = self.counts.span {
            let day = |ms: i64| {
                chrono::DateTime::from_timestamp_millis(ms)
                    .map_or_else(|| "?".to_owned(), |at| at.format("%Y-%m-%d").to_string())
            };
            let (first, last) = (day(first), day(last));
            if first == last {
                write!(f, " on {first} (UTC)")?;
            } else {
                write!(f, " from {first} to {last} (UTC)")?;
            }
        }
        if self.counts.searches > 0 || self.counts.clicks > 0 || self.counts.searches_known > 0 {
            write!(
                f,
                "\n  site searches: {} stored, {} clicked through",
                crate::text::thousands(self.counts.searches),
                crate::text::thousands(self.counts.clicks)
            )?;
            if self.counts.searches_known > 0 {
                write!(
                    f,
                    " ({} stored before, not added again)",
                    crate::text::thousands(self.counts.searches_known)
                )?;
            }
        } else if let Some(page) = &self.search_page
            && (self.kept() > 0 || !self.dropped.is_empty())
        {
            // Only when requests were read: a file of broken lines says why instead.
            write!(
                f,
                "\n  site searches: none at {page}\n    (searched elsewhere? import again with --search-url PATH?PARAM=)"
            )?;
        }
        self.fmt_said(f)?;
        if self.counts.changed > 0 {
            write!(
                f,
                "\n  recounted under the rules in force: {} stored before changed class",
                plural(self.counts.changed, "view")
            )?;
        }
        if !self.dropped.is_empty() {
            let parts: Vec<String> = self
                .dropped
                .iter()
                .map(|(why, count)| format!("{} {}", why.label(), crate::text::thousands(*count)))
                .collect();
            // Wrapped to fit 80 columns.
            let mut line = "  not counted:".to_owned();
            for (i, part) in parts.iter().enumerate() {
                let part = if i + 1 < parts.len() {
                    format!("{part},")
                } else {
                    part.clone()
                };
                if line.len() + 1 + part.len() > 78 {
                    write!(f, "\n{line}")?;
                    line = "   ".to_owned();
                }
                line.push(' ');
                line.push_str(&part);
            }
            write!(f, "\n{line}")?;
        }
        if !self.events.is_empty() {
            let names: Vec<String> = self
                .events
                .iter()
                .map(|(name, count)| format!("{name} {}", crate::text::thousands(*count)))
                .collect();
            write!(f, "\n  other events, not stored: {}", names.join(", "))?;
        }
        if self.broken > 0 {
            write!(f, "\n  skipped {}", plural(self.broken, "broken line"))?;
            for (place, reason) in &self.first_broken {
                write!(f, "\n    {place}: {reason}")?;
            }
            if !self.first_broken.is_empty() && self.broken > self.first_broken.len() as u64 {
                write!(f, "\n    ...")?;
            }
        }
        Ok(())
    }
}

impl Summary {
    /// The stream's feedback and answers, and the events of those kinds not read.
    fn fmt_said(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let again = |f: &mut fmt::Formatter<'_>, known: u64| {
            if known > 0 {
                write!(
                    f,
                    " ({} stored before, not added again)",
                    crate::text::thousands(known)
                )?;
            }
            Ok(())
        };
        if self.counts.feedback + self.counts.feedback_known > 0 {
            write!(
                f,
                "\n  feedback: {} stored",
                crate::text::thousands(self.counts.feedback)
            )?;
            again(f, self.counts.feedback_known)?;
        }
        if self.counts.conversations + self.counts.conversations_known > 0 {
            write!(
                f,
                "\n  assistant questions: {} stored",
                crate::text::thousands(self.counts.conversations)
            )?;
            again(f, self.counts.conversations_known)?;
            if self.counts.conversations_unsaid > 0 {
                write!(
                    f,
                    "\n    {} of them gave no resolutionStatus docdeck reads (answered or unanswered): counted as answered",
                    crate::text::thousands(self.counts.conversations_unsaid)
                )?;
            }
        }
        if self.counts.clicks_unmatched > 0 {
            write!(
                f,
                "\n  result clicks not stored: {} matched no search of the same words by the same visitor in the hour before (read earlier, this file included)",
                crate::text::thousands(self.counts.clicks_unmatched)
            )?;
        }
        for ((event, missing), count) in &self.unread {
            write!(
                f,
                "\n  {event}: {} not stored, without {missing}",
                plural(*count, "event")
            )?;
        }
        Ok(())
    }
}

/// `1 line`, `2 lines`.
#[must_use]
pub fn plural(count: u64, noun: &str) -> String {
    let shown = crate::text::thousands(count);
    if count == 1 {
        format!("{shown} {noun}")
    } else {
        format!("{shown} {noun}s")
    }
}
