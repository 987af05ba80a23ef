//! The searches pane (`4`, issue 27): what readers searched for, the queries nobody
//! clicked through first, and a second list of the questions the docs' assistant could
//! not answer. Both are read over the visitors pane's dates, a page at a time, each read
//! one analytics request (counted like the visitors', paused by the same 429s). Space
//! marks rows of either list; `n` hands the marks back as one [`Outcome`], which the app
//! turns into the composer's missing-page prompt; `w` reads every page left (`all.rs`).
//! The pane owns its state and keys; the app builds its [`Ctx`] and routes what it
//! returns.

mod all;
mod keys;
mod list;
mod marks;

pub use list::{Dates, ListError, Listed, SignalList, unclicked};
pub use marks::SignalMarks;

use super::outcome::Outcome;
use crate::api::ApiError;
use crate::api::signals::{Conversation, Kind, SearchRow, SignalsQuery};
use crate::tui::message::{Effect, Generation, Generations, Io, SignalsPage};

/// Rows one read of the searches asks for: the most the endpoint sends.
pub const SEARCH_PAGE: u32 = 100;
/// Conversations one read of the assistant asks for: most are answered, and only the
/// unanswered are listed.
pub const QUESTION_PAGE: u32 = 200;

/// Which of the two lists is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Which {
    #[default]
    Searches,
    Questions,
}

impl Which {
    #[must_use]
    pub fn other(self) -> Self {
        match self {
            Self::Searches => Self::Questions,
            Self::Questions => Self::Searches,
        }
    }

    fn index(self) -> usize {
        match self {
            Self::Searches => 0,
            Self::Questions => 1,
        }
    }
}

/// What the pane reads of the rest of the console for one key or message. The app
/// builds it (`App::in_searches`).
#[derive(Debug, Clone)]
pub(in crate::tui::app) struct Ctx {
    /// Why analytics cannot be called now (a 429 pauses them), if so.
    pub paused: Option<String>,
    /// Why the hour's analytics budget cannot afford a read now, if so.
    pub over_budget: Option<String>,
    /// The visitors pane's range, as of today.
    pub dates: Dates,
    /// The key that makes a job of the marks (none under `--read-only`).
    pub job_key: Option<String>,
    /// Rows of the list on screen, as the last frame measured.
    pub rows_on_screen: usize,
    /// Analytics requests left this hour, as the journal counts them.
    pub analytics_left: u32,
}

/// The searches pane's state.
#[derive(Debug, Default)]
pub struct SearchesPane {
    pub showing: Which,
    pub searches: SignalList<SearchRow>,
    pub questions: SignalList<Conversation>,
    /// The cursor in each list (searches, questions).
    selected: [usize; 2],
    pub marks: SignalMarks,
    /// `r` read the shown list again: the other is read again when next shown.
    stale: [bool; 2],
    generations: Generations,
    /// `w`: every page left of a list, being read.
    all: Option<all::ReadAll>,
}

impl SearchesPane {
    /// The cursor in the list shown.
    #[must_use]
    pub fn selected(&self) -> usize {
        self.selected[self.showing.index()]
    }

    /// Rows of the list shown.
    #[must_use]
    pub fn len(&self) -> usize {
        match self.showing {
            Which::Searches => self.searches.rows().len(),
            Which::Questions => self.questions.rows().len(),
        }
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the list shown is being read.
    #[must_use]
    pub fn is_fetching(&self) -> bool {
        match self.showing {
            Which::Searches => self.searches.is_fetching(),
            Which::Questions => self.questions.is_fetching(),
        }
    }

    /// Why the list shown could not be read, if it could not.
    #[must_use]
    pub fn error(&self) -> Option<&ListError> {
        match self.showing {
            Which::Searches => self.searches.error.as_ref(),
            Which::Questions => self.questions.error.as_ref(),
        }
    }

    /// A click on the row at `at` of the list shown.
    pub(in crate::tui::app) fn select(&mut self, at: usize) {
        self.set_selected(at);
    }

    /// The cursor of the list shown, kept on a row.
    fn set_selected(&mut self, at: usize) {
        let last = self.len().saturating_sub(1);
        self.selected[self.showing.index()] = at.min(last);
    }

    /// The pane (or one of its lists) is shown: its first page is read unless the list
    /// holds the range already or is reading it.
    pub(in crate::tui::app) fn show(&mut self, ctx: &Ctx, effects: &mut Vec<Effect>) {
        let which = self.showing;
        let holds = match which {
            Which::Searches => self.searches.has(ctx.dates),
            Which::Questions => self.questions.has(ctx.dates),
        };
        if !holds || self.stale[which.index()] {
            self.read(which, None, ctx, effects);
        }
    }

    /// `r`: the list shown from its first page again; the other when it is next shown.
    pub(in crate::tui::app) fn reload(&mut self, ctx: &Ctx, effects: &mut Vec<Effect>) {
        self.stale[self.showing.other().index()] = true;
        self.read(self.showing, None, ctx, effects);
    }

    /// Reads a page of `which` (the first, or the one after `cursor`), unless a 429
    /// pauses analytics, the hour's budget has no request left, or the range is one the
    /// service refuses.
    fn read(&mut self, which: Which, cursor: Option<String>, ctx: &Ctx, effects: &mut Vec<Effect>) {
        let (kind, limit) = match which {
            Which::Searches => (Kind::Searches, SEARCH_PAGE),
            Which::Questions => (Kind::Assistant, QUESTION_PAGE),
        };
        if cursor.is_none() {
            // A first page again: a read of every page starts over with `w`.
            self.all = None;
        }
        let query = SignalsQuery {
            date_from: ctx.dates.0,
            date_to: ctx.dates.1,
            limit: Some(limit),
            cursor,
            ..SignalsQuery::new(kind)
        };
        let refused = if let Some(why) = &ctx.paused {
            Some(ListError::Paused(format!(
                "{why}; the list is read once the pause ends"
            )))
        } else if let Some(why) = &ctx.over_budget {
            Some(ListError::Failed(why.clone()))
        } else {
            query
                .validate()
                .err()
                .map(|err| ListError::Failed(format!("{err}: 3, then f, changes the dates")))
        };
        if let Some(error) = refused {
            match which {
                Which::Searches => self.searches.refuse(error),
                Which::Questions => self.questions.refuse(error),
            }
            return;
        }
        self.stale[which.index()] = false;
        let generation = self.generations.issue();
        match which {
            Which::Searches => self.searches.fetch(generation, query.clone()),
            Which::Questions => self.questions.fetch(generation, query.clone()),
        }
        effects.push(Effect::Io(Io::ReadSignals { generation, query }));
    }

    /// A page came (the app recorded the call); a reply no longer wanted is dropped. The
    /// cursor stays on its row as the order changes.
    pub(in crate::tui::app) fn on_reply(
        &mut self,
        generation: Generation,
        result: Result<SignalsPage, ApiError>,
        ctx: &Ctx,
        effects: &mut Vec<Effect>,
    ) -> Outcome {
        let failed = result.is_err();
        let on = self.key_at_cursor();
        let taken = match result {
            Ok(SignalsPage::Searches(page)) => self.searches.answer(generation, Ok(page)),
            Ok(SignalsPage::Assistant(page)) => self.questions.answer(generation, Ok(page)),
            Err(err) => {
                // A 429 pauses analytics: the list is read again when the pause ends.
                let error = if matches!(err, ApiError::RateLimited { .. }) {
                    ListError::Paused(format!("{err}; the list is read again when the pause ends"))
                } else {
                    ListError::Failed(err.to_string())
                };
                self.searches.answer(generation, Err(error.clone()))
                    || self.questions.answer(generation, Err(error))
            }
        };
        if !taken {
            return Outcome::Done;
        }
        let at = on
            .and_then(|key| self.position_of(&key))
            .unwrap_or(self.selected());
        self.set_selected(at);
        if failed {
            self.all = None;
        }
        match self.read_on(ctx, effects) {
            Outcome::Done => Outcome::Changed,
            outcome => Outcome::Then(Box::new(Outcome::Changed), Box::new(outcome)),
        }
    }

    /// A list left waiting by a rate pause is read once the pause is over, so its
    /// error does not outlive its cause.
    pub(in crate::tui::app) fn pause_over(&mut self, ctx: &Ctx, effects: &mut Vec<Effect>) -> bool {
        if ctx.paused.is_some() || !matches!(self.error(), Some(ListError::Paused(_))) {
            return false;
        }
        self.read(self.showing, None, ctx, effects);
        true
    }

    /// The service answers again after failing: a list whose read failed is read again.
    pub(in crate::tui::app) fn recovered(&mut self, ctx: &Ctx, effects: &mut Vec<Effect>) {
        if matches!(self.error(), Some(ListError::Failed(_))) {
            self.read(self.showing, None, ctx, effects);
        }
    }

    fn key_at_cursor(&self) -> Option<String> {
        let at = self.selected();
        match self.showing {
            Which::Searches => self.searches.rows().get(at).map(|r| r.key().to_owned()),
            Which::Questions => self.questions.rows().get(at).map(|r| r.key().to_owned()),
        }
    }

    fn position_of(&self, key: &str) -> Option<usize> {
        match self.showing {
            Which::Searches => self.searches.rows().iter().position(|r| r.key() == key),
            Which::Questions => self.questions.rows().iter().position(|r| r.key() == key),
        }
    }
}
