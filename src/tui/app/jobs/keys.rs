//! The jobs pane's own keys: the list moves, sorts and filters itself, and hands back
//! what is shared (a notice, an overlay, the composer) as an [`Outcome`] for `App` to
//! route. Rows of unknown outcome (a prompt, not a job) answer their own few keys.

use super::list::{JobList, JobRow};
use super::track::UNSURE;
use super::{JobDetail, short_id, unsure_submission};
use crate::api::JobStatus;
use crate::tui::app::outcome::Outcome;
use crate::tui::app::{ConsoleOptions, NoticeKind, Overlay, TrackForm};
use crate::tui::keymap::Action;
use crate::tui::message::{DraftKey, Effect, Io, Tty};

impl JobList {
    /// A key of the jobs pane, with `page` rows on screen; `config` says how a copy and a
    /// link reach the person.
    pub(in crate::tui::app) fn on_action(
        &mut self,
        action: Action,
        page: usize,
        config: &ConsoleOptions,
        effects: &mut Vec<Effect>,
    ) -> Outcome {
        let unsure = self.selected().and_then(|r| unsure_submission(&r.id));
        if let Some(submission) = unsure
            && let Some(outcome) = self.on_unsure_action(submission, action, config, effects)
        {
            return outcome;
        }
        if self.navigate(action, page) {
            return Outcome::Done;
        }
        match action {
            Action::Open => {
                if let Some(row) = self.selected() {
                    let id = row.id.clone();
                    effects.push(Effect::Io(Io::LoadDetail(id.clone())));
                    return Outcome::Open(Overlay::Detail(JobDetail::new(id)));
                }
            }
            Action::NewJob => return Outcome::Compose(DraftKey::NewJob),
            Action::FollowUp => return self.follow_up(),
            Action::Track => return Outcome::Open(Overlay::Track(Box::default())),
            Action::Untrack => {
                if let Some(id) = self.selected().map(|r| r.id.clone()) {
                    self.remove(&id);
                    self.poll.remove(&id);
                    effects.push(Effect::Io(Io::Untrack(id.clone())));
                    return Outcome::Said(
                        NoticeKind::Info,
                        format!(
                            "stopped tracking {}; `a` adds it back, history is kept",
                            short_id(&id)
                        ),
                    );
                }
            }
            Action::Copy => return self.copy_selected(config, effects),
            Action::OpenLink => return self.open_selected(config, effects),
            Action::Search => self.start_filter(),
            Action::SortNext | Action::SortReverse => self.resort(action),
            Action::ClearFilter => {
                self.clear_filter();
            }
            Action::ImpactColumn => return self.impacts.toggle_column(&config.columns),
            _ => {}
        }
        Outcome::Done
    }

    /// The jobs keys on a row of unknown outcome: `x` dismisses it, `a` tracks the job it
    /// may have made (the prompt becomes that job's), `y` copies the prompt; keys that need
    /// a job say what to do. `None`: not one of them.
    fn on_unsure_action(
        &mut self,
        submission: i64,
        action: Action,
        config: &ConsoleOptions,
        effects: &mut Vec<Effect>,
    ) -> Option<Outcome> {
        let outcome = match action {
            Action::Untrack => {
                self.remove(&format!("{UNSURE}{submission}"));
                effects.push(Effect::Io(Io::DismissUnsure(submission)));
                Outcome::News(
                    NoticeKind::Info,
                    "dismissed the prompt of unknown outcome".into(),
                )
            }
            Action::Track => Outcome::Open(Overlay::Track(Box::new(TrackForm {
                for_submission: Some(submission),
                ..TrackForm::new()
            }))),
            Action::Copy => match self.selected().and_then(|r| r.first_prompt.clone()) {
                Some(prompt) => {
                    let notice = config.clipboard.notice("the prompt", &prompt);
                    effects.push(Effect::Tty(Tty::Copy(prompt)));
                    Outcome::News(NoticeKind::Info, notice.into())
                }
                None => Outcome::Done,
            },
            Action::Open | Action::FollowUp | Action::OpenLink => Outcome::News(
                NoticeKind::Warning,
                "no answer came; the job MAY exist: `a` tracks it by its id, `x` drops this row"
                    .into(),
            ),
            _ => return None,
        };
        Some(outcome)
    }

    /// Where the composer shown by `2`, Tab or `m` writes, when not to `target`: a
    /// follow-up goes to the selected job, never silently to one chosen earlier (the
    /// title names it); the new-job draft stays.
    pub(in crate::tui::app) fn aim(&self, target: &DraftKey) -> Option<DraftKey> {
        let DraftKey::FollowUp(old) = target else {
            return None;
        };
        let selected = self
            .selected()
            .filter(|r| unsure_submission(&r.id).is_none());
        match selected {
            Some(row) if row.id != *old => Some(DraftKey::FollowUp(row.id.clone())),
            Some(_) => None,
            None => Some(DraftKey::NewJob),
        }
    }

    /// `m`: the composer, for a follow-up to the selected job.
    pub(in crate::tui::app) fn follow_up(&self) -> Outcome {
        match self.selected() {
            Some(row) => Outcome::Compose(DraftKey::FollowUp(row.id.clone())),
            None => Outcome::Said(
                NoticeKind::Warning,
                "no job selected: `n` starts a new one".to_owned(),
            ),
        }
    }

    /// `y`: the selected job's PR link, or its id when it has none.
    pub(in crate::tui::app) fn copy_selected(
        &self,
        config: &ConsoleOptions,
        effects: &mut Vec<Effect>,
    ) -> Outcome {
        let Some(row) = self.selected() else {
            return Outcome::Done;
        };
        let (what, text) = match row.pr_link() {
            Some(link) => ("PR link", link.to_owned()),
            None => ("job id", row.id.clone()),
        };
        let notice = config.clipboard.notice(&format!("the {what}"), &text);
        effects.push(Effect::Tty(Tty::Copy(text)));
        Outcome::Said(NoticeKind::Info, notice)
    }

    /// `o`: the selected job's PR link in a browser, or why it failed.
    pub(in crate::tui::app) fn open_selected(
        &self,
        config: &ConsoleOptions,
        effects: &mut Vec<Effect>,
    ) -> Outcome {
        // A failed job's news is why it failed: its last turn's output, where the local
        // service keeps it.
        let output = self
            .selected()
            .filter(|r| r.status() == Some(&JobStatus::Failed))
            .and_then(|r| r.job.as_ref()?.output_link.clone());
        if let Some(output) = output {
            return open_link(output, "the output of its last turn", config, effects);
        }
        let Some(link) = self.selected().and_then(|r| r.pr_link()).map(str::to_owned) else {
            let ended = self
                .selected()
                .and_then(JobRow::status)
                .is_some_and(JobStatus::is_final);
            let text = if ended {
                "this job ended without a PR link"
            } else {
                "this job has no PR link yet"
            };
            return Outcome::Said(NoticeKind::Warning, text.to_owned());
        };
        open_link(link, "the PR link", config, effects)
    }
}

/// Opens `link` in a browser, or copies it where there is no local display.
fn open_link(
    link: String,
    what: &str,
    config: &ConsoleOptions,
    effects: &mut Vec<Effect>,
) -> Outcome {
    if config.has_display {
        effects.push(Effect::Io(Io::OpenUrl(link)));
        Outcome::Said(NoticeKind::Info, format!("opening {what} in the browser"))
    } else {
        let copied = config.clipboard.notice(what, &link);
        effects.push(Effect::Tty(Tty::Copy(link)));
        Outcome::Said(
            NoticeKind::Info,
            format!("no local display to open a browser: {copied}"),
        )
    }
}
