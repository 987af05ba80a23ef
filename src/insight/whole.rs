//! Every row of a range, so a table can be sorted and filtered as a whole: pages of 250
//! following `hasMore`, up to a threshold of rows. Above it the outcome says so, and the
//! face stays in server paging (the console says why). The same checks as
//! `Client::visitors_all` stop a server whose paging never ends or repeats itself.

use crate::api::paging::judge;
use crate::api::query::MAX_LIMIT;
use crate::api::{
    ApiError, Client, MAX_PAGES, PagingFault, PathVisitors, VisitorsPage, VisitorsQuery,
};

use super::Cancel;

/// Rows read at most unless set otherwise: 20 requests of 250.
pub const DEFAULT_MAX_ROWS: usize = 5_000;

/// The largest threshold taken: what `Client::visitors_all` fetches at most
/// ([`MAX_PAGES`] pages, the hourly budget); a larger one is capped at this.
pub const MOST_MAX_ROWS: usize = MAX_PAGES as usize * MAX_LIMIT as usize;

/// How a whole-range fetch ended, when no request failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Whole {
    /// Every row of the range, with its totals; `has_more` is false.
    All(VisitorsPage),
    /// The range has more than `max_rows` rows: the face stays in server paging. `read`
    /// is what was fetched (the first pages, in the service's order).
    TooMany { max_rows: usize, read: VisitorsPage },
    /// [`Cancel::cancel`] was called before the end.
    Cancelled,
}

/// After each page: how far a fetch has come, for a progress line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Requests sent so far.
    pub requests: u32,
    /// Rows read so far.
    pub rows: usize,
    /// The most requests the fetch can take (it may end sooner).
    pub most_requests: u32,
}

/// A fetch that ended, with the requests it made (for the analytics budget), whether it
/// finished, was cancelled or failed.
#[derive(Debug)]
pub struct Fetched {
    pub requests: u32,
    pub outcome: Result<Whole, ApiError>,
}

/// One request's result, from [`WholeRange::step`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A page was added and there are more to fetch.
    More,
    /// The fetch is over (never [`Whole::Cancelled`]).
    Done(Whole),
}

/// A whole-range fetch in progress.
#[derive(Debug, Clone)]
pub struct WholeRange {
    query: VisitorsQuery,
    max_rows: usize,
    read: Option<VisitorsPage>,
    previous: Vec<PathVisitors>,
    requests: u32,
}

impl WholeRange {
    /// A fetch of `query`'s range (its limit and offset are replaced: pages of 250 from
    /// the start) holding at most `max_rows` rows (at least 1, at most [`MOST_MAX_ROWS`]).
    #[must_use]
    pub fn new(query: &VisitorsQuery, max_rows: usize) -> Self {
        Self {
            query: VisitorsQuery {
                limit: Some(MAX_LIMIT),
                offset: None,
                ..query.clone()
            },
            max_rows: max_rows.clamp(1, MOST_MAX_ROWS),
            read: None,
            previous: Vec::new(),
            requests: 0,
        }
    }

    /// Requests sent so far.
    #[must_use]
    pub fn requests(&self) -> u32 {
        self.requests
    }

    /// The most requests the whole fetch can take: enough pages to pass the threshold.
    #[must_use]
    pub fn most_requests(&self) -> u32 {
        u32::try_from(self.max_rows.div_ceil(MAX_LIMIT as usize)).unwrap_or(MAX_PAGES)
    }

    /// The threshold in force (after clamping).
    #[must_use]
    pub fn max_rows(&self) -> usize {
        self.max_rows
    }

    /// How far the fetch has come.
    #[must_use]
    pub fn progress(&self) -> Progress {
        Progress {
            requests: self.requests,
            rows: self.read.as_ref().map_or(0, |page| page.visitors.len()),
            most_requests: self.most_requests(),
        }
    }

    /// Sends the next request and takes its page in. A page that breaks paging (empty,
    /// repeated or short while `hasMore`) ends the fetch with [`ApiError::BrokenPaging`].
    pub async fn step(&mut self, client: &Client) -> Result<Step, ApiError> {
        self.requests += 1;
        let page = client.visitors(&self.query).await?;
        // The threshold (at most MAX_PAGES pages) ends the fetch before paging's own
        // limit of pages would.
        let fault = judge(&page, &self.previous, MAX_LIMIT, self.requests)
            .filter(|fault| !matches!(fault, PagingFault::TooMany { .. }));
        if let Some(fault) = fault {
            return Err(ApiError::BrokenPaging {
                offset: self.query.effective_offset(),
                fault,
            });
        }
        let has_more = page.has_more;
        let read = self.read.get_or_insert_with(|| VisitorsPage {
            totals: page.totals,
            ..VisitorsPage::default()
        });
        read.visitors.extend(page.visitors.iter().cloned());
        read.has_more = has_more;
        let rows = read.visitors.len();
        if rows > self.max_rows || (has_more && rows >= self.max_rows) {
            return Ok(Step::Done(Whole::TooMany {
                max_rows: self.max_rows,
                read: read.clone(),
            }));
        }
        if !has_more {
            return Ok(Step::Done(Whole::All(read.clone())));
        }
        self.previous = page.visitors;
        self.query = self.query.next_page();
        Ok(Step::More)
    }

    /// Fetches to the end. `progress` sees each page taken in; `cancel` stops the fetch
    /// at once, dropping a request in flight (it still counts as sent).
    pub async fn run(
        mut self,
        client: &Client,
        mut progress: impl FnMut(Progress),
        cancel: &Cancel,
    ) -> Fetched {
        loop {
            let step = tokio::select! {
                biased;
                () = cancel.cancelled() => Ok(None),
                step = self.step(client) => step.map(Some),
            };
            let outcome = match step {
                Ok(None) => Ok(Whole::Cancelled),
                Ok(Some(Step::More)) => {
                    progress(self.progress());
                    continue;
                }
                Ok(Some(Step::Done(whole))) => {
                    progress(self.progress());
                    Ok(whole)
                }
                Err(error) => Err(error),
            };
            return Fetched {
                requests: self.requests,
                outcome,
            };
        }
    }
}

/// The whole range, as it ended (a convenience for a face that does not step).
pub async fn fetch_whole(
    client: &Client,
    query: &VisitorsQuery,
    max_rows: usize,
    progress: impl FnMut(Progress),
    cancel: &Cancel,
) -> Fetched {
    WholeRange::new(query, max_rows)
        .run(client, progress, cancel)
        .await
}
