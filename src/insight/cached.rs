//! The cached, budgeted trend read, once for both faces (`docdeck visitors trend` and the
//! console's chart): settled buckets come from the journal at no cost, the others are
//! read one `limit=1` request each once their cost is allowed, what was read is kept and
//! every request sent is counted, whether the reading finished or not. Each face reaches
//! the journal its own way ([`TrendCache`]) and words the cost its own way (`spend`).

use std::future::Future;

use super::trend::{TrendRead, read_trend};
use super::{Bucket, Cancel};
use chrono::{DateTime, Utc};

use crate::api::{Client, VisitorTotals};

/// A bucket's `[from, to)`, as the journal keeps it.
pub type BucketRange = (DateTime<Utc>, DateTime<Utc>);

/// The journal's side of a trend read, as a face reaches it.
pub trait TrendCache {
    /// Why the journal could not say what it keeps.
    type Error;

    /// The totals kept of each range (`None`: it must be read), as
    /// `Journal::trend_kept` gives them; all `None` with `refresh`.
    fn kept(
        &mut self,
        ranges: Vec<BucketRange>,
        refresh: bool,
    ) -> impl Future<Output = Result<Vec<Option<VisitorTotals>>, Self::Error>> + Send;

    /// Keeps buckets just read (`Journal::store_trend`). A failure is said by the face
    /// and does not stop the trend: the numbers were read.
    fn keep(&mut self, read: Vec<(BucketRange, VisitorTotals)>) -> impl Future<Output = ()> + Send;

    /// Counts analytics requests sent (`Journal::record_analytics`). A failure is said by
    /// the face.
    fn count(&mut self, requests: u32) -> impl Future<Output = ()> + Send;
}

/// What a trend costs before anything is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cost {
    /// Buckets to read: one analytics request each.
    pub requests: u32,
    /// Buckets the journal keeps, at no cost.
    pub kept: usize,
}

/// Reads the trend of `buckets` through `cache`. `spend` sees the cost first and may
/// refuse it (nothing is sent then); `progress` sees (buckets read, buckets to read).
/// The buckets read are kept and the requests counted even when the reading stopped
/// (a failure, `cancel`): [`TrendRead::end`] says how it ended.
///
/// # Errors
/// The cache could not say what it keeps, or `spend` refused.
pub async fn read_cached<C, E>(
    cache: &mut C,
    client: &Client,
    buckets: &[Bucket],
    refresh: bool,
    spend: impl FnOnce(&mut C, Cost) -> Result<(), E>,
    progress: impl FnMut(usize, usize),
    cancel: &Cancel,
) -> Result<TrendRead, E>
where
    C: TrendCache,
    E: From<C::Error>,
{
    let ranges: Vec<BucketRange> = buckets.iter().map(Bucket::range).collect();
    let known = cache.kept(ranges.clone(), refresh).await?;
    let missing = known.iter().filter(|k| k.is_none()).count();
    let cost = Cost {
        requests: u32::try_from(missing).unwrap_or(u32::MAX),
        kept: buckets.len() - missing,
    };
    spend(cache, cost)?;
    let read = read_trend(client, buckets, known, progress, cancel).await;
    cache.count(read.requests).await;
    let fresh: Vec<_> = read
        .read
        .iter()
        .filter_map(|&i| Some((*ranges.get(i)?, (*read.totals.get(i)?)?)))
        .collect();
    if !fresh.is_empty() {
        cache.keep(fresh).await;
    }
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ClientOptions;
    use crate::insight::By;
    use crate::insight::trend::TrendEnd;

    /// A journal that keeps every bucket it is asked about, and notes what it is told.
    #[derive(Default)]
    struct Keeps {
        counted: Vec<u32>,
        kept: usize,
    }

    impl TrendCache for Keeps {
        type Error = String;

        async fn kept(
            &mut self,
            ranges: Vec<BucketRange>,
            _refresh: bool,
        ) -> Result<Vec<Option<VisitorTotals>>, String> {
            Ok(vec![Some(VisitorTotals::default()); ranges.len()])
        }

        async fn keep(&mut self, read: Vec<(BucketRange, VisitorTotals)>) {
            self.kept += read.len();
        }

        async fn count(&mut self, requests: u32) {
            self.counted.push(requests);
        }
    }

    fn offline() -> Client {
        let url = url::Url::parse("http://127.0.0.1:9/").unwrap();
        let key = crate::secret::Secret::new("k");
        Client::new(ClientOptions::new(url, "p", key)).unwrap()
    }

    fn days() -> Vec<Bucket> {
        let from = chrono::DateTime::parse_from_rfc3339("2026-11-01T00:00:00Z").unwrap();
        let to = chrono::DateTime::parse_from_rfc3339("2026-11-04T00:00:00Z").unwrap();
        crate::insight::buckets::buckets(from.to_utc(), to.to_utc(), By::Day)
    }

    #[tokio::test]
    async fn buckets_the_journal_keeps_cost_nothing_and_nothing_is_sent() {
        let mut cache = Keeps::default();
        let mut seen = None;
        let read = read_cached(
            &mut cache,
            &offline(),
            &days(),
            false,
            |_, cost| {
                seen = Some(cost);
                Ok::<(), String>(())
            },
            |_, _| {},
            &Cancel::new(),
        )
        .await
        .unwrap();
        assert_eq!(
            seen,
            Some(Cost {
                requests: 0,
                kept: 3
            })
        );
        assert!(matches!(read.end, TrendEnd::Finished));
        assert_eq!(read.complete().map(|t| t.len()), Some(3));
        assert_eq!(cache.counted, vec![0]);
        assert_eq!(cache.kept, 0, "nothing read, nothing to keep");
    }

    #[tokio::test]
    async fn a_cost_refused_sends_nothing_and_counts_nothing() {
        let mut cache = Keeps::default();
        let read = read_cached(
            &mut cache,
            &offline(),
            &days(),
            false,
            |_, _| Err("too dear".to_owned()),
            |_, _| {},
            &Cancel::new(),
        )
        .await;
        assert_eq!(read.err().as_deref(), Some("too dear"));
        assert!(cache.counted.is_empty());
    }
}
