//! The small forms drawn over a pane: track a job by id, the visitors dates and page
//! size, and an export. Each checks its fields as they are typed, so the form shows
//! what is wrong before Enter.

use std::path::PathBuf;

use chrono::NaiveDate;
use crossterm::event::KeyEvent;
use ratatui::style::{Modifier, Style};
use ratatui_textarea::{CursorMove, TextArea};

use super::composer::is_line_break;
use super::{App, DateRange, Overlay};
use crate::api::{DateParam, VisitorsQuery, query::MAX_LIMIT};
use crate::export::DataFormat;
use crate::text::normalize_newlines;
use crate::tui::keymap::Action;
use crate::tui::message::{Clock, Effect};

/// A one-line text field, drawn as it is: its look follows the cursor when the cursor
/// moves ([`show_focus`]), not on every frame.
fn field(text: &str, focused: bool) -> TextArea<'static> {
    let mut area = TextArea::new(vec![text.to_owned()]);
    area.move_cursor(CursorMove::End);
    area.set_cursor_line_style(Style::new());
    show_focus(&mut area, focused);
    area
}

/// The field with the cursor is underlined and shows the cursor; the others show neither.
fn show_focus(area: &mut TextArea<'static>, focused: bool) {
    if focused {
        area.set_cursor_style(Style::new().add_modifier(Modifier::REVERSED));
        area.set_style(Style::new().add_modifier(Modifier::UNDERLINED));
    } else {
        area.set_cursor_style(Style::new());
        area.set_style(Style::new());
    }
}

fn value(area: &TextArea<'_>) -> String {
    area.lines().concat().trim().to_owned()
}

/// Types a key into a one-line field. A line break (Enter with any modifier, Ctrl+J,
/// Ctrl+M) never makes a second line: `on_form_key` reads it as Enter.
fn type_into(area: &mut TextArea<'static>, key: &KeyEvent) {
    if !is_line_break(key) {
        let _ = area.input(*key);
    }
}

/// Pastes into a one-line field: CR and CRLF count as line breaks, breaks at the ends are
/// dropped (a copied line brings its own), and the lines left are joined with a space, so
/// nothing pasted is hidden and the field's check says what is wrong with it.
fn paste_into(area: &mut TextArea<'static>, text: &str) {
    let text = normalize_newlines(text);
    let joined = text
        .trim_matches('\n')
        .split('\n')
        .collect::<Vec<_>>()
        .join(" ");
    let _ = area.insert_str(joined);
}

/// `a`: the id of an existing job to follow.
#[derive(Debug)]
pub struct TrackForm {
    pub id: TextArea<'static>,
    pub error: Option<String>,
    /// The id was sent to be looked up: the form stays, with what was typed, until the
    /// answer says the job is tracked or what is wrong.
    pub looking_up: bool,
    /// Tracking the job a new-job prompt of unknown outcome may have made: the prompt
    /// becomes that job's.
    pub for_submission: Option<i64>,
}

impl TrackForm {
    #[must_use]
    pub fn new() -> Self {
        Self {
            id: field("", true),
            error: None,
            looking_up: false,
            for_submission: None,
        }
    }

    pub fn paste(&mut self, text: &str) {
        paste_into(&mut self.id, text);
    }

    fn check(&self) -> Result<String, String> {
        let id = value(&self.id);
        if id.is_empty() {
            Err("type the job id (from the dashboard, a script, or `docdeck jobs list`)".to_owned())
        } else if id
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '/')
        {
            Err("a job id has no spaces, slashes or control characters".to_owned())
        } else {
            Ok(id)
        }
    }
}

impl Default for TrackForm {
    fn default() -> Self {
        Self::new()
    }
}

/// Which field of the filter form has the cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormField {
    Range,
    From,
    To,
    Rows,
}

/// The ranges the filter form offers, in order, each with its name; `None` is "custom":
/// the dates typed in the form.
pub const PRESETS: [(&str, Option<DateRange>); 6] = [
    ("7 days", Some(DateRange::LastDays(7))),
    ("30 days", Some(DateRange::LastDays(30))),
    ("90 days", Some(DateRange::LastDays(90))),
    ("month", Some(DateRange::ThisMonth)),
    ("custom", None),
    ("all", Some(DateRange::AllTime)),
];

/// The names of [`PRESETS`], as the form shows them.
#[must_use]
pub fn preset_names() -> [&'static str; PRESETS.len()] {
    PRESETS.map(|(name, _)| name)
}

/// Which choice of [`PRESETS`] stands for `range`: "custom" when no preset is it.
fn choice_of(range: &DateRange) -> usize {
    PRESETS
        .iter()
        .position(|(_, preset)| preset.as_ref() == Some(range))
        .unwrap_or_else(custom_choice)
}

/// The "custom" choice of [`PRESETS`].
fn custom_choice() -> usize {
    PRESETS
        .iter()
        .position(|(_, preset)| preset.is_none())
        .unwrap_or(0)
}

/// `f`: dates (a preset or custom) and rows per page.
#[derive(Debug)]
pub struct FilterForm {
    field: FormField,
    pub choice: usize,
    pub from: TextArea<'static>,
    pub to: TextArea<'static>,
    pub rows: TextArea<'static>,
    /// Enter was pressed with a field marked: the form says to fix them (in the form, so
    /// the words go away with it).
    pub refused: bool,
    /// What is wrong with the fields as they stand: checked when they change, not when
    /// they are drawn.
    problems: FilterProblems,
    today: NaiveDate,
}

/// What is wrong with each field of the filter form, if anything.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FilterProblems {
    pub from: Option<String>,
    pub to: Option<String>,
    pub rows: Option<String>,
    pub range: Option<String>,
}

impl FilterForm {
    #[must_use]
    pub fn new(range: &DateRange, limit: u32, today: NaiveDate) -> Self {
        let choice = choice_of(range);
        let (from, to) = range.bounds(today);
        let show = |d| DateParam::shown(d, "");
        let mut form = Self {
            field: FormField::Range,
            choice,
            from: field(&show(from), false),
            to: field(&show(to), false),
            rows: field(&limit.to_string(), false),
            refused: false,
            problems: FilterProblems::default(),
            today,
        };
        form.recheck();
        form
    }

    /// Which field has the cursor.
    #[must_use]
    pub fn field(&self) -> FormField {
        self.field
    }

    /// What is wrong with the fields, as last checked.
    #[must_use]
    pub fn problems(&self) -> &FilterProblems {
        &self.problems
    }

    fn recheck(&mut self) {
        self.problems = self.check().err().unwrap_or_default();
    }

    fn show_focus(&mut self) {
        show_focus(&mut self.from, self.field == FormField::From);
        show_focus(&mut self.to, self.field == FormField::To);
        show_focus(&mut self.rows, self.field == FormField::Rows);
    }

    fn preset(&self) -> Option<DateRange> {
        PRESETS.get(self.choice).and_then(|(_, range)| *range)
    }

    /// Picks another preset and shows its dates in the date fields.
    fn choose(&mut self, step: isize) {
        let len = PRESETS.len().cast_signed();
        self.choice = (self.choice.cast_signed() + step)
            .rem_euclid(len)
            .cast_unsigned();
        if let Some(range) = self.preset() {
            let (from, to) = range.bounds(self.today);
            let show = |d| DateParam::shown(d, "");
            self.from = field(&show(from), false);
            self.to = field(&show(to), false);
        }
        self.recheck();
    }

    pub fn paste(&mut self, text: &str) {
        match self.field {
            FormField::Range => return,
            FormField::From => paste_into(&mut self.from, text),
            FormField::To => paste_into(&mut self.to, text),
            FormField::Rows => paste_into(&mut self.rows, text),
        }
        self.typed();
    }

    /// A field's text changed: a typed date makes the range custom, and the fields are
    /// checked again.
    fn typed(&mut self) {
        if matches!(self.field, FormField::From | FormField::To) {
            self.choice = custom_choice();
        }
        self.recheck();
    }

    /// The range and page size, or what is wrong with them.
    pub fn check(&self) -> Result<(DateRange, u32), FilterProblems> {
        let mut problems = FilterProblems::default();
        let date = |field, area: &TextArea<'_>, slot: &mut Option<String>| {
            let text = value(area);
            if text.is_empty() {
                return None;
            }
            DateParam::parse(field, &text)
                .map_err(|e| *slot = Some(e.to_string()))
                .ok()
        };
        let from = date("dateFrom", &self.from, &mut problems.from);
        let to = date("dateTo", &self.to, &mut problems.to);
        let rows = value(&self.rows);
        let limit = rows
            .parse::<u32>()
            .ok()
            .filter(|l| (1..=MAX_LIMIT).contains(l));
        if limit.is_none() {
            problems.rows = Some(format!(
                "rows per page must be a whole number from 1 to {MAX_LIMIT}"
            ));
        }
        let range = self.preset().unwrap_or(DateRange::Custom { from, to });
        let (date_from, date_to) = range.bounds(self.today);
        let query = VisitorsQuery {
            date_from,
            date_to,
            limit: None,
            offset: None,
        };
        if problems.from.is_none() && problems.to.is_none() {
            problems.range = query.validate().err().map(|e| e.to_string());
        }
        match limit {
            Some(limit) if problems == FilterProblems::default() => Ok((range, limit)),
            _ => Err(problems),
        }
    }

    fn focused_text(&mut self) -> Option<&mut TextArea<'static>> {
        match self.field {
            FormField::Range => None,
            FormField::From => Some(&mut self.from),
            FormField::To => Some(&mut self.to),
            FormField::Rows => Some(&mut self.rows),
        }
    }

    fn next_field(&mut self, forward: bool) {
        const ORDER: [FormField; 4] = [
            FormField::Range,
            FormField::From,
            FormField::To,
            FormField::Rows,
        ];
        let at = ORDER.iter().position(|f| *f == self.field).unwrap_or(0);
        self.field = ORDER[if forward { (at + 1) % 4 } else { (at + 3) % 4 }];
        self.show_focus();
    }
}

/// `e`: where and how to write the whole range.
#[derive(Debug)]
pub struct ExportForm {
    pub format: DataFormat,
    pub path: TextArea<'static>,
    on_format: bool,
    pub error: Option<String>,
    /// The file exists: the path as typed and where it resolved. Enter on the same text
    /// replaces it; any edit asks again.
    pub replace: Option<(String, PathBuf)>,
    query: VisitorsQuery,
}

impl ExportForm {
    /// Proposes `visitors-FROM-TO.csv` in the current folder.
    #[must_use]
    pub fn new(query: &VisitorsQuery) -> Self {
        let query = VisitorsQuery {
            limit: None,
            offset: None,
            ..query.clone()
        };
        let day = |d: Option<DateParam>| {
            d.map_or_else(
                || "all".to_owned(),
                |d| d.instant().format("%Y-%m-%d").to_string(),
            )
        };
        let name = format!(
            "visitors-{}-{}.csv",
            day(query.date_from),
            day(query.date_to)
        );
        Self {
            format: DataFormat::Csv,
            path: field(&name, false),
            on_format: true,
            error: None,
            replace: None,
            query,
        }
    }

    /// Whether the cursor is on the format (else on the file name).
    #[must_use]
    pub fn on_format(&self) -> bool {
        self.on_format
    }

    fn set_on_format(&mut self, on: bool) {
        self.on_format = on;
        show_focus(&mut self.path, !on);
    }

    /// The range to export, whole (no page).
    #[must_use]
    pub fn query(&self) -> &VisitorsQuery {
        &self.query
    }

    /// The file as typed, and whether replacing it was confirmed.
    #[must_use]
    pub fn target(&self) -> (PathBuf, bool) {
        let typed = value(&self.path);
        let confirmed = self.replace.as_ref().is_some_and(|(t, _)| *t == typed);
        (PathBuf::from(typed), confirmed)
    }

    /// The export found the file there: ask on the file field.
    pub fn ask_overwrite(&mut self, resolved: PathBuf) {
        self.replace = Some((value(&self.path), resolved));
        self.set_on_format(false);
        self.error = None;
    }

    pub fn paste(&mut self, text: &str) {
        if !self.on_format {
            paste_into(&mut self.path, text);
            self.replace = None;
        }
    }

    fn toggle_format(&mut self) {
        let from = self.format.extension();
        self.format = match self.format {
            DataFormat::Json => DataFormat::Csv,
            DataFormat::Csv => DataFormat::Json,
        };
        let to = self.format.extension();
        let path = value(&self.path);
        if let Some(stem) = path.strip_suffix(from) {
            self.path = field(&format!("{stem}{to}"), !self.on_format);
        }
    }
}

impl App {
    pub(super) fn on_form_key(
        &mut self,
        key: &KeyEvent,
        action: Option<Action>,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        if action == Some(Action::Close) {
            self.overlay = None;
            return;
        }
        // LF and CR typed as keys (a terminal's Enter, an unbracketed paste) mean Enter.
        let action = if action.is_none() && is_line_break(key) {
            Some(Action::Apply)
        } else {
            action
        };
        let Some(overlay) = self.overlay.take() else {
            return;
        };
        self.overlay = match overlay {
            Overlay::Track(form) => self.track_form(form, key, action, now, effects),
            Overlay::Filter(form) => self.filter_form(form, key, action, now, effects),
            Overlay::Export(form) => self.export_form(form, key, action, effects),
            other => Some(other),
        };
    }

    fn track_form(
        &mut self,
        mut form: Box<TrackForm>,
        key: &KeyEvent,
        action: Option<Action>,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) -> Option<Overlay> {
        match action {
            _ if form.looking_up => {}
            Some(Action::Apply) => match form.check() {
                Ok(id) => return self.start_tracking(form, id, now, effects),
                Err(problem) => form.error = Some(problem),
            },
            Some(Action::NextField | Action::PrevField) => {}
            _ => {
                type_into(&mut form.id, key);
                form.error = None;
            }
        }
        Some(Overlay::Track(form))
    }

    fn filter_form(
        &mut self,
        mut form: Box<FilterForm>,
        key: &KeyEvent,
        action: Option<Action>,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) -> Option<Overlay> {
        match action {
            Some(Action::Apply) => {
                if let Ok((range, limit)) = form.check() {
                    self.set_filter(range, limit, now, effects);
                    return None;
                }
                form.refused = true;
            }
            Some(Action::NextField) => form.next_field(true),
            Some(Action::PrevField) => form.next_field(false),
            Some(Action::ChoiceLeft | Action::ChoiceRight) if form.field == FormField::Range => {
                form.choose(if action == Some(Action::ChoiceLeft) {
                    -1
                } else {
                    1
                });
            }
            _ => {
                if let Some(area) = form.focused_text() {
                    type_into(area, key);
                    form.typed();
                }
            }
        }
        Some(Overlay::Filter(form))
    }

    fn export_form(
        &mut self,
        mut form: Box<ExportForm>,
        key: &KeyEvent,
        action: Option<Action>,
        effects: &mut Vec<Effect>,
    ) -> Option<Overlay> {
        match action {
            Some(Action::Apply) => {
                if value(&form.path).is_empty() {
                    form.error = Some("type the file to write".to_owned());
                    form.set_on_format(false);
                } else {
                    self.start_export(form, effects);
                    return None;
                }
            }
            Some(Action::NextField | Action::PrevField) => {
                let on = !form.on_format;
                form.set_on_format(on);
            }
            Some(Action::ChoiceLeft | Action::ChoiceRight) if form.on_format => {
                form.toggle_format()
            }
            _ if form.on_format => {}
            _ => {
                type_into(&mut form.path, key);
                form.error = None;
                if form
                    .replace
                    .as_ref()
                    .is_some_and(|(t, _)| *t != value(&form.path))
                {
                    form.replace = None;
                }
            }
        }
        Some(Overlay::Export(form))
    }
}
