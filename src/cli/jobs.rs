//! `docdeck jobs ...`: create, follow up, read, list, track and untrack jobs. Every prompt
//! is written to the journal before it is sent, and nothing is ever sent twice.

use std::process::ExitCode;
use std::time::Duration;

use chrono::Utc;
use clap::Args;

use super::context::{ClientArgs, Context};
use super::output::{self, Format, emit};
use super::{CliError, JobsCommand, Outcome, read_prompt, warn};
use crate::api::{ApiError, Client, HumanWait, Job, JobStatus};
use crate::journal::{Journal, Recorded, SubmissionKind};

/// How a job is followed and printed, and where the service is.
#[derive(Debug, Args)]
pub struct JobOutput {
    /// Poll until the job is completed, failed or archived, printing each status change.
    /// Exit code: 0 completed, 3 failed, 4 archived
    #[arg(long)]
    pub wait: bool,
    /// Output format [default: table on a terminal, json otherwise]
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    #[command(flatten)]
    pub client: ClientArgs,
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// The instruction for the agent; `-` reads it from standard input
    pub prompt: String,
    #[command(flatten)]
    pub out: JobOutput,
}

#[derive(Debug, Args)]
pub struct MessageArgs {
    /// The job to send the follow-up to
    pub id: String,
    /// The follow-up instruction; `-` reads it from standard input
    pub prompt: String,
    #[command(flatten)]
    pub out: JobOutput,
}

#[derive(Debug, Args)]
pub struct GetArgs {
    /// The job's id
    pub id: String,
    #[command(flatten)]
    pub out: JobOutput,
}

#[derive(Debug, Args)]
pub struct IdArgs {
    /// The job's id
    pub id: String,
    /// Output format [default: table on a terminal, json otherwise]
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    #[command(flatten)]
    pub client: ClientArgs,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Output format [default: table on a terminal, json otherwise]
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    #[command(flatten)]
    pub client: ClientArgs,
}

/// Longest wait between polls after repeated network or server failures.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

pub async fn run(command: JobsCommand) -> Outcome {
    match command {
        JobsCommand::Create(args) => submit(None, &args.prompt, &args.out).await,
        JobsCommand::Message(args) => submit(Some(&args.id), &args.prompt, &args.out).await,
        JobsCommand::Get(args) => get(&args).await,
        JobsCommand::Track(args) => track(&args).await,
        JobsCommand::Untrack(args) => untrack(&args),
        JobsCommand::List(args) => list(&args),
    }
}

/// The error of a submit that may have been carried out, with the way to check. It is
/// never resent on its own: a second job is worse than a question.
fn may_have_arrived(err: &ApiError, job_id: Option<&str>) -> String {
    match job_id {
        None => format!(
            "{err}\nThe job MAY HAVE BEEN CREATED and was not sent again. The service keeps no list of jobs: look for it in the dashboard or for a new pull request before running this again."
        ),
        Some(id) => format!(
            "{err}\nThe message MAY HAVE BEEN RECEIVED and was not sent again: `docdeck jobs get {id}` shows whether the job turned active before you run this again."
        ),
    }
}

/// Creates a job (`job_id` is `None`) or sends a follow-up, recording it first.
async fn submit(job_id: Option<&str>, prompt: &str, out: &JobOutput) -> Outcome {
    let prompt = read_prompt(prompt)?;
    let ctx = Context::load(&out.client)?;
    let client = ctx.client()?;
    let not_sent = |err: CliError| CliError::failed(format!("{}; nothing was sent", err.message));
    let mut journal = ctx.journal().map_err(not_sent)?;
    let kind = if job_id.is_some() {
        SubmissionKind::Message
    } else {
        SubmissionKind::Create
    };
    let submission = journal
        .begin_submission(&ctx.scope, kind, job_id, &prompt, Utc::now())
        .map_err(|err| not_sent(err.into()))?;
    let sent = match job_id {
        None => client.create_job(&prompt).await,
        Some(id) => client.send_message(id, &prompt).await,
    };
    let job = match sent {
        Ok(job) => job,
        Err(err) => {
            if let Err(journal_err) = journal.submission_failed(
                submission,
                &err.to_string(),
                err.may_have_reached_server(),
            ) {
                warn(&format!(
                    "the journal could not record the failure: {journal_err}"
                ));
            }
            if err.may_have_reached_server() {
                return Err(CliError::failed(may_have_arrived(&err, job_id)));
            }
            return Err(err.into());
        }
    };
    match journal.submission_accepted(&ctx.scope, submission, &job, Utc::now()) {
        Ok(Recorded::Followed) => {}
        // An answer that cannot be this submission's (a reused id): nothing is followed.
        Ok(Recorded::Refused { reason, .. }) => {
            let err = ApiError::Contradiction { reason };
            return Err(CliError::failed(may_have_arrived(&err, job_id)));
        }
        Err(err) => {
            let id = job.id.as_deref().unwrap_or("-");
            warn(&format!(
                "job {id} was accepted but the journal could not record it ({err}); follow it with `docdeck jobs track {id}`"
            ));
        }
    }
    let format = Format::resolve(out.format);
    if out.wait {
        return wait_for(&client, Some(&mut journal), &ctx, job, format).await;
    }
    emit(&output::job(&job, format)?)?;
    Ok(ExitCode::SUCCESS)
}

/// Polls until the job reaches a final status, printing each status seen. The journal, when
/// open, records what is seen.
async fn wait_for(
    client: &Client,
    mut journal: Option<&mut Journal>,
    ctx: &Context,
    mut job: Job,
    format: Format,
) -> Outcome {
    let id = job.id.clone().ok_or_else(|| {
        CliError::failed("the service did not return the job's id, so it cannot be waited for")
    })?;
    let interval = ctx.settings.poll_interval;
    let mut shown: Option<Option<JobStatus>> = None;
    let mut failures = 0u32;
    loop {
        let mut delay = interval;
        if shown.as_ref() != Some(&job.status) {
            emit(&output::transition(
                &job,
                format,
                shown.is_none(),
                Utc::now(),
            )?)?;
            shown = Some(job.status.clone());
        }
        match &job.status {
            Some(JobStatus::Completed) => return Ok(ExitCode::SUCCESS),
            Some(JobStatus::Failed) => return Ok(ExitCode::from(3)),
            Some(JobStatus::Archived) => return Ok(ExitCode::from(4)),
            // A status this build does not know is not final; it is checked less often.
            Some(JobStatus::Unknown(_)) => delay = interval * 4,
            Some(JobStatus::Active) | None => {}
        }
        loop {
            tokio::time::sleep(delay).await;
            match client.get_job(&id).await {
                Ok(fresh) => {
                    if let Some(journal) = journal.as_deref_mut()
                        && let Err(err) = journal.observe(&ctx.scope, &fresh, Utc::now())
                    {
                        warn(&format!(
                            "the journal could not record the job's status: {err}"
                        ));
                    }
                    failures = 0;
                    job = fresh;
                    break;
                }
                Err(err @ ApiError::RateLimited { .. }) => {
                    delay = err.retry_after().unwrap_or(MAX_BACKOFF);
                    warn(&format!(
                        "rate limited; polling again in {}",
                        HumanWait(delay)
                    ));
                }
                Err(err @ (ApiError::Network { .. } | ApiError::Server { .. })) => {
                    failures += 1;
                    delay = interval
                        .saturating_mul(2u32.saturating_pow(failures))
                        .min(MAX_BACKOFF);
                    warn(&format!(
                        "{err}; still waiting, next try in {}",
                        HumanWait(delay)
                    ));
                }
                Err(err) => return Err(err.into()),
            }
        }
    }
}

/// Shows a job, recording it in the journal if it is followed; with `--wait`, follows it
/// to a final status.
async fn get(args: &GetArgs) -> Outcome {
    let ctx = Context::load(&args.out.client)?;
    let client = ctx.client()?;
    let job = client.get_job(&args.id).await?;
    let mut journal = match ctx.journal() {
        Ok(mut journal) => match journal.observe(&ctx.scope, &job, Utc::now()) {
            Ok(_) => Some(journal),
            Err(err) => {
                warn(&format!("the journal could not record the job: {err}"));
                None
            }
        },
        Err(err) => {
            warn(&format!("the journal could not be opened: {}", err.message));
            None
        }
    };
    let format = Format::resolve(args.out.format);
    if args.out.wait {
        return wait_for(&client, journal.as_mut(), &ctx, job, format).await;
    }
    emit(&output::job(&job, format)?)?;
    Ok(ExitCode::SUCCESS)
}

/// Starts following a job after checking that the service has it.
async fn track(args: &IdArgs) -> Outcome {
    let ctx = Context::load(&args.client)?;
    let client = ctx.client()?;
    let job = client.get_job(&args.id).await?;
    let mut journal = ctx.journal()?;
    let now = Utc::now();
    journal.track(&ctx.scope, &args.id, now)?;
    journal.observe(&ctx.scope, &job, now)?;
    emit(&output::job(&job, Format::resolve(args.format))?)?;
    Ok(ExitCode::SUCCESS)
}

fn untrack(args: &IdArgs) -> Outcome {
    let ctx = Context::load(&args.client)?;
    if !ctx.journal()?.untrack(&ctx.scope, &args.id)? {
        warn(&format!(
            "job {} was not followed here",
            crate::text::sanitize(&args.id)
        ));
    }
    Ok(ExitCode::SUCCESS)
}

fn list(args: &ListArgs) -> Outcome {
    let ctx = Context::load(&args.client)?;
    let jobs = ctx.journal()?.tracked(&ctx.scope)?;
    emit(&output::job_list(
        &jobs,
        Format::resolve(args.format),
        Utc::now(),
    )?)?;
    Ok(ExitCode::SUCCESS)
}
