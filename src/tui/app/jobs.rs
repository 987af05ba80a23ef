//! The jobs pane: tracked jobs newest first with a cursor that stays on its job, reads
//! coming back from the poll schedule, tracking by id, and the detail overlay.

use chrono::{DateTime, Utc};

use super::{App, CallClass, NoticeKind, Overlay, Pane};
use crate::api::{ApiError, Job, JobStatus};
use crate::journal::{SentPrompt, StatusChange, TrackedJob};
use crate::text::sanitize;
use crate::tui::effects::Alert;
use crate::tui::keymap::{Action, KeyContext};
use crate::tui::message::{Clock, DraftKey, Effect, Io, Tty};

/// One tracked job as the console shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRow {
    pub id: String,
    pub job: Option<Job>,
    pub first_prompt: Option<String>,
    pub seen_at: Option<DateTime<Utc>>,
    /// Why the last read failed, when it did (for example, the job is gone).
    pub problem: Option<String>,
}

impl From<TrackedJob> for JobRow {
    /// A job as the journal tracks it: its last snapshot, no read failed yet.
    fn from(tracked: TrackedJob) -> Self {
        Self {
            id: tracked.id,
            job: tracked.snapshot,
            first_prompt: tracked.first_prompt,
            seen_at: tracked.seen_at,
            problem: None,
        }
    }
}

impl JobRow {
    #[must_use]
    pub fn status(&self) -> Option<&JobStatus> {
        self.job.as_ref().and_then(|j| j.status.as_ref())
    }

    #[must_use]
    pub fn pr_link(&self) -> Option<&str> {
        self.job.as_ref().and_then(|j| j.pr_link.as_deref())
    }

    fn created_at(&self) -> Option<DateTime<Utc>> {
        self.job.as_ref().and_then(|j| j.created_at)
    }
}

/// Tracked jobs, newest first, and which one the cursor is on (by id, so refreshes and
/// re-sorting never move it to another job).
#[derive(Debug, Default)]
pub struct JobList {
    pub rows: Vec<JobRow>,
    selected: Option<String>,
}

impl JobList {
    pub fn load(&mut self, jobs: Vec<TrackedJob>) {
        self.rows = jobs.into_iter().map(JobRow::from).collect();
        self.sort();
        if self.selected_index().is_none() {
            self.selected = self.rows.first().map(|r| r.id.clone());
        }
    }

    /// Newest first by creation time; jobs not read yet stay on top. Stable, so equal
    /// times keep the journal's order.
    fn sort(&mut self) {
        self.rows.sort_by_key(order_key);
    }

    #[must_use]
    pub fn selected_index(&self) -> Option<usize> {
        let id = self.selected.as_deref()?;
        self.rows.iter().position(|r| r.id == id)
    }

    #[must_use]
    pub fn selected(&self) -> Option<&JobRow> {
        self.selected_index().map(|i| &self.rows[i])
    }

    #[must_use]
    pub fn get(&self, id: &str) -> Option<&JobRow> {
        self.rows.iter().find(|r| r.id == id)
    }

    pub fn select(&mut self, id: &str) {
        if self.get(id).is_some() {
            self.selected = Some(id.to_owned());
        }
    }

    fn move_to(&mut self, index: usize) {
        if let Some(row) = self.rows.get(index.min(self.rows.len().saturating_sub(1))) {
            self.selected = Some(row.id.clone());
        }
    }

    /// Moves the cursor for a key of the list (see [`super::cursor::moved`]), with
    /// `page` rows on screen; whether the key was one.
    fn navigate(&mut self, action: Action, page: usize) -> bool {
        let at = self.selected_index().unwrap_or(0);
        match super::cursor::moved(at, self.rows.len(), action, page) {
            Some(next) => {
                self.move_to(next);
                true
            }
            None => false,
        }
    }

    /// Adds or replaces a row, keeping the order and the cursor. Re-sorts only when the
    /// row's place can have changed: a read of one of 10,000 jobs stays cheap.
    pub fn upsert(&mut self, row: JobRow) {
        match self.rows.iter_mut().find(|r| r.id == row.id) {
            Some(existing) => {
                let before = order_key(existing);
                if row.first_prompt.is_some() {
                    existing.first_prompt = row.first_prompt;
                }
                existing.job = row.job;
                existing.seen_at = row.seen_at;
                existing.problem = row.problem;
                if order_key(existing) != before {
                    self.sort();
                }
            }
            None => {
                // Before the rows of the same time, as a stable sort after inserting first.
                let key = order_key(&row);
                let at = self.rows.partition_point(|r| order_key(r) < key);
                self.rows.insert(at, row);
            }
        }
        if self.selected_index().is_none() {
            self.move_to(0);
        }
    }

    /// Removes a row; the cursor goes to the row that took its place.
    pub fn remove(&mut self, id: &str) {
        let Some(at) = self.rows.iter().position(|r| r.id == id) else {
            return;
        };
        let was_selected = self.selected.as_deref() == Some(id);
        self.rows.remove(at);
        if was_selected {
            self.selected = None;
            self.move_to(at);
        }
    }

    /// Every job with its last known status, for a refresh.
    #[must_use]
    pub fn statuses(&self) -> Vec<(String, Option<JobStatus>)> {
        self.rows
            .iter()
            .filter(|r| super::unsure_submission(&r.id).is_none())
            .map(|r| (r.id.clone(), r.status().cloned()))
            .collect()
    }
}

/// Where a row sorts: newest creation first, rows not read yet (no time) on top.
fn order_key(row: &JobRow) -> std::cmp::Reverse<i64> {
    std::cmp::Reverse(row.created_at().map_or(i64::MAX, |t| t.timestamp_millis()))
}

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
}

impl JobDetail {
    #[must_use]
    pub fn new(id: String) -> Self {
        Self {
            id,
            conversation: None,
            timeline: Vec::new(),
            scroll: 0,
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
                    self.notify(
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
            _ => {}
        }
    }

    pub(super) fn on_detail_action(
        &mut self,
        action: Action,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
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
            None => self.notify(NoticeKind::Warning, "no job selected: `n` starts a new one"),
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
        effects.push(Effect::Tty(Tty::Copy(text)));
        self.notify(
            NoticeKind::Info,
            format!("copied the {what} to the clipboard (OSC 52)"),
        );
    }

    fn open_selected(&mut self, effects: &mut Vec<Effect>) {
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
            self.notify(NoticeKind::Warning, text);
            return;
        };
        if self.config.has_display {
            effects.push(Effect::Io(Io::OpenUrl(link)));
            self.notify(NoticeKind::Info, "opening the PR link in the browser");
        } else {
            effects.push(Effect::Tty(Tty::Copy(link)));
            self.notify(
                NoticeKind::Info,
                "no local display to open a browser: copied the PR link instead (OSC 52)",
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
        if !after.is_final() || before.is_none_or(JobStatus::is_final) {
            return;
        }
        let link = job
            .pr_link
            .as_deref()
            .map(|l| format!(" · {}", sanitize(l)))
            .unwrap_or_default();
        let text = format!("job {} {after}{link}", short_id(id));
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
