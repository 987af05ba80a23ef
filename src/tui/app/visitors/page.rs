//! One page of the visitors pane (Enter on its row, Esc back): its figures over the
//! range, its 👍 and 👎, and what readers said of it, newest first, with dates and
//! source. The comments come from the range's newest feedback (`/feedback`, 100 a
//! request, at most three requests, each counted against the analytics budget), kept
//! where the path is the page's (a whole URL reduced to its path as views count it).

use super::{Ctx, Thumbs, VisitorsTable};
use crate::api::signals::{Kind, SignalsQuery};
use crate::api::{ApiError, DateParam, PathVisitors};
use crate::tui::app::outcome::Outcome;
use crate::tui::keymap::Action;
use crate::tui::message::{Awaits, Comments, Effect, Generation, Io, SignalIo};

/// Requests of 100 pieces of feedback read at most for one page's comments.
pub const COMMENT_PAGES: u32 = 3;

/// The page's comments, as far as they were read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommentsLoad {
    Fetching(Generation),
    Shown(Comments),
    /// Why they were not read, in words.
    Failed(String),
}

impl Awaits for CommentsLoad {
    fn generation(&self) -> Option<Generation> {
        match self {
            Self::Fetching(generation) => Some(*generation),
            _ => None,
        }
    }
}

/// The page open in the pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageView {
    /// The page's figures over the range, as its row showed them.
    pub row: PathVisitors,
    /// Its thumbs over the range, when the range's feedback is known.
    pub thumbs: Option<Thumbs>,
    pub from: Option<DateParam>,
    pub to: Option<DateParam>,
    pub comments: CommentsLoad,
    /// The first comment row shown (the view clamps it).
    pub scroll: usize,
}

impl VisitorsTable {
    /// Enter: opens the page under the cursor and reads its comments.
    pub(in crate::tui::app) fn open_page(
        &mut self,
        ctx: &Ctx,
        effects: &mut Vec<Effect>,
    ) -> Outcome {
        let (row, query) = match self.whole.table() {
            Some(whole) => match whole.cursor_row() {
                Some(row) => (row.as_path_visitors(), whole.query.clone()),
                None => return Outcome::Notice("no page to open: the filter keeps none"),
            },
            None => {
                let Some(shown) = self.load().shown() else {
                    return Outcome::Notice("no page to open yet");
                };
                let Some(row) = shown.page.visitors.get(self.selected) else {
                    return Outcome::Notice("no page to open in this range");
                };
                (row.clone(), shown.query.clone())
            }
        };
        let thumbs = self
            .feedback
            .of_range(&query)
            .and_then(|thumbs| thumbs.of(&row.path));
        let comments =
            self.want_comments(&row.path, (query.date_from, query.date_to), ctx, effects);
        self.page = Some(PageView {
            row,
            thumbs,
            from: query.date_from,
            to: query.date_to,
            comments,
            scroll: 0,
        });
        Outcome::Changed
    }

    /// Reads `path`'s comments over `range`, when the link and the budget allow.
    fn want_comments(
        &mut self,
        path: &str,
        (date_from, date_to): (Option<DateParam>, Option<DateParam>),
        ctx: &Ctx,
        effects: &mut Vec<Effect>,
    ) -> CommentsLoad {
        if let Some(why) = &ctx.paused {
            return CommentsLoad::Failed(format!("{why}; Enter on the page reads them then"));
        }
        if ctx.analytics_left == 0 {
            return CommentsLoad::Failed(
                "no analytics request is left this hour: the comments are read once one is".into(),
            );
        }
        let generation = self.generations.issue();
        effects.push(Effect::Io(Io::Signal(SignalIo::FetchComments {
            generation,
            query: SignalsQuery {
                date_from,
                date_to,
                limit: Some(Kind::Feedback.max_limit()),
                ..SignalsQuery::new(Kind::Feedback)
            },
            path: path.to_owned(),
            pages: COMMENT_PAGES.min(ctx.analytics_left),
        })));
        CommentsLoad::Fetching(generation)
    }

    /// A key while a page is open: Esc goes back, the moves scroll its comments; the
    /// pane's other keys wait until it is closed (`None`: not the page's to take).
    pub(in crate::tui::app) fn on_page_key(&mut self, action: Action) -> Option<Outcome> {
        let page = self.page.as_mut()?;
        match action {
            Action::Close => self.page = None,
            Action::Up => page.scroll = page.scroll.saturating_sub(1),
            Action::Down => page.scroll = page.scroll.saturating_add(1),
            Action::PrevPage => page.scroll = page.scroll.saturating_sub(10),
            Action::NextPage => page.scroll = page.scroll.saturating_add(10),
            Action::Top => page.scroll = 0,
            Action::Bottom => page.scroll = usize::MAX,
            Action::Open => return Some(Outcome::Done),
            _ => return Some(Outcome::Notice("Esc goes back to the table first")),
        }
        Some(Outcome::Changed)
    }

    /// The comments of the page open came (the app recorded the calls).
    pub(in crate::tui::app) fn on_comments(
        &mut self,
        generation: Generation,
        result: Result<Comments, ApiError>,
    ) -> Outcome {
        let Some(page) = self.page.as_mut() else {
            return Outcome::Done;
        };
        if !page.comments.awaits(generation) {
            return Outcome::Done;
        }
        page.comments = match result {
            Ok(comments) => CommentsLoad::Shown(comments),
            Err(err) => CommentsLoad::Failed(err.to_string()),
        };
        Outcome::Changed
    }
}
