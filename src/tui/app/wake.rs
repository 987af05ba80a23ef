//! When something on screen next changes with the clock alone (the 1 Hz countdown while
//! a read is due soon, a pause's countdown, an age in the jobs list), so the loop wakes
//! only then.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use super::{App, Overlay, Pane};
use crate::tui::message::{Clock, Msg};

impl App {
    /// When something shown on screen next changes with the clock alone: the 1 Hz status
    /// countdown while a read is due within a minute, a pause's countdown, or an age in
    /// the jobs list (ages past a minute change once a minute, past an hour once an hour).
    pub(crate) fn next_display_change(&self, now: Clock) -> Option<Instant> {
        let tick = self
            .jobs
            .clock_ticking(now.mono)
            .then(|| now.mono + Duration::from_secs(1));
        let pauses = self
            .link
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
            .then_some(self.jobs.ages_due)
            .flatten()
            .map(|at| {
                now.mono
                    + (whole_second_after(at) - now.wall)
                        .to_std()
                        .unwrap_or_default()
            });
        tick.into_iter().chain(pauses).chain(ages).min()
    }
}

/// What a message can have done to the rows of the jobs list, for `JobList::note_rows`.
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
            | Msg::ViewsSpan(_)
            | Msg::Insight(_)
            | Msg::Signal(_)
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
            | Msg::Continued
            | Msg::Drawn(_) => Self::None,
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
