//! Where the visitors pane's page stands: nothing asked yet, a request out, a page shown,
//! or a failure. One enum, so a state that cannot happen cannot be written down (a
//! request out with nothing to wait for, an error beside a fresh page).

use crate::api::{VisitorsPage, VisitorsQuery};
use crate::tui::message::{Awaits, Generation};

/// A page on screen and the query it answers (its dates, offset and size).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub page: VisitorsPage,
    pub query: VisitorsQuery,
}

/// The visitors pane's page, from the first request on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum PageLoad {
    /// Nothing asked yet: the pane loads its first page when it is first shown.
    #[default]
    Idle,
    /// A request is out. The page already on screen stays there until it answers.
    Fetching {
        /// The request's number: a reply with another one is for a page no longer
        /// wanted and is dropped.
        generation: Generation,
        query: VisitorsQuery,
        shown: Option<Shown>,
    },
    /// The last request answered with this page.
    Shown(Shown),
    /// The last request failed, or could not be sent (a rate pause, a bad range). The
    /// page shown before stays on screen with the reason beside it.
    Failed { error: String, shown: Option<Shown> },
}

impl PageLoad {
    /// The page on screen, whatever happens to the next one.
    #[must_use]
    pub fn shown(&self) -> Option<&Shown> {
        match self {
            Self::Idle => None,
            Self::Shown(shown) => Some(shown),
            Self::Fetching { shown, .. } | Self::Failed { shown, .. } => shown.as_ref(),
        }
    }

    #[must_use]
    pub fn is_fetching(&self) -> bool {
        matches!(self, Self::Fetching { .. })
    }

    /// The number of the request out, if one is ([`Awaits`], here for callers outside
    /// the crate such as the console's bench, without the trait in scope).
    #[must_use]
    pub fn generation(&self) -> Option<Generation> {
        Awaits::generation(self)
    }

    /// Why the last request failed or was not sent.
    #[must_use]
    pub fn error(&self) -> Option<&str> {
        match self {
            Self::Failed { error, .. } => Some(error),
            _ => None,
        }
    }

    /// A request for `query`, numbered `generation`, went out; a request out before it
    /// is forgotten (its reply will be dropped).
    pub fn fetch(&mut self, generation: Generation, query: VisitorsQuery) {
        let shown = self.take_shown();
        *self = Self::Fetching {
            generation,
            query,
            shown,
        };
    }

    /// A request could not be sent: the reason is shown beside the last page. A request
    /// still out is dropped with it, as it is for a page the user has left.
    pub fn refuse(&mut self, error: String) {
        let shown = self.take_shown();
        *self = Self::Failed { error, shown };
    }

    /// The reply to request `generation`. Returns the new page when it is taken; a reply
    /// to any other request (or none out) changes nothing.
    pub fn answer(
        &mut self,
        generation: Generation,
        result: Result<VisitorsPage, String>,
    ) -> Option<&Shown> {
        if !self.awaits(generation) {
            return None;
        }
        let Self::Fetching { query, shown, .. } = std::mem::take(self) else {
            return None;
        };
        match result {
            Ok(page) => {
                *self = Self::Shown(Shown { page, query });
                self.shown()
            }
            Err(error) => {
                *self = Self::Failed { error, shown };
                None
            }
        }
    }

    fn take_shown(&mut self) -> Option<Shown> {
        match std::mem::take(self) {
            Self::Idle => None,
            Self::Shown(shown) => Some(shown),
            Self::Fetching { shown, .. } | Self::Failed { shown, .. } => shown,
        }
    }
}

impl Awaits for PageLoad {
    fn generation(&self) -> Option<Generation> {
        match self {
            Self::Fetching { generation, .. } => Some(*generation),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{PathVisitors, VisitorTotals};

    fn query(offset: u64) -> VisitorsQuery {
        VisitorsQuery {
            date_from: None,
            date_to: None,
            limit: Some(10),
            offset: Some(offset),
        }
    }

    fn page(path: &str) -> VisitorsPage {
        VisitorsPage {
            totals: VisitorTotals {
                human: 1,
                ai: 0,
                total: 1,
            },
            visitors: vec![PathVisitors {
                path: path.into(),
                human: 1,
                ai: 0,
                total: 1,
            }],
            has_more: false,
        }
    }

    fn path(load: &PageLoad) -> Option<&str> {
        load.shown().map(|s| s.page.visitors[0].path.as_str())
    }

    #[test]
    fn a_new_pane_is_idle_and_shows_nothing() {
        let load = PageLoad::default();
        assert_eq!(load, PageLoad::Idle);
        assert!(load.shown().is_none() && !load.is_fetching() && load.error().is_none());
    }

    #[test]
    fn a_reply_to_the_request_out_is_shown_with_its_query() {
        let mut load = PageLoad::default();
        load.fetch(Generation::test(1), query(0));
        assert!(load.is_fetching() && load.shown().is_none());
        assert!(load.answer(Generation::test(1), Ok(page("/a"))).is_some());
        assert_eq!(
            load,
            PageLoad::Shown(Shown {
                page: page("/a"),
                query: query(0)
            })
        );
    }

    #[test]
    fn the_page_on_screen_stays_while_the_next_one_is_fetched() {
        let mut load = PageLoad::default();
        load.fetch(Generation::test(1), query(0));
        load.answer(Generation::test(1), Ok(page("/a")));
        load.fetch(Generation::test(2), query(10));
        assert!(load.is_fetching());
        assert_eq!(path(&load), Some("/a"));
        assert_eq!(
            load.shown().unwrap().query,
            query(0),
            "its own query, not the next"
        );
    }

    #[test]
    fn a_reply_to_an_earlier_request_is_dropped() {
        let mut load = PageLoad::default();
        load.fetch(Generation::test(1), query(0));
        load.fetch(Generation::test(2), query(10));
        assert!(load.answer(Generation::test(1), Ok(page("/old"))).is_none());
        assert_eq!(
            load.generation(),
            Some(Generation::test(2)),
            "still waiting for the request out"
        );
        load.answer(Generation::test(2), Ok(page("/new")));
        assert_eq!(path(&load), Some("/new"));
        assert!(
            load.answer(Generation::test(2), Ok(page("/again")))
                .is_none(),
            "answered once"
        );
        assert_eq!(path(&load), Some("/new"));
    }

    #[test]
    fn a_failed_request_keeps_the_last_page_beside_its_error() {
        let mut load = PageLoad::default();
        load.fetch(Generation::test(1), query(0));
        load.answer(Generation::test(1), Ok(page("/a")));
        load.fetch(Generation::test(2), query(10));
        load.answer(Generation::test(2), Err("the service is down".into()));
        assert_eq!(load.error(), Some("the service is down"));
        assert_eq!(path(&load), Some("/a"));
        assert!(!load.is_fetching());
    }

    #[test]
    fn a_failure_before_any_page_shows_only_the_error() {
        let mut load = PageLoad::default();
        load.fetch(Generation::test(1), query(0));
        load.answer(Generation::test(1), Err("refused".into()));
        assert_eq!(
            load,
            PageLoad::Failed {
                error: "refused".into(),
                shown: None
            }
        );
    }

    #[test]
    fn a_refused_request_drops_the_one_out_and_keeps_the_page() {
        let mut load = PageLoad::default();
        load.fetch(Generation::test(1), query(0));
        load.answer(Generation::test(1), Ok(page("/a")));
        load.fetch(Generation::test(2), query(10));
        load.refuse("analytics paused".into());
        assert_eq!(load.error(), Some("analytics paused"));
        assert!(
            load.answer(Generation::test(2), Ok(page("/late")))
                .is_none()
        );
        assert_eq!(path(&load), Some("/a"));
    }

    #[test]
    fn a_new_request_after_a_failure_clears_the_error_and_keeps_the_page() {
        let mut load = PageLoad::default();
        load.fetch(Generation::test(1), query(0));
        load.answer(Generation::test(1), Ok(page("/a")));
        load.refuse("paused".into());
        load.fetch(Generation::test(2), query(0));
        assert!(load.error().is_none() && load.is_fetching());
        assert_eq!(path(&load), Some("/a"));
    }
}
