//! One list of the searches pane (the searches, or the assistant's unanswered
//! questions): the pages read so far of one range, read a page at a time with the
//! service's cursor, the request out (a reply to any other is dropped) and why the last
//! read failed. The rows read stay on screen while the next page is read or after a
//! failure.

use crate::api::DateParam;
use crate::api::signals::{AssistantPage, Conversation, SearchRow, SearchesPage, SignalsQuery};
use crate::tui::message::{Awaits, Generation};

/// The range a list was read over: `dateFrom`, `dateTo` (exclusive).
pub type Dates = (Option<DateParam>, Option<DateParam>);

/// What one page of a list adds.
#[derive(Debug, Clone, PartialEq)]
pub struct Taken<T> {
    pub rows: Vec<T>,
    /// The cursor of the page after it, while there is more.
    pub next_cursor: Option<String>,
    /// Rows the service sent (the questions: answered ones too).
    pub read: usize,
    /// The range's searches in all (`totalSearches`), when the page says.
    pub total: Option<u64>,
}

/// A row of one of the two lists: how a page gives them, their order, what tells them
/// apart.
pub trait Listed: Sized + Clone {
    type Page;
    fn take(page: Self::Page) -> Taken<Self>;
    /// The order shown: for the searches, the queries nobody clicked through first.
    fn arrange(rows: &mut [Self]);
    fn key(&self) -> &str;
}

impl Listed for SearchRow {
    type Page = SearchesPage;

    fn take(page: SearchesPage) -> Taken<Self> {
        Taken {
            read: page.searches.len(),
            rows: page.searches,
            next_cursor: page.next_cursor,
            total: Some(page.total_searches),
        }
    }

    fn arrange(rows: &mut [Self]) {
        rows.sort_by(|a, b| {
            unclicked(b)
                .cmp(&unclicked(a))
                .then(b.hits.cmp(&a.hits))
                .then_with(|| a.search_query.cmp(&b.search_query))
        });
    }

    fn key(&self) -> &str {
        &self.search_query
    }
}

/// Searched and nothing clicked: the sign of a page the docs lack.
#[must_use]
pub fn unclicked(row: &SearchRow) -> bool {
    row.top_clicked_page.is_none() || row.ctr.is_nan() || row.ctr <= 0.0
}

impl Listed for Conversation {
    type Page = AssistantPage;

    fn take(page: AssistantPage) -> Taken<Self> {
        let read = page.conversations.len();
        Taken {
            rows: page
                .conversations
                .into_iter()
                .filter(Conversation::unanswered)
                .collect(),
            next_cursor: page.next_cursor.filter(|_| page.has_more),
            read,
            total: None,
        }
    }

    /// Newest first, as the service sends them.
    fn arrange(_rows: &mut [Self]) {}

    fn key(&self) -> &str {
        &self.id
    }
}

/// The pages of a list read so far for one range: their rows, and where the next page is.
#[derive(Debug, Clone, PartialEq)]
pub struct Pages<T> {
    pub dates: Dates,
    pub rows: Vec<T>,
    pub next_cursor: Option<String>,
    /// Requests these rows were read in, one a page.
    pub requests: u32,
    /// Rows the service sent over those pages.
    pub read: usize,
    pub total: Option<u64>,
}

/// Why a list's last read failed or was not sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListError {
    /// A 429 paused analytics: the read waits for the pause to end.
    Paused(String),
    Failed(String),
}

impl ListError {
    #[must_use]
    pub fn text(&self) -> &str {
        match self {
            Self::Paused(text) | Self::Failed(text) => text,
        }
    }
}

/// One list: the pages read so far, the request out, the last error.
#[derive(Debug, Clone, PartialEq)]
pub struct SignalList<T> {
    pub pages: Option<Pages<T>>,
    out: Option<(Generation, SignalsQuery)>,
    pub error: Option<ListError>,
}

impl<T> Default for SignalList<T> {
    fn default() -> Self {
        Self {
            pages: None,
            out: None,
            error: None,
        }
    }
}

impl<T: Listed> SignalList<T> {
    /// The rows read so far (none before the first page).
    #[must_use]
    pub fn rows(&self) -> &[T] {
        self.pages.as_ref().map_or(&[], |pages| &pages.rows)
    }

    /// The cursor of the page after the rows read, while there is one.
    #[must_use]
    pub fn next_cursor(&self) -> Option<String> {
        self.pages
            .as_ref()
            .and_then(|pages| pages.next_cursor.clone())
    }

    #[must_use]
    pub fn is_fetching(&self) -> bool {
        self.out.is_some()
    }

    /// The request out, if one is.
    #[must_use]
    pub fn out(&self) -> Option<&(Generation, SignalsQuery)> {
        self.out.as_ref()
    }

    /// Whether the list has read `dates`, or is reading them.
    #[must_use]
    pub fn has(&self, dates: Dates) -> bool {
        let asked = |q: &SignalsQuery| (q.date_from, q.date_to) == dates;
        self.pages.as_ref().is_some_and(|p| p.dates == dates)
            || self.out.as_ref().is_some_and(|(_, q)| asked(q))
    }

    /// A request for `query` went out; one out before it is forgotten.
    pub fn fetch(&mut self, generation: Generation, query: SignalsQuery) {
        self.out = Some((generation, query));
        self.error = None;
    }

    /// A read could not be sent: said beside the rows read.
    pub fn refuse(&mut self, error: ListError) {
        self.out = None;
        self.error = Some(error);
    }

    /// The reply to request `generation`: a first page replaces the rows read, a next
    /// page of the same range adds to them. Returns whether it was taken.
    pub fn answer(&mut self, generation: Generation, result: Result<T::Page, ListError>) -> bool {
        if !self.awaits(generation) {
            return false;
        }
        let Some((_, query)) = self.out.take() else {
            return false;
        };
        let page = match result {
            Ok(page) => T::take(page),
            Err(error) => {
                self.error = Some(error);
                return true;
            }
        };
        let dates = (query.date_from, query.date_to);
        let pages = match self.pages.take() {
            Some(mut pages) if query.cursor.is_some() && pages.dates == dates => {
                for row in page.rows {
                    if !pages.rows.iter().any(|r| r.key() == row.key()) {
                        pages.rows.push(row);
                    }
                }
                pages.requests = pages.requests.saturating_add(1);
                pages.read = pages.read.saturating_add(page.read);
                pages.next_cursor = page.next_cursor;
                pages.total = page.total.or(pages.total);
                pages
            }
            _ => Pages {
                dates,
                rows: page.rows,
                next_cursor: page.next_cursor,
                requests: 1,
                read: page.read,
                total: page.total,
            },
        };
        self.pages = Some(pages);
        if let Some(pages) = &mut self.pages {
            T::arrange(&mut pages.rows);
        }
        self.error = None;
        true
    }
}

impl<T> Awaits for SignalList<T> {
    fn generation(&self) -> Option<Generation> {
        self.out.as_ref().map(|(generation, _)| *generation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::signals::Kind;

    pub(crate) fn search(query: &str, hits: u64, ctr: f64, page: Option<&str>) -> SearchRow {
        SearchRow {
            search_query: query.into(),
            hits,
            ctr,
            top_clicked_page: page.map(str::to_owned),
            last_searched_at: "2026-11-20T10:00:00Z".into(),
        }
    }

    fn searches(rows: Vec<SearchRow>, cursor: Option<&str>) -> SearchesPage {
        SearchesPage {
            total_searches: rows.iter().map(|r| r.hits).sum(),
            searches: rows,
            next_cursor: cursor.map(str::to_owned),
        }
    }

    fn query(cursor: Option<&str>) -> SignalsQuery {
        SignalsQuery {
            cursor: cursor.map(str::to_owned),
            ..SignalsQuery::new(Kind::Searches)
        }
    }

    fn order(list: &SignalList<SearchRow>) -> Vec<&str> {
        list.rows()
            .iter()
            .map(|r| r.search_query.as_str())
            .collect()
    }

    #[test]
    fn queries_nobody_clicked_through_come_first_then_by_searches() {
        let mut list = SignalList::default();
        list.fetch(Generation::test(1), query(None));
        let page = searches(
            vec![
                search("api key", 64, 0.8, Some("/auth")),
                search("sso saml", 29, 0.0, None),
                search("rotate", 12, 0.08, Some("/auth")),
                search("audit", 9, 0.0, None),
            ],
            Some("c2"),
        );
        assert!(list.answer(Generation::test(1), Ok(page)));
        assert_eq!(order(&list), ["sso saml", "audit", "api key", "rotate"]);
        assert_eq!(list.next_cursor().as_deref(), Some("c2"));
        // The next page joins the order.
        list.fetch(Generation::test(2), query(Some("c2")));
        let next = searches(vec![search("terraform", 16, 0.0, None)], None);
        assert!(list.answer(Generation::test(2), Ok(next)));
        assert_eq!(
            order(&list),
            ["sso saml", "terraform", "audit", "api key", "rotate"]
        );
        let pages = list.pages.as_ref().unwrap();
        assert_eq!(
            (pages.requests, pages.read, pages.next_cursor.as_deref()),
            (2, 5, None)
        );
    }

    #[test]
    fn a_reply_to_another_request_is_dropped_and_a_failure_keeps_the_rows() {
        let mut list = SignalList::default();
        list.fetch(Generation::test(1), query(None));
        list.fetch(Generation::test(2), query(None));
        let page = || searches(vec![search("a", 1, 0.0, None)], None);
        assert!(!list.answer(Generation::test(1), Ok(page())));
        assert!(list.answer(Generation::test(2), Ok(page())));
        list.fetch(Generation::test(3), query(None));
        let down = ListError::Failed("the service is down".into());
        assert!(list.answer(Generation::test(3), Err(down)));
        assert_eq!(order(&list), ["a"]);
        assert_eq!(
            list.error,
            Some(ListError::Failed("the service is down".into()))
        );
        list.fetch(Generation::test(4), query(None));
        assert_eq!(list.error, None, "a new read clears the error");
    }

    #[test]
    fn the_questions_list_holds_only_the_unanswered_and_counts_all_read() {
        let asked = |id: &str, status: &str| Conversation {
            id: id.into(),
            timestamp: "2026-11-20T10:00:00Z".into(),
            query: format!("question {id}"),
            response: String::new(),
            response_type: None,
            sources: Vec::new(),
            resolution_status: status.into(),
            query_category: None,
            page_url: None,
        };
        let page = AssistantPage {
            conversations: vec![
                asked("1", "unanswered"),
                asked("2", "answered"),
                asked("3", "unanswered"),
            ],
            next_cursor: Some("end".into()),
            has_more: false,
        };
        let taken = Conversation::take(page);
        assert_eq!(taken.read, 3);
        assert_eq!(
            taken.rows.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
            ["1", "3"]
        );
        assert_eq!(taken.next_cursor, None, "no more when hasMore is false");
    }
}
