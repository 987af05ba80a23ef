//! `docdeck searches`, `docdeck feedback [--by-page]` and `docdeck assistant
//! [--unanswered]` (issue 27): what readers searched for, said and asked, one page or
//! every page (`--all`, following the service's cursor), with the formats, analytics
//! budget and exit codes of `visitors`.

use std::collections::HashSet;
use std::process::ExitCode;

use clap::Args;
use serde::de::DeserializeOwned;

use super::budget::{Guard, Need};
use super::output::{Format, emit_data};
use super::range::{from_arg, to_arg};
use super::read_on::{Filtered, Found, read_on};
use super::setup::{ReadArgs, Setup};
use super::signals_output as out;
use super::{CliError, Outcome};
use crate::api::signals::{
    AssistantPage, FEEDBACK_SOURCES, FEEDBACK_STATUSES, FeedbackByPage, FeedbackPage, Kind,
    SearchesPage, SignalsQuery,
};
use crate::api::{DateParam, MAX_PAGES};
use crate::journal::ASK_ABOVE;

/// What every one of the three commands takes.
#[derive(Debug, Args)]
pub struct SignalsArgs {
    /// First instant included: YYYY-MM-DD (00:00 UTC) or an RFC 3339 time
    #[arg(long, value_name = "DATE", value_parser = from_arg)]
    pub from: Option<DateParam>,
    /// First instant excluded: YYYY-MM-DD or RFC 3339
    #[arg(long, value_name = "DATE", value_parser = to_arg)]
    pub to: Option<DateParam>,
    /// Rows per page (searches and feedback 1 to 100, default 50; feedback by page 1 to
    /// 100, default 10; assistant 1 to 1000, default 100)
    #[arg(long, value_name = "N")]
    pub limit: Option<u32>,
    /// The page after the one whose footer gave this cursor
    #[arg(long, value_name = "CURSOR", conflicts_with = "all")]
    pub cursor: Option<String>,
    /// Fetch every page of the range, following the service's cursor
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub read: ReadArgs,
}

#[derive(Debug, Args)]
pub struct SearchesArgs {
    /// Only the queries nobody clicked a result of: pages the docs lack. Without --all, up
    /// to --limit of them, reading on through the range (pages of 100, each an analytics
    /// request) until that many are found
    #[arg(long)]
    pub unclicked: bool,
    #[command(flatten)]
    pub common: SignalsArgs,
}

#[derive(Debug, Args)]
pub struct FeedbackArgs {
    /// Count feedback per page (thumbs up, thumbs down, code, total), most first
    #[arg(long)]
    pub by_page: bool,
    /// Only feedback from this source
    #[arg(long, value_name = "SOURCE", value_parser = clap::builder::PossibleValuesParser::new(FEEDBACK_SOURCES))]
    pub source: Option<String>,
    /// Only feedback with this status, or one of several: pending,in_progress
    #[arg(long, value_name = "STATUS[,STATUS]", value_delimiter = ',', value_parser = clap::builder::PossibleValuesParser::new(FEEDBACK_STATUSES))]
    pub status: Vec<String>,
    #[command(flatten)]
    pub common: SignalsArgs,
}

#[derive(Debug, Args)]
pub struct AssistantArgs {
    /// Only the questions the assistant could not answer: pages the docs lack
    #[arg(long)]
    pub unanswered: bool,
    #[command(flatten)]
    pub common: SignalsArgs,
}

/// A page of one of the endpoints, as `--all` needs it.
trait Paged: DeserializeOwned {
    fn cursor(&self) -> Option<String>;
    /// Adds the rows of `next`, the page after this one, and takes its cursor.
    fn extend(&mut self, next: Self);
}

impl Paged for SearchesPage {
    fn cursor(&self) -> Option<String> {
        self.next_cursor.clone()
    }
    fn extend(&mut self, next: Self) {
        self.searches.extend(next.searches);
        self.total_searches = next.total_searches;
        self.next_cursor = next.next_cursor;
    }
}

impl Paged for FeedbackPage {
    fn cursor(&self) -> Option<String> {
        self.next_cursor.clone().filter(|_| self.has_more)
    }
    fn extend(&mut self, next: Self) {
        self.feedback.extend(next.feedback);
        self.next_cursor = next.next_cursor;
        self.has_more = next.has_more;
    }
}

impl Paged for FeedbackByPage {
    fn cursor(&self) -> Option<String> {
        None
    }
    fn extend(&mut self, next: Self) {
        *self = next;
    }
}

impl Paged for AssistantPage {
    fn cursor(&self) -> Option<String> {
        self.next_cursor.clone().filter(|_| self.has_more)
    }
    fn extend(&mut self, next: Self) {
        self.conversations.extend(next.conversations);
        self.next_cursor = next.next_cursor;
        self.has_more = next.has_more;
    }
}

fn query(kind: Kind, args: &SignalsArgs) -> Result<SignalsQuery, CliError> {
    let query = SignalsQuery {
        date_from: args.from,
        date_to: args.to,
        limit: args.limit,
        cursor: args.cursor.clone(),
        ..SignalsQuery::new(kind)
    };
    query.validate().map_err(|err| CliError::of_query(&err))?;
    Ok(query)
}

/// One page, or with `--all` every page, counted against the analytics budget.
async fn fetch<T: Paged>(mut query: SignalsQuery, args: &SignalsArgs) -> Result<T, CliError> {
    let ctx = Setup::load(&args.read.client)?;
    let client = ctx.client()?;
    let mut journal = ctx.journal()?;
    let mut guard = Guard::new(&mut journal, &ctx.scope, args.read.yes);
    guard.allow_one()?;
    let mut sent = 1;
    let first = client.signals::<T>(&query).await;
    let result = match first {
        Ok(mut page) if args.all => {
            let mut seen = HashSet::new();
            loop {
                let Some(cursor) = page.cursor() else {
                    break Ok(page);
                };
                if !seen.insert(cursor.clone()) {
                    break Err(CliError::failed(format!(
                        "the service sent the cursor {cursor:?} twice: paging stopped rather than ask forever"
                    )));
                }
                if sent >= MAX_PAGES {
                    break Err(CliError::failed(format!(
                        "stopped after {MAX_PAGES} pages, the hourly analytics budget, with more to come: narrow the range with --from and --to"
                    )));
                }
                query.cursor = Some(cursor);
                sent += 1;
                match client.signals::<T>(&query).await {
                    Ok(next) => page.extend(next),
                    Err(err) => break Err(err.into()),
                }
            }
        }
        other => other.map_err(CliError::from),
    };
    guard.record(sent, client.stated_analytics_limit());
    result
}

pub async fn searches(args: SearchesArgs) -> Outcome {
    let common = &args.common;
    let query = query(Kind::Searches, common)?;
    let (page, shown) =
        listed::<SearchesPage>(&query, common, args.unclicked, "unclicked queries").await?;
    let format = Format::resolve(common.read.format);
    emit_data(&out::searches(&page, &query, shown, format)?, format)?;
    Ok(ExitCode::SUCCESS)
}

/// A listing of searches or conversations: with `keep` (`--unclicked`, `--unanswered`)
/// only the rows [`Filtered::kept`] keeps, read on for `--limit` of them
/// ([`read_kept`]) or kept from every page with `--all`; without it, the page or pages as
/// the service sent them. With what the footer says of how they were read.
async fn listed<P: Paged + Filtered>(
    query: &SignalsQuery,
    args: &SignalsArgs,
    keep: bool,
    kept: &str,
) -> Result<(P, out::Shown), CliError> {
    if keep && !args.all {
        let found = read_kept::<P>(query, args, kept).await?;
        let shown = out::Shown {
            all: false,
            of: Some(found.read),
            requests: found.requests,
        };
        return Ok((found.page, shown));
    }
    let mut page: P = fetch(query.clone(), args).await?;
    let read = page.rows().len();
    if keep {
        page.rows_mut().retain(P::kept);
    }
    let shown = out::Shown {
        all: args.all,
        of: keep.then_some(read),
        requests: 0,
    };
    Ok((page, shown))
}

/// `--unclicked` or `--unanswered` without `--all`: up to `--limit` of them, reading on
/// (`read_on.rs`), each request allowed and counted as `visitors` does: refused when none
/// is left, and asked about once past ten.
async fn read_kept<P: Filtered + DeserializeOwned>(
    query: &SignalsQuery,
    args: &SignalsArgs,
    kept: &str,
) -> Result<Found<P>, CliError> {
    let ctx = Setup::load(&args.read.client)?;
    let client = ctx.client()?;
    let mut journal = ctx.journal()?;
    let mut guard = Guard::new(&mut journal, &ctx.scope, args.read.yes);
    let smaller = "ask for fewer with --limit, or narrow the range with --from and --to";
    let what = format!("reading on for {kept}");
    let mut sent = 0;
    let mut fetch = async |cursor: Option<String>, limit: u32| -> Result<P, CliError> {
        if sent == 0 {
            guard.allow_one()?;
        } else if sent == ASK_ABOVE {
            guard.allow_past(&what, Need::AtMost(MAX_PAGES - sent), smaller)?;
        } else {
            guard.allow(&what, Need::Exactly(1), smaller)?;
        }
        sent += 1;
        let page = SignalsQuery {
            limit: Some(limit),
            cursor,
            ..query.clone()
        };
        let answer = client.signals::<P>(&page).await;
        guard.record(1, client.stated_analytics_limit());
        Ok(answer?)
    };
    let wanted = query.effective_limit() as usize;
    read_on(wanted, query.cursor.clone(), &mut fetch, |cursor| {
        CliError::failed(format!(
            "the service sent the cursor {cursor:?} twice: paging stopped rather than ask forever"
        ))
    })
    .await
}

pub async fn feedback(args: FeedbackArgs) -> Outcome {
    let kind = if args.by_page {
        Kind::FeedbackByPage
    } else {
        Kind::Feedback
    };
    let common = &args.common;
    if args.by_page && (common.all || common.cursor.is_some()) {
        return Err(CliError::usage(
            "feedback by page has no further pages to fetch: ask for up to 100 pages with --limit",
        ));
    }
    let mut query = query(kind, common)?;
    query.source.clone_from(&args.source);
    query.status = (!args.status.is_empty()).then(|| args.status.join(","));
    let format = Format::resolve(common.read.format);
    let text = if args.by_page {
        let page: FeedbackByPage = fetch(query.clone(), common).await?;
        out::feedback_by_page(&page, &query, format)?
    } else {
        let page: FeedbackPage = fetch(query.clone(), common).await?;
        out::feedback(&page, &query, common.all, format)?
    };
    emit_data(&text, format)?;
    Ok(ExitCode::SUCCESS)
}

pub async fn assistant(args: AssistantArgs) -> Outcome {
    let common = &args.common;
    let query = query(Kind::Assistant, common)?;
    let unanswered = args.unanswered;
    let (page, shown) =
        listed::<AssistantPage>(&query, common, unanswered, "unanswered questions").await?;
    let format = Format::resolve(common.read.format);
    emit_data(&out::assistant(&page, &query, shown, format)?, format)?;
    Ok(ExitCode::SUCCESS)
}
