//! The searches and questions marked in the searches pane for a job: each keeps what
//! was seen of it (its counts, when it was asked, the range), so the prompt built from
//! them says what the person saw, whatever the pane shows later.

use super::list::Dates;
use crate::api::DateParam;
use crate::api::signals::{Conversation, SearchRow};
use crate::insight::templates::{Wanted, WantedQuery, WantedQuestion};

/// The marked rows of both lists, in the order they were marked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SignalMarks {
    queries: Vec<WantedQuery>,
    /// Each question with the conversation's id, which tells two alike apart.
    questions: Vec<(String, WantedQuestion)>,
}

impl SignalMarks {
    /// Marks `row` (counted over `dates`), or unmarks it. Returns whether it is marked.
    pub fn toggle_query(&mut self, row: &SearchRow, dates: Dates) -> bool {
        if let Some(at) = self
            .queries
            .iter()
            .position(|q| q.query == row.search_query)
        {
            self.queries.remove(at);
            return false;
        }
        self.queries.push(WantedQuery {
            query: row.search_query.clone(),
            hits: row.hits,
            ctr: row.ctr,
            top_clicked_page: row.top_clicked_page.clone(),
            range: range_of(dates),
        });
        true
    }

    /// Marks the question `asked` (listed over `dates`), or unmarks it.
    pub fn toggle_question(&mut self, asked: &Conversation, dates: Dates) -> bool {
        if let Some(at) = self.questions.iter().position(|(id, _)| *id == asked.id) {
            self.questions.remove(at);
            return false;
        }
        let question = WantedQuestion {
            question: asked.query.clone(),
            asked_at: asked_at(&asked.timestamp),
            range: range_of(dates),
        };
        self.questions.push((asked.id.clone(), question));
        true
    }

    #[must_use]
    pub fn has_query(&self, query: &str) -> bool {
        self.queries.iter().any(|q| q.query == query)
    }

    #[must_use]
    pub fn has_question(&self, id: &str) -> bool {
        self.questions.iter().any(|(marked, _)| marked == id)
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.queries.len() + self.questions.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What the prompt quotes.
    #[must_use]
    pub fn wanted(&self) -> Wanted {
        Wanted {
            queries: self.queries.clone(),
            questions: self.questions.iter().map(|(_, q)| q.clone()).collect(),
        }
    }

    /// What the notice line says when something was just marked or unmarked.
    #[must_use]
    pub fn said(&self, what: &str, marked: bool, job_key: Option<&str>) -> String {
        let job = |them: &str| {
            job_key.map_or(String::new(), |key| {
                format!(": {key} makes a job of {them}")
            })
        };
        match (marked, self.len()) {
            (true, 1) => format!("marked {what}{}", job("it")),
            (true, n) => format!("marked {what} ({n} marked){}", job("them")),
            (false, 0) => format!("unmarked {what}: nothing is marked"),
            (false, n) => format!("unmarked {what} ({n} still marked)"),
        }
    }
}

/// A range as the prompt says it: `from 2026-11-16 to 2026-11-23 (UTC, the end excluded)`.
#[must_use]
pub fn range_of((from, to): Dates) -> String {
    format!(
        "from {} to {} (UTC, the end excluded)",
        DateParam::shown(from, "the start"),
        DateParam::shown(to, "now")
    )
}

/// When a question was asked, to the minute in UTC (the service's text when it is not
/// a time).
#[must_use]
pub fn asked_at(timestamp: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(timestamp).map_or_else(
        |_| crate::text::excerpt(timestamp, 40),
        |at| {
            at.with_timezone(&chrono::Utc)
                .format("%Y-%m-%d %H:%M UTC")
                .to_string()
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marking_twice_unmarks_and_each_keeps_what_was_seen() {
        let row = SearchRow {
            search_query: "sso saml".into(),
            hits: 29,
            ctr: 0.0,
            top_clicked_page: None,
            last_searched_at: "2026-11-20T10:00:00Z".into(),
        };
        let week = (
            Some(DateParam::parse("dateFrom", "2026-11-16").unwrap()),
            Some(DateParam::parse("dateTo", "2026-11-23").unwrap()),
        );
        let mut marks = SignalMarks::default();
        assert!(marks.toggle_query(&row, week));
        assert!(marks.has_query("sso saml"));
        let wanted = marks.wanted();
        assert_eq!(wanted.queries[0].hits, 29);
        assert_eq!(
            wanted.queries[0].range,
            "from 2026-11-16 to 2026-11-23 (UTC, the end excluded)"
        );
        assert!(!marks.toggle_query(&row, week));
        assert!(marks.is_empty());
        assert_eq!(asked_at("2026-11-20T10:00:00.000Z"), "2026-11-20 10:00 UTC");
        assert_eq!(asked_at("yesterday"), "yesterday");
    }
}
