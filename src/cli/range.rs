//! The range a trend, a comparison or a whole-range sort needs: both ends, or a message
//! saying which flag to add.

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
