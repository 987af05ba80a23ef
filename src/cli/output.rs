//! How results are printed: a table for people, JSON or CSV for scripts. Tables show
//! server text sanitized; JSON and CSV carry it exactly when they go to a file or a pipe.
//! On a terminal, CSV shows control characters as `�` (and says so once), and JSON
//! escapes the few that JSON itself leaves raw, so the service cannot drive the terminal.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::{DateTime, Utc};
use clap::ValueEnum;

use super::CliError;
use super::table::{self, Column, Fit};
use crate::api::{Job, format_timestamp};
use crate::export;
use crate::journal::{Scope, TrackedJob};
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

/// JSON for a single result: indented on a terminal, one line otherwise.
pub(super) fn json_line(value: &impl serde::Serialize) -> Result<String, CliError> {
    json_text(value, std::io::stdout().is_terminal())
}

fn json_text(value: &impl serde::Serialize, pretty: bool) -> Result<String, CliError> {
    Ok(export::json_text(value, pretty)?)
}

fn csv_text(header: Option<&[&str]>, rows: &[Vec<String>]) -> Result<String, CliError> {
    Ok(export::csv_text(header, rows)?)
}

/// Writes a result in `format` to standard output, made safe first when that is a
/// terminal: see [`terminal_safe`].
pub fn emit_data(text: &str, format: Format) -> Result<(), CliError> {
    if !std::io::stdout().is_terminal() {
        return emit(text);
    }
    let (safe, changed) = terminal_safe(text, format);
    if changed && !SAID_SANITIZED.swap(true, Ordering::Relaxed) {
        super::warn(
            "control characters from the service are shown as \u{FFFD} on this terminal; redirect the output to a file or a pipe to get the data exactly",
        );
    }
    emit(&safe)
}

/// Whether the note about replaced control characters was printed (once per run).
static SAID_SANITIZED: AtomicBool = AtomicBool::new(false);

/// `text` safe to show on a terminal, and whether CSV data had to change. CSV: control
/// characters (but line ends and tabs) and bidirectional overrides become `�`. JSON: DEL,
/// C1 controls and bidirectional overrides, which JSON leaves raw, become `\uXXXX`
/// escapes, so the JSON still means exactly the same. Tables are sanitized cell by cell
/// already.
#[must_use]
pub fn terminal_safe(text: &str, format: Format) -> (String, bool) {
    let mut changed = false;
    let mut out = String::with_capacity(text.len());
    let mut buffer = [0u8; 4];
    for c in text.chars() {
        let one: &str = c.encode_utf8(&mut buffer);
        let safe = matches!(c, '\n' | '\t') || sanitize(one) == one;
        match (safe, format) {
            (true, _) | (false, Format::Table) => out.push(c),
            (false, Format::Csv) => {
                changed = true;
                out.push('\u{FFFD}');
            }
            (false, Format::Json) => out.push_str(&format!("\\u{:04x}", u32::from(c))),
        }
    }
    (out, changed)
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

/// One job in full. The table is one field a line, values whole (a link stays usable).
pub fn job(job: &Job, format: Format) -> Result<String, CliError> {
    match format {
        Format::Json => Ok(json_line(job)? + "\n"),
        Format::Csv => csv_text(Some(&JOB_COLUMNS), &[csv_row(job)]),
        Format::Table => {
            let mut rows: Vec<(&str, String)> =
                JOB_COLUMNS.iter().copied().zip(job_fields(job)).collect();
            rows.extend(local_fields(job));
            let width = rows.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
            Ok(rows
                .iter()
                .map(|(name, value)| format!("{name:<width$}  {value}\n"))
                .collect())
        }
    }
}

/// The local service's own fields, as table lines, for those it sent: whether the job
/// runs or waits (and where), why it failed, where its last turn's output is.
fn local_fields(job: &Job) -> Vec<(&'static str, String)> {
    let state = job.run_state.as_deref().map(|state| {
        match job.queue_position.filter(|_| job.is_queued()) {
            Some(position) => format!("{} (#{position} in line for an agent)", sanitize(state)),
            None => sanitize(state),
        }
    });
    [
        ("runState", state),
        ("failureReason", job.failure_reason.as_deref().map(sanitize)),
        ("outputLink", job.output_link.as_deref().map(sanitize)),
        ("node", job.node.as_deref().map(sanitize)),
    ]
    .into_iter()
    .filter_map(|(name, value)| Some((name, value?)))
    .collect()
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

/// A followed job as JSON: its last snapshot, with the id, first prompt and when it was seen.
fn tracked_json(tracked: &TrackedJob) -> serde_json::Value {
    let mut value =
        serde_json::to_value(tracked.snapshot.clone().unwrap_or_default()).unwrap_or_default();
    value["id"] = tracked.id.clone().into();
    value["firstPrompt"] = tracked.first_prompt.clone().into();
    value["seenAt"] = tracked.seen_at.map(|t| format_timestamp(&t)).into();
    value
}

const LIST_COLUMNS: [Column; 5] = [
    Column {
        heading: "ID",
        fit: Fit::Keep,
    },
    Column {
        heading: "STATUS",
        fit: Fit::Keep,
    },
    Column {
        heading: "AGE",
        fit: Fit::Number,
    },
    Column {
        heading: "PR",
        fit: Fit::CutStart,
    },
    Column {
        heading: "PROMPT",
        fit: Fit::CutEnd,
    },
];

/// The jobs the journal follows. JSON is one object per line (JSON Lines), wherever it
/// goes, like the records of `--wait`: a script reads it line by line.
pub fn job_list(
    jobs: &[TrackedJob],
    scope: &Scope,
    format: Format,
    now: DateTime<Utc>,
) -> Result<String, CliError> {
    match format {
        Format::Json => {
            let mut out = String::new();
            for tracked in jobs {
                out.push_str(&json_text(&tracked_json(tracked), false)?);
                out.push('\n');
            }
            Ok(out)
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
        Format::Table if jobs.is_empty() => Ok(format!(
            "no jobs followed yet for project {} at {} (the journal keeps each service and \
             project apart): create one with `docdeck jobs create` or follow one with \
             `docdeck jobs track ID`\n",
            sanitize(&scope.project),
            sanitize(&scope.service)
        )),
        Format::Table => Ok(job_table(jobs, now, table::target_width())),
    }
}

fn job_table(jobs: &[TrackedJob], now: DateTime<Utc>, width: Option<usize>) -> String {
    // Without a width to fit, a long prompt is still cut: the table stays readable.
    let prompt_width = if width.is_some() { 200 } else { 60 };
    let rows: Vec<Vec<String>> = jobs
        .iter()
        .map(|tracked| {
            let snapshot = tracked.snapshot.clone().unwrap_or_default();
            let status = match snapshot.queue_position.filter(|_| snapshot.is_queued()) {
                Some(position) => format!("queued #{position}"),
                None => snapshot
                    .status
                    .as_ref()
                    .map_or_else(|| "-".to_owned(), ToString::to_string),
            };
            let created = snapshot
                .created_at
                .map_or_else(|| "-".to_owned(), |t| age(now - t));
            let prompt = tracked
                .first_prompt
                .as_deref()
                .map_or_else(|| "-".to_owned(), |p| first_line(p, prompt_width));
            vec![
                sanitize(&tracked.id),
                status,
                created,
                dash(snapshot.pr_link.as_deref()),
                prompt,
            ]
        })
        .collect();
    table::render(&LIST_COLUMNS, &rows, width)
}
