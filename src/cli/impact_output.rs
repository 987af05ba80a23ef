//! How `docdeck jobs impact` prints: a table for people (each page before → after beside
//! the whole site, the caveat once below), JSON with the windows, the merge, the files
//! and the caveat, and CSV rows (pages, then the site) for a spreadsheet.

use std::io::IsTerminal as _;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::CliError;
use super::output::Format;
use super::table::{self, Column, Fit, thousands};
use crate::api::{ChangedFile, VisitorTotals, format_timestamp};
use crate::export;
use crate::insight::compare::{Delta, change_text};
use crate::insight::impact::{CAVEAT, Impact, Windows};
use crate::insight::impact_merge::Merged;
use crate::insight::impact_read::{has_or_have, length_words, short};
use crate::text::sanitize;

/// What `jobs impact` found, ready to print.
pub(super) struct Report {
    pub job: String,
    pub merge: Merged,
    pub windows: Windows,
    pub impact: Impact,
    /// The files of the change, where the service said them.
    pub files: Vec<ChangedFile>,
}

pub(super) fn render(report: &Report, format: Format) -> Result<String, CliError> {
    match format {
        Format::Json => {
            let pretty = std::io::stdout().is_terminal();
            Ok(export::json_text(&json_value(report), pretty)? + "\n")
        }
        Format::Csv => csv(report),
        Format::Table => Ok(table_text(report, table::target_width())),
    }
}

fn counts(totals: VisitorTotals) -> Value {
    json!({"human": totals.human, "ai": totals.ai, "total": totals.total})
}

fn range(range: (DateTime<Utc>, DateTime<Utc>)) -> Value {
    json!({"from": format_timestamp(&range.0), "to": format_timestamp(&range.1)})
}

fn json_value(report: &Report) -> Value {
    let w = &report.windows;
    json!({
        "job": report.job,
        "merged": {
            "at": format_timestamp(&report.merge.at),
            "by": report.merge.by,
            "what": report.merge.what,
        },
        "window": {
            "askedSeconds": w.asked.num_seconds(),
            "seconds": w.length().num_seconds(),
            "shortened": w.shortened(),
        },
        "before": range(w.before),
        "after": range(w.after),
        "site": {
            "before": counts(report.impact.site_before),
            "after": counts(report.impact.site_after),
        },
        "pages": report.impact.pages.iter().map(|page| json!({
            "path": page.path,
            "from": page.sources.words(),
            "before": counts(page.before),
            "after": counts(page.after),
        })).collect::<Vec<_>>(),
        "files": report.files,
        "caveat": CAVEAT,
    })
}

const CSV_HEADER: [&str; 9] = [
    "row",
    "path",
    "from",
    "human_before",
    "human_after",
    "ai_before",
    "ai_after",
    "total_before",
    "total_after",
];

fn csv_row(
    kind: &str,
    path: &str,
    from: &str,
    before: VisitorTotals,
    after: VisitorTotals,
) -> Vec<String> {
    vec![
        kind.to_owned(),
        path.to_owned(),
        from.to_owned(),
        before.human.to_string(),
        after.human.to_string(),
        before.ai.to_string(),
        after.ai.to_string(),
        before.total.to_string(),
        after.total.to_string(),
    ]
}

/// One row a page, then the whole site's (`row` says which).
fn csv(report: &Report) -> Result<String, CliError> {
    let impact = &report.impact;
    let rows = impact
        .pages
        .iter()
        .map(|page| {
            csv_row(
                "page",
                &page.path,
                page.sources.words(),
                page.before,
                page.after,
            )
        })
        .chain(std::iter::once(csv_row(
            "site",
            "",
            "",
            impact.site_before,
            impact.site_after,
        )));
    Ok(export::csv_text(Some(&CSV_HEADER), rows)?)
}

const COLUMNS: [Column; 6] = [
    Column::new("PAGE", Fit::CutStart),
    Column::new("FROM", Fit::Keep),
    Column::new("HUMAN", Fit::Number),
    Column::new("CHANGE", Fit::Number),
    Column::new("AI", Fit::Number),
    Column::new("CHANGE", Fit::Number),
];

/// `before → after` and the change, for humans then AI.
fn cells(path: &str, from: &str, before: VisitorTotals, after: VisitorTotals) -> Vec<String> {
    let pair = |b: u64, a: u64| format!("{} → {}", thousands(b), thousands(a));
    let change = |b: u64, a: u64| change_text(Delta { now: a, before: b }, true);
    vec![
        sanitize(path),
        from.to_owned(),
        pair(before.human, after.human),
        change(before.human, after.human),
        pair(before.ai, after.ai),
        change(before.ai, after.ai),
    ]
}

fn when(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M").to_string()
}

fn table_text(report: &Report, width: Option<usize>) -> String {
    let w = &report.windows;
    let merge = &report.merge;
    let how = match (merge.by, &merge.what) {
        ("given", _) => "as given with --merged-at".to_owned(),
        (by, Some(what)) => format!("{by}: {}", sanitize(&short(what))),
        (by, None) => by.to_owned(),
    };
    let mut out = table::wrap(
        &format!(
            "Job {}: merged {} UTC ({how}).",
            sanitize(&report.job),
            when(merge.at)
        ),
        width,
    );
    let length = length_words(w.length());
    let mut windows = format!(
        "Unique visitors in the {length} before the merge ({} to {} UTC) → the {length} after ({} to {} UTC).",
        when(w.before.0),
        when(w.before.1),
        when(w.after.0),
        when(w.after.1)
    );
    if w.shortened() {
        windows.push_str(&format!(
            " Only {length} {} passed since the merge: both windows are that long, not the {} asked.",
            has_or_have(&length),
            length_words(w.asked)
        ));
    }
    out += &table::wrap(&windows, width);
    out.push('\n');
    let impact = &report.impact;
    let mut rows: Vec<Vec<String>> = impact
        .pages
        .iter()
        .map(|page| cells(&page.path, page.sources.words(), page.before, page.after))
        .collect();
    rows.push(cells(
        "(whole site)",
        "",
        impact.site_before,
        impact.site_after,
    ));
    out += &table::render(&COLUMNS, &rows, width);
    out.push('\n');
    out += &table::wrap(
        "FROM: change = a file of the job's change is this page; marked = the job's first prompt lists it.",
        width,
    );
    out += &table::wrap(CAVEAT, width);
    out
}
