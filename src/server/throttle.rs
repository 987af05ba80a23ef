//! Slows down a client that keeps sending wrong keys: past a few failures a minute from one
//! address, each further failure is answered late (still 401, so the documented answers do
//! not change). A request with a valid key is checked first and never waits here, even
//! from the same address (every local client shares 127.0.0.1).

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failures a client may make in a window before it is slowed down.
pub const FREE_FAILURES: usize = 10;
/// The window failures are counted in.
pub const FAILURE_WINDOW: Duration = Duration::from_secs(60);
/// How many addresses are remembered; past it, those without recent failures are dropped.
const MAX_ADDRESSES: usize = 10_000;

/// Failed authentications per client address.
#[derive(Debug)]
pub struct AuthThrottle {
    /// How long an answer to a failure past the free ones is held back.
    pub penalty: Duration,
    failures: Mutex<HashMap<IpAddr, VecDeque<Instant>>>,
}

impl AuthThrottle {
    #[must_use]
    pub fn new(penalty: Duration) -> Self {
        Self {
            penalty,
            failures: Mutex::new(HashMap::new()),
        }
    }

    /// Counts a failure from `ip`; whether the client is past its free failures, so that
    /// its answer waits [`AuthThrottle::penalty`].
    pub fn failed(&self, ip: IpAddr, now: Instant) -> bool {
        let mut failures = self
            .failures
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if failures.len() >= MAX_ADDRESSES && !failures.contains_key(&ip) {
            failures.retain(|_, times| {
                times
                    .back()
                    .is_some_and(|t| now.saturating_duration_since(*t) < FAILURE_WINDOW)
            });
        }
        let times = failures.entry(ip).or_default();
        while times
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) >= FAILURE_WINDOW)
        {
            times.pop_front();
        }
        // Bounded: past the free failures only the newest are kept.
        if times.len() > FREE_FAILURES {
            times.pop_front();
        }
        times.push_back(now);
        times.len() > FREE_FAILURES
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;

    #[test]
    fn failures_past_the_free_ones_are_slowed_per_address_and_the_window_rolls() {
        let throttle = AuthThrottle::new(Duration::ZERO);
        let (one, two) = (
            IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
        );
        let start = Instant::now();
        for i in 0..FREE_FAILURES {
            let at = start + Duration::from_secs(i as u64);
            assert!(!throttle.failed(one, at), "failure {i}");
        }
        let late = start + Duration::from_secs(30);
        assert!(throttle.failed(one, late), "past the free failures");
        assert!(throttle.failed(one, late), "and still");
        assert!(!throttle.failed(two, late), "another address is not slowed");
        let after = start + FAILURE_WINDOW + Duration::from_secs(31);
        assert!(!throttle.failed(one, after), "the window rolled");
    }
}
