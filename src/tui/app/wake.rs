//! What follows every message: the reads that are due start, a page that failed while the
//! service did not answer is read again, and when something on screen next changes with
//! the clock alone (the 1 Hz countdown while a read is due soon, a pause's countdown, an
//! age in the jobs list) is known, so the loop wakes only then.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use super::jobs::SLOW_ANSWER;
use super::outcome::Outcome;
use super::{App, JobColumn, Overlay, PageLoad, Pane};
use crate::tui::message::{Clock, Effect, Io, Msg};

impl App {
    /// Whether something visible changed since the last call (and forgets it).
    pub fn take_dirty(&mut self) -> bool {
        std::mem::take(&mut self.dirty)
    }

    /// When the loop must wake up even if nothing arrives: the next poll or link check, or
    /// the next change of a relative time on screen. `None`: sleep until input.
    #[must_use]
    pub fn next_wake(&self) -> Option<Instant> {
        [
            self.jobs.poll.next_wake(),
            self.link.check.due,
            self.display_due,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// What follows every message: a visitors page that failed while the service did not
    /// answer is read again once it answers (`was_failing`: it did not before the
    /// message), so its error does not outlive its cause; every read that is due starts;
    /// and when something shown on screen next changes with the clock alone is known
    /// again (see `display_due`).
    pub(super) fn after_message(
        &mut self,
        rows: RowsChange,
        was_failing: bool,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        if was_failing && !self.link.connection.is_failing() {
            if matches!(self.visitors.load(), PageLoad::Failed { .. }) {
                self.in_visitors(now, effects, |v, ctx, fx| {
                    v.reload(ctx, fx);
                    Outcome::Done
                });
            }
            if self.focus == Pane::Searches {
                self.in_searches(now, effects, |s, ctx, fx| {
                    s.recovered(ctx, fx);
                    Outcome::Changed
                });
            }
        }
        if self.loaded {
            if self.link.check.take_due(now.mono) {
                effects.push(Effect::Io(Io::CheckConnection));
                // The status bar stops naming the try's time, now past: it says it is out.
                self.dirty |= self.link.connection.is_failing();
            }
            for id in self.jobs.poll.take_due(now.mono) {
                effects.push(Effect::Io(Io::FetchJob(id)));
            }
        }
        // The CHANGED column's ages move too, when it is shown.
        let changed = self.config.columns.contains(&JobColumn::Changed);
        self.jobs.note_rows(rows, now.wall, changed);
        self.log.settle(now.wall);
        self.display_due = self.next_display_change(now);
    }

    /// When something shown on screen next changes with the clock alone: the 1 Hz status
    /// countdown while a read is due within a minute, a pause's countdown, or an age in
    /// the jobs list (ages past a minute change once a minute, past an hour once an hour).
    fn next_display_change(&self, now: Clock) -> Option<Instant> {
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
        // A read out long enough is said with its wait, counted in whole seconds.
        let unanswered = self.jobs.poll.oldest_out().map(|since| {
            let waited = now.mono.saturating_duration_since(since);
            if waited < SLOW_ANSWER {
                since + SLOW_ANSWER
            } else {
                since + Duration::from_secs(waited.as_secs() + 1)
            }
        });
        (tick.into_iter().chain(pauses).chain(ages).chain(unanswered)).min()
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
            | Msg::Signals { .. }
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
