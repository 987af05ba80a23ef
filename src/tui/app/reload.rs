//! What the console reads again: everything at start (the journal's jobs, each on its
//! schedule) and everything on `r`. (A visitors page or searches list that failed is read
//! again once the service answers: `wake.rs`, after every message.)

use super::outcome::Outcome;
use super::poll::FirstRead;
use super::{App, CallClass, Notice, NoticeKind, Pane};
use crate::tui::message::{Clock, Effect, Io, Startup};

impl App {
    pub(super) fn refresh(&mut self, now: Clock, effects: &mut Vec<Effect>) {
        let statuses = self.jobs.statuses();
        self.jobs.poll.refresh_all(&statuses, now.mono);
        if self.focus == Pane::Visitors {
            self.in_visitors(now, effects, |v, ctx, fx| {
                v.reload(ctx, fx);
                Outcome::Done
            });
        }
        if self.focus == Pane::Searches {
            self.in_searches(now, effects, |s, ctx, fx| {
                s.reload(ctx, fx);
                Outcome::Changed
            });
        }
        effects.push(Effect::Io(Io::RefreshBudget));
        effects.push(Effect::Io(Io::ReloadTracked));
        effects.push(Effect::Io(Io::LoadUnsure));
        self.link.check.due = Some(now.mono);
        let paused: Vec<String> = CallClass::ALL
            .into_iter()
            .filter_map(|class| self.link.refusal(class, now))
            .collect();
        if !paused.is_empty() {
            self.notify(NoticeKind::Warning, paused.join("; "));
        }
    }

    pub(super) fn on_loaded(&mut self, startup: Startup, now: Clock) {
        self.loaded = true;
        // One cheap call at once, so a wrong key or project shows before anything else.
        self.link.check.due = Some(now.mono);
        self.jobs.poll.reserve(startup.jobs.len());
        for job in &startup.jobs {
            let status = job.snapshot.as_ref().and_then(|j| j.status.as_ref());
            // Jobs that may have moved are read at once; ended ones spread over their
            // cadence.
            let first = if matches!(
                status,
                Some(crate::api::JobStatus::Completed | crate::api::JobStatus::Failed)
            ) {
                FirstRead::Spread
            } else {
                FirstRead::Now
            };
            self.jobs.poll.schedule(&job.id, status, now.mono, first);
        }
        self.jobs.load(startup.jobs);
        self.jobs.set_unsure(startup.unsure);
        self.composer.load_drafts(&startup.drafts);
        if let Some(saved) = startup.visitors_filter.as_deref() {
            self.visitors.restore(saved);
        }
        self.link.budget = startup.budget;
        if let Some(set_aside) = startup.set_aside {
            // After the warnings of the start, if they are still shown.
            let text = match &self.notice {
                Some(
                    notice @ Notice {
                        kind: NoticeKind::Warning,
                        ..
                    },
                ) => format!("{} · {set_aside}", notice.text()),
                _ => set_aside,
            };
            self.notify(NoticeKind::Warning, text);
        }
        self.dirty = true;
    }
}
