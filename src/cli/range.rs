//! The range of the visitors commands: `--from` and `--to` as parsed, both ends where a
//! trend, a comparison or a whole-range sort needs them (or a message saying which flag to
//! add), and what an empty range is told.

use chrono::{DateTime, Days, Utc};

use super::CliError;
use crate::api::{DateParam, VisitorsQuery};

/// Both ends of the range `what` works on, checked as a query is (`from` before `to`).
pub(super) fn require_range(
    what: &str,
    from: Option<DateParam>,
    to: Option<DateParam>,
) -> Result<(DateTime<Utc>, DateTime<Utc>), CliError> {
    let today = Utc::now().date_naive();
    let tomorrow = today.checked_add_days(Days::new(1)).unwrap_or(today);
    let week_ago = today.checked_sub_days(Days::new(7)).unwrap_or(today);
    let (from, to) = match (from, to) {
        (Some(from), Some(to)) => (from, to),
        (None, None) => {
            return Err(CliError::usage(format!(
                "{what} needs a range: add --from and --to, such as --from {week_ago} --to {tomorrow} (--to is the first day not included)"
            )));
        }
        (None, Some(_)) => {
            return Err(CliError::usage(format!(
                "{what} needs both ends of the range: add --from, the first day included, such as --from {week_ago}"
            )));
        }
        (Some(_), None) => {
            return Err(CliError::usage(format!(
                "{what} needs both ends of the range: add --to, the first day not included, such as --to {tomorrow}"
            )));
        }
    };
    VisitorsQuery {
        date_from: Some(from),
        date_to: Some(to),
        ..VisitorsQuery::default()
    }
    .validate()
    .map_err(|err| CliError::of_query(&err))?;
    Ok((from.instant(), to.instant()))
}

/// The range a table covers, as its heading says it: `all time`, or `from … to …
/// (exclusive)` with the open end named.
pub(super) fn range_text(from: Option<DateParam>, to: Option<DateParam>) -> String {
    match (from, to) {
        (None, None) => "all time".to_owned(),
        (from, to) => format!(
            "from {} to {} (exclusive)",
            from.map_or_else(|| "the start".to_owned(), |d| d.to_string()),
            to.map_or_else(|| "now".to_owned(), |d| d.to_string())
        ),
    }
}

/// `--from`, as a flag's value parser.
pub(super) fn from_arg(text: &str) -> Result<DateParam, String> {
    DateParam::parse("--from", text).map_err(|err| err.to_string())
}

/// `--to`, as a flag's value parser.
pub(super) fn to_arg(text: &str) -> Result<DateParam, String> {
    DateParam::parse("--to", text).map_err(|err| err.to_string())
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
