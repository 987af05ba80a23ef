//! The chart's trend, read in the background: each bucket is one visitors request with
//! `limit=1` for its range (the interface has no time series), its totals the bucket's
//! numbers; settled buckets come from the journal's cache and cost no request.

use tokio::sync::mpsc::UnboundedSender;

use super::Services;
use crate::api::{DateParam, VisitorsQuery};
use crate::tui::app::{Bucket, TrendPlan};
use crate::tui::message::Msg;

/// Reads the trend of `plan`, or answers `TrendNeeds` when it would take more than
/// `allow` requests.
pub(super) async fn run(
    s: Services,
    tx: UnboundedSender<Msg>,
    generation: u64,
    plan: TrendPlan,
    allow: u32,
) {
    let ranges = plan.ranges();
    let of = u32::try_from(ranges.len()).unwrap_or(u32::MAX);
    if of > allow {
        let _ = tx.send(Msg::TrendNeeds {
            generation,
            requests: of,
        });
        return;
    }
    let mut buckets = Vec::with_capacity(ranges.len());
    let mut requests = 0;
    for (from, to) in ranges {
        let query = VisitorsQuery {
            date_from: Some(DateParam::from_date(from)),
            date_to: Some(DateParam::from_date(to)),
            limit: Some(1),
            offset: Some(0),
        };
        requests += 1;
        match s.client.visitors(&query).await {
            Ok(page) => buckets.push(Bucket {
                from,
                to,
                human: page.totals.human,
                ai: page.totals.ai,
                total: page.totals.total,
            }),
            Err(err) => {
                let _ = tx.send(Msg::Trend {
                    generation,
                    result: Err(err),
                    requests,
                });
                return;
            }
        }
        let done = u32::try_from(buckets.len()).unwrap_or(u32::MAX);
        let _ = tx.send(Msg::TrendProgress {
            generation,
            done,
            of,
        });
    }
    let _ = tx.send(Msg::Trend {
        generation,
        result: Ok(buckets),
        requests,
    });
}
