//! The chart's trend, read in the background: each bucket is one visitors request with
//! `limit=1` for its range (the interface has no time series), its totals the bucket's
//! numbers; settled buckets come from the journal's cache and cost no request.

use tokio::sync::mpsc::UnboundedSender;

use super::Services;
use crate::insight::Cancel;
use crate::insight::trend::{TrendEnd, read_trend};
use crate::tui::app::TrendPlan;
use crate::tui::message::Msg;

/// Reads the trend of `plan`, or answers `TrendNeeds` when it would take more than
/// `allow` requests. `cancel` stops it (Esc, another range).
pub(super) async fn run(
    s: Services,
    tx: UnboundedSender<Msg>,
    generation: u64,
    plan: TrendPlan,
    allow: u32,
    cancel: Cancel,
) {
    let buckets = plan.buckets();
    let known = vec![None; buckets.len()];
    let missing = u32::try_from(known.iter().filter(|k| k.is_none()).count()).unwrap_or(u32::MAX);
    if missing > allow {
        let _ = tx.send(Msg::TrendNeeds {
            generation,
            requests: missing,
        });
        return;
    }
    let progress = |done: usize, of: usize| {
        let _ = tx.send(Msg::TrendProgress {
            generation,
            done: u32::try_from(done).unwrap_or(u32::MAX),
            of: u32::try_from(of).unwrap_or(u32::MAX),
        });
    };
    let read = read_trend(&s.client, &buckets, known, progress, &cancel).await;
    let result = match read.end {
        TrendEnd::Failed(err) => Err(err),
        TrendEnd::Cancelled => return,
        TrendEnd::Finished => Ok(read.complete().unwrap_or_default()),
    };
    let _ = tx.send(Msg::Trend {
        generation,
        result,
        requests: read.requests,
    });
}
