//! `docdeck visitors trend`: unique visitors per UTC day or ISO week of a range, each
//! bucket read as its own `limit=1` request (the interface has no time series), settled
//! buckets taken from the journal instead of the service.

use std::io::IsTerminal as _;
use std::process::ExitCode;

use chrono::Utc;
use clap::Args;
use serde::Serialize;

use super::budget::{Guard, Need};
use super::output::{Format, emit_data};
use super::range::require_range;
use super::setup::{ClientArgs, Setup};
use super::table::{self, Column, Fit, thousands};
use super::{CliError, Outcome};
use crate::api::{Client, DateParam, VisitorTotals};
use crate::export;
use crate::insight::Cancel;
use crate::insight::buckets::{self, Bucket, By, shown};
use crate::insight::cached::{BucketRange, Cost, TrendCache, read_cached};
use crate::insight::trend::TrendEnd;
use crate::journal::{Journal, JournalError, Scope};

/// The most buckets one trend reads: more than ten hours of the analytics budget.
const MOST_BUCKETS: u64 = 1_000;

#[derive(Debug, Args)]
pub struct TrendArgs {
    /// First instant included: YYYY-MM-DD (00:00 UTC) or an RFC 3339 time (required)
    #[arg(long, value_name = "DATE", value_parser = super::range::from_arg)]
    pub from: Option<DateParam>,
    /// First instant excluded: YYYY-MM-DD or RFC 3339 (required)
    #[arg(long, value_name = "DATE", value_parser = super::range::to_arg)]
    pub to: Option<DateParam>,
    /// Bucket width: day (UTC days) or week (ISO weeks from Monday) [default: day; week
    /// for ranges over 60 days]
    #[arg(long, value_name = "day|week")]
    pub by: Option<By>,
    /// Output format [default: table on a terminal, json otherwise]
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Read every bucket again, even those the journal keeps (ended over 48 hours ago)
    #[arg(long)]
    pub refresh: bool,
    /// Go ahead without asking when the trend needs more than 10 analytics requests
    #[arg(long)]
    pub yes: bool,
    #[command(flatten)]
    pub client: ClientArgs,
}

/// One bucket as the JSON contract gives it.
#[derive(Debug, Serialize)]
struct BucketJson {
    from: String,
    to: String,
    human: u64,
    ai: u64,
    total: u64,
}

#[derive(Debug, Serialize)]
struct TrendJson {
    by: &'static str,
    buckets: Vec<BucketJson>,
}

pub async fn run(args: TrendArgs) -> Outcome {
    let (from, to) = require_range("visitors trend", args.from, args.to)?;
    let by = args.by.unwrap_or_else(|| By::for_range(from, to));
    let count = by.count(from, to);
    if count > MOST_BUCKETS {
        return Err(CliError::usage(format!(
            "the range has {} {}s, more than the {MOST_BUCKETS} one trend reads: use a shorter range{}",
            thousands(count),
            by.as_str(),
            if by == By::Day { " or --by week" } else { "" }
        )));
    }
    let buckets = buckets::buckets(from, to, by);
    let ctx = Setup::load(&args.client)?;
    let client = ctx.client()?;
    let mut journal = Journaled {
        journal: ctx.journal()?,
        scope: &ctx.scope,
        yes: args.yes,
        client: &client,
    };
    let spend = |journal: &mut Journaled<'_>, cost: Cost| {
        let what = if cost.kept == 0 {
            format!("the trend of {} {}s", buckets.len(), by.as_str())
        } else {
            format!(
                "the trend of {} {}s ({} kept in the journal)",
                buckets.len(),
                by.as_str(),
                cost.kept
            )
        };
        let smaller = if by == By::Day {
            "use a shorter range or --by week"
        } else {
            "use a shorter range"
        };
        journal
            .guard()
            .allow(&what, Need::Exactly(cost.requests), smaller)
    };
    // The bar appears once the read knows how many buckets it sends for (none: no bar).
    let line = std::cell::OnceCell::new();
    let progress = |done: usize, of: usize| {
        line.get_or_init(|| {
            super::progress::Line::bar(of as u64, &format!("{}s read", by.as_str()))
        })
        .at(done as u64);
    };
    let read = read_cached(
        &mut journal,
        &client,
        &buckets,
        args.refresh,
        spend,
        progress,
        &Cancel::new(),
    )
    .await?;
    if let Some(line) = line.get() {
        line.finish();
    }
    let complete = read.complete();
    let totals = match (read.end, complete) {
        (TrendEnd::Failed(error), _) => return Err(error.into()),
        (_, Some(totals)) => totals,
        (_, None) => return Err(CliError::failed("the trend stopped before its end")),
    };
    // No visitor in any bucket: say where the views are, as `visitors` does.
    if totals.iter().all(|t| t.total == 0)
        && let Some(span) = client.views_span()
    {
        super::warn(&super::range::empty_range_hint(span));
    }
    let format = Format::resolve(args.format);
    emit_data(&render(by, &buckets, &totals, format, (from, to))?, format)?;
    Ok(ExitCode::SUCCESS)
}

/// The journal as the CLI reaches it: at hand; what fails after the reading is said on
/// stderr, as a warning (the numbers were read).
struct Journaled<'a> {
    journal: Journal,
    scope: &'a Scope,
    yes: bool,
    client: &'a Client,
}

impl Journaled<'_> {
    fn guard(&mut self) -> Guard<'_> {
        Guard::new(&mut self.journal, self.scope, self.yes)
    }
}

impl TrendCache for Journaled<'_> {
    type Error = JournalError;

    async fn kept(
        &mut self,
        ranges: Vec<BucketRange>,
        refresh: bool,
    ) -> Result<Vec<Option<VisitorTotals>>, JournalError> {
        self.journal
            .trend_kept(self.scope, &ranges, Utc::now(), refresh)
    }

    async fn keep(&mut self, read: Vec<(BucketRange, VisitorTotals)>) {
        if let Err(err) = self.journal.store_trend(self.scope, &read, Utc::now()) {
            super::warn(&format!("the buckets just read were not kept: {err}"));
        }
    }

    async fn count(&mut self, requests: u32) {
        let stated = self.client.stated_analytics_limit();
        self.guard().record(requests, stated);
    }
}

fn render(
    by: By,
    buckets: &[Bucket],
    totals: &[VisitorTotals],
    format: Format,
    range: (chrono::DateTime<Utc>, chrono::DateTime<Utc>),
) -> Result<String, CliError> {
    let rows = buckets.iter().zip(totals).map(|(bucket, t)| BucketJson {
        from: shown(bucket.from),
        to: shown(bucket.to),
        human: t.human,
        ai: t.ai,
        total: t.total,
    });
    match format {
        Format::Json => {
            let json = TrendJson {
                by: by.as_str(),
                buckets: rows.collect(),
            };
            Ok(export::json_text(&json, std::io::stdout().is_terminal())? + "\n")
        }
        Format::Csv => {
            let rows = rows.map(|b| {
                [
                    b.from,
                    b.to,
                    b.human.to_string(),
                    b.ai.to_string(),
                    b.total.to_string(),
                ]
            });
            Ok(export::csv_text(
                Some(&["from", "to", "human", "ai", "total"]),
                rows,
            )?)
        }
        Format::Table => Ok(trend_table(
            by,
            buckets,
            totals,
            range,
            table::target_width(),
        )),
    }
}

const COLUMNS: [Column; 6] = [
    Column::new("FROM", Fit::Keep),
    Column::new("TO", Fit::Keep),
    Column::new("HUMAN", Fit::Number),
    Column::new("AI", Fit::Number),
    Column::new("TOTAL", Fit::Number),
    Column::new("AI SHARE", Fit::Number),
];

/// The buckets, under a note saying what their numbers are and are not.
fn trend_table(
    by: By,
    buckets: &[Bucket],
    totals: &[VisitorTotals],
    (from, to): (chrono::DateTime<Utc>, chrono::DateTime<Utc>),
    width: Option<usize>,
) -> String {
    let (unit, kind) = match by {
        By::Day => ("day", "UTC days"),
        By::Week => ("week", "ISO weeks from Monday, UTC"),
    };
    let note = format!(
        "unique visitors per {unit} ({kind}), {} to {} (exclusive). Each {unit} counts \
         its own visitors: one who came on two {unit}s is in both, so the {unit}s do not \
         add up to the range's total (docdeck visitors --from {} --to {} gives it).",
        shown(from),
        shown(to),
        shown(from),
        shown(to)
    );
    let rows: Vec<Vec<String>> = buckets
        .iter()
        .zip(totals)
        .map(|(bucket, t)| {
            vec![
                shown(bucket.from),
                shown(bucket.to),
                thousands(t.human),
                thousands(t.ai),
                thousands(t.total),
                // No visitor, no share: "-" rather than a 0.0% that says none were AI.
                if t.total == 0 {
                    "-".to_owned()
                } else {
                    format!("{:.1}%", t.ai_share())
                },
            ]
        })
        .collect();
    table::wrap(&note, width) + &table::render(&COLUMNS, &rows, width)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_says_days_do_not_add_up_and_fits_80_columns() {
        let from = DateParam::parse("f", "2026-11-15").unwrap().instant();
        let to = DateParam::parse("t", "2026-11-17T12:00:00Z")
            .unwrap()
            .instant();
        let days = buckets::buckets(from, to, By::Day);
        let totals = vec![
            VisitorTotals {
                human: 1_234,
                ai: 56,
                total: 1_260,
            };
            days.len()
        ];
        let text = trend_table(By::Day, &days, &totals, (from, to), Some(80));
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "{line:?} in\n{text}");
        }
        assert!(
            text.contains("do not\nadd up") || text.contains("do not add up"),
            "{text}"
        );
        assert!(text.contains("2026-11-17  2026-11-17T12:00:00Z"), "{text}");
        assert!(text.contains("1,234"), "{text}");
    }

    #[test]
    fn a_bucket_without_visitors_has_no_ai_share() {
        let from = DateParam::parse("f", "2026-11-15").unwrap().instant();
        let to = DateParam::parse("t", "2026-11-16").unwrap().instant();
        let days = buckets::buckets(from, to, By::Day);
        let text = trend_table(
            By::Day,
            &days,
            &[VisitorTotals::default()],
            (from, to),
            Some(80),
        );
        let row = text.lines().last().unwrap();
        assert!(
            row.trim_end().ends_with('-') && !row.contains('%'),
            "{text}"
        );
    }
}
