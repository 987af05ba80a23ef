//! What a job's impact (the job detail) and a page's comments (the visitors pane's page
//! view) ask the runner for, and what they hear back: kept apart from the console's
//! other messages so each side matches them in one place.

use chrono::TimeDelta;

use crate::api::ApiError;
use crate::api::signals::{FeedbackItem, SignalsQuery};
use crate::insight::impact::{Impact, Windows};
use crate::insight::impact_merge::Merged;
use crate::insight::impact_read::NotReady;
use crate::tui::message::Generation;

/// What the impact and the comments ask the runner for.
#[derive(Debug, Clone, PartialEq)]
pub enum SignalIo {
    /// Reads job `id`'s impact: the job with its change (a job read), the merge time,
    /// then every row of both windows (at most `allow` analytics requests, up to
    /// `max_rows` rows a window); answers `Impact`.
    ReadImpact {
        id: String,
        window: TimeDelta,
        max_rows: usize,
        allow: u32,
    },
    /// Reads the range's newest feedback (`query`, newest first), at most `pages`
    /// requests, and keeps what was said of `path` (a whole URL reduced to its path);
    /// answers `Comments`.
    FetchComments {
        generation: Generation,
        query: SignalsQuery,
        path: String,
        pages: u32,
    },
}

/// A job's impact, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImpactRead {
    pub merge: Merged,
    pub windows: Windows,
    pub impact: Impact,
    /// What the views' span leaves out of a window, when it does.
    pub gap: Option<crate::insight::impact_read::Gap>,
}

/// Why a job's impact was not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImpactFailed {
    /// The job, its pages or its merge did not allow it (the words say why).
    #[error("{0}")]
    NotReady(NotReady),
    /// A window's visitors could not be read.
    #[error("{0}")]
    Visitors(ApiError),
    /// The windows need more requests than were allowed.
    #[error("the two windows need more than {0} analytics requests (250 rows each)")]
    NeedsMore(u32),
    /// A window has more rows than are held.
    #[error("a window has more than {0} rows, the most the console holds")]
    TooMany(usize),
}

/// A page's comments from the range's newest feedback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comments {
    /// What was said of the page, newest first (thumbs without words included).
    pub items: Vec<FeedbackItem>,
    /// Pieces of feedback looked through (of every page).
    pub looked: usize,
    /// The range has older feedback not looked through.
    pub more: bool,
}

/// What the impact and the comments hear back.
#[derive(Debug)]
pub enum SignalMsg {
    /// Job `id`'s impact, or why not; `requests` is how many analytics requests it sent,
    /// `read` how the job's own read went (none when it was not sent).
    Impact {
        id: String,
        result: Box<Result<ImpactRead, ImpactFailed>>,
        requests: u32,
        read: Option<Result<(), ApiError>>,
    },
    /// A page's comments, or why not; dropped when its generation is not the latest.
    Comments {
        generation: Generation,
        result: Result<Comments, ApiError>,
        requests: u32,
    },
}

impl SignalMsg {
    /// The analytics call this reply reports, for the link and its rate pauses.
    #[must_use]
    pub fn analytics_call(&self) -> Option<Result<(), &ApiError>> {
        match self {
            Self::Impact {
                result, requests, ..
            } => match result.as_ref() {
                Err(ImpactFailed::Visitors(err)) => Some(Err(err)),
                _ if *requests > 0 => Some(Ok(())),
                _ => None,
            },
            Self::Comments {
                result, requests, ..
            } => (*requests > 0 || result.is_err()).then(|| result.as_ref().map(|_| ())),
        }
    }
}
