//! The forms drawn over a pane: track by id, dates and page size, export. Problems are
//! shown next to the field as it is typed.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui_textarea::TextArea;

use super::ViewContext;
use super::hints::{Hints, join};
use crate::export::DataFormat;
use crate::tui::app::{ExportForm, FilterForm, FilterProblems, FormField, TrackForm};
use crate::tui::keymap::{Action, KeyContext, Keymap};

/// A form's hint with the keys in force: `apply` says what Enter does here.
fn form_hint(keymap: &Keymap, apply: &str, fields: bool) -> String {
    let keys = Hints::new(keymap, KeyContext::Form);
    let field = fields
        .then(|| keys.one(Action::NextField, "field"))
        .flatten();
    let hint = join([
        keys.one(Action::Apply, apply),
        keys.one(Action::Close, "cancel"),
        field,
    ]);
    format!(" {hint} ")
}

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
    // The field's look (cursor, underline) was set when the cursor moved to or from it.
    frame.render_widget(area_text, input);
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
    let style = |i: usize| {
        if i == chosen {
            cx.theme.selected()
        } else {
            Style::new()
        }
    };
    // Padded when there is room, tight when not, and only the chosen one when even that
    // does not fit: a choice is never cut.
    let padded: Vec<Span<'_>> = options
        .iter()
        .enumerate()
        .flat_map(|(i, option)| {
            [
                Span::styled(format!(" {option} "), style(i)),
                Span::raw(" "),
            ]
        })
        .collect();
    let tight: Vec<Span<'_>> = options
        .iter()
        .enumerate()
        .flat_map(|(i, option)| [Span::styled((*option).to_owned(), style(i)), Span::raw(" ")])
        .collect();
    let width = usize::from(choices.width);
    let line = [Line::from(padded), Line::from(tight)]
        .into_iter()
        .find(|line| line.width() <= width + 1)
        .unwrap_or_else(|| {
            let option = options.get(chosen).copied().unwrap_or_default();
            Line::from(vec![
                Span::raw("‹ "),
                Span::styled(option.to_owned(), style(chosen)),
                Span::raw(" ›"),
            ])
        });
    frame.render_widget(Paragraph::new(line), choices);
}

/// Splits `text` into lines of at most `width` columns at spaces (a word longer than a
/// line is split), so a form can size itself to its messages instead of cutting them.
#[must_use]
pub(super) fn wrap_words(text: &str, width: usize) -> Vec<String> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    super::wrap::wrap(&Line::raw(text), 0, width)
        .iter()
        .map(|line| {
            line.spans
                .iter()
                .map(|span| span.content.as_ref())
                .collect()
        })
        .collect()
}

/// A form's rows, top to bottom: fields, and messages that take as many lines as they need.
enum Part<'a> {
    Choice(&'a str, &'a [&'a str], usize, bool),
    Field(&'a str, &'a TextArea<'static>, bool),
    Text(Vec<String>, Style),
}

impl Part<'_> {
    fn height(&self) -> usize {
        match self {
            Self::Choice(..) | Self::Field(..) => 1,
            Self::Text(lines, _) => lines.len(),
        }
    }
}

fn text(message: &str, width: u16, style: Style) -> Part<'static> {
    Part::Text(
        wrap_words(&crate::text::sanitize(message), usize::from(width)),
        style,
    )
}

/// Draws a form: a box as tall as its parts (within `area`), then each part in order.
/// When the screen is too short, the parts that do not fit are left out and the bottom
/// border says so.
fn draw_form(
    frame: &mut Frame<'_>,
    area: Rect,
    title: &str,
    hint: &str,
    parts: &[Part<'_>],
    cx: &ViewContext,
) {
    let needed: usize = parts.iter().map(Part::height).sum();
    let height = u16::try_from(needed + 2).unwrap_or(u16::MAX);
    let rect = super::overlay_area(frame, area, FORM_WIDTH, height);
    let cut = usize::from(rect.height.saturating_sub(2)) < needed;
    let hint = if cut {
        " more below: enlarge the window "
    } else {
        hint
    };
    let block = boxed(title, hint, cx);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let mut y = inner.y;
    for part in parts {
        let h = u16::try_from(part.height()).unwrap_or(u16::MAX);
        if y + h > inner.bottom() {
            break;
        }
        let row = Rect::new(inner.x, y, inner.width, h);
        match part {
            Part::Choice(name, options, chosen, focused) => {
                choice_row(frame, row, name, options, *chosen, *focused, cx);
            }
            Part::Field(name, area, focused) => text_field(frame, row, name, area, *focused, cx),
            Part::Text(lines, style) => {
                let lines: Vec<Line<'_>> = lines
                    .iter()
                    .map(|l| Line::from(Span::styled(l.clone(), *style)))
                    .collect();
                frame.render_widget(Paragraph::new(lines), row);
            }
        }
        y += h;
    }
}

/// Forms are this wide at most (the inner width is 2 less).
const FORM_WIDTH: u16 = 76;

fn inner_width(area: Rect) -> u16 {
    FORM_WIDTH.min(area.width).saturating_sub(2)
}

pub fn track(
    frame: &mut Frame<'_>,
    area: Rect,
    form: &TrackForm,
    keymap: &Keymap,
    cx: &ViewContext,
) {
    let width = inner_width(area);
    let note = match &form.error {
        Some(error) => text(error, width, cx.theme.error()),
        None => text(
            "the job is read once to check it exists, then followed here",
            width,
            cx.theme.dim(),
        ),
    };
    let parts = [Part::Field("job id", &form.id, true), note];
    draw_form(
        frame,
        area,
        " Track a job ",
        &form_hint(keymap, "track", false),
        &parts,
        cx,
    );
}

pub fn filter(
    frame: &mut Frame<'_>,
    area: Rect,
    form: &FilterForm,
    keymap: &Keymap,
    cx: &ViewContext,
) {
    let width = inner_width(area);
    let problems = form.problems();
    let error = |p: Option<&str>| p.map(|p| text(p, width, cx.theme.error()));
    let presets = crate::tui::app::preset_names();
    let mut parts = vec![Part::Choice(
        "range",
        &presets,
        form.choice,
        form.field() == FormField::Range,
    )];
    parts.push(Part::Field(
        "from (included)",
        &form.from,
        form.field() == FormField::From,
    ));
    parts.extend(error(problems.from.as_deref()));
    parts.push(Part::Field(
        "to (EXCLUDED)",
        &form.to,
        form.field() == FormField::To,
    ));
    parts.extend(error(problems.to.as_deref().or(problems.range.as_deref())));
    parts.push(Part::Field(
        "rows per page",
        &form.rows,
        form.field() == FormField::Rows,
    ));
    parts.extend(error(problems.rows.as_deref()));
    let mut hint =
        "Days are UTC days: YYYY-MM-DD is 00:00 UTC; `to` is the first instant NOT counted."
            .to_owned();
    if let Some(note) = super::visitors::local_midnight(cx) {
        hint.push_str(&format!(" ({note}.)"));
    }
    parts.push(text(&hint, width, cx.theme.dim()));
    if form.refused && *problems != FilterProblems::default() {
        parts.push(text(
            &match Hints::new(keymap, KeyContext::Form).key(Action::Close) {
                Some(key) => format!("fix the marked fields first ({key} cancels)"),
                None => "fix the marked fields first".to_owned(),
            },
            width,
            cx.theme.warning(),
        ));
    }
    draw_form(
        frame,
        area,
        " Dates and page size ",
        &form_hint(keymap, "apply", true),
        &parts,
        cx,
    );
}

pub fn export(
    frame: &mut Frame<'_>,
    area: Rect,
    form: &ExportForm,
    keymap: &Keymap,
    cx: &ViewContext,
) {
    let width = inner_width(area);
    let chosen = usize::from(form.format == DataFormat::Json);
    let mut parts = vec![
        Part::Choice("format", &["CSV", "JSON"], chosen, form.on_format()),
        Part::Field("file", &form.path, !form.on_format()),
    ];
    if let Some(error) = &form.error {
        parts.push(text(error, width, cx.theme.error()));
    }
    match &form.replace {
        Some((_, path)) => parts.push(text(
            &format!(
                "{} exists: {} replaces it, or type another name",
                path.display(),
                Hints::new(keymap, KeyContext::Form)
                    .key(Action::Apply)
                    .unwrap_or_else(|| "apply".to_owned())
            ),
            width,
            cx.theme.warning(),
        )),
        None => parts.push(text(
            &match form.whole_rows {
                Some(rows) => format!(
                    "The {rows} rows read are written as shown (filter, order, comparison), \
                     with nothing fetched; `~` is your home folder, and a file that exists is \
                     never replaced without asking."
                ),
                None => "Every page of the range is fetched (250 rows per request) and written \
                         at the end; `~` is your home folder, and a file that exists is never \
                         replaced without asking."
                    .to_owned(),
            },
            width,
            cx.theme.dim(),
        )),
    }
    draw_form(
        frame,
        area,
        " Export the whole range ",
        &form_hint(keymap, "export", true),
        &parts,
        cx,
    );
}
