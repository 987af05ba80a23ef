//! `docdeck searches --unclicked` (without `--all`): up to `--limit` queries nobody
//! clicked through, read on page after page until that many are found or the range ends.
//! The hosted export has no filter for them (../shared/api/FACTS.md: the searches
//! endpoint takes only dates, a limit and a cursor), so the CLI reads pages of the most
//! rows a request takes and keeps the unclicked ones. Every request is counted in the
//! analytics budget as `visitors` counts its own: refused when none is left, asked about
//! once past ten, at most [`MAX_PAGES`]. The cursor it answers with starts right after
//! the last query kept, so `--cursor` goes on without a gap or a repeat: when a page
//! holds more unclicked queries than are still wanted, the part up to the last one kept
//! is asked for again (one request more) to learn the cursor after it.

use std::collections::HashSet;

use crate::api::MAX_PAGES;
use crate::api::signals::{SearchRow, SearchesPage};

/// What reading on found: a page of unclicked queries with the cursor after the last,
/// the queries read to find them and the requests sent.
#[derive(Debug, Default)]
pub(super) struct Found {
    pub page: SearchesPage,
    pub read: usize,
    pub requests: u32,
}

/// Rows a request asks for while reading on: the most the endpoint takes.
pub(super) const READ_LIMIT: u32 = 100;

/// Up to `wanted` unclicked queries from `start` on. `fetch(cursor, limit)` sends one
/// request (the budget checked and counted by it); `found.requests` counts them, also
/// when one fails (the error then ends the reading).
pub(super) async fn read_on<E>(
    wanted: usize,
    start: Option<String>,
    fetch: &mut impl AsyncFnMut(Option<String>, u32) -> Result<SearchesPage, E>,
    stuck: impl Fn(&str) -> E,
) -> Result<Found, E> {
    let mut found = Found::default();
    let mut cursor = start;
    let mut seen = HashSet::new();
    loop {
        found.requests += 1;
        let page = fetch(cursor.clone(), READ_LIMIT).await?;
        found.page.total_searches = page.total_searches;
        let need = wanted.saturating_sub(found.page.searches.len());
        let unclicked: Vec<usize> = (0..page.searches.len())
            .filter(|&i| is_unclicked(&page.searches[i]))
            .collect();
        if unclicked.len() > need && need > 0 {
            // More here than wanted: keep `need`, and learn the cursor after the last.
            let last = unclicked[need - 1];
            found.read += last + 1;
            found
                .page
                .searches
                .extend(unclicked[..need].iter().map(|&i| page.searches[i].clone()));
            found.requests += 1;
            let upto = u32::try_from(last + 1).unwrap_or(READ_LIMIT);
            let exact = fetch(cursor, upto).await?;
            found.page.next_cursor = exact.next_cursor;
            return Ok(found);
        }
        found.read += page.searches.len();
        found
            .page
            .searches
            .extend(unclicked.iter().map(|&i| page.searches[i].clone()));
        found.page.next_cursor.clone_from(&page.next_cursor);
        let Some(next) = page.next_cursor else {
            return Ok(found);
        };
        if found.page.searches.len() >= wanted || found.requests >= MAX_PAGES {
            return Ok(found);
        }
        if !seen.insert(next.clone()) {
            return Err(stuck(&next));
        }
        cursor = Some(next);
    }
}

/// A query nobody clicked a result of: the sign of a page the docs lack.
pub(super) fn is_unclicked(row: &SearchRow) -> bool {
    row.top_clicked_page.is_none()
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

    async fn run(rows: &[SearchRow], wanted: usize, start: Option<String>) -> Found {
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
