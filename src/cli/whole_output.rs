//! How a whole range is printed: the JSON and CSV of the contract (`previous` beside the
//! totals and each row with `--compare`, `matched` with `--filter`) and a table for
//! people that stays readable at 80 columns.

use std::io::IsTerminal as _;

use super::CliError;
use super::output::Format;
use super::table::{self, Column, Fit, thousands};
use crate::api::VisitorTotals;
use crate::export;
use crate::insight::compare::{
    ComparedRow, TotalsComparison, change_text, share_change_text, totals_text,
};
use crate::insight::order::Sort;
use crate::listing::Pattern;
use crate::text::sanitize;

/// A whole range, compared, sorted and filtered, ready to print.
pub(super) struct Report {
    /// The whole range's totals (a filter does not change them).
    pub totals: VisitorTotals,
    /// With `--compare`: the period before, as shown, and its totals.
    pub previous: Option<(String, String, VisitorTotals)>,
    /// The rows kept, in order (`previous` is `None` without `--compare` too).
    pub rows: Vec<ComparedRow>,
    /// Rows of the range before the filter.
    pub all_rows: usize,
    pub filter: Option<Pattern>,
    pub sort: Sort,
    pub range: (String, String),
}

pub(super) fn render(report: &Report, format: Format) -> Result<String, CliError> {
    let whole = || export::Whole {
        totals: report.totals,
        rows: report.rows.iter().collect(),
        matched: report.filter.as_ref().map(|_| report.rows.len()),
        previous: report.previous.clone(),
        feedback: None,
    };
    match format {
        Format::Json => Ok(export::whole_json(&whole(), std::io::stdout().is_terminal())? + "\n"),
        Format::Csv => Ok(export::whole_csv(&whole())?),
        Format::Table => Ok(whole_table(report, table::target_width())),
    }
}

fn counts_text(t: VisitorTotals) -> String {
    totals_text(t)
}

/// The lines above the table: the totals, and with `--compare` those before and the change.
fn heading(report: &Report, width: Option<usize>) -> String {
    let (from, to) = &report.range;
    let mut out = table::wrap(
        &format!(
            "unique visitors, from {from} to {to} (exclusive): {}",
            table::whole_items(&counts_text(report.totals))
        ),
        width,
    );
    if let Some((before_from, before_to, before)) = &report.previous {
        out += &table::wrap(
            &format!(
                "the period before, from {before_from} to {before_to}: {}",
                table::whole_items(&counts_text(*before))
            ),
            width,
        );
        let c = TotalsComparison::new(report.totals, *before);
        let delta = |name: &str, d: crate::insight::compare::Delta| {
            format!("{name} {}", change_text(d, true))
        };
        let share = share_change_text(c.ai_share_change());
        out += &table::wrap(
            &format!(
                "change: {}",
                table::whole_items(&format!(
                    "{}, {}, {}, {share}",
                    delta("human", c.human),
                    delta("AI", c.ai),
                    delta("total", c.total)
                ))
            ),
            width,
        );
    }
    out
}

/// A page's columns, then each path's total before and its change.
const COLUMNS: [Column; 6] = {
    let page = super::visitors_output::COLUMNS;
    [
        page[0],
        page[1],
        page[2],
        page[3],
        Column::new("BEFORE", Fit::Number),
        Column::new("CHANGE", Fit::Number),
    ]
};

fn whole_table(report: &Report, width: Option<usize>) -> String {
    let compared = report.previous.is_some();
    let columns = if compared {
        &COLUMNS[..]
    } else {
        &COLUMNS[..4]
    };
    let rows: Vec<Vec<String>> = report
        .rows
        .iter()
        .map(|row| {
            let mut cells = vec![
                sanitize(&row.path),
                thousands(row.now.human),
                thousands(row.now.ai),
                thousands(row.now.total),
            ];
            if compared {
                let change = row.total_change();
                cells.push(
                    row.previous
                        .map_or_else(|| "-".to_owned(), |p| thousands(p.total)),
                );
                cells.push(if row.is_new() {
                    "new".to_owned()
                } else {
                    change_text(change, true)
                });
            }
            cells
        })
        .collect();
    let mut out = heading(report, width);
    if !rows.is_empty() {
        out += &table::render(columns, &rows, width);
    }
    let all = thousands(report.all_rows as u64);
    let footer = match &report.filter {
        Some(pattern) => format!(
            "{} of {all} rows match {:?} (the totals above are the whole range's)",
            thousands(report.rows.len() as u64),
            sanitize(pattern.as_typed())
        ),
        None => {
            // Pages of the period before that had none now are rows too: say how many,
            // or "34 rows" reads as 34 pages visited in a range that had 15.
            let gone = report
                .rows
                .iter()
                .filter(|row| row.now.total == 0 && row.previous.is_some_and(|p| p.total > 0))
                .count();
            if compared && gone > 0 {
                format!(
                    "all {all} rows: {} with visitors in the range, {} with visitors only in the period before",
                    thousands(report.all_rows.saturating_sub(gone) as u64),
                    thousands(gone as u64)
                )
            } else {
                format!("all {all} rows of the range")
            }
        }
    };
    let changes = if compared {
        "; BEFORE and CHANGE are each path's total visitors"
    } else {
        ""
    };
    out + &table::wrap(
        &format!("{footer}, sorted by {}{changes}", report.sort),
        width,
    )
}
