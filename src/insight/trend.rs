//! Reading a trend: the totals of each bucket the journal did not keep, one `limit=1`
//! request each, a few at a time, with progress and a way to cancel. What was read is
//! returned even when the reading stopped, so it can be kept and its requests counted.

use std::sync::atomic::{AtomicU32, Ordering};

use futures_util::StreamExt as _;

use super::{Bucket, Cancel};
use crate::api::{ApiError, Client, VisitorTotals};

/// Requests in flight at once: quicker than one by one, gentle on the service.
const IN_FLIGHT: usize = 4;

/// How a reading ended.
#[derive(Debug)]
pub enum TrendEnd {
    /// Every bucket has its numbers.
    Finished,
    /// [`Cancel::cancel`] was called first.
    Cancelled,
    /// A request failed (a 429 among them): the reading stopped there.
    Failed(ApiError),
}

/// The result of [`read_trend`].
#[derive(Debug)]
pub struct TrendRead {
    /// Each bucket's totals, in the buckets' order: those known before and those read
    /// now; `None` for a bucket not read (the reading stopped first).
    pub totals: Vec<Option<VisitorTotals>>,
    /// The positions of the buckets read now, to store in the journal.
    pub read: Vec<usize>,
    /// Requests sent (the ones dropped by a cancel included), for the analytics budget.
    pub requests: u32,
    pub end: TrendEnd,
}

impl TrendRead {
    /// Every bucket's totals, when all are known.
    #[must_use]
    pub fn complete(&self) -> Option<Vec<VisitorTotals>> {
        self.totals.iter().copied().collect()
    }
}

/// Reads the buckets whose entry in `known` is `None` (those the journal did not keep,
/// or all with a refresh). `progress` sees (buckets done, buckets to read) after each.
pub async fn read_trend(
    client: &Client,
    buckets: &[Bucket],
    known: Vec<Option<VisitorTotals>>,
    mut progress: impl FnMut(usize, usize),
    cancel: &Cancel,
) -> TrendRead {
    let mut totals = known;
    totals.resize(buckets.len(), None);
    let missing: Vec<usize> = (0..buckets.len())
        .filter(|&i| totals[i].is_none())
        .collect();
    let sent = AtomicU32::new(0);
    let mut replies = futures_util::stream::iter(missing.iter().copied())
        .map(|index| {
            let sent = &sent;
            async move {
                sent.fetch_add(1, Ordering::SeqCst);
                (index, client.visitors(&buckets[index].query()).await)
            }
        })
        .buffered(IN_FLIGHT);
    let mut read = Vec::with_capacity(missing.len());
    let end = loop {
        let reply = tokio::select! {
            biased;
            () = cancel.cancelled() => break TrendEnd::Cancelled,
            reply = replies.next() => reply,
        };
        match reply {
            None => break TrendEnd::Finished,
            Some((index, Ok(page))) => {
                totals[index] = Some(page.totals);
                read.push(index);
                progress(read.len(), missing.len());
            }
            Some((_, Err(error))) => break TrendEnd::Failed(error),
        }
    };
    drop(replies);
    TrendRead {
        totals,
        read,
        requests: sent.load(Ordering::SeqCst),
        end,
    }
}
