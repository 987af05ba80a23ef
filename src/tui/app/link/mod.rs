//! The link to the service, in one place: what the last answer said (online, trouble,
//! key rejected, not allowed), the rate-limit pause of each class of call, the cheap check
//! at start that shows a wrong key at once, and the hourly budgets as the journal counts
//! them. `Link` changes itself and hands back what the rest of the console must hear
//! ([`Recorded`]); `App::record_call` routes that.

mod rate;

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

pub use rate::{CallClass, RatePauses};

use super::{App, NoticeKind, Said};
use crate::api::ApiError;
use crate::journal::Decision;
use crate::tui::message::{Budget, Clock};

/// The id the start-up check reads. No job has it: a key that is accepted gets 404 for it,
/// a wrong key 401 and a key of another project 403. A read costs no create, message or
/// analytics budget.
pub const CHECK_JOB_ID: &str = "docdeck-key-check";

/// The longest wait between checks while the service cannot be reached.
const MAX_CHECK_WAIT: Duration = Duration::from_secs(60);

/// What the status bar says about the link to the service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connection {
    /// Nothing answered yet.
    Waiting,
    /// The service answered the last call (an answer such as 404 or 429 counts).
    Online,
    /// The last call failed on the network, with a 5xx, or with an unreadable answer.
    Trouble,
    /// 401: the key is wrong, expired or revoked.
    KeyRejected,
    /// 403: the key may not do this (another project, a missing scope, the IP allowlist).
    NotAllowed,
}

impl Connection {
    /// What an error says about the link, if anything (local errors say nothing).
    pub(crate) fn of(err: &ApiError) -> Option<Self> {
        match err {
            ApiError::Unauthorized { .. } => Some(Self::KeyRejected),
            ApiError::Forbidden { .. } => Some(Self::NotAllowed),
            ApiError::NotFound {
                missing: crate::api::Missing::Service | crate::api::Missing::Path,
                ..
            }
            | ApiError::Network { .. }
            | ApiError::Server { .. }
            | ApiError::Decode { .. }
            | ApiError::UnexpectedStatus { .. } => Some(Self::Trouble),
            // The service answered, though with something that cannot be true: it is
            // reachable, and the call's own error says what was wrong.
            ApiError::NotFound { .. }
            | ApiError::Contradiction { .. }
            | ApiError::BadRequest { .. }
            | ApiError::Conflict { .. }
            | ApiError::RateLimited { .. } => Some(Self::Online),
            ApiError::BrokenPaging { .. }
            | ApiError::InvalidInput(_)
            | ApiError::InvalidQuery(_) => None,
        }
    }

    /// Whether the link is in a state the user must hear about.
    #[must_use]
    pub fn is_failing(self) -> bool {
        matches!(self, Self::Trouble | Self::KeyRejected | Self::NotAllowed)
    }
}

/// The start-up check and its retries while the service cannot be reached.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConnectionCheck {
    pub due: Option<Instant>,
    pub in_flight: bool,
    failures: u32,
}

impl ConnectionCheck {
    /// Whether the check is due at `now` and none is out: it goes out then.
    pub(crate) fn take_due(&mut self, now: Instant) -> bool {
        if self.in_flight || self.due.is_none_or(|due| due > now) {
            return false;
        }
        self.due = None;
        self.in_flight = true;
        true
    }
}

/// The link to the service and what it allows now.
#[derive(Debug)]
pub struct Link {
    pub connection: Connection,
    pub last_ok: Option<DateTime<Utc>>,
    /// Why the link is failing, until it recovers.
    pub last_error: Option<ApiError>,
    /// The 429 pause of each class of call.
    pub pauses: RatePauses,
    pub check: ConnectionCheck,
    /// The hourly budgets (create, message, analytics) as the journal counts them.
    pub budget: Budget,
}

impl Default for Link {
    fn default() -> Self {
        Self {
            connection: Connection::Waiting,
            last_ok: None,
            last_error: None,
            pauses: RatePauses::default(),
            check: ConnectionCheck::default(),
            budget: Budget::default(),
        }
    }
}

/// What one call's outcome means beyond the link itself.
#[derive(Debug, Default)]
pub(crate) struct Recorded {
    /// A 429 paused the class until then.
    pub paused_until: Option<Instant>,
    /// What to say on the notice line, in order.
    pub said: Vec<(NoticeKind, Said)>,
    /// The link recovered from a failure: the notice line stops saying it.
    pub recovered: bool,
    /// The status bar changed.
    pub changed: bool,
}

impl Link {
    /// Records the outcome of any call: the link state, the error shown until the link
    /// recovers, and a 429's pause of `class`.
    pub(crate) fn record(
        &mut self,
        result: Result<(), &ApiError>,
        class: CallClass,
        now: Clock,
    ) -> Recorded {
        let mut recorded = Recorded::default();
        let err = match result {
            Ok(()) => {
                self.last_ok = Some(now.wall);
                self.set(Connection::Online, None, &mut recorded);
                return recorded;
            }
            Err(err) => err,
        };
        if let ApiError::RateLimited { retry_after, .. } = err {
            recorded.paused_until = Some(self.pauses.pause(class, now.mono, *retry_after));
            // No wait in words here: it would go stale on screen; the status bar counts down.
            recorded
                .said
                .push((NoticeKind::Warning, Said::RateLimited(class)));
        }
        if let Some(link) = Connection::of(err) {
            self.set(link, Some(err), &mut recorded);
            // Any call that finds the service unreachable (a create, a read) has it
            // checked again, waiting longer each time up to a minute: with only finished
            // jobs, read every ten minutes, nothing else noticed the service come back, and
            // the status bar said "trouble" for minutes after it had.
            if link == Connection::Trouble && !self.check.in_flight && self.check.due.is_none() {
                self.check.failures = self.check.failures.saturating_add(1);
                let wait = Duration::from_secs(1 << self.check.failures.min(6)).min(MAX_CHECK_WAIT);
                self.check.due = Some(now.mono + wait);
            }
        }
        recorded
    }

    /// Moves the link to `link`. A failure is said once on the notice line (again only if
    /// it changes); recovering clears it there and in the status bar.
    fn set(&mut self, link: Connection, err: Option<&ApiError>, recorded: &mut Recorded) {
        recorded.changed |= self.connection != link;
        self.connection = link;
        if !link.is_failing() {
            self.check.failures = 0;
            if self.last_error.take().is_some() {
                recorded.recovered = true;
                recorded.changed = true;
            }
            return;
        }
        let Some(err) = err else {
            return;
        };
        // The same words are not said again (two network errors differ only in what the
        // screen does not show).
        let said_before = self.last_error.as_ref().map(ToString::to_string);
        if said_before != Some(err.to_string()) {
            recorded
                .said
                .push((NoticeKind::Error, Said::LinkFailed(err.clone())));
            self.last_error = Some(err.clone());
        }
    }

    /// The answer to the start-up check. A 404 (or 400) means the key and project were
    /// accepted. While the service cannot be reached the check is retried with a growing
    /// wait; a rejected key is not retried (`r` checks again).
    pub(crate) fn checked(&mut self, result: Result<(), ApiError>, now: Clock) -> Recorded {
        self.check.in_flight = false;
        let result = match result {
            // The service's own 404 for the made-up job: key and project were accepted. A
            // 404 that is not the service's, or one a made-up key gets too (the check
            // tells: `Missing::Path`), means the base URL points elsewhere.
            Err(ApiError::NotFound {
                missing: crate::api::Missing::Job | crate::api::Missing::Project,
                ..
            }) => Ok(()),
            Err(ApiError::BadRequest { .. }) => Ok(()),
            other => other,
        };
        let recorded = self.record(result.as_ref().copied(), CallClass::Read, now);
        self.check.due = match &result {
            Err(ApiError::RateLimited { .. }) => self.pauses.until(CallClass::Read, now.mono),
            // `record` has set when the next check goes, waiting longer each time.
            Err(err) if Connection::of(err) == Some(Connection::Trouble) => self.check.due,
            _ => None,
        };
        recorded
    }

    /// A sentence saying why `class` cannot be called now, if a 429 pauses it. It names
    /// no wait, which would go stale where it stays on screen: the status bar counts down.
    pub(crate) fn refusal(&self, class: CallClass, now: Clock) -> Option<String> {
        self.pauses.until(class, now.mono).map(|_| {
            format!(
                "{} are paused by the service's rate limit (the status bar counts down)",
                class.label()
            )
        })
    }

    /// Why one more analytics read cannot be afforded now, if the hour's shared budget
    /// (the journal's count: the CLI's reads too, the figure the status bar shows) has
    /// none left, in the words the CLI refuses with. Nothing is sent then: a read the
    /// budget says cannot be afforded only earns a 429 and an hour's pause. The time when
    /// one frees up is said, not a countdown, which would go stale on screen.
    pub(crate) fn over_budget(&self, now: Clock) -> Option<String> {
        let budget = &self.budget.analytics;
        let Decision::Refuse { enough_at, .. } = budget.decide(1) else {
            return None;
        };
        // A use that turned an hour old since the journal was read frees its request.
        if enough_at.is_some_and(|at| at <= now.wall) {
            return None;
        }
        let free_again = enough_at.map(|at| format!("at {} UTC", at.format("%H:%M")));
        Some(budget.refusal(
            "this request",
            "1 analytics request",
            free_again.as_deref(),
            "wait for the hour to pass",
        ))
    }

    /// Hourly uses left of create and of message, of `limit` each.
    #[must_use]
    pub fn budget_left(&self, limit: u32) -> (u32, u32) {
        (
            limit.saturating_sub(self.budget.create_used),
            limit.saturating_sub(self.budget.message_used),
        )
    }
}

impl App {
    /// Records the outcome of any call (see [`Link::record`]); for a read of `job` that a
    /// 429 paused, that job waits too.
    pub(crate) fn record_call(
        &mut self,
        result: Result<(), &ApiError>,
        class: CallClass,
        job: Option<&str>,
        now: Clock,
    ) {
        let recorded = self.link.record(result, class, now);
        self.heard(recorded, class, job, now);
    }

    /// Routes what the link heard to the poll schedule and the notice line.
    pub(crate) fn heard(
        &mut self,
        recorded: Recorded,
        class: CallClass,
        job: Option<&str>,
        now: Clock,
    ) {
        if let Some(until) = recorded.paused_until
            && class == CallClass::Read
        {
            self.jobs
                .poll
                .rate_limited(job, now.mono, Some(until - now.mono));
        }
        self.dirty |= recorded.changed;
        if recorded.recovered {
            self.jobs.poll.service_back(now.mono);
            // The link's failure leaves the notice line; any other notice stays.
            if (self.notice.as_ref()).is_some_and(|n| matches!(n.said, Said::LinkFailed(_))) {
                self.notice = None;
            }
            let send = self.keymap().key_or_name(
                crate::tui::keymap::KeyContext::Composer,
                crate::tui::keymap::Action::Send,
            );
            self.dirty |= self.composer.service_back(&send);
        }
        for (kind, text) in recorded.said {
            self.notify(kind, text);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn server_error() -> ApiError {
        ApiError::Server {
            status: 503,
            message: String::new(),
        }
    }

    #[test]
    fn a_failure_is_said_once_and_the_recovery_names_it_to_clear() {
        let mut link = Link::default();
        let now = Clock::now();
        let first = link.record(Err(&server_error()), CallClass::Read, now);
        assert_eq!(link.connection, Connection::Trouble);
        assert_eq!(first.said.len(), 1);
        assert!(first.changed);
        let again = link.record(Err(&server_error()), CallClass::Read, now);
        assert!(again.said.is_empty(), "the same failure is not said twice");
        let back = link.record(Ok(()), CallClass::Read, now);
        assert_eq!(link.connection, Connection::Online);
        assert!(back.recovered);
        assert_eq!(first.said[0].1, Said::LinkFailed(server_error()));
        assert!(link.last_error.is_none());
    }

    #[test]
    fn any_call_that_finds_the_service_unreachable_has_it_checked_again() {
        // The trial of stop 33: a create timed out with only finished jobs tracked; the
        // service came back at once, yet the status bar said "trouble" for minutes.
        let mut link = Link::default();
        let now = Clock::now();
        link.record(Err(&server_error()), CallClass::Create, now);
        assert_eq!(link.check.due, Some(now.mono + Duration::from_secs(2)));
        // The check goes, fails, and the next waits longer, up to a minute.
        let mut waits = Vec::new();
        let mut at = now;
        for _ in 0..8 {
            let due = link.check.due.unwrap();
            at.mono = due;
            assert!(link.check.take_due(due));
            link.checked(Err(server_error()), at);
            waits.push((link.check.due.unwrap() - due).as_secs());
        }
        assert_eq!(waits, [4, 8, 16, 32, 60, 60, 60, 60]);
        // It answers: online, no more checks.
        assert!(link.check.take_due(link.check.due.unwrap()));
        let back = link.checked(Ok(()), at);
        assert!(back.recovered);
        assert_eq!(link.connection, Connection::Online);
        assert_eq!(link.check.due, None);
    }

    #[test]
    fn a_429_pauses_only_its_class_and_the_refusal_says_so() {
        let mut link = Link::default();
        let now = Clock::now();
        let limited = ApiError::RateLimited {
            message: String::new(),
            retry_after: Some(Duration::from_secs(30)),
        };
        let recorded = link.record(Err(&limited), CallClass::Analytics, now);
        assert_eq!(
            recorded.paused_until,
            Some(now.mono + Duration::from_secs(30))
        );
        assert!(link.refusal(CallClass::Analytics, now).is_some());
        assert!(link.refusal(CallClass::Read, now).is_none());
    }
}
