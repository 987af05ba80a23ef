//! "Did the change help?" in the console (issue 27): the impact of each job it was asked
//! for, read on demand (`i` in a job's detail), never by the poll. One read costs a job
//! read and at least two analytics requests (one a window); it goes only when the link is
//! not paused and the hour's budget has them, and sends at most 10 without asking: a
//! larger site gets the spend question (up to every row of both windows), as the whole
//! range does. `w` in the detail picks the windows' length (7, 14 or 28 days) and reads
//! again. What was read stays for the session: the detail shows it and the jobs list's
//! impact column (`I` shows or hides it; it never reads by itself) sums it up.

use std::collections::HashMap;

use chrono::TimeDelta;

use crate::insight::compare::{Delta, Percent};
use crate::insight::impact::Impact;
use crate::journal::ASK_ABOVE;
use crate::tui::app::confirm::Costly;
use crate::tui::app::outcome::Outcome;
use crate::tui::app::visitors::Ctx;
use crate::tui::app::{JobColumn, NoticeKind};
use crate::tui::message::{Effect, ImpactFailed, ImpactRead, Io, SignalIo};

/// Each window's length, as `docdeck jobs impact` takes by default.
pub const IMPACT_WINDOW_DAYS: i64 = 14;

/// The windows' lengths `w` goes through, in days.
pub const IMPACT_WINDOWS: [i64; 3] = [7, IMPACT_WINDOW_DAYS, 28];

/// One job's impact, as far as it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImpactLoad {
    Reading,
    Read(Box<ImpactRead>),
    /// The link or the budget did not allow the read: why, in words.
    Refused(String),
    /// The read failed, or the job's change or merge did not allow it (the view says
    /// why with the reasons the CLI gives).
    Failed(ImpactFailed),
}

/// The impacts read this session, by job id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Impacts {
    by_job: HashMap<String, ImpactLoad>,
    /// Each window's length, in days (`w` in the detail).
    days: i64,
    /// `I` showed the impact column the profile left out, or hid the one it chose.
    column_flipped: bool,
}

impl Default for Impacts {
    fn default() -> Self {
        Self {
            by_job: HashMap::new(),
            days: IMPACT_WINDOW_DAYS,
            column_flipped: false,
        }
    }
}

impl Impacts {
    /// Each window's length in days, as the next read takes it.
    #[must_use]
    pub fn window_days(&self) -> i64 {
        self.days
    }

    /// The jobs list's columns: the profile's `chosen`, with the impact column shown or
    /// hidden by `I` (before the prompt, when shown).
    #[must_use]
    pub fn columns(&self, chosen: &[JobColumn]) -> Vec<JobColumn> {
        let mut columns = chosen.to_vec();
        if !self.column_flipped {
            return columns;
        }
        if let Some(at) = columns.iter().position(|c| *c == JobColumn::Impact) {
            columns.remove(at);
        } else {
            let at =
                (columns.iter().position(|c| *c == JobColumn::Prompt)).unwrap_or(columns.len());
            columns.insert(at, JobColumn::Impact);
        }
        columns
    }

    /// `I`: shows or hides the impact column; it reads nothing.
    pub(in crate::tui::app) fn toggle_column(&mut self, chosen: &[JobColumn]) -> Outcome {
        self.column_flipped = !self.column_flipped;
        let text = if self.columns(chosen).contains(&JobColumn::Impact) {
            "the impact column is shown: `-` where i in a job's detail has not read it"
        } else {
            "the impact column is hidden"
        };
        Outcome::Said(NoticeKind::Info, text.to_owned())
    }

    /// `w` in job `id`'s detail: the next window's length; an impact read already (or
    /// refused) is read again over it, one being read keeps its own.
    pub(in crate::tui::app) fn next_window(
        &mut self,
        id: &str,
        ctx: &Ctx,
        effects: &mut Vec<Effect>,
    ) -> Outcome {
        let at = IMPACT_WINDOWS.iter().position(|d| *d == self.days);
        self.days = IMPACT_WINDOWS[at.map_or(0, |at| (at + 1) % IMPACT_WINDOWS.len())];
        let days = self.days;
        match self.by_job.get(id) {
            None => Outcome::Said(
                NoticeKind::Info,
                format!("windows of {days} days: i reads the impact over them"),
            ),
            Some(ImpactLoad::Reading) => Outcome::Said(
                NoticeKind::Info,
                format!(
                    "windows of {days} days from the next read: i reads again once this one ends"
                ),
            ),
            Some(_) => {
                let read = self.want(id, ctx, effects);
                Outcome::Then(
                    Box::new(read),
                    Box::new(Outcome::Said(
                        NoticeKind::Info,
                        format!("windows of {days} days: the impact is read over them"),
                    )),
                )
            }
        }
    }

    /// What is known of job `id`'s impact.
    #[must_use]
    pub fn of(&self, id: &str) -> Option<&ImpactLoad> {
        self.by_job.get(id)
    }

    /// `i`: reads job `id`'s impact, when the link and the budget allow it.
    pub(in crate::tui::app) fn want(
        &mut self,
        id: &str,
        ctx: &Ctx,
        effects: &mut Vec<Effect>,
    ) -> Outcome {
        if matches!(self.by_job.get(id), Some(ImpactLoad::Reading)) {
            return Outcome::Done;
        }
        let refused = if let Some(why) = &ctx.paused {
            Some(format!("{why}; i reads the impact then"))
        } else if ctx.analytics_left < 2 {
            Some(format!(
                "reading the impact needs at least 2 analytics requests and {} are left this hour; try later",
                ctx.analytics_left
            ))
        } else {
            None
        };
        if let Some(why) = refused {
            self.by_job.insert(id.to_owned(), ImpactLoad::Refused(why));
            return Outcome::Changed;
        }
        let allow = ASK_ABOVE.min(ctx.analytics_left);
        self.send(id.to_owned(), self.days, allow, ctx, effects);
        Outcome::Changed
    }

    fn send(&mut self, id: String, days: i64, allow: u32, ctx: &Ctx, effects: &mut Vec<Effect>) {
        self.by_job.insert(id.clone(), ImpactLoad::Reading);
        effects.push(Effect::Io(Io::Signal(SignalIo::ReadImpact {
            id,
            window: TimeDelta::days(days),
            max_rows: ctx.whole_max_rows,
            allow,
        })));
    }

    /// Job `id`'s impact came (the app recorded the calls). Windows with more rows than
    /// the requests allowed read get the spend question: up to every row of both
    /// (`max_rows` a window, 250 a request).
    pub(in crate::tui::app) fn on_read(
        &mut self,
        id: String,
        result: Result<ImpactRead, ImpactFailed>,
        (max_rows, detail): (usize, Option<usize>),
    ) -> Outcome {
        let most = u32::try_from(max_rows.div_ceil(250)).unwrap_or(u32::MAX);
        let requests = most.saturating_mul(2);
        let load = match result {
            Ok(read) => ImpactLoad::Read(Box::new(read)),
            Err(ImpactFailed::NeedsMore(allowed)) if requests > allowed => {
                let days = self.days;
                self.by_job.insert(id.clone(), ImpactLoad::Reading);
                return Outcome::Consider(Costly::Impact { id, days, detail }, requests);
            }
            Err(err) => ImpactLoad::Failed(err),
        };
        self.by_job.insert(id, load);
        Outcome::Changed
    }

    /// The answer to the spend question about job `id`'s impact: yes reads it with the
    /// requests allowed, no (or a budget that cannot afford it) says why.
    pub(in crate::tui::app) fn answered(
        &mut self,
        (id, days): (String, i64),
        answer: Result<u32, String>,
        ctx: &Ctx,
        effects: &mut Vec<Effect>,
    ) -> Outcome {
        match answer {
            Ok(requests) => self.send(id, days, requests, ctx, effects),
            Err(why) => {
                let why = why.trim_start_matches("not read: ").to_owned();
                self.by_job.insert(id, ImpactLoad::Refused(why));
            }
        }
        Outcome::Changed
    }

    /// The jobs list's impact cell: the human visitors of the job's pages after the merge
    /// against before (`+12% humans`), `…` while read, `-` when not read or not known.
    #[must_use]
    pub fn cell(&self, id: &str) -> String {
        match self.by_job.get(id) {
            Some(ImpactLoad::Read(read)) => humans_change(&read.impact),
            Some(ImpactLoad::Reading) => "…".to_owned(),
            Some(ImpactLoad::Refused(_) | ImpactLoad::Failed(_)) | None => "-".to_owned(),
        }
    }
}

/// The pages' human visitors after against before, in a few cells: `+12% humans`,
/// `-3% humans`, `+4 humans` from none, `±0 humans`.
#[must_use]
pub fn humans_change(impact: &Impact) -> String {
    let delta = Delta {
        before: impact.pages.iter().map(|p| p.before.human).sum(),
        now: impact.pages.iter().map(|p| p.after.human).sum(),
    };
    match delta.percent() {
        _ if delta.now == delta.before => "±0 humans".to_owned(),
        Percent::NoPrevious => format!("+{} humans", delta.now),
        Percent::Changed(p) => format!("{p:+.0}% humans"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::VisitorTotals;
    use crate::insight::impact::{PageImpact, Sources};

    fn impact(pages: &[(u64, u64)]) -> Impact {
        let humans = |human| VisitorTotals {
            human,
            ai: 0,
            total: human,
        };
        Impact {
            pages: pages
                .iter()
                .map(|(before, after)| PageImpact {
                    path: "/a".into(),
                    sources: Sources::default(),
                    before: humans(*before),
                    after: humans(*after),
                })
                .collect(),
            site_before: humans(100),
            site_after: humans(100),
        }
    }

    #[test]
    fn the_column_sums_the_pages_humans_before_and_after() {
        assert_eq!(humans_change(&impact(&[(20, 25), (5, 3)])), "+12% humans");
        assert_eq!(humans_change(&impact(&[(40, 30)])), "-25% humans");
        assert_eq!(humans_change(&impact(&[(0, 4)])), "+4 humans");
        assert_eq!(humans_change(&impact(&[(0, 0)])), "±0 humans");
        assert_eq!(humans_change(&impact(&[(7, 7)])), "±0 humans");
    }
}
