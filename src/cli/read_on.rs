//! `docdeck searches --unclicked` and `docdeck assistant --unanswered` (without `--all`):
//! up to `--limit` queries nobody clicked through, or questions the assistant could not
//! answer, read on page after page until that many are found or the range ends. The
//! hosted export has no filter for them (../shared/api/FACTS.md: these endpoints take
//! only dates, a limit and a cursor), so the CLI reads pages of the most rows a request
//! takes and keeps the rows asked for. Every request is counted in the analytics budget
//! as `visitors` counts its own: refused when none is left, asked about once past ten, at
//! most [`MAX_PAGES`]. The cursor it answers with starts right after the last row kept,
//! so `--cursor` goes on without a gap or a repeat: when a page holds more of them than
//! are still wanted, the part up to the last one kept is asked for again (one request
//! more) to learn the cursor after it.

use std::collections::HashSet;

use crate::api::MAX_PAGES;
use crate::api::signals::{AssistantPage, Conversation, SearchRow, SearchesPage};

/// A page of an endpoint whose rows are read on for the ones [`Filtered::kept`] keeps.
pub(super) trait Filtered: Default {
    type Row: Clone;
    /// Rows a request asks for while reading on.
    const READ_LIMIT: u32;
    fn rows(&self) -> &[Self::Row];
    fn rows_mut(&mut self) -> &mut Vec<Self::Row>;
    /// The cursor of the next page, when there is one.
    fn next(&self) -> Option<String>;
    fn set_next(&mut self, next: Option<String>);
    fn kept(row: &Self::Row) -> bool;
    /// What a page says of the whole range besides its rows, kept from the last page.
    fn take_totals(&mut self, _from: &Self) {}
}

impl Filtered for SearchesPage {
    type Row = SearchRow;
    const READ_LIMIT: u32 = 100;
    fn rows(&self) -> &[SearchRow] {
        &self.searches
    }
    fn rows_mut(&mut self) -> &mut Vec<SearchRow> {
        &mut self.searches
    }
    fn next(&self) -> Option<String> {
        self.next_cursor.clone()
    }
    fn set_next(&mut self, next: Option<String>) {
        self.next_cursor = next;
    }
    /// A query nobody clicked a result of: the sign of a page the docs lack.
    fn kept(row: &SearchRow) -> bool {
        row.top_clicked_page.is_none()
    }
    fn take_totals(&mut self, from: &Self) {
        self.total_searches = from.total_searches;
    }
}

impl Filtered for AssistantPage {
    type Row = Conversation;
    /// As the console's searches pane reads them.
    const READ_LIMIT: u32 = 200;
    fn rows(&self) -> &[Conversation] {
        &self.conversations
    }
    fn rows_mut(&mut self) -> &mut Vec<Conversation> {
        &mut self.conversations
    }
    fn next(&self) -> Option<String> {
        self.next_cursor.clone().filter(|_| self.has_more)
    }
    fn set_next(&mut self, next: Option<String>) {
        self.has_more = next.is_some();
        self.next_cursor = next;
    }
    fn kept(row: &Conversation) -> bool {
        row.unanswered()
    }
}

/// What reading on found: a page of the rows kept with the cursor after the last, the
/// rows read to find them and the requests sent.
#[derive(Debug, Default)]
pub(super) struct Found<P> {
    pub page: P,
    pub read: usize,
    pub requests: u32,
}

/// Up to `wanted` rows [`Filtered::kept`] keeps from `start` on. `fetch(cursor, limit)`
/// sends one request (the budget checked and counted by it); `found.requests` counts
/// them, also when one fails (the error then ends the reading).
pub(super) async fn read_on<P: Filtered, E>(
    wanted: usize,
    start: Option<String>,
    fetch: &mut impl AsyncFnMut(Option<String>, u32) -> Result<P, E>,
    stuck: impl Fn(&str) -> E,
) -> Result<Found<P>, E> {
    let mut found = Found::<P>::default();
    let mut cursor = start;
    let mut seen = HashSet::new();
    loop {
        found.requests += 1;
        let page = fetch(cursor.clone(), P::READ_LIMIT).await?;
        found.page.take_totals(&page);
        let need = wanted.saturating_sub(found.page.rows().len());
        let kept: Vec<usize> = (0..page.rows().len())
            .filter(|&i| P::kept(&page.rows()[i]))
            .collect();
        if kept.len() > need && need > 0 {
            // More here than wanted: keep `need`, and learn the cursor after the last.
            let last = kept[need - 1];
            found.read += last + 1;
            let rows = kept[..need].iter().map(|&i| page.rows()[i].clone());
            found.page.rows_mut().extend(rows);
            found.requests += 1;
            let upto = u32::try_from(last + 1).unwrap_or(P::READ_LIMIT);
            let exact = fetch(cursor, upto).await?;
            found.page.set_next(exact.next());
            return Ok(found);
        }
        found.read += page.rows().len();
        let rows = kept.iter().map(|&i| page.rows()[i].clone());
        found.page.rows_mut().extend(rows);
        found.page.set_next(page.next());
        let Some(next) = page.next() else {
            return Ok(found);
        };
        if found.page.rows().len() >= wanted || found.requests >= MAX_PAGES {
            return Ok(found);
        }
        if !seen.insert(next.clone()) {
            return Err(stuck(&next));
        }
        cursor = Some(next);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A service of `rows` queries (`u` nobody clicked), paged by an offset cursor.
    fn row(name: &str, clicked: bool) -> SearchRow {
        SearchRow {
            search_query: name.to_owned(),
            hits: 1,
            ctr: if clicked { 1.0 } else { 0.0 },
            top_clicked_page: clicked.then(|| "/p".to_owned()),
            last_searched_at: "2026-11-20T00:00:00Z".to_owned(),
        }
    }

    fn service(rows: &[SearchRow], cursor: Option<String>, limit: u32) -> SearchesPage {
        let from: usize = cursor.map_or(0, |c| c.parse().unwrap());
        let to = (from + limit as usize).min(rows.len());
        SearchesPage {
            searches: rows[from..to].to_vec(),
            total_searches: rows.len() as u64,
            next_cursor: (to < rows.len()).then(|| to.to_string()),
        }
    }

    fn names(page: &SearchesPage) -> Vec<&str> {
        page.searches
            .iter()
            .map(|r| r.search_query.as_str())
            .collect()
    }

    async fn run(rows: &[SearchRow], wanted: usize, start: Option<String>) -> Found<SearchesPage> {
        let mut fetch = async |cursor: Option<String>, limit: u32| {
            Ok::<_, String>(service(rows, cursor, limit))
        };
        read_on(wanted, start, &mut fetch, |c| c.to_owned())
            .await
            .unwrap()
    }

    /// The trial: 263 queries, the unclicked ones past the first page of 3.
    fn trial() -> Vec<SearchRow> {
        (0..263)
            .map(|i| row(&format!("q{i}"), ![150, 200, 201, 250].contains(&i)))
            .collect()
    }

    #[tokio::test]
    async fn reads_on_until_the_limit_is_found_and_the_cursor_goes_on_without_a_gap() {
        let rows = trial();
        let found = run(&rows, 3, None).await;
        assert_eq!(names(&found.page), ["q150", "q200", "q201"]);
        assert_eq!(found.read, 202);
        assert_eq!(
            found.requests, 4,
            "two pages of 100, a third, and its part again"
        );
        let cursor = found.page.next_cursor.clone();
        assert_eq!(cursor.as_deref(), Some("202"));
        let rest = run(&rows, 3, cursor).await;
        assert_eq!(names(&rest.page), ["q250"]);
        assert_eq!(rest.page.next_cursor, None, "the range ends");
        assert_eq!(rest.read, 61);
    }

    #[tokio::test]
    async fn stops_at_the_page_that_fills_the_limit_exactly() {
        let rows = trial();
        let found = run(&rows, 4, None).await;
        assert_eq!(names(&found.page), ["q150", "q200", "q201", "q250"]);
        assert_eq!(found.requests, 3);
        assert_eq!(found.page.next_cursor, None);
    }

    #[tokio::test]
    async fn a_cursor_sent_twice_ends_the_reading() {
        let rows = trial();
        let mut fetch = async |_cursor: Option<String>, limit: u32| {
            let mut page = service(&rows, None, limit);
            page.next_cursor = Some("again".to_owned());
            Ok::<_, String>(page)
        };
        let err = read_on(3, None, &mut fetch, |c| format!("twice: {c}"))
            .await
            .unwrap_err();
        assert_eq!(err, "twice: again");
    }
}
