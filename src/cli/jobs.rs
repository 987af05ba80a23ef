//! `docdeck jobs ...`: create, follow up, read, list, track and untrack jobs. Every prompt
//! is written to the journal before it is sent, and nothing is ever sent twice.

use std::process::ExitCode;
use std::time::Duration;

use chrono::Utc;
use clap::Args;
use futures_util::StreamExt as _;

use super::job_ref::{resolve_id, typed_id};
use super::output::{self, Format, emit_data};
use super::setup::{ClientArgs, Setup, timeout_arg};
use super::wait::wait_for;
use super::{CliError, JobsCommand, Outcome, read_prompt, warn};
use crate::api::{ApiError, Client, Job, JobStatus};
use crate::journal::{Journal, Recorded, Scope, SubmissionKind, TrackedJob};

/// How a job is followed and printed, and where the service is.
#[derive(Debug, Args)]
pub struct JobOutput {
    /// Poll until the job is completed, failed or archived, printing each status change.
    /// Exit code: 0 completed, 3 failed, 4 archived, 5 --timeout ran out
    #[arg(long)]
    pub wait: bool,
    /// With --wait: give up after DURATION, such as 10m, with exit code 5 (the job goes on)
    #[arg(long, value_name = "DURATION", requires = "wait", value_parser = timeout_arg)]
    pub timeout: Option<Duration>,
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
    /// The job to send the follow-up to (its id, or a unique start of it)
    pub id: String,
    /// The follow-up instruction; `-` reads it from standard input
    pub prompt: String,
    #[command(flatten)]
    pub out: JobOutput,
}

#[derive(Debug, Args)]
pub struct GetArgs {
    /// The job's id, or the start of it that only one job this machine knows has
    pub id: String,
    #[command(flatten)]
    pub out: JobOutput,
}

#[derive(Debug, Args)]
pub struct IdArgs {
    /// The job's id, or the start of it that only one job this machine knows has
    pub id: String,
    /// Output format [default: table on a terminal, json otherwise]
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    #[command(flatten)]
    pub client: ClientArgs,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Read each listed job that is not archived from the service first
    #[arg(long)]
    pub refresh: bool,
    /// Only the ids, one a line, from the journal alone: for shell completion
    #[arg(long, hide = true, conflicts_with_all = ["refresh", "format"])]
    pub ids: bool,
    /// Output format [default: table on a terminal, json otherwise]
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    #[command(flatten)]
    pub client: ClientArgs,
}

/// Reads at most this many jobs at once for `jobs list --refresh`, as the console does.
const REFRESH_AT_ONCE: usize = 4;

pub async fn run(command: JobsCommand) -> Outcome {
    match command {
        JobsCommand::Create(args) => submit(None, &args.prompt, &args.out).await,
        JobsCommand::Message(args) => {
            submit(Some(typed_id(&args.id)?), &args.prompt, &args.out).await
        }
        JobsCommand::Get(args) => get(&args).await,
        JobsCommand::Track(args) => track(&args).await,
        JobsCommand::Untrack(args) => untrack(&args),
        JobsCommand::List(args) => list(&args).await,
        JobsCommand::Impact(args) => super::impact::run(&args).await,
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
    let ctx = Setup::load(&out.client)?;
    let client = ctx.client()?;
    let not_sent = |err: CliError| CliError::failed(format!("{}; nothing was sent", err.message));
    let mut journal = ctx.journal().map_err(not_sent)?;
    let job_id = match job_id {
        Some(typed) => Some(resolve_id(Some(&journal), &ctx.scope, typed)?),
        None => None,
    };
    let job_id = job_id.as_deref();
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
        return wait_for(&client, Some(&mut journal), &ctx, job, format, out.timeout).await;
    }
    emit_data(&output::job(&job, format)?, format)?;
    Ok(ExitCode::SUCCESS)
}

/// Shows a job, recording it in the journal if it is followed; with `--wait`, follows it
/// to a final status.
async fn get(args: &GetArgs) -> Outcome {
    typed_id(&args.id)?;
    let ctx = Setup::load(&args.out.client)?;
    let client = ctx.client()?;
    let mut journal = match ctx.journal() {
        Ok(journal) => Some(journal),
        Err(err) => {
            warn(&format!("the journal could not be opened: {}", err.message));
            None
        }
    };
    let id = resolve_id(journal.as_ref(), &ctx.scope, &args.id)?;
    let job = client.get_job(&id).await?;
    if let Some(open) = journal.as_mut()
        && let Err(err) = open.observe(&ctx.scope, &job, Utc::now())
    {
        warn(&format!("the journal could not record the job: {err}"));
        journal = None;
    }
    let format = Format::resolve(args.out.format);
    if args.out.wait {
        let timeout = args.out.timeout;
        return wait_for(&client, journal.as_mut(), &ctx, job, format, timeout).await;
    }
    emit_data(&output::job(&job, format)?, format)?;
    Ok(ExitCode::SUCCESS)
}

/// Starts following a job after checking that the service has it.
async fn track(args: &IdArgs) -> Outcome {
    typed_id(&args.id)?;
    let ctx = Setup::load(&args.client)?;
    let client = ctx.client()?;
    let mut journal = ctx.journal()?;
    let id = resolve_id(Some(&journal), &ctx.scope, &args.id)?;
    let job = client.get_job(&id).await?;
    let now = Utc::now();
    journal.track(&ctx.scope, &id, now)?;
    journal.observe(&ctx.scope, &job, now)?;
    let format = Format::resolve(args.format);
    emit_data(&output::job(&job, format)?, format)?;
    Ok(ExitCode::SUCCESS)
}

fn untrack(args: &IdArgs) -> Outcome {
    typed_id(&args.id)?;
    let ctx = Setup::load(&args.client)?;
    let mut journal = ctx.journal()?;
    let id = resolve_id(Some(&journal), &ctx.scope, &args.id)?;
    if !journal.untrack(&ctx.scope, &id)? {
        warn(&format!(
            "job {} was not followed here",
            crate::text::sanitize(&id)
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// The jobs the journal follows; with `--refresh`, each one not final is read first.
async fn list(args: &ListArgs) -> Outcome {
    let ctx = Setup::load(&args.client)?;
    let mut journal = ctx.journal()?;
    let mut jobs = journal.tracked(&ctx.scope)?;
    if args.ids {
        let ids: String = jobs
            .iter()
            .map(|job| format!("{}\n", crate::text::sanitize(&job.id)))
            .collect();
        super::output::emit(&ids)?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.refresh && jobs.iter().any(needs_reading) {
        refresh(&ctx.client()?, &mut journal, &ctx.scope, &jobs).await;
        jobs = journal.tracked(&ctx.scope)?;
    }
    let format = Format::resolve(args.format);
    emit_data(
        &output::job_list(&jobs, &ctx.scope, format, Utc::now())?,
        format,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Not archived as last seen (or never seen): what `--refresh` reads. A completed or
/// failed job can still be archived, or revived by a follow-up sent from elsewhere.
fn needs_reading(tracked: &TrackedJob) -> bool {
    match tracked
        .snapshot
        .as_ref()
        .and_then(|job| job.status.as_ref())
    {
        None
        | Some(
            JobStatus::Active | JobStatus::Unknown(_) | JobStatus::Completed | JobStatus::Failed,
        ) => true,
        Some(JobStatus::Archived) => false,
    }
}

/// Reads the jobs that are not archived, a few at a time, and records what is seen. A job
/// that cannot be read is shown as last seen, with a warning.
async fn refresh(client: &Client, journal: &mut Journal, scope: &Scope, jobs: &[TrackedJob]) {
    let reads: Vec<(String, Result<Job, ApiError>)> =
        futures_util::stream::iter(jobs.iter().filter(|job| needs_reading(job)))
            .map(|tracked| async move { (tracked.id.clone(), client.get_job(&tracked.id).await) })
            .buffer_unordered(REFRESH_AT_ONCE)
            .collect()
            .await;
    for (id, read) in reads {
        let recorded = match read {
            Ok(job) => journal
                .observe(scope, &job, Utc::now())
                .map(|_| ())
                .map_err(|err| err.to_string()),
            Err(err) => Err(err.to_string()),
        };
        if let Err(err) = recorded {
            warn(&format!(
                "job {} is shown as last seen: {err}",
                crate::text::sanitize(&id)
            ));
        }
    }
}
