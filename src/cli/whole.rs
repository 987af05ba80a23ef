//! `docdeck visitors --compare`, `--sort` and `--filter`: the whole range (and, with
//! `--compare`, the period before it) fetched up to `--max-rows`, then compared, sorted
//! and filtered with the shared rules of `crate::insight`.

use std::process::ExitCode;

use chrono::{DateTime, Utc};

use super::budget::{Guard, Need};
use super::output::{Format, emit_data};
use super::range::require_range;
use super::setup::Setup;
use super::visitors_args::VisitorsArgs;
use super::whole_output::{Report, render};
use super::{CliError, Outcome};
use crate::api::{Client, VisitorsPage, VisitorsQuery};
use crate::insight::buckets::{param, previous_period, shown};
use crate::insight::compare;
use crate::insight::order::{Sort, SortKey, order};
use crate::insight::whole::{DEFAULT_MAX_ROWS, MOST_MAX_ROWS, Step, Whole, WholeRange};
use crate::journal::ASK_ABOVE;
use crate::listing::Pattern;

/// Whether `args` ask for the whole range.
pub(super) fn wanted(args: &VisitorsArgs) -> bool {
    args.compare || args.sort.is_some() || args.filter.is_some()
}

/// The flags that asked for it, for messages: `--sort and --filter`.
fn asked(args: &VisitorsArgs) -> String {
    let flags = [
        ("--compare", args.compare),
        ("--sort", args.sort.is_some()),
        ("--filter", args.filter.is_some()),
    ];
    let names: Vec<&str> = flags.iter().filter(|f| f.1).map(|f| f.0).collect();
    names.join(" and ")
}

pub(super) async fn run(args: &VisitorsArgs) -> Outcome {
    let what = asked(args);
    let (from, to) = require_range(&what, args.from, args.to)?;
    let sort = args.sort.unwrap_or(Sort::new(SortKey::Total));
    if sort.key == SortKey::Change && !args.compare {
        return Err(CliError::usage(
            "--sort change orders by the change from the period before: add --compare",
        ));
    }
    if let Some(max_rows) = args.max_rows
        && !(1..=MOST_MAX_ROWS).contains(&max_rows)
    {
        return Err(CliError::usage(format!(
            "--max-rows {max_rows} is out of range: give 1 to {MOST_MAX_ROWS} (the default is {DEFAULT_MAX_ROWS})"
        )));
    }
    let mut ranges = vec![(from, to)];
    if args.compare {
        ranges.push(previous_period(from, to).ok_or_else(|| {
            CliError::usage(
                "the period before this range starts before any date: use a later --from",
            )
        })?);
    }
    let ctx = Setup::load(&args.read.client)?;
    let max_rows = args
        .max_rows
        .or(ctx.settings.visitors_max_rows)
        .unwrap_or(DEFAULT_MAX_ROWS);
    let client = ctx.client()?;
    let mut journal = ctx.journal()?;
    let mut guard = Guard::new(&mut journal, &ctx.scope, args.read.yes);
    let pages = fetch(
        &client,
        &mut guard,
        &what,
        &ranges,
        max_rows,
        "use a shorter range or a higher --max-rows, or page through it with --page (without --sort, --filter and --compare)",
    )
    .await?;
    let [now, before] = match pages.as_slice() {
        [now] => [now, now],
        [now, before] => [now, before],
        _ => return Err(CliError::failed("no rows were fetched")),
    };
    // Nothing in either period: say where the views are, as `visitors` does.
    if now.visitors.is_empty()
        && before.visitors.is_empty()
        && let Some(span) = client.views_span()
    {
        super::warn(&super::range::empty_range_hint(span));
    }
    let pattern = Pattern::new(args.filter.as_deref().unwrap_or_default());
    let rows = compare::compare_rows(
        &now.visitors,
        if args.compare { &before.visitors } else { &[] },
    );
    let view = if args.compare {
        order(&rows, &pattern, sort)
    } else {
        order(&now.visitors, &pattern, sort)
    };
    let report = Report {
        totals: now.totals,
        previous: args
            .compare
            .then(|| (shown(ranges[1].0), shown(ranges[1].1), before.totals)),
        rows: view.iter().map(|&i| rows[i].clone()).collect(),
        all_rows: rows.len(),
        filter: args.filter.is_some().then_some(pattern),
        sort,
        range: (shown(from), shown(to)),
    };
    let format = Format::resolve(args.read.format);
    emit_data(&render(&report, format)?, format)?;
    Ok(ExitCode::SUCCESS)
}

/// Every row of each range, a request at a time, each counted. Nothing is asked while
/// the requests known to be needed stay within the budget's rule (10): only when an 11th
/// would be sent does it ask, saying what is fetched and the most that is left; a
/// request past what is left this hour is refused before it is sent.
pub(super) async fn fetch(
    client: &Client,
    guard: &mut Guard<'_>,
    what: &str,
    ranges: &[(DateTime<Utc>, DateTime<Utc>)],
    max_rows: usize,
    too_many: &str,
) -> Result<Vec<VisitorsPage>, CliError> {
    let smaller = "use a shorter range or a lower --max-rows";
    let mut fetches: Vec<(WholeRange, Option<Whole>)> = ranges
        .iter()
        .map(|(from, to)| {
            let query = VisitorsQuery {
                date_from: Some(param(*from)),
                date_to: Some(param(*to)),
                ..VisitorsQuery::default()
            };
            (WholeRange::new(&query, max_rows), None)
        })
        .collect();
    let progress = super::progress::Line::spinner();
    let mut sent = 0u32;
    let mut asked = false;
    for index in 0..fetches.len() {
        while fetches[index].1.is_none() {
            if sent == ASK_ABOVE && !asked {
                let rest: u32 = fetches
                    .iter()
                    .filter(|(_, done)| done.is_none())
                    .map(|(whole, _)| whole.most_requests() - whole.requests())
                    .sum();
                let rows: usize = fetches.iter().map(|(whole, _)| whole.progress().rows).sum();
                progress.suspend(|| {
                    guard.allow_past(
                        &format!(
                            "{what} made {sent} requests ({} rows so far); the rest",
                            crate::text::thousands(rows as u64)
                        ),
                        Need::AtMost(rest),
                        smaller,
                    )
                })?;
                asked = true;
            } else {
                guard.allow(what, Need::Exactly(1), smaller)?;
            }
            let (whole, done) = &mut fetches[index];
            let step = whole.step(client).await;
            sent += 1;
            guard.record(1, client.stated_analytics_limit());
            progress.say(format!(
                "fetched {} rows in {sent} requests",
                crate::text::thousands(whole.progress().rows as u64)
            ));
            match step? {
                Step::More => {}
                Step::Done(outcome) => *done = Some(outcome),
            }
        }
    }
    progress.finish();
    fetches
        .into_iter()
        .zip(ranges)
        .map(|((_, outcome), range)| held(outcome.unwrap_or(Whole::Cancelled), range, too_many))
        .collect()
}

/// The rows of a whole range, or why there are none.
/// `too_many` says what to do when a range has more rows than are held.
fn held(
    outcome: Whole,
    (from, to): &(DateTime<Utc>, DateTime<Utc>),
    too_many: &str,
) -> Result<VisitorsPage, CliError> {
    // A time of day to the minute, as people read it (not a parameter's nanoseconds).
    let when = |at: DateTime<Utc>| {
        if at.time() == chrono::NaiveTime::MIN {
            at.format("%Y-%m-%d").to_string()
        } else {
            at.format("%Y-%m-%d %H:%M UTC").to_string()
        }
    };
    match outcome {
        Whole::All(page) => Ok(page),
        Whole::TooMany { max_rows, .. } => Err(CliError::failed(format!(
            "the range from {} to {} has more than {} rows, the most read (--max-rows, at most {}): {too_many}",
            when(*from),
            when(*to),
            crate::text::thousands(max_rows as u64),
            crate::text::thousands(MOST_MAX_ROWS as u64),
        ))),
        Whole::Cancelled => Err(CliError::failed("the fetch was cancelled")),
    }
}
