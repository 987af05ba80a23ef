//! Tracking by id (`a`), jobs another docdeck started tracking, and new-job prompts of
//! unknown outcome, listed until the user dismisses them (`x`) or tracks the job (`a`).

use crate::api::{ApiError, Job};
use crate::journal::{TrackedJob, UnsureSend};
use crate::text::sanitize;
use crate::tui::app::outcome::Outcome;
use crate::tui::app::{JobList, JobRow, NoticeKind, TrackForm, short_id};
use crate::tui::keymap::{Action, KeyContext, Keymap};
use crate::tui::message::{Clock, Effect, Io};

impl JobList {
    /// The answer to a lookup by id (the app recorded the call); `form` is the track
    /// form waiting for it, if it is still open.
    pub(in crate::tui::app) fn on_tracked(
        &mut self,
        id: &str,
        result: Result<Job, ApiError>,
        first_prompt: Option<String>,
        form: Option<&mut TrackForm>,
        now: Clock,
    ) -> Outcome {
        match result {
            Ok(job) => {
                let close = form.map(|form| {
                    if let Some(submission) = form.for_submission {
                        self.remove(&format!("{UNSURE}{submission}"));
                    }
                });
                self.poll.schedule(
                    id,
                    job.status.as_ref(),
                    now.mono,
                    crate::tui::app::poll::FirstRead::AfterCadence,
                );
                self.upsert(JobRow {
                    id: id.to_owned(),
                    job: Some(job),
                    first_prompt,
                    seen_at: Some(now.wall),
                    problem: None,
                    changed_at: None,
                });
                self.reveal(id);
                let said = Outcome::News(
                    NoticeKind::Info,
                    format!("tracking {}", short_id(id)).into(),
                );
                match close {
                    Some(()) => Outcome::Then(Box::new(Outcome::Close), Box::new(said)),
                    None => said,
                }
            }
            Err(err) => {
                let text = format!("cannot track {}: {err}", sanitize(id));
                match form {
                    // The form keeps what was typed, so one wrong letter is one fix.
                    Some(form) => {
                        form.looking_up = false;
                        form.error = Some(text);
                        Outcome::Changed
                    }
                    None => Outcome::News(NoticeKind::Error, text.into()),
                }
            }
        }
    }

    /// Enter in the track form. A job already listed (by its id or a unique prefix of
    /// it) is selected: `Err` says so, and the form closes. Otherwise the id is looked
    /// up (unless a 429 pauses reads: `paused` says why) and the form waits for the
    /// answer.
    pub(in crate::tui::app) fn start_tracking(
        &mut self,
        mut form: Box<TrackForm>,
        typed: String,
        paused: Option<String>,
        keymap: &Keymap,
        effects: &mut Vec<Effect>,
    ) -> Result<Box<TrackForm>, String> {
        let listed: Vec<&str> = self
            .rows
            .iter()
            .map(|r| r.id.as_str())
            .filter(|id| id.starts_with(&typed))
            .take(2)
            .collect();
        let exact = self.get(&typed).map(|r| r.id.clone());
        if let Some(id) = exact.or_else(|| (listed.len() == 1).then(|| listed[0].to_owned())) {
            self.select(&id);
            return Err(format!("{} is already tracked", short_id(&id)));
        }
        if let Some(why) = paused {
            let key = keymap.key_or_name(KeyContext::Form, Action::Apply);
            form.error = Some(format!("{why}; {key} tracks it then"));
        } else {
            form.error = None;
            form.looking_up = true;
            effects.push(Effect::Io(Io::Track {
                typed,
                submission: form.for_submission,
            }));
        }
        Ok(form)
    }
}

/// Rows of new-job prompts of unknown outcome carry this before their submission number:
/// a character no job id typed or sent has, so they can never be taken for a job.
pub(super) const UNSURE: &str = "\u{0}unsure:";

/// The submission a row stands for, when it is a prompt of unknown outcome, not a job.
#[must_use]
pub fn unsure_submission(id: &str) -> Option<i64> {
    id.strip_prefix(UNSURE)?.parse().ok()
}

impl JobList {
    /// Jobs another docdeck (the CLI, another console) started tracking appear here; the
    /// ones already shown keep their state, and are read at once where the other docdeck
    /// saw another status. Returns whether any was added.
    pub(in crate::tui::app) fn add_tracked(&mut self, jobs: Vec<TrackedJob>, now: Clock) -> bool {
        let mut added = false;
        for tracked in jobs {
            if let Some(shown) = self.get(&tracked.id) {
                // Another docdeck saw it otherwise (a follow-up from the CLI revived a
                // failed job): read it now rather than at its rare cadence.
                let theirs = tracked.snapshot.as_ref().and_then(|j| j.status.clone());
                if theirs.is_some() && theirs.as_ref() != shown.status() {
                    // Scheduled as what is shown: the status another docdeck saw may be
                    // one never read again (archived), and the row would keep its old one.
                    let shown = shown.status().cloned();
                    self.poll.schedule(
                        &tracked.id,
                        shown.as_ref(),
                        now.mono,
                        crate::tui::app::poll::FirstRead::Now,
                    );
                }
                continue;
            }
            let status = tracked.snapshot.as_ref().and_then(|j| j.status.clone());
            self.poll.schedule(
                &tracked.id,
                status.as_ref(),
                now.mono,
                crate::tui::app::poll::FirstRead::Now,
            );
            self.upsert(JobRow::from(tracked));
            added = true;
        }
        added
    }

    /// Jobs tracked, without the rows of unknown outcome (which are prompts, not jobs).
    #[must_use]
    pub fn tracked_count(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| unsure_submission(&r.id).is_none())
            .count()
    }

    /// Replaces the rows of unknown outcome with `list`; the job rows stay as they are.
    pub fn set_unsure(&mut self, list: Vec<UnsureSend>) {
        let gone: Vec<String> = self
            .rows
            .iter()
            .filter(|r| unsure_submission(&r.id).is_some())
            .map(|r| r.id.clone())
            .collect();
        for id in gone {
            self.remove(&id);
        }
        // Oldest first: each goes on top, so the newest ends first.
        for unsure in list.into_iter().rev() {
            self.upsert(JobRow {
                id: format!("{UNSURE}{}", unsure.submission),
                job: None,
                first_prompt: Some(unsure.prompt),
                seen_at: Some(unsure.sent_at),
                problem: None,
                changed_at: None,
            });
        }
    }
}
