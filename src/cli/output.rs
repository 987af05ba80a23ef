//! How results are printed: a table for people, JSON or CSV for scripts. Tables show
//! server text sanitized; JSON and CSV carry it exactly (JSON escapes control characters).

use std::io::{IsTerminal, Write};

use chrono::{DateTime, Utc};
use clap::ValueEnum;
use comfy_table::{CellAlignment, Table, presets};

use super::CliError;
use crate::api::{Job, VisitorsPage, VisitorsQuery, format_timestamp};
use crate::journal::TrackedJob;
use crate::text::{age, first_line, sanitize};

/// Output format. Without `--format`: a table on a terminal, JSON otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
    Csv,
}

impl Format {
    /// The format asked for, or the default for where standard output goes.
    #[must_use]
    pub fn resolve(asked: Option<Self>) -> Self {
        asked.unwrap_or_else(|| {
            if std::io::stdout().is_terminal() {
                Self::Table
            } else {
                Self::Json
            }
        })
    }
}

const JOB_COLUMNS: [&str; 8] = [
    "id",
    "status",
    "repository",
    "ref",
    "model",
    "prLink",
    "createdAt",
    "archivedAt",
];

fn dash(value: Option<&str>) -> String {
    value.map_or_else(|| "-".to_owned(), sanitize)
}

fn time(value: Option<DateTime<Utc>>) -> String {
    value.map_or_else(|| "-".to_owned(), |t| format_timestamp(&t))
}

fn job_fields(job: &Job) -> [String; 8] {
    let source = job.source.clone().unwrap_or_default();
    [
        dash(job.id.as_deref()),
        job.status
            .as_ref()
            .map_or_else(|| "-".to_owned(), ToString::to_string),
        dash(source.repository.as_deref()),
        dash(source.git_ref.as_deref()),
        dash(job.model.as_deref()),
        dash(job.pr_link.as_deref()),
        time(job.created_at),
        time(job.archived_at),
    ]
}

fn csv_row(job: &Job) -> Vec<String> {
    let source = job.source.clone().unwrap_or_default();
    let status = job.status.as_ref().map(|s| s.as_wire().to_owned());
    [
        job.id.clone(),
        status,
        source.repository,
        source.git_ref,
        job.model.clone(),
        job.pr_link.clone(),
        job.created_at.map(|t| format_timestamp(&t)),
        job.archived_at.map(|t| format_timestamp(&t)),
    ]
    .into_iter()
    .map(Option::unwrap_or_default)
    .collect()
}

/// JSON for a whole result: indented on a terminal, one line otherwise.
fn json_line(value: &impl serde::Serialize) -> Result<String, CliError> {
    json_text(value, std::io::stdout().is_terminal())
}

fn json_text(value: &impl serde::Serialize, pretty: bool) -> Result<String, CliError> {
    let text = if pretty {
        serde_json::to_string_pretty(value)
    } else {
        serde_json::to_string(value)
    };
    text.map_err(|err| CliError::failed(format!("cannot encode the output: {err}")))
}

fn csv_text(header: Option<&[&str]>, rows: &[Vec<String>]) -> Result<String, CliError> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let fail = |err: csv::Error| CliError::failed(format!("cannot write CSV: {err}"));
    if let Some(header) = header {
        writer.write_record(header).map_err(fail)?;
    }
    for row in rows {
        writer.write_record(row).map_err(fail)?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|err| CliError::failed(format!("cannot write CSV: {err}")))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Writes to standard output; a closed pipe (`| head`) ends quietly.
pub fn emit(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::failed(format!("cannot write the output: {err}")))
        }
        _ => Ok(()),
    }
}

/// One job in full.
pub fn job(job: &Job, format: Format) -> Result<String, CliError> {
    match format {
        Format::Json => Ok(json_line(job)? + "\n"),
        Format::Csv => csv_text(Some(&JOB_COLUMNS), &[csv_row(job)]),
        Format::Table => {
            let mut table = Table::new();
            table.load_preset(presets::NOTHING);
            for (name, value) in JOB_COLUMNS.iter().zip(job_fields(job)) {
                table.add_row(vec![(*name).to_owned(), value]);
            }
            Ok(table.trim_fmt() + "\n")
        }
    }
}

/// One observed status while waiting. CSV prints its header with the first line.
pub fn transition(
    job: &Job,
    format: Format,
    first: bool,
    now: DateTime<Utc>,
) -> Result<String, CliError> {
    match format {
        Format::Json => Ok(json_text(job, false)? + "\n"),
        Format::Csv => csv_text(first.then_some(&JOB_COLUMNS[..]), &[csv_row(job)]),
        Format::Table => {
            let [id, status, .., pr, _, _] = job_fields(job);
            let link = if pr == "-" {
                String::new()
            } else {
                format!("  {pr}")
            };
            Ok(format!(
                "{}  {id}  {status}{link}\n",
                now.format("%H:%M:%SZ")
            ))
        }
    }
}

/// The jobs the journal follows.
pub fn job_list(
    jobs: &[TrackedJob],
    format: Format,
    now: DateTime<Utc>,
) -> Result<String, CliError> {
    match format {
        Format::Json => {
            let items: Vec<serde_json::Value> = jobs
                .iter()
                .map(|tracked| {
                    let mut value =
                        serde_json::to_value(tracked.snapshot.clone().unwrap_or_default())
                            .unwrap_or_default();
                    value["id"] = tracked.id.clone().into();
                    value["firstPrompt"] = tracked.first_prompt.clone().into();
                    value["seenAt"] = tracked.seen_at.map(|t| format_timestamp(&t)).into();
                    value
                })
                .collect();
            Ok(json_line(&items)? + "\n")
        }
        Format::Csv => {
            let mut header = JOB_COLUMNS.to_vec();
            header.extend(["firstPrompt", "seenAt"]);
            let rows: Vec<Vec<String>> = jobs
                .iter()
                .map(|tracked| {
                    let mut snapshot = tracked.snapshot.clone().unwrap_or_default();
                    snapshot.id = Some(tracked.id.clone());
                    let mut row = csv_row(&snapshot);
                    row.push(tracked.first_prompt.clone().unwrap_or_default());
                    row.push(
                        tracked
                            .seen_at
                            .map(|t| format_timestamp(&t))
                            .unwrap_or_default(),
                    );
                    row
                })
                .collect();
            csv_text(Some(&header), &rows)
        }
        Format::Table => {
            if jobs.is_empty() {
                return Ok("no jobs followed yet: create one with `docdeck jobs create` or follow one with `docdeck jobs track ID`\n".to_owned());
            }
            let mut table = Table::new();
            table.load_preset(presets::NOTHING);
            table.set_header(["ID", "STATUS", "AGE", "PR", "PROMPT"]);
            for tracked in jobs {
                let snapshot = tracked.snapshot.clone().unwrap_or_default();
                let status = snapshot
                    .status
                    .as_ref()
                    .map_or_else(|| "-".to_owned(), ToString::to_string);
                let created = snapshot
                    .created_at
                    .map_or_else(|| "-".to_owned(), |t| age(now - t));
                let prompt = tracked
                    .first_prompt
                    .as_deref()
                    .map_or_else(|| "-".to_owned(), |p| first_line(p, 60));
                table.add_row([
                    sanitize(&tracked.id),
                    status,
                    created,
                    dash(snapshot.pr_link.as_deref()),
                    prompt,
                ]);
            }
            Ok(table.trim_fmt() + "\n")
        }
    }
}

/// A page (or, with `all`, every page) of visitors.
pub fn visitors(
    page: &VisitorsPage,
    query: &VisitorsQuery,
    all: bool,
    format: Format,
) -> Result<String, CliError> {
    match format {
        Format::Json => Ok(json_line(page)? + "\n"),
        Format::Csv => {
            let rows: Vec<Vec<String>> = page
                .visitors
                .iter()
                .map(|row| {
                    vec![
                        row.path.clone(),
                        row.human.to_string(),
                        row.ai.to_string(),
                        row.total.to_string(),
                    ]
                })
                .collect();
            csv_text(Some(&["path", "human", "ai", "total"]), &rows)
        }
        Format::Table => Ok(visitors_table(page, query, all)),
    }
}

fn visitors_table(page: &VisitorsPage, query: &VisitorsQuery, all: bool) -> String {
    let t = page.totals;
    let share = t.ai_share();
    let range = match (query.date_from, query.date_to) {
        (None, None) => "all time".to_owned(),
        (from, to) => format!(
            "from {} to {} (exclusive)",
            from.map_or_else(|| "the start".to_owned(), |d| d.to_string()),
            to.map_or_else(|| "now".to_owned(), |d| d.to_string())
        ),
    };
    let mut out = format!(
        "unique visitors, {range}: human {}  ai {}  total {}  (ai share {share:.1}%)\n",
        t.human, t.ai, t.total
    );
    let mut table = Table::new();
    table.load_preset(presets::NOTHING);
    table.set_header(["PATH", "HUMAN", "AI", "TOTAL"]);
    for row in &page.visitors {
        table.add_row([
            sanitize(&row.path),
            row.human.to_string(),
            row.ai.to_string(),
            row.total.to_string(),
        ]);
    }
    for index in 1..4 {
        if let Some(column) = table.column_mut(index) {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
    if !page.visitors.is_empty() {
        out.push_str(&table.trim_fmt());
        out.push('\n');
    }
    if all {
        out.push_str(&format!("all {} pages\n", page.visitors.len()));
    } else {
        out.push_str(&page.position(query));
        out.push('\n');
    }
    out
}
