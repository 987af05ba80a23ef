//! The answer to a send from the composer. The composer hears it first and says what was
//! accepted (the job, the prompt, whether it came from marked pages), or what went wrong
//! and what to do about it (never sent again on its own when it may have arrived); `App`
//! routes an accepted job to the jobs list and the visitors marks.

use super::Composer;
use crate::api::{ApiError, Job};
use crate::tui::app::{App, CallClass, NoticeKind, Pane, short_id};
use crate::tui::keymap::{Action, KeyContext, Keymap};
use crate::tui::message::{Clock, DraftKey, Effect, Io, Submitted};

/// What the service accepted from the composer.
#[derive(Debug)]
pub(in crate::tui::app) struct Accepted {
    pub draft: DraftKey,
    /// The job as the answer describes it.
    pub job: Job,
    /// The whole prompt, when it made a new job (a follow-up's job has its own).
    pub first_prompt: Option<String>,
    /// The prompt was filled in from the marks of this pane: they are in a job now.
    pub from_marks: Option<Pane>,
}

/// What the composer made of an answer, for the other panes.
#[derive(Debug)]
pub(in crate::tui::app) enum Answered {
    Accepted(Box<Accepted>),
    /// A follow-up to this job that may have arrived: the job may be active again.
    MayHaveArrived(String),
    /// Nothing for the other panes: the composer says what happened.
    Kept,
}

impl Composer {
    /// Takes in the answer to the send of `draft`.
    pub(in crate::tui::app) fn answered(
        &mut self,
        draft: DraftKey,
        outcome: Submitted,
        keymap: &Keymap,
        effects: &mut Vec<Effect>,
    ) -> Answered {
        let prompt = match self.sending.take() {
            Some((sending, prompt)) if sending == draft => prompt,
            other => {
                self.sending = other;
                String::new()
            }
        };
        match outcome {
            Submitted::Accepted(job) => {
                self.sent(&draft, effects);
                let fill = self.fill.take().filter(|_| draft == DraftKey::NewJob);
                let from_marks = fill.map(|fill| fill.from);
                // The whole prompt, as rows loaded from the journal hold it: the view
                // puts it on one line and cuts it to the column.
                let first_prompt = (draft == DraftKey::NewJob).then_some(prompt);
                Answered::Accepted(Box::new(Accepted {
                    draft,
                    job: *job,
                    first_prompt,
                    from_marks,
                }))
            }
            Submitted::Failed(err) => {
                let keys = (
                    keymap.key_or_name(KeyContext::Composer, Action::Send),
                    keymap.key_or_name(KeyContext::Composer, Action::ToNewJob),
                );
                self.error = Some(submit_error(&err, &draft, &keys));
                self.error_until_online = !err.may_have_reached_server()
                    && crate::tui::app::link::Connection::of(&err).is_some_and(|c| c.is_failing());
                match draft {
                    DraftKey::FollowUp(id) if err.may_have_reached_server() => {
                        Answered::MayHaveArrived(id)
                    }
                    _ => Answered::Kept,
                }
            }
            Submitted::NotSent(reason) => {
                self.error = Some(format!(
                    "not sent: the journal could not record the prompt ({reason}); the text is kept"
                ));
                Answered::Kept
            }
        }
    }
}

impl App {
    /// Routes the answer to a send: the composer says what was accepted, the jobs list
    /// follows the job, the marks that went into it start over.
    pub(in crate::tui::app) fn on_submitted(
        &mut self,
        draft: DraftKey,
        outcome: Submitted,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        // A new job that may have been created is listed until dismissed or tracked.
        if draft == DraftKey::NewJob
            && matches!(&outcome, Submitted::Failed(err) if err.may_have_reached_server())
        {
            effects.push(Effect::Io(Io::LoadUnsure));
        }
        match &outcome {
            Submitted::Accepted(_) => {
                self.record_call(Ok(()), CallClass::of_draft(&draft), None, now);
            }
            Submitted::Failed(err) => {
                self.record_call(Err(err), CallClass::of_draft(&draft), None, now);
            }
            Submitted::NotSent(_) => {}
        }
        effects.push(Effect::Io(Io::RefreshBudget));
        self.dirty = true;
        match self
            .composer
            .answered(draft, outcome, &self.config.prefs.keymap, effects)
        {
            Answered::Accepted(accepted) => {
                // The job names the marked rows now: marking starts over there.
                match accepted.from_marks {
                    Some(Pane::Visitors) => self.visitors.marks.clear(),
                    Some(Pane::Searches) => self.searches.marks = Default::default(),
                    _ => {}
                }
                match self.jobs.accepted(*accepted, now) {
                    Ok(text) => {
                        self.focus = Pane::Jobs;
                        self.notify(NoticeKind::Info, text);
                    }
                    Err(text) => self.notify(NoticeKind::Warning, text),
                }
            }
            Answered::MayHaveArrived(id) => self.jobs.may_be_active(&id, now.mono),
            Answered::Kept => {}
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
