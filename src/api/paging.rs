//! Following `hasMore` through every page of visitors without trusting it: a server that
//! never stops paging (or repeats itself) costs a few requests, not an hour's budget.

use thiserror::Error;

use super::client::Client;
use super::error::{ApiError, PagingFault};
use super::model::VisitorsPage;
use super::query::{MAX_LIMIT, VisitorsQuery};

/// The most pages one [`Client::visitors_all`] asks for: the analytics API's hourly budget
/// (100 requests), so one fetch never spends more than an hour of it. With the default
/// page size of 250 that is 25,000 rows; a range with more must be split.
pub const MAX_PAGES: u32 = 100;

/// A [`Client::visitors_all`] that ended early, with the rows it had fetched before.
/// Its text is the error's alone, so it reads as the error does.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{error}")]
pub struct Incomplete {
    /// Why it stopped: a failed call, or [`ApiError::BrokenPaging`].
    pub error: ApiError,
    /// Every row fetched before it stopped, in order, with the first page's totals and
    /// `has_more` set (there were more). `None` when not even the first page came.
    pub kept: Option<VisitorsPage>,
}

impl From<Incomplete> for ApiError {
    fn from(incomplete: Incomplete) -> Self {
        incomplete.error
    }
}

impl Client {
    /// Every page of the range, following `hasMore`. Without a `limit` in the query, pages
    /// of the largest size are asked for, to spend as few calls of the hourly budget as
    /// possible.
    ///
    /// `hasMore` is not trusted to end: paging stops with [`ApiError::BrokenPaging`] (which
    /// says why and at what offset) at the first page that, while `hasMore` is still true,
    /// is empty, repeats the rows of the page before, or is shorter than the limit asked;
    /// and once [`MAX_PAGES`] pages have come and there are still more. A broken server
    /// thus costs at most two requests, a never-ending one at most [`MAX_PAGES`].
    ///
    /// `progress` sees each page that is kept, as it arrives (not an empty or repeated
    /// one). On any failure, [`Incomplete::kept`] holds the rows kept so far, so a caller
    /// such as the console's export can still offer them; `?` turns it into its
    /// [`ApiError`].
    pub async fn visitors_all(
        &self,
        query: &VisitorsQuery,
        mut progress: impl FnMut(&VisitorsPage),
    ) -> Result<VisitorsPage, Incomplete> {
        let mut query = query.clone();
        let asked = *query.limit.get_or_insert(MAX_LIMIT);
        let mut kept: Option<VisitorsPage> = None;
        let mut previous = Vec::new();
        let mut pages = 0u32;
        loop {
            let page = match self.visitors(&query).await {
                Ok(page) => page,
                Err(error) => return Err(Incomplete { error, kept }),
            };
            pages += 1;
            let fault = judge(&page, &previous, asked, pages);
            if !matches!(fault, Some(PagingFault::Empty | PagingFault::Repeated)) {
                progress(&page);
                match kept.as_mut() {
                    None => kept = Some(page.clone()),
                    Some(all) => all.visitors.extend(page.visitors.iter().cloned()),
                }
            }
            let next = query.next_page();
            if let Some(fault) = fault {
                let at = match fault {
                    PagingFault::TooMany { .. } => &next,
                    _ => &query,
                };
                let error = ApiError::BrokenPaging {
                    offset: at.effective_offset(),
                    fault,
                };
                return Err(Incomplete { error, kept });
            }
            if !page.has_more {
                let mut all = kept.unwrap_or(page);
                all.has_more = false;
                return Ok(all);
            }
            previous = page.visitors;
            query = next;
        }
    }
}

/// What is wrong with a page that says there are more, if anything (also the rule of
/// `crate::insight::whole`): `pages` have come so
/// far, this one included.
pub(crate) fn judge(
    page: &VisitorsPage,
    previous: &[super::model::PathVisitors],
    asked: u32,
    pages: u32,
) -> Option<PagingFault> {
    if !page.has_more {
        return None;
    }
    let got = page.visitors.len();
    if got == 0 {
        Some(PagingFault::Empty)
    } else if page.visitors == previous {
        Some(PagingFault::Repeated)
    } else if got < asked as usize {
        Some(PagingFault::Short { got, asked })
    } else if pages >= MAX_PAGES {
        Some(PagingFault::TooMany { pages })
    } else {
        None
    }
}
