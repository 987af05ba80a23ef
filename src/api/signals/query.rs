//! The query of the searches, feedback, feedback-by-page and assistant endpoints: the
//! range, the limit each allows, the cursor and the feedback filters. The client checks a
//! query with these rules before sending it; the local service parses with them.

use thiserror::Error;

use super::{FEEDBACK_SOURCES, FEEDBACK_STATUSES};
use crate::api::DateParam;
use crate::api::query::{QueryError, parse_sent_date, whole_number};

/// Which of the four endpoints a query is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Searches,
    Feedback,
    FeedbackByPage,
    Assistant,
}

impl Kind {
    /// The path after `/v1/analytics/{projectId}/`.
    #[must_use]
    pub fn segments(self) -> &'static [&'static str] {
        match self {
            Self::Searches => &["searches"],
            Self::Feedback => &["feedback"],
            Self::FeedbackByPage => &["feedback", "by-page"],
            Self::Assistant => &["assistant"],
        }
    }

    /// The largest `limit` the endpoint takes.
    #[must_use]
    pub fn max_limit(self) -> u32 {
        match self {
            Self::Assistant => 1000,
            _ => 100,
        }
    }

    /// The rows a page has when `limit` is not given.
    #[must_use]
    pub fn default_limit(self) -> u32 {
        match self {
            Self::Searches | Self::Feedback => 50,
            Self::FeedbackByPage => 10,
            Self::Assistant => 100,
        }
    }

    /// Whether the endpoint pages with a cursor (feedback by page has only a limit).
    #[must_use]
    pub fn pages(self) -> bool {
        self != Self::FeedbackByPage
    }

    /// Whether `source` and `status` filter it.
    #[must_use]
    pub fn filters(self) -> bool {
        matches!(self, Self::Feedback | Self::FeedbackByPage)
    }

    /// The parameters it reads; others are ignored, as the visitors endpoint does.
    fn known(self) -> &'static [&'static str] {
        match self {
            Self::Searches | Self::Assistant => &["dateFrom", "dateTo", "limit", "cursor"],
            Self::Feedback => &["dateFrom", "dateTo", "limit", "cursor", "source", "status"],
            Self::FeedbackByPage => &["dateFrom", "dateTo", "limit", "source", "status"],
        }
    }
}

/// A query the service would refuse.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SignalsQueryError {
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error("limit {value} is out of range: it must be between 1 and {max}")]
    Limit { value: String, max: u32 },
    #[error("{field} {value:?} is not one of {}", .allowed.join(", "))]
    NotOneOf {
        field: &'static str,
        value: String,
        allowed: &'static [&'static str],
    },
    #[error(
        "cursor {0:?} is not one this service gave: send the nextCursor of the page before, or none for the first page"
    )]
    Cursor(String),
}

/// One request to one of the four endpoints. `None` fields are left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignalsQuery {
    pub kind: Kind,
    pub date_from: Option<DateParam>,
    pub date_to: Option<DateParam>,
    pub limit: Option<u32>,
    pub cursor: Option<String>,
    pub source: Option<String>,
    pub status: Option<String>,
}

impl SignalsQuery {
    /// An empty query for `kind`: the whole history, the first page.
    #[must_use]
    pub fn new(kind: Kind) -> Self {
        Self {
            kind,
            date_from: None,
            date_to: None,
            limit: None,
            cursor: None,
            source: None,
            status: None,
        }
    }

    /// The service's rule: parses raw query pairs, refusing what the interface forbids.
    pub fn from_pairs<'a, I>(kind: Kind, pairs: I) -> Result<Self, SignalsQueryError>
    where
        I: IntoIterator<Item = (&'a str, &'a str)>,
    {
        let mut query = Self::new(kind);
        let mut seen = Vec::new();
        for (key, value) in pairs {
            if !kind.known().contains(&key) {
                continue;
            }
            if seen.contains(&key) {
                return Err(QueryError::Repeated(key.to_owned()).into());
            }
            seen.push(key);
            match key {
                "dateFrom" => query.date_from = Some(parse_sent_date("dateFrom", value)?),
                "dateTo" => query.date_to = Some(parse_sent_date("dateTo", value)?),
                "limit" => query.limit = Some(parse_limit(kind, value)?),
                "cursor" => query.cursor = Some(value.to_owned()),
                "source" => query.source = Some(one_of("source", value, &FEEDBACK_SOURCES)?),
                "status" => query.status = Some(statuses(value)?),
                _ => {}
            }
        }
        query.check_range()?;
        Ok(query)
    }

    /// The client's rule: what the service checks, and an empty range (dateTo is
    /// exclusive, so equal dates are always a mistake).
    pub fn validate(&self) -> Result<(), SignalsQueryError> {
        if let Some(limit) = self.limit
            && !(1..=self.kind.max_limit()).contains(&limit)
        {
            return Err(SignalsQueryError::Limit {
                value: limit.to_string(),
                max: self.kind.max_limit(),
            });
        }
        self.check_range()?;
        if let (Some(from), Some(to)) = (self.date_from, self.date_to)
            && from.instant() == to.instant()
        {
            return Err(QueryError::EmptyRange(from.to_string()).into());
        }
        Ok(())
    }

    fn check_range(&self) -> Result<(), SignalsQueryError> {
        match (self.date_from, self.date_to) {
            (Some(from), Some(to)) if from.instant() > to.instant() => Err(QueryError::Reversed {
                from: from.to_string(),
                to: to.to_string(),
            }
            .into()),
            _ => Ok(()),
        }
    }

    /// The query string pairs, in a stable order.
    #[must_use]
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let mut pairs = crate::api::query::range_pairs(self.date_from, self.date_to, self.limit);
        if let (true, Some(cursor)) = (self.kind.pages(), &self.cursor) {
            pairs.push(("cursor", cursor.clone()));
        }
        if self.kind.filters() {
            if let Some(source) = &self.source {
                pairs.push(("source", source.clone()));
            }
            if let Some(status) = &self.status {
                pairs.push(("status", status.clone()));
            }
        }
        pairs
    }

    /// The limit the service applies.
    #[must_use]
    pub fn effective_limit(&self) -> u32 {
        self.limit.unwrap_or(self.kind.default_limit())
    }
}

fn parse_limit(kind: Kind, value: &str) -> Result<u32, SignalsQueryError> {
    whole_number("limit", value, "send one such as 50")?;
    value
        .parse::<u32>()
        .ok()
        .filter(|limit| (1..=kind.max_limit()).contains(limit))
        .ok_or_else(|| SignalsQueryError::Limit {
            value: crate::text::excerpt(value, 32),
            max: kind.max_limit(),
        })
}

/// `status` is a comma-separated list of statuses, as the hosted service takes it.
fn statuses(value: &str) -> Result<String, SignalsQueryError> {
    value
        .split(',')
        .map(|one| one_of("status", one.trim(), &FEEDBACK_STATUSES))
        .collect::<Result<Vec<_>, _>>()
        .map(|all| all.join(","))
}

fn one_of(
    field: &'static str,
    value: &str,
    allowed: &'static [&'static str],
) -> Result<String, SignalsQueryError> {
    if allowed.contains(&value) {
        Ok(value.to_owned())
    } else {
        Err(SignalsQueryError::NotOneOf {
            field,
            value: crate::text::excerpt(value, 32),
            allowed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_endpoint_has_its_own_limit_and_parameters() {
        let pairs = [("limit", "1000"), ("cursor", "c1"), ("source", "agent")];
        let assistant = SignalsQuery::from_pairs(Kind::Assistant, pairs).unwrap();
        assert_eq!(assistant.limit, Some(1000));
        assert_eq!(assistant.source, None, "the assistant has no source filter");
        let err = SignalsQuery::from_pairs(Kind::Searches, pairs).unwrap_err();
        assert_eq!(
            err.to_string(),
            "limit 1000 is out of range: it must be between 1 and 100"
        );
        let by_page = SignalsQuery::from_pairs(Kind::FeedbackByPage, [("cursor", "x")]).unwrap();
        assert_eq!(by_page.cursor, None, "feedback by page has no cursor");
        assert_eq!(by_page.effective_limit(), 10);
    }

    #[test]
    fn feedback_filters_name_what_they_allow() {
        let err = SignalsQuery::from_pairs(Kind::Feedback, [("status", "open")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "status \"open\" is not one of pending, in_progress, resolved, dismissed"
        );
        let ok = SignalsQuery::from_pairs(Kind::Feedback, [("source", "thumbs_only")]).unwrap();
        assert_eq!(ok.to_pairs(), [("source", "thumbs_only".to_owned())]);
    }

    #[test]
    fn dates_follow_the_visitors_rules() {
        let err = SignalsQuery::from_pairs(
            Kind::Searches,
            [("dateFrom", "2026-11-02"), ("dateTo", "2026-11-01")],
        )
        .unwrap_err();
        assert!(err.to_string().contains("is after dateTo"), "{err}");
        let repeated = SignalsQuery::from_pairs(Kind::Assistant, [("limit", "5"), ("limit", "6")])
            .unwrap_err();
        assert_eq!(repeated.to_string(), "limit was given more than once");
    }
}
