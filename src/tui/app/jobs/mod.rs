//! The jobs pane's keys and replies: reads coming back from the poll schedule, the
//! list's sort and filter keys, and the detail overlay (the rows are `job_list.rs`).

pub(crate) mod poll;

mod list;
mod search;
mod submitted;
mod track;

pub use list::{JobList, JobRow, JobSort};
pub use search::{DetailSearch, Found};
pub use track::unsure_submission;

use super::{App, CallClass, NoticeKind, Overlay, Pane};
use crate::api::{ApiError, Job, JobStatus};
use crate::journal::{SentPrompt, StatusChange};
use crate::text::sanitize;
use crate::tui::keymap::{Action, KeyContext};
use crate::tui::message::{Alert, Clock, DraftKey, Effect, Io, Tty};

/// The opened job: its conversation and timeline come from the journal.
#[derive(Debug, Clone, PartialEq)]
pub struct JobDetail {
    pub id: String,
    pub conversation: Option<Vec<SentPrompt>>,
    pub timeline: Vec<StatusChange>,
    /// The first screen row shown, counted after wrapping. Keys move it freely; the view
    /// clamps it to the last page as it draws (only it knows how lines wrap), and a move
    /// starts from where the last frame could show it, so `k` after `G` moves at once.
    pub scroll: usize,
    /// The search of its text, while one is open.
    pub search: Option<super::DetailSearch>,
}

impl JobDetail {
    #[must_use]
    pub fn new(id: String) -> Self {
        Self {
            id,
            conversation: None,
            timeline: Vec::new(),
            scroll: 0,
            search: None,
        }
    }
}

impl App {
    pub(super) fn on_jobs_action(&mut self, action: Action, now: Clock, effects: &mut Vec<Effect>) {
        let unsure = self
            .jobs
            .selected()
            .and_then(|r| super::unsure_submission(&r.id));
        if let Some(submission) = unsure
            && self.on_unsure_action(submission, action, effects)
        {
            return;
        }
        if self.jobs.navigate(action, self.viewport.jobs_rows) {
            return;
        }
        match action {
            Action::Open => {
                if let Some(row) = self.jobs.selected() {
                    let id = row.id.clone();
                    self.overlay = Some(Overlay::Detail(JobDetail::new(id.clone())));
                    self.viewport.detail = None;
                    effects.push(Effect::Io(Io::LoadDetail(id)));
                }
            }
            Action::NewJob => {
                self.composer.retarget(DraftKey::NewJob);
                self.focus(Pane::Composer, now, effects);
            }
            Action::FollowUp => self.follow_up(now, effects),
            Action::Track => self.overlay = Some(Overlay::Track(Box::default())),
            Action::Untrack => {
                if let Some(id) = self.jobs.selected().map(|r| r.id.clone()) {
                    self.jobs.remove(&id);
                    self.poll.remove(&id);
                    effects.push(Effect::Io(Io::Untrack(id.clone())));
                    self.notify_here(
                        NoticeKind::Info,
                        format!(
                            "stopped tracking {}; `a` adds it back, history is kept",
                            short_id(&id)
                        ),
                    );
                }
            }
            Action::Copy => self.copy_selected(effects),
            Action::OpenLink => self.open_selected(effects),
            Action::Search => self.jobs.start_filter(),
            Action::SortNext | Action::SortReverse => self.jobs.resort(action),
            Action::ClearFilter => {
                self.jobs.clear_filter();
            }
            _ => {}
        }
    }

    pub(super) fn on_detail_action(
        &mut self,
        action: Action,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        if self.on_search_action(action) {
            return;
        }
        let Some(Overlay::Detail(detail)) = &mut self.overlay else {
            return;
        };
        let extent = self.viewport.detail;
        let page = extent.map_or(1, |e| e.rows).max(1).cast_signed();
        let by = |rows: isize| super::scrolled(detail.scroll, extent, rows);
        match action {
            Action::Close => self.overlay = None,
            Action::Up => detail.scroll = by(-1),
            Action::Down => detail.scroll = by(1),
            Action::PrevPage => detail.scroll = by(-page),
            Action::NextPage => detail.scroll = by(page),
            Action::Top => detail.scroll = 0,
            Action::Bottom => detail.scroll = usize::MAX,
            Action::FollowUp => {
                let id = detail.id.clone();
                self.overlay = None;
                self.jobs.select(&id);
                self.follow_up(now, effects);
            }
            Action::Copy => self.copy_selected(effects),
            Action::OpenLink => self.open_selected(effects),
            _ => {}
        }
    }

    /// The composer shown by `2`, Tab or `m`: a follow-up goes to the selected job, never
    /// silently to one chosen earlier (the title names it); the new-job draft stays.
    pub(super) fn aim_composer(&mut self) {
        if let DraftKey::FollowUp(old) = &self.composer.target {
            let selected = self
                .jobs
                .selected()
                .filter(|r| super::unsure_submission(&r.id).is_none());
            let target = match selected {
                Some(row) if row.id != *old => DraftKey::FollowUp(row.id.clone()),
                Some(_) => return,
                None => DraftKey::NewJob,
            };
            self.composer.retarget(target);
        }
    }

    fn follow_up(&mut self, now: Clock, effects: &mut Vec<Effect>) {
        match self.jobs.selected().map(|r| r.id.clone()) {
            Some(id) => {
                self.composer.retarget(DraftKey::FollowUp(id));
                self.focus(Pane::Composer, now, effects);
            }
            None => self.notify_here(NoticeKind::Warning, "no job selected: `n` starts a new one"),
        }
    }

    fn copy_selected(&mut self, effects: &mut Vec<Effect>) {
        let Some(row) = self.jobs.selected() else {
            return;
        };
        let (what, text) = match row.pr_link() {
            Some(link) => ("PR link", link.to_owned()),
            None => ("job id", row.id.clone()),
        };
        let notice = self.config.clipboard.notice(&format!("the {what}"), &text);
        effects.push(Effect::Tty(Tty::Copy(text)));
        self.notify_here(NoticeKind::Info, notice);
    }

    fn open_selected(&mut self, effects: &mut Vec<Effect>) {
        // A failed job's news is why it failed: its last turn's output, where the local
        // service keeps it.
        let output = self
            .jobs
            .selected()
            .filter(|r| r.status() == Some(&JobStatus::Failed))
            .and_then(|r| r.job.as_ref()?.output_link.clone());
        if let Some(output) = output {
            self.open_link(output, "the output of its last turn", effects);
            return;
        }
        let Some(link) = self
            .jobs
            .selected()
            .and_then(|r| r.pr_link())
            .map(str::to_owned)
        else {
            let ended = self
                .jobs
                .selected()
                .and_then(JobRow::status)
                .is_some_and(JobStatus::is_final);
            let text = if ended {
                "this job ended without a PR link"
            } else {
                "this job has no PR link yet"
            };
            self.notify_here(NoticeKind::Warning, text);
            return;
        };
        self.open_link(link, "the PR link", effects);
    }

    /// Opens `link` in a browser, or copies it where there is no local display.
    fn open_link(&mut self, link: String, what: &str, effects: &mut Vec<Effect>) {
        if self.config.has_display {
            effects.push(Effect::Io(Io::OpenUrl(link)));
            self.notify_here(NoticeKind::Info, format!("opening {what} in the browser"));
        } else {
            let copied = self.config.clipboard.notice(what, &link);
            effects.push(Effect::Tty(Tty::Copy(link)));
            self.notify_here(
                NoticeKind::Info,
                format!("no local display to open a browser: {copied}"),
            );
        }
    }

    pub(super) fn on_job_fetched(
        &mut self,
        id: &str,
        result: Result<Job, ApiError>,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        let link_before = self.connection;
        self.record_call(result.as_ref().map(|_| ()), CallClass::Read, Some(id), now);
        let Some(row) = self.jobs.get(id).cloned() else {
            // Untracked while the read was in flight: drop the answer.
            self.poll.remove(id);
            return;
        };
        if self.poll.answered_stale(id, now.mono) {
            // Sent before a follow-up that may have changed the job: read it again.
            return;
        }
        // A read that changes nothing on screen draws nothing: with 100 active jobs that is
        // most reads. The status line's "updated" follows with the 1 Hz tick, which runs
        // whenever a read is due within a minute; otherwise it shows a clock time, which
        // this read does change.
        let unchanged =
            matches!(&result, Ok(job) if row.job.as_ref() == Some(job)) && row.problem.is_none();
        self.dirty |= !unchanged || self.connection != link_before || !self.clock_ticking(now.mono);
        // A job without a status tells nothing (a broken body can read as an empty job):
        // the last known state stays, and the read counts as failed.
        let result = result.and_then(|job| {
            if job.status.is_some() {
                Ok(job)
            } else {
                Err(ApiError::Decode {
                    status: 200,
                    reason: "the answer has no status".to_owned(),
                    excerpt: String::new(),
                })
            }
        });
        match result {
            Ok(job) => {
                let before = row.status().cloned();
                self.poll.succeeded(id, job.status.as_ref(), now.mono);
                self.announce(id, before.as_ref(), &job, effects);
                self.jobs.upsert(JobRow {
                    job: Some(job),
                    seen_at: Some(now.wall),
                    problem: None,
                    ..row
                });
            }
            Err(ApiError::RateLimited { .. }) => {}
            Err(
                err @ (ApiError::NotFound { .. }
                | ApiError::Forbidden { .. }
                | ApiError::Unauthorized { .. }),
            ) => {
                // Reading again will not help until something changes: stop until `r`.
                self.poll.stop(id);
                self.jobs.upsert(JobRow {
                    problem: Some(format!(
                        "{err} (polling stopped; {} retries)",
                        self.keymap().key_or_name(KeyContext::Jobs, Action::Refresh)
                    )),
                    ..row
                });
            }
            Err(err) => {
                if let Some(wait) = self.poll.failed(id, now.mono) {
                    self.jobs.upsert(JobRow {
                        problem: Some(format!("{err} (next try in {}s)", wait.as_secs().max(1))),
                        ..row
                    });
                }
            }
        }
    }

    /// A status change seen in this session: notice, bell or desktop notification, and a
    /// fresh detail view if it is open.
    fn announce(
        &mut self,
        id: &str,
        before: Option<&JobStatus>,
        job: &Job,
        effects: &mut Vec<Effect>,
    ) {
        let Some(after) = job.status.as_ref() else {
            return;
        };
        if before == Some(after) {
            return;
        }
        if matches!(&self.overlay, Some(Overlay::Detail(d)) if d.id == id) {
            effects.push(Effect::Io(Io::LoadDetail(id.to_owned())));
        }
        // A job seen ending here is news; so is one that had ended and ends again after a
        // follow-up sent from elsewhere (failed, then completed). An ended job that the
        // service archives is not.
        let news = match before {
            None => false,
            Some(before) if !before.is_final() => true,
            Some(_) => *after != JobStatus::Archived,
        };
        if !after.is_final() || !news {
            return;
        }
        let link = job
            .pr_link
            .as_deref()
            .map(|l| format!(" · {}", sanitize(l)))
            .unwrap_or_default();
        let reason = job
            .failure_reason
            .as_deref()
            .filter(|_| *after == JobStatus::Failed)
            .map(|r| format!(": {}", crate::text::excerpt(&sanitize(r), 160)))
            .unwrap_or_default();
        // Completed without a link: the agent changed nothing, which is news too.
        let unchanged = if *after == JobStatus::Completed && job.pr_link.is_none() {
            " · no change"
        } else {
            ""
        };
        let text = format!("job {} {after}{link}{unchanged}{reason}", short_id(id));
        let kind = if *after == JobStatus::Failed {
            NoticeKind::Error
        } else {
            NoticeKind::Done
        };
        self.notify(kind, text.clone());
        if let Some(command) = &self.config.prefs.alert {
            let alert = Alert {
                command: command.clone(),
                job_id: id.to_owned(),
                status: after.as_wire().to_owned(),
                pr_link: job.pr_link.clone(),
                prompt: self.jobs.get(id).and_then(|row| row.first_prompt.clone()),
            };
            effects.push(Effect::Io(Io::Alert(Box::new(alert))));
        }
        match self.config.notify {
            super::NotifyMode::Off => {}
            super::NotifyMode::Bell => effects.push(Effect::Tty(Tty::Bell)),
            super::NotifyMode::Desktop => effects.push(Effect::Tty(Tty::Notify {
                title: "docdeck".to_owned(),
                body: text,
            })),
        }
    }
}

/// The first 12 characters of an id: enough to tell jobs apart on screen.
#[must_use]
pub fn short_id(id: &str) -> String {
    let clean = sanitize(id);
    clean.chars().take(12).collect()
}
