//! `docdeck visitors`: one page, or every page, of unique visitors per page (the whole
//! range compared, sorted or filtered is `whole.rs`, the trend `trend.rs`; the flags are
//! `visitors_args.rs`, the table `visitors_output.rs`). Arrows go from here down to them.

use std::process::ExitCode;

use super::budget::{Guard, Need};
use super::output::{Format, emit_data};
use super::range::empty_range_hint;
use super::setup::Setup;
use super::table::thousands;
use super::visitors_args::{VisitorsArgs, VisitorsCommand, page_offset};
use super::{CliError, Outcome, visitors_output};
use crate::api::VisitorsQuery;
use crate::api::query::{DEFAULT_LIMIT, MAX_LIMIT};

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
    let ctx = Setup::load(&args.read.client)?;
    let client = ctx.client()?;
    let mut journal = ctx.journal()?;
    let mut guard = Guard::new(&mut journal, &ctx.scope, args.read.yes);
    // Counted, and refused when none is left; --all's pages are not known before (it
    // stops at the first 429 instead).
    guard.allow_one()?;
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
    guard.record(requests, client.stated_analytics_limit());
    // A broken or failing server ends --all with its error alone: the rows fetched
    // before it are not printed, as a partial list would pass for the whole range.
    let page = page?;
    let offset = query.effective_offset();
    if page.visitors.is_empty() && offset > 0 {
        let rows = count_rows(&client, &query, &mut guard).await?;
        return Err(CliError::usage(past_the_end(&query, args.page, rows)));
    }
    if page.visitors.is_empty()
        && let Some(span) = client.views_span()
    {
        super::warn(&empty_range_hint(span));
    }
    let format = Format::resolve(args.read.format);
    emit_data(
        &visitors_output::render(&page, &query, args.all, format)?,
        format,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// How many rows the range of `query` has, known to be fewer than its offset: found by
/// asking for windows of the most rows a request takes (250), the first, then ever further
/// ones (doubling) until one is not full, then halving between: one request for up to 250
/// rows, about 2·log2(rows / 250) + 1 for more, whatever the page asked for. Each is
/// counted in the hour's budget, as any request is.
async fn count_rows(
    client: &crate::api::Client,
    query: &VisitorsQuery,
    guard: &mut Guard<'_>,
) -> Result<u64, CliError> {
    let window = u64::from(MAX_LIMIT);
    // No window after `high` can hold a row: the asked offset had none.
    let high = query.effective_offset().saturating_sub(1) / window;
    let mut fetch = async |index: u64| -> Result<u64, CliError> {
        guard.allow(
            "finding the last page",
            Need::Exactly(1),
            "ask for a page from 1 on",
        )?;
        let rows = window_rows(client, query, index).await;
        guard.record(1, client.stated_analytics_limit());
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
