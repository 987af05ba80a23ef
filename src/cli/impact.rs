//! `docdeck jobs impact JOB`: did the change help? The pages the job touched (the files
//! of its change, where the service can see them, and the pages its first prompt lists,
//! marked when it was made), each page's human and AI visitors in the window before the
//! merge against the window after, beside the whole site's, with the caveat said once.

use std::process::ExitCode;

use chrono::{DateTime, TimeDelta, Utc};
use clap::Args;

use super::budget::Guard;
use super::impact_output::{Report, render};
use super::job_ref::{resolve_id, typed_id};
use super::output::{Format, emit_data};
use super::setup::{ReadArgs, Setup};
use super::{CliError, Outcome, warn};
use crate::insight::impact::{impact, marked_pages};
use crate::insight::impact_read::{NotReady, prepare};
use crate::insight::whole::{DEFAULT_MAX_ROWS, MOST_MAX_ROWS};
use crate::journal::{Journal, Scope};

/// The longest window taken: a year on each side.
const MOST_WINDOW_DAYS: i64 = 366;

#[derive(Debug, Args)]
pub struct ImpactArgs {
    /// The job's id, or the start of it that only one job this machine knows has
    pub id: String,
    /// How long each window is, before the merge and after it, such as 14d, 2w or 36h
    /// (shorter when less has passed since the merge: both windows the same length)
    // A value that starts with a hyphen (`-3d`) is taken, to be refused by `window_arg`
    // with what to give, rather than read by clap as an unknown flag `-3`.
    #[arg(long, value_name = "DURATION", default_value = "14d", value_parser = window_arg, allow_hyphen_values = true)]
    pub window: TimeDelta,
    /// When the change was merged (YYYY-MM-DD or RFC 3339), where the service and GitHub
    /// cannot tell (a squash merge, a fast-forward, a forge docdeck does not read)
    #[arg(long, value_name = "TIME", value_parser = merged_at_arg)]
    pub merged_at: Option<DateTime<Utc>>,
    /// The most rows fetched for each window, up to 25000 [default: max_rows of
    /// [visitors] in config.toml, else 5000]
    #[arg(long, value_name = "N")]
    pub max_rows: Option<usize>,
    #[command(flatten)]
    pub read: ReadArgs,
}

fn window_arg(text: &str) -> Result<TimeDelta, String> {
    let wrong = || {
        format!(
            "{text:?} is not a window: give a duration such as 14d, 2w or 36h, at most {MOST_WINDOW_DAYS}d"
        )
    };
    let duration = humantime::parse_duration(text.trim()).map_err(|_| wrong())?;
    let window = TimeDelta::from_std(duration).map_err(|_| wrong())?;
    if window < TimeDelta::hours(1) || window > TimeDelta::days(MOST_WINDOW_DAYS) {
        return Err(wrong());
    }
    Ok(window)
}

fn merged_at_arg(text: &str) -> Result<DateTime<Utc>, String> {
    crate::api::DateParam::parse("--merged-at", text)
        .map(|param| param.instant())
        .map_err(|err| err.to_string())
}

pub(super) async fn run(args: &ImpactArgs) -> Outcome {
    typed_id(&args.id)?;
    if let Some(at) = args.merged_at
        && at > Utc::now()
    {
        return Err(CliError::usage(format!(
            "--merged-at {} is in the future: give when the change was merged, or leave it out once it is",
            at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        )));
    }
    if let Some(max_rows) = args.max_rows
        && !(1..=MOST_MAX_ROWS).contains(&max_rows)
    {
        return Err(CliError::usage(format!(
            "--max-rows {max_rows} is out of range: give 1 to {MOST_MAX_ROWS} (the default is {DEFAULT_MAX_ROWS})"
        )));
    }
    let ctx = Setup::load(&args.read.client)?;
    let client = ctx.client()?;
    let mut journal = ctx.journal()?;
    let id = resolve_id(Some(&journal), &ctx.scope, &args.id)?;
    let marked = marked_in_first_prompt(&journal, &ctx.scope, &id);
    let prepared = prepare(
        &client,
        &id,
        &marked,
        args.merged_at,
        args.window,
        Utc::now(),
    )
    .await
    .map_err(|err| match err {
        NotReady::Api(err) => CliError::from(err),
        other => CliError::failed(other.to_string()),
    })?;
    let (job, pages, merge, windows) = (
        prepared.job,
        prepared.pages,
        prepared.merge,
        prepared.windows,
    );
    let max_rows = args
        .max_rows
        .or(ctx.settings.visitors_max_rows)
        .unwrap_or(DEFAULT_MAX_ROWS);
    let mut guard = Guard::new(&mut journal, &ctx.scope, args.read.yes);
    let ranges = [windows.before, windows.after];
    let fetched = super::whole::fetch(
        &client,
        &mut guard,
        "the impact",
        &ranges,
        max_rows,
        "use a shorter --window or a higher --max-rows",
    )
    .await?;
    let [before, after] = fetched.as_slice() else {
        return Err(CliError::failed("the windows' visitors were not fetched"));
    };
    if let Some(span) = client.views_span()
        && let Some(note) = crate::insight::impact_read::partly_outside(&windows, span)
    {
        warn(&note);
    }
    let report = Report {
        job: id,
        merge,
        windows,
        impact: impact(&pages, before, after),
        files: job.change.map(|change| change.files).unwrap_or_default(),
    };
    let format = Format::resolve(args.read.format);
    emit_data(&render(&report, format)?, format)?;
    Ok(ExitCode::SUCCESS)
}

/// The pages the job's first prompt lists (marked when it was made); none when the
/// journal does not have the prompt (a job made elsewhere) or cannot be read.
fn marked_in_first_prompt(journal: &Journal, scope: &Scope, id: &str) -> Vec<String> {
    match journal.conversation(scope, id) {
        Ok(prompts) => prompts
            .first()
            .map(|first| marked_pages(&first.prompt))
            .unwrap_or_default(),
        Err(err) => {
            warn(&format!(
                "the journal could not give the job's first prompt ({err}): the pages marked when it was made are left out"
            ));
            Vec::new()
        }
    }
}
