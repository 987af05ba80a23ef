//! A page the searches pane reads (issue 27): searches or assistant conversations, as
//! one message type, so the pane takes both lists' replies in one place.

use crate::api::signals::{AssistantPage, SearchesPage};

/// One page of one of the searches pane's two lists.
#[derive(Debug, Clone, PartialEq)]
pub enum SignalsPage {
    Searches(SearchesPage),
    Assistant(AssistantPage),
}
