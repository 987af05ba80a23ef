//! The feedback columns of the visitors pane (issue 27): the range's 👍 and 👎 per page,
//! read with one request (`feedback/by-page`, the most pages one request holds) when the
//! range changes, and joined to the rows by path (the service reduces a page sent as a
//! whole URL to its path, as views count it). 👎 per 1,000 human visitors of the page
//! says which pages readers dislike, not only which are read most.

use std::cmp::Ordering;
use std::collections::HashMap;

use super::{Ctx, VisitorsTable};
use crate::api::signals::{FeedbackByPage, Kind, SignalsQuery};
use crate::api::{ApiError, DateParam, VisitorsQuery};
use crate::tui::app::outcome::Outcome;
use crate::tui::message::{Awaits, Effect, Generation, InsightIo, Io};

/// One request asks for this many pages: the endpoint's most.
pub const FEEDBACK_PAGES: u32 = 100;

/// A page's thumbs over the range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Thumbs {
    pub up: u64,
    pub down: u64,
}

impl Thumbs {
    /// 👎 per 1,000 of the page's `human` visitors; `None` when it had none.
    #[must_use]
    pub fn down_per_thousand(self, human: u64) -> Option<f64> {
        #[expect(clippy::cast_precision_loss)]
        (human > 0).then(|| self.down as f64 * 1000.0 / human as f64)
    }
}

/// Two rates of 👎 per 1,000, ascending; a page without human visitors (no rate) first.
#[must_use]
pub fn compare_rates(a: Option<f64>, b: Option<f64>) -> Ordering {
    match (a, b) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (a, b) => a.is_some().cmp(&b.is_some()),
    }
}

/// The feedback of one range, per page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageThumbs {
    pub from: Option<DateParam>,
    pub to: Option<DateParam>,
    by_path: HashMap<String, Thumbs>,
    /// The service had more pages with feedback than one request holds: a page not
    /// listed may have some.
    pub partial: bool,
}

impl PageThumbs {
    #[must_use]
    pub fn new(from: Option<DateParam>, to: Option<DateParam>, page: FeedbackByPage) -> Self {
        let mut by_path: HashMap<String, Thumbs> = HashMap::new();
        for row in page.feedback {
            let thumbs = by_path.entry(row.path).or_default();
            thumbs.up = thumbs.up.saturating_add(row.thumbs_up);
            thumbs.down = thumbs.down.saturating_add(row.thumbs_down);
        }
        Self {
            from,
            to,
            by_path,
            partial: page.has_more,
        }
    }

    /// The thumbs of `path`: none said is 0 of each, unless the list is partial (then
    /// `None`: not known).
    #[must_use]
    pub fn of(&self, path: &str) -> Option<Thumbs> {
        match self.by_path.get(path) {
            Some(thumbs) => Some(*thumbs),
            None if self.partial => None,
            None => Some(Thumbs::default()),
        }
    }

    /// Whether this is the feedback of `query`'s range.
    #[must_use]
    pub fn is_of(&self, query: &VisitorsQuery) -> bool {
        self.from == query.date_from && self.to == query.date_to
    }
}

/// The feedback of the range on screen.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum FeedbackLoad {
    /// Not asked yet (the first page has not come).
    #[default]
    Idle,
    Fetching {
        generation: Generation,
        query: SignalsQuery,
    },
    Shown(PageThumbs),
    Failed {
        query: SignalsQuery,
        error: String,
    },
}

impl FeedbackLoad {
    /// The feedback read, when it is of `query`'s range.
    #[must_use]
    pub fn of_range(&self, query: &VisitorsQuery) -> Option<&PageThumbs> {
        match self {
            Self::Shown(thumbs) if thumbs.is_of(query) => Some(thumbs),
            _ => None,
        }
    }

    /// Why the feedback of the range could not be read, if it could not.
    #[must_use]
    pub fn error(&self) -> Option<&str> {
        match self {
            Self::Failed { error, .. } => Some(error),
            _ => None,
        }
    }

    fn asked(&self) -> Option<(Option<DateParam>, Option<DateParam>)> {
        match self {
            Self::Idle => None,
            Self::Fetching { query, .. } | Self::Failed { query, .. } => {
                Some((query.date_from, query.date_to))
            }
            Self::Shown(thumbs) => Some((thumbs.from, thumbs.to)),
        }
    }
}

impl Awaits for FeedbackLoad {
    fn generation(&self) -> Option<Generation> {
        match self {
            Self::Fetching { generation, .. } => Some(*generation),
            _ => None,
        }
    }
}

impl VisitorsTable {
    /// Reads the feedback of the range on screen, once per range (`again`: even when it is
    /// read, as `r` asks).
    pub(in crate::tui::app) fn want_feedback(
        &mut self,
        again: bool,
        ctx: &Ctx,
        effects: &mut Vec<Effect>,
    ) {
        let range = self.query(ctx.today());
        let dates = (range.date_from, range.date_to);
        let same = self.feedback.asked() == Some(dates);
        if same && !again && !matches!(self.feedback, FeedbackLoad::Failed { .. }) {
            return;
        }
        let query = SignalsQuery {
            date_from: range.date_from,
            date_to: range.date_to,
            limit: Some(FEEDBACK_PAGES),
            ..SignalsQuery::new(Kind::FeedbackByPage)
        };
        if let Some(why) = &ctx.paused {
            let error = format!("{why}; {} reads it then", ctx.refresh_key);
            self.feedback = FeedbackLoad::Failed { query, error };
            return;
        }
        let generation = self.generations.issue();
        self.feedback = FeedbackLoad::Fetching {
            generation,
            query: query.clone(),
        };
        effects.push(Effect::Io(Io::Insight(InsightIo::FetchFeedback {
            generation,
            query,
        })));
    }

    /// The feedback of the range came (the app recorded the call): shown beside the
    /// page and joined to the rows read.
    pub(super) fn on_feedback(
        &mut self,
        generation: Generation,
        result: Result<FeedbackByPage, ApiError>,
    ) -> Outcome {
        if !self.feedback.awaits(generation) {
            return Outcome::Done;
        }
        let FeedbackLoad::Fetching { query, .. } = std::mem::take(&mut self.feedback) else {
            return Outcome::Done;
        };
        self.feedback = match result {
            Ok(page) => FeedbackLoad::Shown(PageThumbs::new(query.date_from, query.date_to, page)),
            Err(err) => FeedbackLoad::Failed {
                query,
                error: err.to_string(),
            },
        };
        self.join_feedback();
        Outcome::Changed
    }

    /// Gives the rows read the feedback of their range (none when it is of another).
    pub(super) fn join_feedback(&mut self) {
        let Some(whole) = self.whole.table_mut() else {
            return;
        };
        let thumbs = self.feedback.of_range(&whole.query);
        whole.set_feedback(thumbs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::signals::PageFeedback;

    fn by_page(rows: &[(&str, u64, u64)], has_more: bool) -> FeedbackByPage {
        FeedbackByPage {
            feedback: rows
                .iter()
                .map(|(path, up, down)| PageFeedback {
                    path: (*path).into(),
                    thumbs_up: *up,
                    thumbs_down: *down,
                    code: 0,
                    total: up + down,
                })
                .collect(),
            has_more,
        }
    }

    #[test]
    fn a_page_without_feedback_has_none_unless_the_list_is_partial() {
        let whole = PageThumbs::new(None, None, by_page(&[("/a", 3, 7)], false));
        assert_eq!(whole.of("/a"), Some(Thumbs { up: 3, down: 7 }));
        assert_eq!(whole.of("/b"), Some(Thumbs::default()));
        let partial = PageThumbs::new(None, None, by_page(&[("/a", 3, 7)], true));
        assert_eq!(partial.of("/b"), None, "not among the pages listed");
    }

    #[test]
    fn the_same_path_listed_twice_is_added_up() {
        let thumbs = PageThumbs::new(None, None, by_page(&[("/a", 1, 2), ("/a", 10, 4)], false));
        assert_eq!(thumbs.of("/a"), Some(Thumbs { up: 11, down: 6 }));
    }

    #[test]
    fn thumbs_down_per_thousand_humans_needs_human_visitors() {
        let thumbs = Thumbs { up: 0, down: 14 };
        assert_eq!(thumbs.down_per_thousand(0), None);
        assert_eq!(thumbs.down_per_thousand(2_000), Some(7.0));
        assert_eq!(compare_rates(None, Some(0.0)), Ordering::Less);
        assert_eq!(compare_rates(Some(2.0), Some(1.5)), Ordering::Greater);
    }
}
