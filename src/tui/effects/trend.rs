//! The chart's trend, read in the background through the one cached, budgeted trend read
//! (`insight::cached`): settled buckets come from the journal's cache at no cost, those
//! read after they settled are kept there, and every request sent is counted. Here is
//! only how the console reaches the journal and how it answers.

use std::convert::Infallible;

use chrono::Utc;
use tokio::sync::mpsc::UnboundedSender;

use super::Services;
use crate::api::VisitorTotals;
use crate::insight::Cancel;
use crate::insight::cached::{BucketRange, Cost, TrendCache, read_cached};
use crate::insight::trend::TrendEnd;
use crate::tui::message::{Generation, InsightMsg, Msg, TrendPlan};

/// What the app asked for.
pub(super) struct Read {
    pub generation: Generation,
    pub plan: TrendPlan,
    /// Requests it may send; more needed: `TrendNeeds`, and none sent.
    pub allow: u32,
    /// Read settled buckets too, rather than from the journal.
    pub refresh: bool,
}

/// The journal as the console reaches it: on the blocking pool; what fails is said on
/// the notice line and the trend goes on.
struct Journaled {
    s: Services,
    tx: UnboundedSender<Msg>,
}

impl TrendCache for Journaled {
    type Error = Infallible;

    async fn kept(
        &mut self,
        ranges: Vec<BucketRange>,
        refresh: bool,
    ) -> Result<Vec<Option<VisitorTotals>>, Infallible> {
        let count = ranges.len();
        let kept = self
            .s
            .journal(move |j, scope| j.trend_kept(scope, &ranges, Utc::now(), refresh))
            .await;
        Ok(kept.unwrap_or_else(|reason| {
            // Without the cache every bucket is read: slower, never wrong.
            let _ = self.tx.send(Msg::LocalFailure(reason));
            vec![None; count]
        }))
    }

    async fn keep(&mut self, read: Vec<(BucketRange, VisitorTotals)>) {
        let kept = self
            .s
            .journal(move |j, scope| j.store_trend(scope, &read, Utc::now()))
            .await;
        if let Err(reason) = kept {
            let _ = self.tx.send(Msg::LocalFailure(reason));
        }
    }

    async fn count(&mut self, requests: u32) {
        for msg in self.s.counted(requests).await {
            let _ = self.tx.send(msg);
        }
    }
}

/// More requests than the app allowed unasked: how many.
struct Needs(u32);

impl From<Infallible> for Needs {
    fn from(never: Infallible) -> Self {
        match never {}
    }
}

/// Reads the trend asked for, or answers `TrendNeeds` when it would take more than
/// `allow` requests. `cancel` stops it (Esc, another range): what was read is kept and
/// counted all the same.
pub(super) async fn run(s: Services, tx: UnboundedSender<Msg>, read: Read, cancel: Cancel) {
    let generation = read.generation;
    let buckets = read.plan.buckets();
    let client = s.client.clone();
    let mut journal = Journaled { s, tx: tx.clone() };
    let spend = |_: &mut Journaled, cost: Cost| {
        if cost.requests > read.allow {
            return Err(Needs(cost.requests));
        }
        Ok(())
    };
    let progress = |done: usize, of: usize| {
        let _ = tx.send(Msg::Insight(InsightMsg::TrendProgress {
            generation,
            done: u32::try_from(done).unwrap_or(u32::MAX),
            of: u32::try_from(of).unwrap_or(u32::MAX),
        }));
    };
    let read = read_cached(
        &mut journal,
        &client,
        &buckets,
        read.refresh,
        spend,
        progress,
        &cancel,
    )
    .await;
    let read = match read {
        Ok(read) => read,
        Err(Needs(requests)) => {
            let _ = tx.send(Msg::Insight(InsightMsg::TrendNeeds {
                generation,
                requests,
            }));
            return;
        }
    };
    let result = match read.end {
        TrendEnd::Failed(err) => Err(err),
        TrendEnd::Cancelled => return,
        TrendEnd::Finished => Ok(read.complete().unwrap_or_default()),
    };
    let _ = tx.send(Msg::Insight(InsightMsg::Trend {
        generation,
        result,
        requests: read.requests,
    }));
}
