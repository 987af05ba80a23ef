//! The forms drawn over a pane: track by id, dates and page size, export. Problems are
//! shown next to the field as it is typed.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui_textarea::TextArea;

use super::ViewContext;
use crate::cli::Format;
use crate::tui::app::{ExportForm, FilterForm, FormField, TrackForm};

fn boxed<'a>(title: &'a str, hint: &'a str, cx: &ViewContext) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(title, cx.theme.accent()))
        .title_bottom(Line::from(Span::styled(hint, cx.theme.dim())).right_aligned())
}

/// Draws a form row's label, bold when the row has the cursor; returns the area after it.
fn label(frame: &mut Frame<'_>, area: Rect, text: &str, focused: bool, cx: &ViewContext) -> Rect {
    let [name, rest] = Layout::horizontal([Constraint::Length(18), Constraint::Min(8)]).areas(area);
    let style = if focused {
        cx.theme.bold()
    } else {
        cx.theme.dim()
    };
    frame.render_widget(Paragraph::new(Span::styled(text.to_owned(), style)), name);
    rest
}

/// Draws a one-line field with its label; the cursor shows only on the focused one.
fn text_field(
    frame: &mut Frame<'_>,
    area: Rect,
    label: &str,
    area_text: &TextArea<'static>,
    focused: bool,
    cx: &ViewContext,
) {
    let input = self::label(frame, area, label, focused, cx);
    let mut field = area_text.clone();
    field.set_cursor_line_style(Style::new());
    if !focused {
        field.set_cursor_style(Style::new());
    }
    field.set_style(if focused {
        Style::new().add_modifier(ratatui::style::Modifier::UNDERLINED)
    } else {
        Style::new()
    });
    frame.render_widget(&field, input);
}

/// A labelled row of choices, the chosen one highlighted (← → change it).
fn choice_row(
    frame: &mut Frame<'_>,
    area: Rect,
    label: &str,
    options: &[&str],
    chosen: usize,
    focused: bool,
    cx: &ViewContext,
) {
    let choices = self::label(frame, area, &format!("{label}  ← →"), focused, cx);
    let spans: Vec<Span<'_>> = options
        .iter()
        .enumerate()
        .flat_map(|(i, option)| {
            let style = if i == chosen {
                cx.theme.selected()
            } else {
                Style::new()
            };
            [Span::styled(format!(" {option} "), style), Span::raw(" ")]
        })
        .collect();
    frame.render_widget(Paragraph::new(Line::from(spans)), choices);
}

fn problem(frame: &mut Frame<'_>, area: Rect, text: Option<&str>, cx: &ViewContext) {
    if let Some(text) = text {
        let line = Line::from(Span::styled(crate::text::sanitize(text), cx.theme.error()));
        frame.render_widget(Paragraph::new(line).wrap(Wrap { trim: true }), area);
    }
}

pub fn track(frame: &mut Frame<'_>, area: Rect, form: &TrackForm, cx: &ViewContext) {
    let rect = super::overlay_area(frame, area, 70, 7);
    let block = boxed(" Track a job ", " Enter track · Esc cancel ", cx);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let [input, note] = Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(inner);
    text_field(frame, input, "job id", &form.id, true, cx);
    match &form.error {
        Some(error) => problem(frame, note, Some(error), cx),
        None => frame.render_widget(
            Paragraph::new(Span::styled(
                "the job is read once to check it exists, then followed here",
                cx.theme.dim(),
            ))
            .wrap(Wrap { trim: true }),
            note,
        ),
    }
}

pub fn filter(frame: &mut Frame<'_>, area: Rect, form: &FilterForm, cx: &ViewContext) {
    let rect = super::overlay_area(frame, area, 76, 10);
    let block = boxed(
        " Dates and page size ",
        " Enter apply · Esc cancel · Tab next field ",
        cx,
    );
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let problems = form.check().err().unwrap_or_default();
    let rows = Layout::vertical([Constraint::Length(1); 8]).split(inner);
    let on_range = form.field == FormField::Range;
    choice_row(
        frame,
        rows[0],
        "range",
        crate::tui::app::PRESETS,
        form.choice,
        on_range,
        cx,
    );
    text_field(
        frame,
        rows[1],
        "from (included)",
        &form.from,
        form.field == FormField::From,
        cx,
    );
    problem(frame, rows[2], problems.from.as_deref(), cx);
    text_field(
        frame,
        rows[3],
        "to (EXCLUDED)",
        &form.to,
        form.field == FormField::To,
        cx,
    );
    problem(
        frame,
        rows[4],
        problems.to.as_deref().or(problems.range.as_deref()),
        cx,
    );
    text_field(
        frame,
        rows[5],
        "rows per page",
        &form.rows,
        form.field == FormField::Rows,
        cx,
    );
    problem(frame, rows[6], problems.rows.as_deref(), cx);
    let hint = "YYYY-MM-DD is 00:00 UTC; `to` is the first instant NOT counted";
    frame.render_widget(Paragraph::new(Span::styled(hint, cx.theme.dim())), rows[7]);
}

pub fn export(frame: &mut Frame<'_>, area: Rect, form: &ExportForm, cx: &ViewContext) {
    let rect = super::overlay_area(frame, area, 76, 8);
    let block = boxed(
        " Export the whole range ",
        " Enter export · Esc cancel · Tab next field ",
        cx,
    );
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let rows = Layout::vertical([Constraint::Length(1); 4]).split(inner);
    let chosen = usize::from(form.format == Format::Json);
    choice_row(
        frame,
        rows[0],
        "format",
        &["CSV", "JSON"],
        chosen,
        form.on_format,
        cx,
    );
    text_field(frame, rows[1], "file", &form.path, !form.on_format, cx);
    problem(frame, rows[2], form.error.as_deref(), cx);
    let hint = "every page of the range is fetched (250 rows per request) and written at the end";
    frame.render_widget(
        Paragraph::new(Span::styled(hint, cx.theme.dim())).wrap(Wrap { trim: true }),
        rows[3],
    );
}
