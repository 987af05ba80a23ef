//! The answer to a send from the composer: the job made or followed up, or what went
//! wrong and what to do about it (never sent again on its own when it may have arrived).

use crate::api::{ApiError, JobStatus};
use crate::tui::app::short_id;
use crate::tui::app::{App, CallClass, JobRow, NoticeKind, Pane};
use crate::tui::keymap::{Action, KeyContext};
use crate::tui::message::{Clock, DraftKey, Effect, Io, Submitted};

impl App {
    pub(in crate::tui::app) fn on_submitted(
        &mut self,
        draft: DraftKey,
        outcome: Submitted,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        let prompt = match self.composer.sending.take() {
            Some((sending, prompt)) if sending == draft => prompt,
            other => {
                self.composer.sending = other;
                String::new()
            }
        };
        effects.push(Effect::Io(Io::RefreshBudget));
        self.dirty = true;
        match outcome {
            Submitted::Accepted(job) => {
                self.record_call(Ok(()), CallClass::of_draft(&draft), None, now);
                self.composer.sent(&draft, effects);
                if draft == DraftKey::NewJob && self.composer.fill.take().is_some() {
                    // The job names the marked pages now: marking starts over.
                    self.visitors.marks.clear();
                }
                // A follow-up's job is known even when the answer does not name it.
                let id = job.id.clone().or_else(|| match &draft {
                    DraftKey::FollowUp(id) => Some(id.clone()),
                    DraftKey::NewJob => None,
                });
                let Some(id) = id else {
                    self.notify(
                        NoticeKind::Warning,
                        "the service accepted the prompt but sent no job id, so the job cannot \
                         be followed here: look for it in the dashboard",
                    );
                    return;
                };
                let job = if job.status.is_some() {
                    self.jobs.poll.schedule(
                        &id,
                        job.status.as_ref(),
                        now.mono,
                        crate::tui::app::poll::FirstRead::AfterCadence,
                    );
                    job
                } else {
                    // An answer without a status: read the job now rather than guess, and
                    // keep what was known of it meanwhile.
                    self.jobs.poll.schedule(
                        &id,
                        Some(&JobStatus::Active),
                        now.mono,
                        crate::tui::app::poll::FirstRead::Now,
                    );
                    self.jobs
                        .get(&id)
                        .and_then(|row| row.job.clone())
                        .unwrap_or(crate::api::Job {
                            id: Some(id.clone()),
                            ..job
                        })
                };
                // The whole prompt, as rows loaded from the journal hold it: the view
                // puts it on one line and cuts it to the column.
                let first_prompt = match draft {
                    DraftKey::NewJob => Some(prompt.clone()),
                    DraftKey::FollowUp(_) => None,
                };
                self.jobs.upsert(JobRow {
                    id: id.clone(),
                    job: Some(job),
                    first_prompt,
                    seen_at: Some(now.wall),
                    problem: None,
                    changed_at: None,
                });
                self.jobs.reveal(&id);
                self.focus = Pane::Jobs;
                let text = match draft {
                    DraftKey::NewJob => format!(
                        "job {} created; it is followed here until it ends",
                        short_id(&id)
                    ),
                    DraftKey::FollowUp(_) => format!(
                        "follow-up sent to {}; it is {}",
                        short_id(&id),
                        JobStatus::Active
                    ),
                };
                self.notify(NoticeKind::Info, text);
            }
            Submitted::Failed(err) => {
                self.record_call(Err(&err), CallClass::of_draft(&draft), None, now);
                // A follow-up that may have arrived may have made the job active again:
                // read it now and at the active cadence until a read says otherwise.
                if let DraftKey::FollowUp(id) = &draft
                    && err.may_have_reached_server()
                {
                    self.jobs.poll.schedule(
                        id,
                        Some(&JobStatus::Active),
                        now.mono,
                        crate::tui::app::poll::FirstRead::Now,
                    );
                }
                let keymap = self.keymap();
                let keys = (
                    keymap.key_or_name(KeyContext::Composer, Action::Send),
                    keymap.key_or_name(KeyContext::Composer, Action::ToNewJob),
                );
                self.composer.error = Some(submit_error(&err, &draft, &keys));
            }
            Submitted::NotSent(reason) => {
                self.composer.error = Some(format!(
                    "not sent: the journal could not record the prompt ({reason}); the text is kept"
                ));
            }
        }
    }
}

/// What the composer says when a send failed. A send that may have reached the service is
/// never repeated on its own: the user is told how to check first. `keys` are those of
/// send and of "to a new job", as the person has them.
fn submit_error(err: &ApiError, draft: &DraftKey, (send, to_new): &(String, String)) -> String {
    if let (ApiError::Conflict { .. }, DraftKey::FollowUp(id)) = (err, draft) {
        // Sending again cannot help: an archived job takes no more follow-ups.
        return format!(
            "{err}. Job {} takes no more follow-ups: {to_new} moves this text to a new-job \
             draft.",
            short_id(id)
        );
    }
    if !err.may_have_reached_server() {
        return format!("{err}. The text is kept: {send} sends it again.");
    }
    match draft {
        DraftKey::NewJob => format!(
            "{err}. The job MAY HAVE BEEN CREATED and was not resent. The service keeps no list \
             of jobs: look for it in the dashboard or for a new pull request before sending \
             again. The text is kept."
        ),
        DraftKey::FollowUp(id) => format!(
            "{err}. The message MAY HAVE BEEN RECEIVED and was not resent: r re-reads job {}; \
             if it turned active, it arrived. The text is kept.",
            short_id(id)
        ),
    }
}
