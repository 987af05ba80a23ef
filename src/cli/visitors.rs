//! `docdeck visitors`: one page, or every page, of unique visitors per page, and the
//! table that shows them.

use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::budget::{Analytics, Need};
use super::output::{self, Format, emit_data};
use super::setup::{ClientArgs, Setup};
use super::table::{self, Column, Fit, thousands};
use super::{CliError, Outcome};
use crate::api::query::{DEFAULT_LIMIT, MAX_LIMIT};
use crate::api::{DateParam, VisitorsPage, VisitorsQuery};
use crate::insight::order::Sort;
use crate::text::sanitize;

#[derive(Debug, Args)]
pub struct VisitorsArgs {
    #[command(subcommand)]
    pub command: Option<VisitorsCommand>,
    /// First instant included: YYYY-MM-DD (00:00 UTC) or an RFC 3339 time
    #[arg(long, value_name = "DATE", value_parser = from_arg)]
    pub from: Option<DateParam>,
    /// First instant excluded (the range ends just before it): YYYY-MM-DD or RFC 3339
    #[arg(long, value_name = "DATE", value_parser = to_arg)]
    pub to: Option<DateParam>,
    /// Rows per page, 1 to 250 [default: 50; 250 with --all]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=250))]
    pub limit: Option<u32>,
    /// Rows to skip
    #[arg(long, value_name = "N", conflicts_with = "page", value_parser = offset_arg)]
    pub offset: Option<u64>,
    /// Page number, from 1 (sets offset to (page - 1) * limit)
    #[arg(long, value_name = "N", value_parser = page_arg)]
    pub page: Option<u64>,
    /// Fetch every page of the range
    #[arg(long, conflicts_with_all = ["offset", "page"])]
    pub all: bool,
    /// Compare with the period of the same length just before: each row gets its
    /// previous numbers (fetches the whole range of both periods; needs --from and --to)
    #[arg(long, conflicts_with_all = WHOLE_CONFLICTS)]
    pub compare: bool,
    /// Sort the whole range by path, human, ai, total or ai-share (change, with
    /// --compare), :asc or :desc [default: descending, path ascending]
    #[arg(long, value_name = "KEY[:asc|:desc]", value_parser = sort_arg, conflicts_with_all = WHOLE_CONFLICTS)]
    pub sort: Option<Sort>,
    /// Keep the rows whose path holds PATTERN (any case; * for any run of characters);
    /// the totals stay the whole range's
    #[arg(long, value_name = "PATTERN", conflicts_with_all = WHOLE_CONFLICTS)]
    pub filter: Option<String>,
    /// The most rows fetched for --compare, --sort or --filter, up to 25000 [default:
    /// max_rows of [visitors] in config.toml, else 5000]
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

/// The paging flags that make no sense with the whole range.
const WHOLE_CONFLICTS: [&str; 3] = ["offset", "page", "limit"];

#[derive(Debug, Subcommand)]
pub enum VisitorsCommand {
    /// Unique human and AI visitors per UTC day or ISO week of a range (each bucket
    /// counts its own visitors: they do not add up to the range's total)
    Trend(super::trend::TrendArgs),
}

fn sort_arg(text: &str) -> Result<Sort, String> {
    Sort::parse(text).map_err(|err| err.to_string())
}

pub(super) fn from_arg(text: &str) -> Result<DateParam, String> {
    DateParam::parse("--from", text).map_err(|err| err.to_string())
}

pub(super) fn to_arg(text: &str) -> Result<DateParam, String> {
    DateParam::parse("--to", text).map_err(|err| err.to_string())
}

/// The largest offset the service takes: it reads offsets as signed 64-bit numbers.
const MAX_OFFSET: u64 = i64::MAX.unsigned_abs();

fn offset_arg(text: &str) -> Result<u64, String> {
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|offset| *offset <= MAX_OFFSET)
        .ok_or_else(|| format!("the offset is a whole number from 0 to {MAX_OFFSET}"))
}

fn page_arg(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(0) => Err("pages count from 1: the first page is --page 1".to_owned()),
        Ok(page) => Ok(page),
        Err(_) => Err("the page is a whole number from 1".to_owned()),
    }
}

/// The offset of page `page` (from 1) of `limit` rows, or a usage error naming the pages
/// there can be when it is past the largest offset the service takes.
fn page_offset(page: u64, limit: u32) -> Result<u64, CliError> {
    let limit = u64::from(limit.max(1));
    let last = MAX_OFFSET / limit + 1;
    (page - 1)
        .checked_mul(limit)
        .filter(|offset| *offset <= MAX_OFFSET)
        .ok_or_else(|| {
            CliError::usage(format!(
                "--page {page} is out of range: with {limit} rows a page, pages go from 1 to {last}"
            ))
        })
}

pub async fn run(args: VisitorsArgs) -> Outcome {
    if let Some(VisitorsCommand::Trend(trend)) = args.command {
        return super::trend::run(trend).await;
    }
    if super::whole::wanted(&args) {
        return super::whole::run(&args).await;
    }
    let limit = args.limit;
    let offset = match (args.offset, args.page) {
        (Some(offset), _) => Some(offset),
        (None, Some(page)) => Some(page_offset(page, limit.unwrap_or(DEFAULT_LIMIT))?),
        (None, None) => None,
    };
    let query = VisitorsQuery {
        date_from: args.from,
        date_to: args.to,
        limit,
        offset,
    };
    query.validate().map_err(|err| CliError::of_query(&err))?;
    let ctx = Setup::load(&args.client)?;
    let client = ctx.client()?;
    let mut journal = ctx.journal()?;
    let mut analytics = Analytics::new(&mut journal, &ctx.scope, args.yes);
    // Counted, and refused when none is left; --all's pages are not known before (it
    // stops at the first 429 instead).
    analytics.allow(
        "this request",
        Need::Exactly(1),
        "wait for the hour to pass",
    )?;
    let (page, requests) = if args.all {
        let progress = super::progress::Line::spinner();
        let (mut rows, mut pages) = (0, 0);
        let page = client
            .visitors_all(&query, |page| {
                rows += page.visitors.len();
                pages += 1;
                progress.say(format!(
                    "fetched {} rows in {pages} requests",
                    crate::text::thousands(rows as u64)
                ));
            })
            .await;
        progress.finish();
        // A failed page was sent too; a broken one was kept out of `pages`.
        let sent = if page.is_ok() { pages } else { pages + 1 };
        (page.map_err(|incomplete| incomplete.error), sent)
    } else {
        (client.visitors(&query).await, 1)
    };
    analytics.record(requests, client.stated_analytics_limit());
    // A broken or failing server ends --all with its error alone: the rows fetched
    // before it are not printed, as a partial list would pass for the whole range.
    let page = page?;
    let offset = query.effective_offset();
    if page.visitors.is_empty() && offset > 0 {
        let rows = count_rows(&client, &query, &mut analytics).await?;
        return Err(CliError::usage(past_the_end(&query, args.page, rows)));
    }
    if page.visitors.is_empty()
        && let Some(span) = client.views_span()
    {
        super::warn(&empty_range_hint(span));
    }
    let format = Format::resolve(args.format);
    emit_data(&output::visitors(&page, &query, args.all, format)?, format)?;
    Ok(ExitCode::SUCCESS)
}

/// What an empty range is told when the service said when its views begin and end: the
/// flags that show them (`--to` is exclusive, so the day after the last view).
pub(super) fn empty_range_hint(span: crate::api::limit::ViewsSpan) -> String {
    let after = span
        .last
        .date_naive()
        .succ_opt()
        .unwrap_or(span.last.date_naive());
    format!(
        "no visits in this range; the views run from {} to {} (UTC): --from {} --to {} shows them",
        span.first.date_naive(),
        span.last.date_naive(),
        span.first.date_naive(),
        after
    )
}

/// How many rows the range of `query` has, known to be fewer than its offset: found by
/// asking for windows of the most rows a request takes (250), the first, then ever further
/// ones (doubling) until one is not full, then halving between: one request for up to 250
/// rows, about 2·log2(rows / 250) + 1 for more, whatever the page asked for. Each is
/// counted in the hour's budget, as any request is.
async fn count_rows(
    client: &crate::api::Client,
    query: &VisitorsQuery,
    analytics: &mut Analytics<'_>,
) -> Result<u64, CliError> {
    let window = u64::from(MAX_LIMIT);
    // No window after `high` can hold a row: the asked offset had none.
    let high = query.effective_offset().saturating_sub(1) / window;
    let mut fetch = async |index: u64| -> Result<u64, CliError> {
        analytics.allow(
            "finding the last page",
            Need::Exactly(1),
            "ask for a page from 1 on",
        )?;
        let rows = window_rows(client, query, index).await;
        analytics.record(1, client.stated_analytics_limit());
        Ok(rows?)
    };
    rows_in(window, high, &mut fetch).await
}

/// The rows of a range whose rows are read `window` at a time by `fetch` (the rows of
/// window `index`), when no window after `high` holds any: see [`count_rows`].
async fn rows_in<E>(
    window: u64,
    high: u64,
    fetch: &mut impl AsyncFnMut(u64) -> Result<u64, E>,
) -> Result<u64, E> {
    let first = fetch(0).await?;
    if first < window {
        return Ok(first);
    }
    // Window `full` is full; windows past `high` are empty.
    let (mut full, mut high, mut step) = (0, high, 1);
    loop {
        if full >= high {
            return Ok((full + 1) * window);
        }
        let probe = if step > 0 {
            (full + step).min(high)
        } else {
            full + (high - full).div_ceil(2)
        };
        let rows = fetch(probe).await?;
        if rows == window {
            full = probe;
            step = step.saturating_mul(2);
        } else if rows == 0 {
            high = probe - 1;
            // Found an empty window: halve from here on.
            step = 0;
        } else {
            return Ok(probe * window + rows);
        }
    }
}

/// The rows in window `index` (of the most rows a request takes) of `query`'s range.
async fn window_rows(
    client: &crate::api::Client,
    query: &VisitorsQuery,
    index: u64,
) -> Result<u64, crate::api::ApiError> {
    let window = VisitorsQuery {
        limit: Some(MAX_LIMIT),
        offset: Some(index * u64::from(MAX_LIMIT)),
        ..query.clone()
    };
    Ok(client.visitors(&window).await?.visitors.len() as u64)
}

/// What a page past the last row says: which page is the last.
fn past_the_end(query: &VisitorsQuery, page: Option<u64>, rows: u64) -> String {
    let limit = u64::from(query.effective_limit().max(1));
    let asked = match page {
        Some(page) => format!("page {}", thousands(page)),
        None => format!("offset {}", thousands(query.effective_offset())),
    };
    if rows == 0 {
        return format!("{asked} is past the end: this range has no rows");
    }
    let pages = rows.div_ceil(limit);
    let keep_limit = match query.limit {
        Some(limit) if limit != DEFAULT_LIMIT => format!(" --limit {limit}"),
        _ => String::new(),
    };
    format!(
        "{asked} is past the end: there {} {} (rows 1–{} of {}); the last is --page {}{keep_limit}",
        if pages == 1 { "is" } else { "are" },
        if pages == 1 {
            "1 page".to_owned()
        } else {
            format!("{} pages", thousands(pages))
        },
        thousands(rows),
        thousands(rows),
        thousands(pages),
    )
}

/// The columns of a table of pages (the whole range's table adds its own after them).
pub(super) const COLUMNS: [Column; 4] = [
    Column::new("PATH", Fit::CutStart),
    Column::new("HUMAN", Fit::Number),
    Column::new("AI", Fit::Number),
    Column::new("TOTAL", Fit::Number),
];

/// The table of a page (or of every page, with `all`): totals, rows fitted to `width`,
/// and where the page is in the range, with the flags that show the next one.
pub fn table(
    page: &VisitorsPage,
    query: &VisitorsQuery,
    all: bool,
    width: Option<usize>,
) -> String {
    let t = page.totals;
    let range = match (query.date_from, query.date_to) {
        (None, None) => "all time".to_owned(),
        (from, to) => format!(
            "from {} to {} (exclusive)",
            from.map_or_else(|| "the start".to_owned(), |d| d.to_string()),
            to.map_or_else(|| "now".to_owned(), |d| d.to_string())
        ),
    };
    let counts = crate::insight::compare::totals_text(t);
    let heading = format!("unique visitors, {range}:");
    // One line when it fits, else the counts on a line of their own.
    let joint = if width.is_some_and(|width| heading.len() + 1 + counts.len() > width) {
        "\n"
    } else {
        " "
    };
    let mut out = format!("{heading}{joint}{counts}\n");
    let rows: Vec<Vec<String>> = page
        .visitors
        .iter()
        .map(|row| {
            vec![
                sanitize(&row.path),
                thousands(row.human),
                thousands(row.ai),
                thousands(row.total),
            ]
        })
        .collect();
    if !rows.is_empty() {
        out.push_str(&table::render(&COLUMNS, &rows, width));
    }
    if all {
        out.push_str(&format!(
            "all {} rows of the range\n",
            thousands(rows.len() as u64)
        ));
    } else {
        out.push_str(&position(page, query));
        out.push('\n');
    }
    out
}

/// Where a page is, told by its offset: `page 2 · rows 51–100 · more: --page 3`. An
/// offset that is not a whole number of pages is not called a page:
/// `rows 6–8 (offset 5) · more: --offset 8`.
#[must_use]
pub fn position(page: &VisitorsPage, query: &VisitorsQuery) -> String {
    let offset = query.effective_offset();
    let limit = u64::from(query.effective_limit().max(1));
    let count = page.visitors.len() as u64;
    let aligned = offset.is_multiple_of(limit);
    let mut out = if aligned {
        format!("page {} · ", thousands(offset / limit + 1))
    } else {
        String::new()
    };
    if count == 0 {
        out.push_str("no rows");
    } else {
        out.push_str(&format!(
            "rows {}–{}",
            thousands(offset + 1),
            thousands(offset + count)
        ));
    }
    if !aligned {
        out.push_str(&format!(" (offset {offset})"));
    }
    if page.has_more {
        let next = if aligned {
            format!("--page {}", offset / limit + 2)
        } else {
            format!("--offset {}", offset + count)
        };
        let keep_limit = match query.limit {
            Some(limit) if limit != DEFAULT_LIMIT => format!(" --limit {limit}"),
            _ => String::new(),
        };
        out.push_str(&format!(" · more: {next}{keep_limit}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `rows_in` over a range of `total` rows read 250 at a time: its answer, and how many
    /// windows it read.
    fn count(total: u64, asked_offset: u64) -> (u64, u32) {
        let mut reads = 0;
        let mut fetch = async |index: u64| -> Result<u64, ()> {
            reads += 1;
            Ok(total.saturating_sub(index * 250).min(250))
        };
        let high = asked_offset.saturating_sub(1) / 250;
        let rows = futures_util::FutureExt::now_or_never(rows_in(250, high, &mut fetch))
            .expect("no real waiting")
            .expect("no error");
        (rows, reads)
    }

    #[test]
    fn the_rows_of_a_range_are_found_in_few_requests_whatever_page_was_asked() {
        for (total, asked) in [
            (0, 50),
            (12, 50),
            (12, 999_980),
            (249, 300),
            (250, 300),
            (251, 300),
            (500, 500),
            (1_000, 5_000),
            (12_345, 999_980),
            (25_000, 25_000),
        ] {
            let (rows, reads) = count(total, asked);
            assert_eq!(rows, total, "{total} rows, offset {asked}");
            let bound = 2 * (u64::BITS - (total / 250).leading_zeros()) + 1;
            assert!(reads <= bound, "{total} rows: {reads} reads, over {bound}");
        }
    }

    #[test]
    fn a_page_past_the_end_names_the_last() {
        let query = |limit, offset| VisitorsQuery {
            limit,
            offset: Some(offset),
            ..VisitorsQuery::default()
        };
        assert_eq!(
            past_the_end(&query(None, 400), Some(9), 200),
            "page 9 is past the end: there are 4 pages (rows 1–200 of 200); the last is --page 4"
        );
        assert_eq!(
            past_the_end(&query(Some(20), 200), Some(11), 41),
            "page 11 is past the end: there are 3 pages (rows 1–41 of 41); the last is --page 3 --limit 20"
        );
        assert_eq!(
            past_the_end(&query(None, 50), Some(2), 0),
            "page 2 is past the end: this range has no rows"
        );
    }
}
