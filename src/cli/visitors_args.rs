//! The flags of `docdeck visitors` (one page, every page, or the whole range compared,
//! sorted or filtered) and of its `trend`, checked as they are parsed.

use clap::{Args, Subcommand};

use super::CliError;

use super::setup::ReadArgs;
use crate::api::DateParam;
use crate::insight::order::Sort;

#[derive(Debug, Args)]
pub struct VisitorsArgs {
    #[command(subcommand)]
    pub command: Option<VisitorsCommand>,
    /// First instant included: YYYY-MM-DD (00:00 UTC) or an RFC 3339 time
    #[arg(long, value_name = "DATE", value_parser = super::range::from_arg)]
    pub from: Option<DateParam>,
    /// First instant excluded (the range ends just before it): YYYY-MM-DD or RFC 3339
    #[arg(long, value_name = "DATE", value_parser = super::range::to_arg)]
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
    #[command(flatten)]
    pub read: ReadArgs,
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
pub(super) fn page_offset(page: u64, limit: u32) -> Result<u64, CliError> {
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
