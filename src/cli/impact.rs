//! `docdeck jobs impact JOB`: did the change help? The pages the job touched (the files
//! of its change, where the service can see them, and the pages its first prompt lists,
//! marked when it was made), each page's human and AI visitors in the window before the
//! merge against the window after, beside the whole site's, with the caveat said once.

use std::process::ExitCode;

use chrono::{DateTime, TimeDelta, Utc};
use clap::Args;

use super::budget::Analytics;
use super::impact_merge::merged;
use super::impact_output::{Report, render};
use super::jobs::{resolve_id, typed_id};
use super::output::{Format, emit_data};
use super::setup::{ClientArgs, Setup};
use super::{CliError, Outcome, warn};
use crate::api::Job;
use crate::insight::impact::{Windows, impact, marked_pages, pages_of};
use crate::insight::whole::{DEFAULT_MAX_ROWS, MOST_MAX_ROWS};
use crate::journal::{Journal, Scope};
use crate::text::sanitize;

/// The longest window taken: a year on each side.
const MOST_WINDOW_DAYS: i64 = 366;

#[derive(Debug, Args)]
pub struct ImpactArgs {
    /// The job's id, or the start of it that only one job this machine knows has
    pub id: String,
    /// How long each window is, before the merge and after it, such as 14d, 2w or 36h
    /// (shorter when less has passed since the merge: both windows the same length)
    #[arg(long, value_name = "DURATION", default_value = "14d", value_parser = window_arg)]
    pub window: TimeDelta,
    /// When the change was merged (YYYY-MM-DD or RFC 3339), where the service and GitHub
    /// cannot tell (a squash merge, a fast-forward, a forge docdeck does not read)
    #[arg(long, value_name = "TIME", value_parser = merged_at_arg)]
    pub merged_at: Option<DateTime<Utc>>,
    /// The most rows fetched for each window, up to 25000 [default: max_rows of
    /// [visitors] in config.toml, else 5000]
    #[arg(long, value_name = "N")]
    pub max_rows: Option<usize>,
    /// Go ahead without asking when the work needs more than 10 analytics requests
    #[arg(long)]
    pub yes: bool,
    /// Output format [default: table on a terminal, json otherwise]
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    #[command(flatten)]
    pub client: ClientArgs,
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
    if let Some(max_rows) = args.max_rows
        && !(1..=MOST_MAX_ROWS).contains(&max_rows)
    {
        return Err(CliError::usage(format!(
            "--max-rows {max_rows} is out of range: give 1 to {MOST_MAX_ROWS} (the default is {DEFAULT_MAX_ROWS})"
        )));
    }
    let ctx = Setup::load(&args.client)?;
    let client = ctx.client()?;
    let mut journal = ctx.journal()?;
    let id = resolve_id(Some(&journal), &ctx.scope, &args.id)?;
    let job = client.get_job_with_change(&id).await?;
    let changed = job
        .change
        .as_ref()
        .map(|change| change.pages())
        .unwrap_or_default();
    let marked = marked_in_first_prompt(&journal, &ctx.scope, &id);
    let pages = pages_of(&changed, &marked);
    if pages.is_empty() {
        return Err(CliError::failed(no_pages(&job, &id)));
    }
    let merge = merged(&job, args.merged_at).await?;
    let now = Utc::now();
    let windows = Windows::around(merge.at, args.window, now).ok_or_else(|| {
        CliError::failed(format!(
            "job {}'s change was merged at {} UTC, {}: there is no window after the merge to compare yet",
            sanitize(&id),
            merge.at.format("%Y-%m-%d %H:%M"),
            if merge.at > now { "later than now" } else { "just now" }
        ))
    })?;
    let max_rows = args
        .max_rows
        .or(ctx.settings.visitors_max_rows)
        .unwrap_or(DEFAULT_MAX_ROWS);
    let mut analytics = Analytics::new(&mut journal, &ctx.scope, args.yes);
    let ranges = [windows.before, windows.after];
    let fetched = super::whole::fetch(
        &client,
        &mut analytics,
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
        && let Some(note) = partly_outside(&windows, span)
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
    let format = Format::resolve(args.format);
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

/// What to say when the service's views (`Docdeck-Views-Span`) do not cover both
/// windows: a window partly before the first view or after the last reads as a fall or
/// a rise that is only missing data.
fn partly_outside(windows: &Windows, span: crate::api::limit::ViewsSpan) -> Option<String> {
    let day = |at: DateTime<Utc>| at.format("%Y-%m-%d %H:%M").to_string();
    let (start, merge, end) = (windows.before.0, windows.before.1, windows.after.1);
    if span.last <= start || span.first >= end {
        return Some(format!(
            "no view falls in either window: the views run from {} to {} UTC; import the views of the weeks around the merge, or give --merged-at inside them",
            day(span.first),
            day(span.last)
        ));
    }
    // A gap under a tenth of the window (at most a day: imports lag) is not worth a word:
    // a log that starts a few minutes after a window is as good as full.
    let slack = ((end - merge) / 10).min(TimeDelta::days(1));
    let mut gaps = Vec::new();
    if span.first - start > slack {
        gaps.push(format!(
            "the views begin at {} UTC, after the window before the merge begins ({} UTC)",
            day(span.first),
            day(start)
        ));
    }
    if end - span.last > slack {
        gaps.push(format!(
            "the views end at {} UTC, before the window after the merge ends ({} UTC)",
            day(span.last),
            day(end)
        ));
    }
    if gaps.is_empty() {
        return None;
    }
    // The longest window both sides of the merge hold, if there is one worth naming.
    let fits = (merge - span.first).min(span.last - merge);
    let hint = if fits >= TimeDelta::days(1) {
        format!("; --window {}d fits the data", fits.num_days())
    } else if fits >= TimeDelta::hours(1) {
        format!("; --window {}h fits the data", fits.num_hours())
    } else {
        String::new()
    };
    Some(format!(
        "{}: part of a window has no data, so its numbers are low for that reason alone{hint}",
        gaps.join("; and ")
    ))
}

/// Why a job has no page to show, and what to do.
fn no_pages(job: &Job, id: &str) -> String {
    let change = match &job.change {
        Some(change) if change.files.is_empty() => {
            "its change touched no file (or has none yet)".to_owned()
        }
        Some(change) => format!(
            "none of the {} files its change touched is a page (.md or .mdx in the docs)",
            change.files.len()
        ),
        None => "the service does not say which files its change touched (only the local service with its real agent does)".to_owned(),
    };
    format!(
        "job {} has no page to show: {change}, and its first prompt lists no page as `- /path (human …)` lines (as a job made from marked pages does)",
        sanitize(id)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::limit::ViewsSpan;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn windows_the_views_do_not_cover_are_said() {
        let merged = at("2026-11-12T12:00:00Z");
        let windows =
            Windows::around(merged, TimeDelta::days(14), at("2026-11-27T00:00:00Z")).unwrap();
        let span = |first: &str, last: &str| ViewsSpan {
            first: at(first),
            last: at(last),
        };
        let note = partly_outside(
            &windows,
            span("2026-11-05T00:00:00Z", "2026-11-18T23:00:00Z"),
        )
        .unwrap();
        assert!(
            note.contains("the views begin at 2026-11-05 00:00 UTC"),
            "{note}"
        );
        assert!(
            note.contains("the views end at 2026-11-18 23:00 UTC"),
            "{note}"
        );
        assert!(note.ends_with("; --window 6d fits the data"), "{note}");
        assert_eq!(
            partly_outside(
                &windows,
                span("2026-10-01T00:00:00Z", "2026-11-26T01:00:00Z")
            ),
            None
        );
        // Found in a trial: a few minutes missing at the start of 14 days is no gap; a
        // window wholly outside the views says so, with no "shorter window" to try.
        assert_eq!(
            partly_outside(
                &windows,
                span("2026-10-29T12:04:00Z", "2026-11-26T12:00:00Z")
            ),
            None
        );
        let none = partly_outside(
            &windows,
            span("2015-05-17T00:00:00Z", "2015-05-20T23:59:00Z"),
        )
        .unwrap();
        assert!(none.starts_with("no view falls in either window"), "{none}");
        // Minutes after the merge, views that end hours before are said too (the check
        // waited for a whole day).
        let minutes =
            Windows::around(merged, TimeDelta::days(14), at("2026-11-12T12:10:00Z")).unwrap();
        let short = partly_outside(
            &minutes,
            span("2026-11-01T00:00:00Z", "2026-11-12T06:00:00Z"),
        );
        assert!(
            short.is_some_and(|s| s.starts_with("no view falls")),
            "views end before both windows"
        );
    }
}
