//! The link to the service as the status bar tells it: what the last answer said (online,
//! trouble, key rejected, not allowed), the rate-limit pause of each class of call, the
//! cheap check at start that shows a wrong key at once, and when relative times on screen
//! next change, so the loop wakes only then.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use super::rate::CallClass;
use super::{App, NoticeKind, Overlay, Pane};
use crate::api::ApiError;
use crate::tui::message::{Clock, Msg};

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
    fn of(err: &ApiError) -> Option<Self> {
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

impl App {
    /// Records the outcome of any call: the link state, the error shown until the link
    /// recovers, and a 429's pause of `class` (for a read of `job`, that job waits too).
    pub(crate) fn record_call(
        &mut self,
        result: Result<(), &ApiError>,
        class: CallClass,
        job: Option<&str>,
        now: Clock,
    ) {
        let err = match result {
            Ok(()) => {
                self.last_ok = Some(now.wall);
                self.set_link(Connection::Online, None);
                return;
            }
            Err(err) => err,
        };
        if let ApiError::RateLimited { retry_after, .. } = err {
            let until = self.pauses.pause(class, now.mono, *retry_after);
            if class == CallClass::Read {
                self.jobs
                    .poll
                    .rate_limited(job, now.mono, Some(until - now.mono));
            }
            // No wait in words here: it would go stale on screen; the status bar counts down.
            self.notify(
                NoticeKind::Warning,
                format!(
                    "{} paused by the service's rate limit (the status bar counts down); other calls go on",
                    class.label(),
                ),
            );
        }
        if let Some(link) = Connection::of(err) {
            self.set_link(link, Some(err));
        }
    }

    /// Moves the link to `link`. A failure is said once on the notice line (again only if
    /// it changes); recovering clears it there and in the status bar.
    fn set_link(&mut self, link: Connection, err: Option<&ApiError>) {
        self.dirty |= self.connection != link;
        self.connection = link;
        if !link.is_failing() {
            self.check.failures = 0;
            if let Some(gone) = self.last_error.take() {
                if self.notice.as_ref().is_some_and(|n| n.text == gone) {
                    self.notice = None;
                }
                self.dirty = true;
            }
            return;
        }
        let text = err.map(ToString::to_string).unwrap_or_default();
        if self.last_error.as_deref() != Some(text.as_str()) {
            self.notify(NoticeKind::Error, text.clone());
            self.last_error = Some(text);
        }
    }

    /// The answer to the start-up check. A 404 (or 400) means the key and project were
    /// accepted. While the service cannot be reached the check is retried with a growing
    /// wait; a rejected key is not retried (`r` checks again).
    pub(crate) fn on_link_checked(&mut self, result: Result<(), ApiError>, now: Clock) {
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
        self.record_call(result.as_ref().copied(), CallClass::Read, None, now);
        self.check.due = match &result {
            Err(ApiError::RateLimited { .. }) => self.pauses.until(CallClass::Read, now.mono),
            Err(err) if Connection::of(err) == Some(Connection::Trouble) => {
                self.check.failures = self.check.failures.saturating_add(1);
                let wait = Duration::from_secs(1 << self.check.failures.min(6)).min(MAX_CHECK_WAIT);
                Some(now.mono + wait)
            }
            _ => None,
        };
    }

    /// A sentence saying why `class` cannot be called now, if a 429 pauses it. It names
    /// no wait, which would go stale where it stays on screen: the status bar counts down.
    pub(crate) fn rate_refusal(&self, class: CallClass, now: Clock) -> Option<String> {
        self.pauses.until(class, now.mono).map(|_| {
            format!(
                "{} are paused by the service's rate limit (the status bar counts down)",
                class.label()
            )
        })
    }

    /// When something shown on screen next changes with the clock alone: the 1 Hz status
    /// countdown while a read is due within a minute, a pause's countdown, or an age in
    /// the jobs list (ages past a minute change once a minute, past an hour once an hour).
    pub(crate) fn next_display_change(&self, now: Clock) -> Option<Instant> {
        let tick = self
            .clock_ticking(now.mono)
            .then(|| now.mono + Duration::from_secs(1));
        let pauses = self
            .pauses
            .active(now.mono)
            .into_iter()
            .map(|(_, until)| countdown_change(until, now.mono));
        let covered = matches!(
            self.overlay,
            Some(Overlay::Help(_) | Overlay::Detail(_) | Overlay::Notices)
        );
        // Ages change at their own instants (a job made at :00.3 moves at every :xx.3):
        // drawn at the next whole second, jobs started apart still cost one frame a second,
        // not one each (100 new jobs made a hundred frames a second). An age is shown at
        // most a second late.
        let ages = (self.focus == Pane::Jobs && !covered)
            .then_some(self.ages_due)
            .flatten()
            .map(|at| {
                now.mono
                    + (whole_second_after(at) - now.wall)
                        .to_std()
                        .unwrap_or_default()
            });
        tick.into_iter().chain(pauses).chain(ages).min()
    }

    /// Keeps `ages_due`, the first time an AGE cell changes, current after `change`. A
    /// walk over every row (10,000 are fine, but not on every key) happens only when rows
    /// came or went in bulk or the last change time has passed; one read updates it with
    /// its own row.
    pub(crate) fn note_rows(&mut self, change: RowsChange, wall: DateTime<Utc>) {
        // The CHANGED column's ages move too, when it is shown.
        let changed = self.config.columns.contains(&super::JobColumn::Changed);
        let next = |row: &super::JobRow| {
            let since = |at: DateTime<Utc>| at + crate::text::age_next_change(wall - at);
            let created = row.created_at().map(since);
            let change = row.changed_at.filter(|_| changed).map(since);
            created.into_iter().chain(change).min()
        };
        let passed = self.ages_due.is_some_and(|due| due <= wall);
        self.ages_due = match change {
            RowsChange::All => self.jobs.rows.iter().filter_map(next).min(),
            _ if passed => self.jobs.rows.iter().filter_map(next).min(),
            RowsChange::One(id) => {
                let row = self.jobs.get(&id).and_then(next);
                self.ages_due.into_iter().chain(row).min()
            }
            RowsChange::None => self.ages_due,
        };
    }
}

/// What a message can have done to the rows of the jobs list, for `App::note_rows`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RowsChange {
    /// Rows came or went in bulk (a send, a tracked job, a reload).
    All,
    /// One job was read.
    One(String),
    /// No row appeared or changed (a row removed only makes a wake-up early, never late).
    None,
}

impl RowsChange {
    pub(crate) fn of(msg: &Msg) -> Self {
        match msg {
            Msg::Loaded(_)
            | Msg::TrackedList(_)
            | Msg::Tracked { .. }
            | Msg::Submitted { .. }
            | Msg::Unsure(_) => Self::All,
            Msg::JobFetched { id, .. } => Self::One(id.clone()),
            Msg::Input(_)
            | Msg::Tick
            | Msg::Detail { .. }
            | Msg::Visitors { .. }
            | Msg::Insight(_)
            | Msg::ExportProgress { .. }
            | Msg::ExportDone(_)
            | Msg::Budget(_)
            | Msg::EditorDone { .. }
            | Msg::LocalFailure(_)
            | Msg::DraftNotSaved(_)
            | Msg::ConnectionChecked(_)
            | Msg::OpenFailed { .. }
            | Msg::AlertFailed(_)
            | Msg::Terminate
            | Msg::Continued => Self::None,
        }
    }
}

/// When a pause's countdown next changes: whole minutes while more than a minute is
/// left, then whole seconds, then its end.
fn countdown_change(until: Instant, now: Instant) -> Instant {
    let secs = super::poll::ceil_secs(until.saturating_duration_since(now));
    let step = if secs > 60 { 60 } else { 1 };
    let shown = secs.div_ceil(step).max(1);
    until - Duration::from_secs((shown - 1) * step)
}

/// How a pause's remaining time is shown: `42s`, or `59m` while more than a minute is left.
#[must_use]
pub fn countdown_text(until: Instant, now: Instant) -> String {
    let left = until.saturating_duration_since(now);
    let secs = super::poll::ceil_secs(left);
    if secs > 60 {
        format!("{}m", secs.div_ceil(60))
    } else {
        format!("{secs}s")
    }
}

/// `at` itself when it falls on a whole second, otherwise the next whole second.
fn whole_second_after(at: DateTime<Utc>) -> DateTime<Utc> {
    let nanos = at.timestamp_subsec_nanos();
    if nanos == 0 {
        at
    } else {
        at + chrono::Duration::nanoseconds(1_000_000_000 - i64::from(nanos))
    }
}
