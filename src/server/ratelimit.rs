//! Rolling-hour rate limits of the local service, per project and per kind of call.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Which budget a call spends. Create and message have separate budgets, as documented.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bucket {
    Create,
    Message,
    Analytics,
    /// A page widget's feedback, counted per project and address.
    Feedback,
}

/// A use that was counted; give it back with [`RateLimiter::release`] if the call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permit {
    project: String,
    bucket: Bucket,
    at: Instant,
}

/// What a bucket has left, as the `RateLimit-*` headers state it to clients: the limit,
/// the uses left, and the seconds until the oldest use leaves the window (0 when none is
/// counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub limit: u32,
    pub remaining: u32,
    pub reset_secs: u64,
}

/// Allows `limit` uses per project and bucket in any window of `window`.
#[derive(Debug)]
pub struct RateLimiter {
    limit: usize,
    window: Duration,
    uses: Mutex<HashMap<(String, Bucket), VecDeque<Instant>>>,
}

impl RateLimiter {
    #[must_use]
    pub fn new(limit: u32, window: Duration) -> Self {
        Self {
            limit: limit as usize,
            window,
            uses: Mutex::new(HashMap::new()),
        }
    }

    /// Counts a use, or says how long until the oldest use leaves the window.
    pub fn try_acquire(
        &self,
        project: &str,
        bucket: Bucket,
        now: Instant,
    ) -> Result<Permit, Duration> {
        let mut uses = self
            .uses
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let times = uses.entry((project.to_owned(), bucket)).or_default();
        while times
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) >= self.window)
        {
            times.pop_front();
        }
        if times.len() >= self.limit {
            let oldest = times.front().copied().unwrap_or(now);
            return Err((oldest + self.window).saturating_duration_since(now));
        }
        times.push_back(now);
        Ok(Permit {
            project: project.to_owned(),
            bucket,
            at: now,
        })
    }

    /// Uses allowed per window.
    #[must_use]
    pub fn limit(&self) -> u32 {
        u32::try_from(self.limit).unwrap_or(u32::MAX)
    }

    /// The rolling window the limit counts over.
    #[must_use]
    pub fn window(&self) -> Duration {
        self.window
    }

    /// What `bucket` of `project` has left at `now`.
    pub fn usage(&self, project: &str, bucket: Bucket, now: Instant) -> Usage {
        let uses = self
            .uses
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let live: Vec<Instant> = uses
            .get(&(project.to_owned(), bucket))
            .map(|times| {
                times
                    .iter()
                    .copied()
                    .filter(|t| now.saturating_duration_since(*t) < self.window)
                    .collect()
            })
            .unwrap_or_default();
        let reset_secs = live.first().map_or(0, |oldest| {
            retry_after_secs((*oldest + self.window).saturating_duration_since(now))
        });
        Usage {
            limit: u32::try_from(self.limit).unwrap_or(u32::MAX),
            remaining: u32::try_from(self.limit.saturating_sub(live.len())).unwrap_or(0),
            reset_secs,
        }
    }

    /// Gives a use back: the call it was taken for was refused, so it does not count.
    pub fn release(&self, permit: Permit) {
        let mut uses = self
            .uses
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(times) = uses.get_mut(&(permit.project, permit.bucket))
            && let Some(index) = times.iter().rposition(|t| *t == permit.at)
        {
            times.remove(index);
        }
    }
}

/// `Retry-After` in whole seconds, never zero.
#[must_use]
pub fn retry_after_secs(wait: Duration) -> u64 {
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR: Duration = Duration::from_secs(3600);

    #[test]
    fn the_window_rolls_and_buckets_are_separate() {
        let limiter = RateLimiter::new(2, HOUR);
        let start = Instant::now();
        limiter.try_acquire("p", Bucket::Create, start).unwrap();
        limiter
            .try_acquire("p", Bucket::Create, start + Duration::from_secs(10))
            .unwrap();
        let wait = limiter
            .try_acquire("p", Bucket::Create, start + Duration::from_secs(20))
            .unwrap_err();
        assert_eq!(wait, HOUR - Duration::from_secs(20));
        limiter.try_acquire("p", Bucket::Message, start).unwrap();
        limiter.try_acquire("q", Bucket::Create, start).unwrap();
        limiter
            .try_acquire("p", Bucket::Create, start + HOUR)
            .unwrap();
    }

    #[test]
    fn released_uses_do_not_count() {
        let limiter = RateLimiter::new(1, HOUR);
        let now = Instant::now();
        let permit = limiter.try_acquire("p", Bucket::Message, now).unwrap();
        limiter.release(permit);
        limiter.try_acquire("p", Bucket::Message, now).unwrap();
        assert!(limiter.try_acquire("p", Bucket::Message, now).is_err());
    }

    #[test]
    fn usage_says_the_limit_what_is_left_and_when_a_use_frees() {
        let limiter = RateLimiter::new(3, HOUR);
        let start = Instant::now();
        let fresh = limiter.usage("p", Bucket::Analytics, start);
        assert_eq!(
            fresh,
            Usage {
                limit: 3,
                remaining: 3,
                reset_secs: 0
            }
        );
        limiter.try_acquire("p", Bucket::Analytics, start).unwrap();
        let later = start + Duration::from_secs(600);
        limiter.try_acquire("p", Bucket::Analytics, later).unwrap();
        let usage = limiter.usage("p", Bucket::Analytics, later);
        assert_eq!(
            (usage.limit, usage.remaining, usage.reset_secs),
            (3, 1, 3000)
        );
        // Another bucket and another project are counted apart.
        assert_eq!(limiter.usage("p", Bucket::Create, later).remaining, 3);
        assert_eq!(limiter.usage("q", Bucket::Analytics, later).remaining, 3);
    }

    #[test]
    fn retry_after_rounds_up() {
        assert_eq!(retry_after_secs(Duration::from_millis(1)), 1);
        assert_eq!(retry_after_secs(Duration::from_millis(2001)), 3);
        assert_eq!(retry_after_secs(Duration::ZERO), 1);
    }
}
