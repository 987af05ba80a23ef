//! The effects that start or track a job (each records in the journal what it does, so a
//! job that was created is never forgotten), and the start-up check of the link.

use chrono::Utc;

use super::Services;
use crate::api::{ApiError, Job};
use crate::journal::{IdMatch, Recorded, SubmissionKind};
use crate::tui::app::short_id;
use crate::tui::message::{DraftKey, Msg, Submitted};

/// `a`: the typed id (or a unique prefix of a job the journal knows) is read from the
/// service, then tracked with its snapshot; a job tracked again brings back its prompt.
pub(super) async fn track(s: &Services, typed: String, submission: Option<i64>) -> Vec<Msg> {
    let lookup = typed.clone();
    let id = match s
        .journal(move |j, scope| j.resolve_id(scope, &lookup))
        .await
    {
        Ok(IdMatch::Known(id)) => id,
        // A start of the id of the one job of the project followed through another base
        // URL (another node of a cluster) means that job, as on the command line.
        Ok(IdMatch::Unknown(id)) => {
            let start = id.clone();
            s.journal(move |j, scope| Ok(j.only_elsewhere(scope, &start)))
                .await
                .ok()
                .flatten()
                .map_or(id, |(id, _)| id)
        }
        Ok(IdMatch::Ambiguous(ids)) => {
            // Short: it is read in the form. The ids are cut as the list shows them.
            let some: Vec<String> = ids.iter().take(3).map(|id| short_id(id)).collect();
            let more = if ids.len() > 3 { ", …" } else { "" };
            let reason = format!(
                "several jobs start with it ({}{more}): type more of the id",
                some.join(", ")
            );
            return vec![Msg::Tracked {
                id: typed,
                result: Err(crate::api::ApiError::InvalidInput(reason)),
                first_prompt: None,
            }];
        }
        Err(reason) => return vec![Msg::LocalFailure(reason)],
    };
    let result = s.client.get_job(&id).await;
    let mut msgs = Vec::new();
    let mut first_prompt = None;
    if let Ok(job) = &result {
        // Stored under the id asked for, whatever the answer says.
        let job = Job {
            id: Some(id.clone()),
            ..job.clone()
        };
        let track_id = id.clone();
        let stored = s
            .journal(move |j, scope| {
                if let Some(submission) = submission {
                    j.submission_accepted(scope, submission, &job, Utc::now())?;
                } else {
                    j.track(scope, &track_id, Utc::now())?;
                    j.observe(scope, &job, Utc::now())?;
                }
                // The prompt that made it, if it was sent from here (a follow-up is not).
                let prompts = j.conversation(scope, &track_id)?;
                Ok((prompts.into_iter())
                    .find(|p| p.kind == SubmissionKind::Create)
                    .map(|p| p.prompt))
            })
            .await;
        match stored {
            Ok(prompt) => first_prompt = prompt,
            Err(reason) => msgs.push(Msg::LocalFailure(reason)),
        }
    }
    msgs.push(Msg::Tracked {
        id,
        result,
        first_prompt,
    });
    msgs
}

/// Records the prompt, sends it once, records the outcome. Never retried here: a send
/// that may have reached the service is reported as such.
pub(super) async fn submit(s: &Services, draft: DraftKey, prompt: String) -> Msg {
    let (kind, job_id) = match &draft {
        DraftKey::NewJob => (SubmissionKind::Create, None),
        DraftKey::FollowUp(id) => (SubmissionKind::Message, Some(id.clone())),
    };
    let (text, job) = (prompt.clone(), job_id.clone());
    let begun = s
        .journal(move |j, scope| j.begin_submission(scope, kind, job.as_deref(), &text, Utc::now()))
        .await;
    let submission = match begun {
        Ok(id) => id,
        Err(reason) => {
            return Msg::Submitted {
                draft,
                outcome: Submitted::NotSent(reason),
            };
        }
    };
    let result = match &job_id {
        None => s.client.create_job(&prompt).await,
        Some(id) => s.client.send_message(id, &prompt).await,
    };
    let outcome = match result {
        Ok(job) => {
            let stored = job.clone();
            match s
                .journal(move |j, scope| {
                    j.submission_accepted(scope, submission, &stored, Utc::now())
                })
                .await
            {
                Ok(Recorded::Followed) => Submitted::Accepted(Box::new(job)),
                // A reused id: shown as a send that may have arrived; nothing is merged.
                Ok(Recorded::Refused { reason, .. }) => {
                    Submitted::Failed(ApiError::Contradiction { reason })
                }
                Err(reason) => {
                    tracing::warn!("journal: {reason}");
                    Submitted::Accepted(Box::new(job))
                }
            }
        }
        Err(err) => {
            let (text, maybe) = (err.to_string(), err.may_have_reached_server());
            if let Err(reason) = s
                .journal(move |j, _| j.submission_failed(submission, &text, maybe))
                .await
            {
                tracing::warn!("journal: {reason}");
            }
            Submitted::Failed(err)
        }
    };
    Msg::Submitted { draft, outcome }
}

/// The start-up check: a read of a job that cannot exist. Its 404 proves the key only
/// where a made-up key is told apart (as `doctor` tests): when that gets 404 too, the
/// base URL's path is not the API's, and the check says so.
pub(super) async fn check_connection(
    client: &crate::api::Client,
) -> Result<(), crate::api::ApiError> {
    use crate::api::{ApiError, Missing};
    let check = crate::tui::app::CHECK_JOB_ID;
    match client.get_job(check).await {
        Ok(_) => Ok(()),
        Err(ApiError::NotFound {
            message,
            missing: Missing::Job | Missing::Project,
        }) if client.answers_any_key_with_404(check).await => Err(ApiError::NotFound {
            message,
            missing: Missing::Path,
        }),
        Err(err) => Err(err),
    }
}
