//! `docdeck visitors`: one page, or every page, of unique visitors per page.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Args;

use super::context::{ClientArgs, Context};
use super::output::{self, Format, emit};
use super::{CliError, Outcome};
use crate::api::{DateParam, VisitorsQuery};

#[derive(Debug, Args)]
pub struct VisitorsArgs {
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
    #[arg(long, value_name = "N", conflicts_with = "page")]
    pub offset: Option<u64>,
    /// Page number, from 1 (sets offset to (page - 1) * limit)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub page: Option<u64>,
    /// Fetch every page of the range
    #[arg(long, conflicts_with_all = ["offset", "page"])]
    pub all: bool,
    /// Output format [default: table on a terminal, json otherwise]
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    #[command(flatten)]
    pub client: ClientArgs,
}

fn from_arg(text: &str) -> Result<DateParam, String> {
    DateParam::parse("--from", text).map_err(|err| err.to_string())
}

fn to_arg(text: &str) -> Result<DateParam, String> {
    DateParam::parse("--to", text).map_err(|err| err.to_string())
}

pub async fn run(args: VisitorsArgs) -> Outcome {
    let limit = args.limit;
    let offset = match (args.offset, args.page) {
        (Some(offset), _) => Some(offset),
        (None, Some(page)) => Some(
            (page - 1).saturating_mul(u64::from(limit.unwrap_or(crate::api::query::DEFAULT_LIMIT))),
        ),
        (None, None) => None,
    };
    let query = VisitorsQuery {
        date_from: args.from,
        date_to: args.to,
        limit,
        offset,
    };
    query
        .validate()
        .map_err(|err| CliError::usage(err.to_string()))?;
    let ctx = Context::load(&args.client)?;
    let client = ctx.client()?;
    let page = if args.all {
        let show_progress = std::io::stderr().is_terminal();
        let mut rows = 0;
        let page = client
            .visitors_all(&query, |page| {
                rows += page.visitors.len();
                if show_progress {
                    eprint!("\rfetched {rows} rows…");
                }
            })
            .await;
        if show_progress {
            eprint!("\r\x1b[K");
        }
        // A broken or failing server ends --all with its error alone: the rows fetched
        // before it are not printed, as a partial list would pass for the whole range.
        page.map_err(|incomplete| incomplete.error)?
    } else {
        client.visitors(&query).await?
    };
    emit(&output::visitors(
        &page,
        &query,
        args.all,
        Format::resolve(args.format),
    )?)?;
    Ok(ExitCode::SUCCESS)
}
