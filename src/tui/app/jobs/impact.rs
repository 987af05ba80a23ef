//! "Did the change help?" in the console (issue 27): the impact of each job it was asked
//! for, read on demand (`i` in a job's detail), never by the poll. One read costs a job
//! read and at least two analytics requests (one a window); it goes only when the link is
//! not paused and the hour's budget has them, and sends at most 10 (2,500 rows a window)
//! without asking: a larger site is sent to `docdeck jobs impact`, which asks. What was
//! read stays for the session: the detail shows it and the jobs list's optional impact
//! column sums it up.

use std::collections::HashMap;

use chrono::TimeDelta;

use crate::insight::compare::{Delta, Percent};
use crate::insight::impact::Impact;
use crate::journal::ASK_ABOVE;
use crate::tui::app::outcome::Outcome;
use crate::tui::app::visitors::Ctx;
use crate::tui::message::{Effect, ImpactFailed, ImpactRead, Io, SignalIo};

/// Each window's length, as `docdeck jobs impact` takes by default.
pub const IMPACT_WINDOW_DAYS: i64 = 14;

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
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Impacts {
    by_job: HashMap<String, ImpactLoad>,
}

impl Impacts {
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
        self.by_job.insert(id.to_owned(), ImpactLoad::Reading);
        effects.push(Effect::Io(Io::Signal(SignalIo::ReadImpact {
            id: id.to_owned(),
            window: TimeDelta::days(IMPACT_WINDOW_DAYS),
            max_rows: ctx.whole_max_rows,
            allow: ASK_ABOVE.min(ctx.analytics_left),
        })));
        Outcome::Changed
    }

    /// Job `id`'s impact came (the app recorded the calls).
    pub(in crate::tui::app) fn on_read(
        &mut self,
        id: String,
        result: Result<ImpactRead, ImpactFailed>,
    ) -> Outcome {
        let load = match result {
            Ok(read) => ImpactLoad::Read(Box::new(read)),
            Err(err) => ImpactLoad::Failed(err),
        };
        self.by_job.insert(id, load);
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
