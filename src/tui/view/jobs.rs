//! The jobs pane: one row per tracked job shown (filtered and sorted as the user chose),
//! the columns the profile chose, as many as the width allows.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::ViewContext;
use super::table::{self, Column, Look, TableState};
use super::wrap::fit;
use crate::api::JobStatus;
use crate::text::{age, sanitize};
use crate::tui::app::table::Arrangement;
use crate::tui::app::{App, Impacts, JobColumn, JobRow, JobSort, short_id, unsure_submission};
use crate::tui::keymap::{Action, KeyContext};

/// What to do when the filter hides every job, with the keys in force.
fn filtered_hint(app: &App) -> String {
    let keys = super::hints::Hints::new(app.keymap(), KeyContext::Jobs);
    let ways: Vec<String> = [
        keys.key(Action::Search)
            .map(|key| format!("{key} edits it")),
        keys.key(Action::ClearFilter)
            .map(|key| format!("{key} clears it")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if ways.is_empty() {
        "No job matches the filter.".to_owned()
    } else {
        format!("No job matches the filter: {}.", ways.join(", "))
    }
}

/// What to do with no jobs, with the keys in force.
fn empty_hint(app: &App) -> String {
    let keys = super::hints::Hints::new(app.keymap(), KeyContext::Jobs);
    let new = keys
        .key(Action::NewJob)
        .filter(|_| !app.config.read_only)
        .map(|key| format!(" `{key}` writes a prompt for a new job."));
    let track = keys
        .key(Action::Track)
        .map(|key| format!(" `{key}` tracks an existing job by its id."));
    let empty = if app.config.read_only {
        "No tracked jobs."
    } else {
        "No tracked jobs yet."
    };
    format!(
        "{empty}{}{}",
        new.unwrap_or_default(),
        track.unwrap_or_default()
    )
}

/// Widths from which more columns are shown: the model, then the whole PR link.
const WIDE: u16 = 110;
const WIDEST: u16 = 170;

pub fn draw(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    cx: &ViewContext,
    state: &mut TableState,
) {
    let list = &app.jobs;
    let view = list.view();
    let block = Block::default().borders(Borders::TOP).title(title(app, cx));
    if view.is_empty() {
        let hint = if view.typing() {
            "No job matches the filter: Backspace edits it, Esc clears it.".to_owned()
        } else if !list.rows.is_empty() {
            filtered_hint(app)
        } else {
            empty_hint(app)
        };
        frame.render_widget(
            Paragraph::new(hint).block(block).wrap(Wrap { trim: true }),
            area,
        );
        return;
    }
    let widths = Widths::of(area.width);
    let chosen = list.impacts.columns(&app.config.columns);
    let shown = shown_columns(&chosen, widths, area.width);
    let fixed = |widths: Widths| {
        shown
            .iter()
            .filter_map(|c| widths.of_column(*c))
            .sum::<u16>()
            + u16::try_from(shown.len().saturating_sub(1)).unwrap_or(u16::MAX)
    };
    let prompt_width = usize::from(area.width.saturating_sub(fixed(widths)));
    let widths = if shown.contains(&JobColumn::Repository) {
        let longest = (view.order().iter())
            .map(|&i| super::wrap::width(&repo_ref(&list.rows[i], widths.wide)));
        widths.fit_repositories(longest, prompt_width)
    } else {
        widths
    };
    let prompt_width = usize::from(area.width.saturating_sub(fixed(widths)));
    let columns: Vec<Column<'static>> = shown.iter().map(|c| header(*c, widths, view)).collect();
    let look = Look {
        block,
        header: cx.theme.dim(),
        selected: cx.theme.selected(),
        more_marker: Some(cx.theme.dim()),
    };
    let order = view.order();
    table::draw(
        frame,
        area,
        &columns,
        look,
        (view.cursor_position().unwrap_or(0), order.len()),
        state,
        |i| {
            job_row(
                &list.rows[order[i]],
                &shown,
                widths,
                (prompt_width, &list.impacts),
                cx,
            )
        },
    );
}

/// ` Jobs · 45 tracked · newest first `, then the filter with "3 of 45" if there is one.
fn title(app: &App, cx: &ViewContext) -> Line<'static> {
    let list = &app.jobs;
    let tracked = list.tracked_count();
    // While a filter is typed, its hints take the room of the order.
    let order = match list.view().sort() {
        Some((by, way)) if !list.view().typing() => format!(" · {}", by.words(way)),
        _ => String::new(),
    };
    let text = match list.rows.len() - tracked {
        0 => format!(" Jobs · {tracked} tracked{order} "),
        n => format!(" Jobs · {tracked} tracked · {n} of unknown outcome{order} "),
    };
    match table::filter_title(list.view(), cx.theme) {
        Some(filter) => {
            let mut line = Line::from(Span::styled(text.trim_end().to_owned(), cx.theme.bold()));
            line.spans.extend(filter.spans);
            line
        }
        None => Line::from(Span::styled(text, cx.theme.bold())),
    }
}

/// Widths from which columns grow: the model shows from `WIDE`, the whole PR link
/// from `WIDEST`.
#[derive(Debug, Clone, Copy)]
struct Widths {
    wide: bool,
    widest: bool,
    /// REPOSITORY@REF's width: 26 from `WIDE` (16 below), more from `WIDEST` when its
    /// longest value needs it and the prompt keeps room ([`Widths::fit_repositories`]).
    repository: u16,
}

impl Widths {
    fn of(width: u16) -> Self {
        let wide = width >= WIDE;
        Self {
            wide,
            widest: width >= WIDEST,
            repository: if wide { 26 } else { 16 },
        }
    }

    /// From `WIDEST`, REPOSITORY@REF as wide as its longest value, while the
    /// prompt keeps at least `PROMPT_KEEPS` cells of `prompt_width`: a wide screen does
    /// not cut the repository while the prompt has room to spare.
    fn fit_repositories(mut self, rows: impl Iterator<Item = usize>, prompt_width: usize) -> Self {
        const PROMPT_KEEPS: usize = 40;
        if !self.widest {
            return self;
        }
        let longest = rows.max().unwrap_or(0);
        let spare = prompt_width.saturating_sub(PROMPT_KEEPS);
        let want = longest
            .saturating_sub(usize::from(self.repository))
            .min(spare);
        self.repository = self
            .repository
            .saturating_add(u16::try_from(want).unwrap_or(0));
        self
    }

    /// A column's width; `None` for the prompt, which takes what is left.
    fn of_column(self, column: JobColumn) -> Option<u16> {
        Some(match column {
            JobColumn::Status | JobColumn::Id => 12,
            JobColumn::Age => 4,
            JobColumn::Changed => 8,
            JobColumn::Model => 18,
            JobColumn::Repository => self.repository,
            JobColumn::Pr if self.widest => 44,
            JobColumn::Pr => 9,
            JobColumn::Impact => 11,
            JobColumn::Prompt => return None,
        })
    }
}

/// The chosen columns that fit: the model only from `WIDE`, and columns dropped from
/// the end (the prompt kept) until the prompt has 10 cells.
fn shown_columns(chosen: &[JobColumn], widths: Widths, width: u16) -> Vec<JobColumn> {
    let mut shown: Vec<JobColumn> = chosen
        .iter()
        .copied()
        .filter(|c| *c != JobColumn::Model || widths.wide)
        .collect();
    let room = |shown: &[JobColumn]| {
        let fixed: usize = shown
            .iter()
            .map(|c| usize::from(widths.of_column(*c).unwrap_or(10)) + 1)
            .sum();
        fixed <= usize::from(width) + 1
    };
    while !room(&shown) {
        match shown.iter().rposition(|c| *c != JobColumn::Prompt) {
            Some(at) if shown.len() > 1 => {
                shown.remove(at);
            }
            _ => break,
        }
    }
    shown
}

/// A column's header, with the sort's arrow when the list is sorted by it.
fn header(
    column: JobColumn,
    widths: Widths,
    view: &Arrangement<JobSort, String>,
) -> Column<'static> {
    let (name, sort) = match column {
        JobColumn::Status => ("STATUS", Some(JobSort::Status)),
        JobColumn::Id => ("ID", None),
        JobColumn::Age => ("AGE", Some(JobSort::Created)),
        JobColumn::Changed => ("CHANGED", Some(JobSort::Changed)),
        JobColumn::Model => ("MODEL", None),
        JobColumn::Repository if widths.wide => ("REPOSITORY@REF", Some(JobSort::Repository)),
        JobColumn::Repository => ("REPO@REF", Some(JobSort::Repository)),
        JobColumn::Pr => ("PR", None),
        JobColumn::Prompt => ("PROMPT", None),
        JobColumn::Impact => ("IMPACT", None),
    };
    // AGE and CHANGED show ages: newest first is the smallest age on top (▲).
    let direction = sort
        .and_then(|by| table::direction_of(view, by))
        .map(|way| {
            if matches!(column, JobColumn::Age | JobColumn::Changed) {
                way.reversed()
            } else {
                way
            }
        });
    let width = widths
        .of_column(column)
        .map_or(Constraint::Min(10), Constraint::Length);
    Column::new(table::sorted_header(name, direction), width)
}

/// The cells of one job's row, one per shown column.
fn job_row(
    row: &JobRow,
    shown: &[JobColumn],
    widths: Widths,
    (prompt_width, impacts): (usize, &Impacts),
    cx: &ViewContext,
) -> Vec<Line<'static>> {
    if unsure_submission(&row.id).is_some() {
        return shown
            .iter()
            .map(|c| unsure_cell(row, *c, prompt_width, cx))
            .collect();
    }
    shown
        .iter()
        .map(|c| job_cell(row, *c, widths, (prompt_width, impacts), cx))
        .collect()
}

fn job_cell(
    row: &JobRow,
    column: JobColumn,
    widths: Widths,
    (prompt_width, impacts): (usize, &Impacts),
    cx: &ViewContext,
) -> Line<'static> {
    let job = row.job.as_ref();
    let width = usize::from(widths.of_column(column).unwrap_or(0));
    let since = |at: Option<chrono::DateTime<chrono::Utc>>| {
        at.map_or_else(|| "-".to_owned(), |at| age(cx.wall - at))
    };
    match column {
        JobColumn::Status => {
            let (status, style) = status_text(row, cx);
            Line::from(Span::styled(fit(&status, 12), style))
        }
        JobColumn::Id => Line::from(short_id(&row.id)),
        JobColumn::Age => Line::from(since(job.and_then(|j| j.created_at))),
        JobColumn::Changed => Line::from(since(row.changed_at)),
        JobColumn::Model => Line::from(fit(
            &job.and_then(|j| j.model.as_deref())
                .map_or("-".to_owned(), sanitize),
            width,
        )),
        JobColumn::Repository => {
            // Cut at the start, as paths are: the repository's name and its ref are what
            // tell rows apart; the host is the same on every row.
            Line::from(super::wrap::fit_start(&repo_ref(row, widths.wide), width))
        }
        JobColumn::Pr if row.pr_link().is_none() && row.status() == Some(&JobStatus::Completed) => {
            // Completed without a link: the agent changed nothing.
            Line::from(Span::styled(fit("no change", width), cx.theme.dim()))
        }
        JobColumn::Pr => {
            let pr = row.pr_link().map_or_else(
                || "-".to_owned(),
                |link| {
                    if widths.widest {
                        sanitize(link)
                    } else {
                        pr_number(link)
                    }
                },
            );
            Line::from(fit(&pr, width))
        }
        JobColumn::Prompt => prompt_cell(row, prompt_width, cx),
        JobColumn::Impact => Line::from(fit(&impacts.cell(&row.id), width)),
    }
}

/// A job's `REPOSITORY@REF` as the column shows it, before any cut. A local repository
/// (a folder, as `serve --repo` reports it) is told apart by its end, `…/docs@main`, as
/// the CLI shows it: kept whole.
fn repo_ref(row: &JobRow, wide: bool) -> String {
    let source = row.job.as_ref().and_then(|j| j.source.as_ref());
    let repo = source
        .and_then(|s| s.repository.as_deref())
        .map_or("-".to_owned(), |r| {
            if r.contains("://") {
                sanitize(short_repo(r, wide))
            } else {
                sanitize(r.trim_end_matches('/'))
            }
        });
    let git_ref = source
        .and_then(|s| s.git_ref.as_deref())
        .map_or(String::new(), |r| format!("@{}", sanitize(r)));
    format!("{repo}{git_ref}")
}

/// `◌ queued #2` for a job the local service says waits for a free agent (1 is next),
/// `◌ starting` for one an agent is being started for, else the job's status.
pub(super) fn status_text(row: &JobRow, cx: &ViewContext) -> (String, ratatui::style::Style) {
    if row.job.as_ref().is_some_and(crate::api::Job::is_starting) {
        return ("◌ starting".to_owned(), cx.theme.dim());
    }
    if let Some(job) = row.job.as_ref().filter(|job| job.is_queued()) {
        let at = job
            .queue_position
            .map(|position| format!(" #{position}"))
            .unwrap_or_default();
        return (format!("◌ queued{at}"), cx.theme.dim());
    }
    cx.theme.status(row.status())
}

fn prompt_cell(row: &JobRow, width: usize, cx: &ViewContext) -> Line<'static> {
    let mut prompt = Vec::new();
    let mut width = width;
    if row.problem.is_some() {
        prompt.push(Span::styled("⚠ ", cx.theme.warning()));
        width = width.saturating_sub(2);
    }
    prompt.push(Span::raw(fit(
        &row.first_prompt
            .as_deref()
            .map_or_else(|| "(prompt not sent from here)".to_owned(), sanitize),
        width,
    )));
    Line::from(prompt)
}

/// A new-job prompt whose send got no answer: "? unknown" with no id known (the trial
/// read the "outcome" it showed under ID as an id), its age and prompt, until `x`
/// dismisses it or `a` tracks the job it made.
fn unsure_cell(
    row: &JobRow,
    column: JobColumn,
    prompt_width: usize,
    cx: &ViewContext,
) -> Line<'static> {
    match column {
        JobColumn::Status => Line::from(Span::styled("? unknown", cx.theme.warning())),
        JobColumn::Id => Line::from(Span::styled("no id known", cx.theme.dim())),
        JobColumn::Age => Line::from(
            row.seen_at
                .map_or_else(|| "-".to_owned(), |at| age(cx.wall - at)),
        ),
        JobColumn::Prompt => Line::from(fit(
            &row.first_prompt
                .as_deref()
                .map(sanitize)
                .unwrap_or_default(),
            prompt_width,
        )),
        JobColumn::Changed
        | JobColumn::Model
        | JobColumn::Repository
        | JobColumn::Pr
        | JobColumn::Impact => Line::from("-"),
    }
}

/// `owner/name` of a repository URL (the host says little in a narrow column).
fn short_repo(repository: &str, wide: bool) -> &str {
    let trimmed = repository.trim_end_matches('/').trim_end_matches(".git");
    if wide {
        return trimmed.split_once("://").map_or(trimmed, |(_, rest)| rest);
    }
    let mut parts = trimmed.rsplitn(3, '/');
    match (parts.next(), parts.next()) {
        (Some(name), Some(owner)) => {
            let start = trimmed.len() - name.len() - owner.len() - 1;
            &trimmed[start..]
        }
        _ => trimmed,
    }
}

/// `#123` for a pull-request link ending in a number, else `link`.
fn pr_number(link: &str) -> String {
    let last = link
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default();
    if !last.is_empty() && last.chars().all(|c| c.is_ascii_digit()) && last.len() <= 5 {
        format!("#{last}")
    } else {
        "link".to_owned()
    }
}
