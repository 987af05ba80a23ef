//! Rate-limit pauses per class of call. The service limits creating jobs, sending
//! follow-ups and analytics separately, so a 429 pauses only the class it came from: an
//! exhausted analytics budget never stops a new job, and a 429 on a job read pauses reads.

use std::time::{Duration, Instant};

use crate::tui::app::poll::DEFAULT_RATE_PAUSE;
use crate::tui::message::DraftKey;

/// What a call to the service counts against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallClass {
    /// `GET` of a job: polling, tracking, the start-up check. Not limited by the hosted
    /// service, but a 429 on one still pauses the reads.
    Read,
    Create,
    Message,
    Analytics,
}

impl CallClass {
    pub const ALL: [Self; 4] = [Self::Read, Self::Create, Self::Message, Self::Analytics];

    /// The class of sending `draft`.
    #[must_use]
    pub fn of_draft(draft: &DraftKey) -> Self {
        match draft {
            DraftKey::NewJob => Self::Create,
            DraftKey::FollowUp(_) => Self::Message,
        }
    }

    /// What is paused, as the status bar and the notices say it.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Read => "job reads",
            Self::Create => "new jobs",
            Self::Message => "follow-ups",
            Self::Analytics => "analytics",
        }
    }

    fn index(self) -> usize {
        match self {
            Self::Read => 0,
            Self::Create => 1,
            Self::Message => 2,
            Self::Analytics => 3,
        }
    }
}

/// Until when each class waits after a 429 (reads are paused in the poll schedule too).
#[derive(Debug, Clone, Default)]
pub struct RatePauses {
    until: [Option<Instant>; 4],
}

impl RatePauses {
    /// A 429 on `class`: it waits `retry_after` (60 s without one); a longer pause already
    /// running is kept. Returns the end of the pause.
    pub fn pause(
        &mut self,
        class: CallClass,
        now: Instant,
        retry_after: Option<Duration>,
    ) -> Instant {
        let until = now + retry_after.unwrap_or(DEFAULT_RATE_PAUSE);
        let slot = &mut self.until[class.index()];
        let end = slot.filter(|old| *old > until).unwrap_or(until);
        *slot = Some(end);
        end
    }

    /// When the pause of `class` ends, if one holds at `now`.
    #[must_use]
    pub fn until(&self, class: CallClass, now: Instant) -> Option<Instant> {
        self.until[class.index()].filter(|until| *until > now)
    }

    /// The classes paused at `now` with the end of each pause, in `CallClass::ALL` order.
    #[must_use]
    pub fn active(&self, now: Instant) -> Vec<(CallClass, Instant)> {
        CallClass::ALL
            .into_iter()
            .filter_map(|class| self.until(class, now).map(|until| (class, until)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pause_holds_only_its_own_class() {
        let mut pauses = RatePauses::default();
        let now = Instant::now();
        pauses.pause(CallClass::Analytics, now, Some(Duration::from_secs(3597)));
        assert!(pauses.until(CallClass::Analytics, now).is_some());
        for class in [CallClass::Read, CallClass::Create, CallClass::Message] {
            assert_eq!(pauses.until(class, now), None, "{class:?}");
        }
        let later = now + Duration::from_secs(3597);
        assert_eq!(pauses.until(CallClass::Analytics, later), None);
    }

    #[test]
    fn a_shorter_429_does_not_cut_a_longer_pause() {
        let mut pauses = RatePauses::default();
        let now = Instant::now();
        let long = pauses.pause(CallClass::Create, now, Some(Duration::from_secs(100)));
        let kept = pauses.pause(CallClass::Create, now, Some(Duration::from_secs(5)));
        assert_eq!(long, kept);
        assert_eq!(
            pauses.pause(CallClass::Message, now, None),
            now + DEFAULT_RATE_PAUSE
        );
    }
}
