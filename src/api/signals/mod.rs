//! What readers searched for, said and asked (issue 27): the wire types of the hosted
//! analytics export's searches, feedback, feedback by page and assistant endpoints
//! (../shared/api/FACTS.md), which the local service serves in the same shapes.

pub mod query;

use serde::{Deserialize, Serialize};

pub use query::{Kind, SignalsQuery, SignalsQueryError};

/// One search query over the range.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchRow {
    pub search_query: String,
    /// Times it was searched.
    pub hits: u64,
    /// Share of those searches followed by a click on a result, 0 to 1.
    pub ctr: f64,
    /// The result clicked most after it; none when nobody clicked: the sign of a gap.
    pub top_clicked_page: Option<String>,
    pub last_searched_at: String,
}

/// One page of searches, by hits descending. No `hasMore`: there is more while
/// `nextCursor` is not null.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchesPage {
    pub searches: Vec<SearchRow>,
    /// The hits of every query of the range, not only this page's.
    pub total_searches: u64,
    pub next_cursor: Option<String>,
}

/// Where a piece of feedback came from.
pub const FEEDBACK_SOURCES: [&str; 4] = ["code_snippet", "contextual", "agent", "thumbs_only"];
/// Where a piece of feedback stands.
pub const FEEDBACK_STATUSES: [&str; 4] = ["pending", "in_progress", "resolved", "dismissed"];

/// One piece of feedback. `helpful` and `contact` come with contextual (and thumbs-only)
/// feedback; `code`, `filename` and `lang` with feedback on a code snippet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackItem {
    pub id: String,
    /// A page's path, or a whole URL as the reader's page sent it.
    pub path: String,
    pub comment: Option<String>,
    pub created_at: Option<String>,
    pub source: String,
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub helpful: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<Option<String>>,
}

/// One page of feedback, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackPage {
    pub feedback: Vec<FeedbackItem>,
    pub next_cursor: Option<String>,
    pub has_more: bool,
}

/// Feedback counted per page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageFeedback {
    pub path: String,
    pub thumbs_up: u64,
    pub thumbs_down: u64,
    /// Feedback on the page's code snippets.
    pub code: u64,
    pub total: u64,
}

/// Feedback per page, most first. No cursor: `limit` is all there is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackByPage {
    pub feedback: Vec<PageFeedback>,
    pub has_more: bool,
}

/// A page the assistant cited.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceLink {
    pub title: String,
    pub url: String,
}

/// One question to the docs' assistant and its answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Conversation {
    pub id: String,
    pub timestamp: String,
    pub query: String,
    pub response: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_type: Option<String>,
    pub sources: Vec<SourceLink>,
    /// `answered` or `unanswered`.
    pub resolution_status: String,
    pub query_category: Option<String>,
    pub page_url: Option<String>,
}

impl Conversation {
    /// Whether the assistant could not answer: a page the docs lack.
    #[must_use]
    pub fn unanswered(&self) -> bool {
        self.resolution_status == "unanswered"
    }
}

/// One page of assistant conversations, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssistantPage {
    pub conversations: Vec<Conversation>,
    pub next_cursor: Option<String>,
    pub has_more: bool,
}
