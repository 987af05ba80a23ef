//! A page of visitors as printed: JSON or CSV for scripts, or the table for people, with
//! where the page is in the range and the flags that show the next one.

use super::CliError;
use super::output::Format;
use super::table::{self, Column, Fit, thousands};
use crate::api::query::DEFAULT_LIMIT;
use crate::api::{VisitorsPage, VisitorsQuery};
use crate::export;
use crate::text::sanitize;

/// A page (or, with `all`, every page) of visitors. Also writes the console's export
/// (CSV and JSON), so those carry the data exactly.
pub fn render(
    page: &VisitorsPage,
    query: &VisitorsQuery,
    all: bool,
    format: Format,
) -> Result<String, CliError> {
    match format {
        Format::Json => Ok(super::output::json_line(page)? + "\n"),
        Format::Csv => Ok(export::visitors_csv(page)?),
        Format::Table => Ok(table(page, query, all, super::table::target_width())),
    }
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
    let range = super::range::range_text(query.date_from, query.date_to);
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
