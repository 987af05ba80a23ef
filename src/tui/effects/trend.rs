//! The chart's trend, read in the background: each bucket is one visitors request with
//! `limit=1` for its range (the interface has no time series), its totals the bucket's
//! numbers. Settled buckets come from the journal's cache and cost no request; those
//! read after they settled are kept there, and every request sent is counted.

use crate::tui::message::Generation;
use chrono::Utc;
use tokio::sync::mpsc::UnboundedSender;

use super::Services;
use crate::insight::Cancel;
use crate::insight::trend::{TrendEnd, read_trend};
use crate::tui::message::TrendPlan;
use crate::tui::message::{InsightMsg, Msg};

/// What the app asked for.
pub(super) struct Ask {
    pub generation: Generation,
    pub plan: TrendPlan,
    /// Requests it may send; more needed: `TrendNeeds`, and none sent.
    pub allow: u32,
    /// Read settled buckets too, rather than from the journal.
    pub refresh: bool,
}

/// Reads the trend asked for, or answers `TrendNeeds` when it would take more than
/// `allow` requests. `cancel` stops it (Esc, another range): what was read is kept and
/// counted all the same.
pub(super) async fn run(s: Services, tx: UnboundedSender<Msg>, ask: Ask, cancel: Cancel) {
    let generation = ask.generation;
    let buckets = ask.plan.buckets();
    let ranges: Vec<_> = buckets.iter().map(|b| (b.from, b.to)).collect();
    let refresh = ask.refresh;
    let kept = {
        let ranges = ranges.clone();
        s.journal(move |j, scope| j.trend_kept(scope, &ranges, Utc::now(), refresh))
            .await
    };
    let known = match kept {
        Ok(known) => known,
        Err(reason) => {
            // Without the cache every bucket is read: slower, never wrong.
            let _ = tx.send(Msg::LocalFailure(reason));
            vec![None; buckets.len()]
        }
    };
    let missing = known.iter().filter(|k| k.is_none()).count();
    let missing = u32::try_from(missing).unwrap_or(u32::MAX);
    if missing > ask.allow {
        let _ = tx.send(Msg::Insight(InsightMsg::TrendNeeds {
            generation,
            requests: missing,
        }));
        return;
    }
    let progress = |done: usize, of: usize| {
        let _ = tx.send(Msg::Insight(InsightMsg::TrendProgress {
            generation,
            done: u32::try_from(done).unwrap_or(u32::MAX),
            of: u32::try_from(of).unwrap_or(u32::MAX),
        }));
    };
    let read = read_trend(&s.client, &buckets, known, progress, &cancel).await;
    let fresh: Vec<_> = read
        .read
        .iter()
        .filter_map(|&i| Some((ranges[i], read.totals[i]?)))
        .collect();
    if !fresh.is_empty()
        && let Err(reason) = s
            .journal(move |j, scope| j.store_trend(scope, &fresh, Utc::now()))
            .await
    {
        let _ = tx.send(Msg::LocalFailure(reason));
    }
    for msg in s.counted(read.requests).await {
        let _ = tx.send(msg);
    }
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
