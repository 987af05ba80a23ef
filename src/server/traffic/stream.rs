//! The hosted service's event stream beyond page views (issue 27): searches, the results
//! clicked after them, feedback and the assistant's answers. The stream's documentation
//! names the events (`docs.search.query`, `docs.search.result_click`,
//! `docs.assistant.completed`) and says their `properties` hold "assistant queries and
//! responses, and feedback comments or contact information", but not under which names.
//! They are read under the names the hosted service's own export gives the same things
//! (`searchQuery`, `query`, `response`, `resolutionStatus`, `helpful`, `comment`,
//! `contact`, …); an event of these kinds whose properties lack what it needs is counted
//! by name with what was missing, never guessed.

use serde_json::{Map, Value};

use super::Record;
use crate::server::signals::{NewConversation, NewFeedback};

/// The kinds of stream event read besides page views.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Search,
    Click,
    Feedback,
    Conversation,
}

impl Kind {
    /// The kind an event name stands for; `None` for the events read nowhere. The stream
    /// documents no name for a page's feedback, so any `docs.…feedback…` event is read as
    /// one, except the assistant's own thumbs (`docs.assistant.thumbs_up`), which rate an
    /// answer, not a page.
    #[must_use]
    pub fn of(name: &str) -> Option<Self> {
        match name {
            "docs.search.query" => Some(Self::Search),
            "docs.search.result_click" => Some(Self::Click),
            "docs.assistant.completed" => Some(Self::Conversation),
            _ if name.starts_with("docs.")
                && !name.starts_with("docs.assistant.")
                && name.contains("feedback") =>
            {
                Some(Self::Feedback)
            }
            _ => None,
        }
    }
}

/// What one of these events says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signal {
    Search {
        query: String,
    },
    /// A result clicked after a search: the words searched and the page opened.
    Click {
        query: String,
        page: String,
    },
    Feedback(NewFeedback),
    /// A question and its answer; `status_said` is false when the event did not say
    /// whether the docs answered it (it is then stored as answered, and the summary says
    /// how many).
    Conversation {
        conversation: NewConversation,
        status_said: bool,
    },
    /// An event of a kind read here whose properties lack what it needs: its name, and
    /// what was missing.
    Unread {
        event: String,
        missing: &'static str,
    },
}

/// A stream event read: who sent it and when (as a page view's record), and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Streamed {
    pub record: Record<'static>,
    pub signal: Signal,
}

/// Reads the event `name` of kind `kind` from its payload's `properties` (an object, or a
/// JSON-encoded string, as the payload itself may be). `record` is the event's time,
/// visitor and page (`payload.path`).
///
/// # Errors
/// When `properties` is neither an object nor a string holding one.
pub fn read(
    kind: Kind,
    name: &str,
    record: Record<'static>,
    properties: Option<Value>,
) -> Result<Streamed, String> {
    let properties = super::json::object(properties, "properties")?.unwrap_or_default();
    let unread = |missing| Signal::Unread {
        event: name.to_owned(),
        missing,
    };
    let text = |names: &[&str]| first_text(&properties, names);
    let query = text(&["searchQuery", "query", "search_query", "q"]);
    let signal = match kind {
        Kind::Search => query.map_or_else(
            || unread("the words searched (properties.query)"),
            |query| Signal::Search { query },
        ),
        Kind::Click => match (
            query,
            text(&["url", "href", "path", "resultUrl", "result_url", "page"]),
        ) {
            (Some(query), Some(page)) => Signal::Click { query, page },
            (None, _) => unread("the words searched (properties.query)"),
            (_, None) => unread("the result clicked (properties.url)"),
        },
        Kind::Feedback => feedback(&properties, &record).map_or_else(
            || unread("a thumb or a comment (properties.helpful, properties.comment)"),
            Signal::Feedback,
        ),
        Kind::Conversation => match text(&["query", "question", "prompt"]) {
            Some(query) => conversation(&properties, &record, query),
            None => unread("the question asked (properties.query)"),
        },
    };
    Ok(Streamed { record, signal })
}

/// The first of `names` that is a non-empty string.
fn first_text(properties: &Map<String, Value>, names: &[&str]) -> Option<String> {
    names.iter().find_map(|name| match properties.get(*name) {
        Some(Value::String(text)) if !text.trim().is_empty() => Some(text.clone()),
        _ => None,
    })
}

/// A page's feedback in the export's words: `helpful` (or a `thumbs`/`vote` of `up` or
/// `down`), `comment`, `contact`, `code`, `filename`, `lang`, `source`; the page is
/// `properties.path` or the event's own. `None` when it holds neither a thumb, a comment
/// nor code.
fn feedback(properties: &Map<String, Value>, record: &Record<'_>) -> Option<NewFeedback> {
    let text = |names: &[&str]| first_text(properties, names);
    let helpful = match properties.get("helpful") {
        Some(Value::Bool(helpful)) => Some(*helpful),
        _ => match text(&["thumbs", "vote"]).as_deref() {
            Some("up") => Some(true),
            Some("down") => Some(false),
            _ => None,
        },
    };
    let (comment, code) = (text(&["comment"]), text(&["code"]));
    if helpful.is_none() && comment.is_none() && code.is_none() {
        return None;
    }
    let said = text(&["source"]).filter(|source| {
        ["code_snippet", "contextual", "agent", "thumbs_only"].contains(&source.as_str())
    });
    let source = said
        .unwrap_or_else(|| NewFeedback::source_of(code.is_some(), comment.is_some()).to_owned());
    Some(NewFeedback {
        ts_ms: record.ts_ms,
        path: text(&["path", "pageUrl", "url"]).unwrap_or_else(|| record.target.to_string()),
        source,
        helpful,
        comment,
        contact: text(&["contact"]),
        code,
        filename: text(&["filename"]),
        lang: text(&["lang"]),
    })
}

/// A question and its answer in the export's words: `response`, `resolutionStatus`
/// (`answered` or `unanswered`, or a boolean `answered`), `sources` (`[{title, url}]`),
/// `queryCategory`, `pageUrl` (else the event's page).
fn conversation(properties: &Map<String, Value>, record: &Record<'_>, query: String) -> Signal {
    let text = |names: &[&str]| first_text(properties, names);
    // In any case (`UNANSWERED` was read as no status at all, in a trial).
    let status = text(&["resolutionStatus", "resolution_status"]).map(|s| s.to_lowercase());
    let answered = match (status.as_deref(), properties.get("answered")) {
        (Some("answered"), _) | (_, Some(Value::Bool(true))) => Some(true),
        (Some("unanswered"), _) | (_, Some(Value::Bool(false))) => Some(false),
        _ => None,
    };
    let sources = match properties.get("sources") {
        Some(Value::Array(sources)) => sources
            .iter()
            .filter_map(|source| {
                let field = |name| source.get(name).and_then(Value::as_str).map(str::to_owned);
                let url = field("url")?;
                Some((field("title").unwrap_or_else(|| url.clone()), url))
            })
            .collect(),
        _ => Vec::new(),
    };
    let page = record.target.to_string();
    Signal::Conversation {
        conversation: NewConversation {
            ts_ms: record.ts_ms,
            query,
            response: text(&["response", "answer"]).unwrap_or_default(),
            sources,
            answered: answered.unwrap_or(true),
            category: text(&["queryCategory", "query_category", "category"]),
            page_url: text(&["pageUrl", "page_url"]).or((!page.is_empty()).then_some(page)),
        },
        status_said: answered.is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An event's time and place, with no visitor.
    fn record() -> Record<'static> {
        Record {
            ts_ms: 0,
            method: "GET".into(),
            target: "/".into(),
            status: 200,
            ip: None,
            user_agent: None,
            accept: None,
            referer: None,
            anon_id: None,
            event_id: None,
        }
    }

    #[test]
    fn the_documented_names_and_any_page_feedback_are_read() {
        assert_eq!(Kind::of("docs.search.query"), Some(Kind::Search));
        assert_eq!(Kind::of("docs.search.result_click"), Some(Kind::Click));
        assert_eq!(
            Kind::of("docs.assistant.completed"),
            Some(Kind::Conversation)
        );
        assert_eq!(Kind::of("docs.feedback.submitted"), Some(Kind::Feedback));
        // The assistant's thumbs rate an answer, not a page.
        assert_eq!(Kind::of("docs.assistant.thumbs_down"), None);
        assert_eq!(Kind::of("docs.search.close"), None);
        assert_eq!(Kind::of("docs.navitem.click"), None);
    }

    #[test]
    fn a_resolution_status_is_read_in_any_case() {
        // `UNANSWERED` was read as no status, and the question stored as answered (the
        // second trial of stop 33).
        let said = |status: &str| {
            let properties = serde_json::json!({"query": "q", "resolutionStatus": status});
            match read(
                Kind::Conversation,
                "docs.assistant.completed",
                record(),
                Some(properties),
            )
            .unwrap()
            .signal
            {
                Signal::Conversation {
                    conversation,
                    status_said,
                } => (conversation.answered, status_said),
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(said("UNANSWERED"), (false, true));
        assert_eq!(said("Answered"), (true, true));
        assert_eq!(
            said("partially_answered"),
            (true, false),
            "not known: counted"
        );
    }

    #[test]
    fn properties_that_are_no_object_are_a_broken_line() {
        let err = read(
            Kind::Search,
            "docs.search.query",
            record(),
            Some(Value::from(3)),
        )
        .unwrap_err();
        assert_eq!(err, "properties is neither an object nor a string");
    }
}
