//! The whole range, fetched in the background for the console: every row of the range
//! (and of the period before, when comparing), with progress and a cancel, each request
//! counted against the hour's analytics budget. A fetch may send `allow` requests: a
//! range that needs more stops there and says so, and the app asks before the rest.

use crate::tui::message::Generation;
use tokio::sync::mpsc::UnboundedSender;

use super::Services;
use crate::api::{ApiError, Client, VisitorsPage, VisitorsQuery};
use crate::insight::Cancel;
use crate::insight::whole::{Step, Whole, WholeRange};
use crate::tui::message::{InsightMsg, Msg, WholeEnd};

/// What the app asked for.
pub(super) struct Read {
    pub generation: Generation,
    pub query: VisitorsQuery,
    pub previous: Option<VisitorsQuery>,
    pub max_rows: usize,
    /// Requests it may send in all (both periods).
    pub allow: u32,
}

/// How one period's fetch ended.
enum Capped {
    Done(Whole),
    /// `allow` requests were sent and the range has more.
    NeedsMore,
    Cancelled,
    Failed(ApiError),
}

pub(super) async fn run(s: Services, tx: UnboundedSender<Msg>, read: Read, cancel: Cancel) {
    let generation = read.generation;
    let mut sent = 0;
    let mut fetch = Fetch {
        client: &s.client,
        tx: &tx,
        read: &read,
        cancel: &cancel,
        sent: &mut sent,
    };
    let result = match fetch.period(&read.query).await {
        Capped::Done(Whole::All(page)) => match &read.previous {
            None => Some(Ok(all(page, None))),
            Some(query) => match fetch.period(query).await {
                Capped::Done(Whole::All(old)) => Some(Ok(all(page, Some(old)))),
                Capped::Done(Whole::TooMany { .. }) => Some(Ok(all(page, None))),
                other => ended(other),
            },
        },
        other => ended(other),
    };
    for msg in s.counted(sent).await {
        let _ = tx.send(msg);
    }
    if let Some(result) = result {
        let _ = tx.send(Msg::Insight(InsightMsg::Whole {
            generation,
            result,
            requests: sent,
        }));
    }
}

/// How a fetch that did not bring every row ended; `None` when cancelled (nothing said).
fn ended(capped: Capped) -> Option<Result<WholeEnd, ApiError>> {
    match capped {
        Capped::Done(Whole::TooMany { max_rows, .. }) => Some(Ok(WholeEnd::TooMany { max_rows })),
        Capped::Done(Whole::All(page)) => Some(Ok(all(page, None))),
        Capped::NeedsMore => Some(Ok(WholeEnd::NeedsMore)),
        Capped::Cancelled | Capped::Done(Whole::Cancelled) => None,
        Capped::Failed(err) => Some(Err(err)),
    }
}

/// One fetch's shared state: what it may send, what it sent so far (both periods).
struct Fetch<'a> {
    client: &'a Client,
    tx: &'a UnboundedSender<Msg>,
    read: &'a Read,
    cancel: &'a Cancel,
    sent: &'a mut u32,
}

impl Fetch<'_> {
    /// Every row of `query`'s range, a page at a time, within what may be sent.
    async fn period(&mut self, query: &VisitorsQuery) -> Capped {
        let mut range = WholeRange::new(query, self.read.max_rows);
        let before = *self.sent;
        loop {
            if *self.sent >= self.read.allow {
                return Capped::NeedsMore;
            }
            let step = tokio::select! {
                biased;
                () = self.cancel.cancelled() => return Capped::Cancelled,
                step = range.step(self.client) => step,
            };
            *self.sent = before + range.requests();
            let progress = range.progress();
            let _ = self.tx.send(Msg::Insight(InsightMsg::WholeProgress {
                generation: self.read.generation,
                requests: *self.sent,
                rows: progress.rows,
                most: progress.most_requests,
            }));
            match step {
                Ok(Step::More) => {}
                Ok(Step::Done(whole)) => return Capped::Done(whole),
                Err(err) => return Capped::Failed(err),
            }
        }
    }
}

fn all(page: VisitorsPage, previous: Option<VisitorsPage>) -> WholeEnd {
    WholeEnd::All {
        page,
        previous: previous.map(|p| p.visitors),
    }
}
